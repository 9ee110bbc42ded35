package transcript

import (
	"strings"
)

// OwnWords returns what the person wrote in their own words: text without
// what an editor or a command template wrapped around it (Unwrap), nor
// what they pasted into it, which is someone else speaking (a program, a
// log, the agent, a document):
//
//   - fenced blocks (``` or ~~~; an unclosed fence runs to the end),
//   - lines that look like code, a log or a shell session (indented by a
//     tab or four spaces, comment lines, prompts, stack frames, log
//     levels and time stamps, lines ending in ; { or }),
//   - block quotes (> ...).
//
// What is left keeps its order; a removed run of lines becomes one empty
// line, so that the sentences on either side stay apart.
func OwnWords(text string) string {
	text = Unwrap(text)
	if !strings.ContainsAny(text, "\n>`~#/;{}$[") && !strings.HasPrefix(text, "    ") && !strings.HasPrefix(text, "\t") {
		return text // one plain line: nothing pasted (the common case)
	}
	var b strings.Builder
	fence := ""
	gap := false
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		pasted := true
		switch {
		case fence != "":
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence = trim[:3]
		case pastedLine(line, trim):
		default:
			pasted = false
		}
		if pasted {
			gap = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if gap {
				b.WriteByte('\n')
			}
		}
		gap = false
		b.WriteString(line)
	}
	return strings.TrimSpace(b.String())
}

// pastedLine reports a line that is code, a shell session, a log or a
// quote rather than the person's prose.
func pastedLine(line, trim string) bool {
	if trim == "" {
		return false
	}
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") {
		// Indented: code, unless it is a nested list item.
		if !listItem(trim) {
			return true
		}
	}
	for _, p := range []string{">", "//", "/*", "#!", "$ ", "<!--", "at ", "Traceback", "File \"", "[ERROR]", "[INFO]", "[WARN", "[DEBUG]", "ERROR ", "INFO ", "WARN ", "DEBUG ", "panic:", "goroutine ", "npm ERR!", "npm error", "npm warn"} {
		if strings.HasPrefix(trim, p) && (p != "at " || strings.Contains(trim, "(") && strings.Contains(trim, ":")) {
			return true
		}
	}
	if strings.HasPrefix(trim, "# ") && !strings.Contains(trim[2:], " ") {
		return true // a shell comment of one word; "# Title" lines of prose keep their spaces
	}
	if len(trim) > 10 && trim[4] == '-' && trim[7] == '-' && isDigits(trim[:4]) {
		return true // a log line that starts with a date: 2026-03-01...
	}
	for _, s := range []string{";", "{", "}", "*/", "-->"} {
		if strings.HasSuffix(trim, s) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// listItem reports a markdown list item: "- x", "* x", "+ x", "1. x".
func listItem(trim string) bool {
	if len(trim) > 1 && strings.ContainsRune("-*+", rune(trim[0])) && trim[1] == ' ' {
		return true
	}
	i := 0
	for i < len(trim) && trim[i] >= '0' && trim[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(trim) && (trim[i] == '.' || trim[i] == ')') && trim[i+1] == ' '
}
