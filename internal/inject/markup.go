package inject

import "strings"

// harnessTags are the names of the tags agents' harnesses and chat
// templates use to frame turns, system text and tool calls. Ordinary HTML
// and generics (<div>, <T>, <string>) are not among them and pass as
// they are.
var harnessTags = map[string]bool{
	"system": true, "system-reminder": true, "system_reminder": true, "system-prompt": true, "system_prompt": true,
	"human": true, "assistant": true, "developer": true,
	"tool_use": true, "tool_result": true, "tool_call": true, "tool_calls": true,
	"function_calls": true, "function_call": true, "function_results": true, "function_result": true,
	"invoke": true, "parameter": true, "instructions": true, "user-prompt-submit-hook": true,
	"command-name": true, "command-message": true, "command-args": true, "local-command-stdout": true,
	"im_start": true, "im_end": true, "start_of_turn": true, "end_of_turn": true,
}

// closingOnly are tag names that are also common placeholders ("/Users/<user>/",
// "run <tool>"): only their closing tag is the harness's.
var closingOnly = map[string]bool{"user": true, "tool": true}

// harnessTagPrefixes: any tag in these namespaces is the harness's.
var harnessTagPrefixes = []string{"antml:", "anthropic:"}

// roles are the speakers a line may pretend to open ("SYSTEM: ...").
var roles = []string{"system", "assistant", "human", "developer"}

// bracketed are the chat-template markers written in square brackets.
var bracketed = []string{"[INST]", "[/INST]", "[SYS]", "[/SYS]"}

// Quoted is what a role line is prefixed with when served.
const Quoted = "(quoted) "

// Markup lists the harness and role markup of a text.
func Markup(s string) []Finding {
	var out []Finding
	scanMarkup(s, func(start, end int, _ string) {
		out = append(out, Finding{Line: lineAt(s, start), Kind: KindMarkup, Text: cut(s[start:end])})
	})
	return out
}

// Neutralise is the text with its harness and role markup made plain
// text: a tag's angle brackets as &lt; &gt;, a chat-template marker's
// bracket as &#91;, a role line prefixed with Quoted. Everything else is
// kept byte for byte, so Markdown and code read as they were written.
func Neutralise(s string) string {
	if !mayHaveMarkup(s) {
		return s
	}
	var b strings.Builder
	last := 0
	scanMarkup(s, func(start, end int, repl string) {
		if b.Len() == 0 {
			b.Grow(len(s) + 64)
		}
		b.WriteString(s[last:start])
		b.WriteString(repl)
		last = end
	})
	if last == 0 && b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// mayHaveMarkup is a cheap first look: no '<', no '[' and no ':' means no
// markup.
func mayHaveMarkup(s string) bool { return strings.ContainsAny(s, "<[:") }

// scanMarkup calls visit for each piece of markup, in order, with its
// byte range and what it is served as.
func scanMarkup(s string, visit func(start, end int, repl string)) {
	for lineStart := 0; lineStart < len(s); {
		lineEnd := strings.IndexByte(s[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s)
		} else {
			lineEnd += lineStart
		}
		scanLine(s, lineStart, lineEnd, visit)
		lineStart = lineEnd + 1
	}
}

func scanLine(s string, from, to int, visit func(start, end int, repl string)) {
	line := s[from:to]
	// A role line: "SYSTEM: ...", "> Assistant: ...", "  human : ...".
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '>') {
		i++
	}
	for _, r := range roles {
		if len(line)-i > len(r) && strings.EqualFold(line[i:i+len(r)], r) {
			j := i + len(r)
			for j < len(line) && line[j] == ' ' {
				j++
			}
			if j < len(line) && line[j] == ':' {
				visit(from+i, from+j+1, Quoted+line[i:j+1])
				i = j + 1
				break
			}
		}
	}
	for i < len(line) {
		k := strings.IndexAny(line[i:], "<[")
		if k < 0 {
			return
		}
		i += k
		if n, repl := markupAt(line[i:]); n > 0 {
			visit(from+i, from+i+n, repl)
			i += n
			continue
		}
		i++
	}
}

// markupAt is the length of the markup s starts with (0 for none) and its
// neutral form.
func markupAt(s string) (int, string) {
	if s[0] == '[' {
		for _, m := range bracketed {
			if len(s) >= len(m) && strings.EqualFold(s[:len(m)], m) {
				return len(m), "&#91;" + s[1:len(m)]
			}
		}
		return 0, ""
	}
	// <|im_start|>, <|endoftext|>: a chat template's special token.
	if strings.HasPrefix(s, "<|") {
		j := 2
		for j < len(s) && j < 40 && (isNameByte(s[j]) || s[j] == '.') {
			j++
		}
		if j > 2 && strings.HasPrefix(s[j:], "|>") {
			return j + 2, "&lt;" + s[1:j+1] + "&gt;"
		}
		return 0, ""
	}
	// <<SYS>> and <</SYS>>.
	for _, m := range []string{"<<SYS>>", "<</SYS>>"} {
		if len(s) >= len(m) && strings.EqualFold(s[:len(m)], m) {
			return len(m), "&lt;&lt;" + s[2:len(m)-2] + "&gt;&gt;"
		}
	}
	j := 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	nameStart := j
	for j < len(s) && (isNameByte(s[j]) || s[j] == ':') {
		j++
	}
	name := strings.ToLower(s[nameStart:j])
	if j == nameStart || !isHarnessTag(name) && !(closingOnly[name] && nameStart == 2) {
		return 0, ""
	}
	if j < len(s) && s[j] != '>' && s[j] != ' ' && s[j] != '\t' && s[j] != '/' {
		return 0, ""
	}
	// The tag up to its '>' on this line (attributes included), or the
	// opening bracket alone when it does not close here.
	if k := strings.IndexByte(s[j:], '>'); k >= 0 {
		end := j + k + 1
		return end, "&lt;" + s[1:end-1] + "&gt;"
	}
	return 1, "&lt;"
}

func isHarnessTag(name string) bool {
	if harnessTags[name] {
		return true
	}
	for _, p := range harnessTagPrefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
