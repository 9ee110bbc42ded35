package extract

import (
	"strings"
)

// A rule may only fire on what the writer says in their own words. mask
// returns text with everything else blanked out, byte for byte, so that a
// match found in the mask can be read back from the original at the same
// offsets:
//
//   - fenced code blocks (``` or ~~~, an unclosed fence runs to the end),
//   - lines that look like code or pasted output (indented by a tab or
//     four spaces, comment lines, lines ending in ; { or }),
//   - block quotes (> ...),
//   - "double-quoted" and “curly-quoted” passages,
//   - `inline code` (blanked with a different byte: a rule cannot start
//     there, but a lesson may include it, as in "you forgot to run `make`").
const (
	blank  = '\x01' // not prose at all
	inline = '\x02' // inline code: not a place for a trigger
)

func mask(text string) string {
	b := []byte(text)
	fence := ""
	start := 0
	for start <= len(b) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		line := text[start:end]
		trim := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			fill(b[start:end], blank)
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence = trim[:3]
			fill(b[start:end], blank)
		case codeLike(line, trim):
			fill(b[start:end], blank)
		default:
			maskInline(b[start:end], line)
		}
		start = end + 1
	}
	return string(b)
}

func fill(b []byte, c byte) {
	for i := range b {
		b[i] = c
	}
}

// codeLike reports a line that is code, a shell session, a log or a quote
// rather than the writer's prose.
func codeLike(line, trim string) bool {
	if trim == "" {
		return false
	}
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") {
		// Indented: code, unless it is a nested list item.
		if c := trim[0]; c != '-' && c != '*' && c != '+' && !(c >= '0' && c <= '9') {
			return true
		}
	}
	for _, p := range []string{">", "//", "/*", "#", "$ ", "<!--"} {
		if strings.HasPrefix(trim, p) {
			return true
		}
	}
	if strings.HasPrefix(trim, "at ") && strings.Contains(trim, "(") && strings.Contains(trim, ":") {
		return true // a stack frame
	}
	for _, s := range []string{";", "{", "}", "*/", "-->"} {
		if strings.HasSuffix(trim, s) {
			return true
		}
	}
	return false
}

// maskInline blanks `code` and quoted passages within one prose line.
func maskInline(b []byte, line string) {
	blankPair(b, line, "`", "`", inline)
	blankPair(b, line, "\"", "\"", blank)
	blankPair(b, line, "“", "”", blank)
}

// blankPair fills, with c, each span from open to the next close on the
// line (delimiters included). An unpaired delimiter is left alone.
func blankPair(b []byte, line, open, close string, c byte) {
	i := 0
	for {
		j := strings.Index(line[i:], open)
		if j < 0 {
			return
		}
		j += i
		k := strings.Index(line[j+len(open):], close)
		if k < 0 {
			return
		}
		k += j + len(open) + len(close)
		for p := j; p < k; p++ {
			if b[p] != blank {
				b[p] = c
			}
		}
		i = k
	}
}

// span is a sentence: offsets into the text and its mask.
type span struct{ start, end int }

// sentences splits the mask into sentences: at . ! ? ; followed by space or
// the end, at line breaks, and around blanked regions (a quote or a code
// block ends the sentence before it).
func sentences(m string) []span {
	var out []span
	start := -1
	flush := func(end int) {
		if start >= 0 {
			s, e := start, end
			for s < e && (m[s] == ' ' || m[s] == '\t') {
				s++
			}
			for e > s && (m[e-1] == ' ' || m[e-1] == '\t') {
				e--
			}
			if e > s {
				out = append(out, span{s, e})
			}
		}
		start = -1
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		switch {
		case c == '\n' || c == blank:
			flush(i)
		case c == '.' || c == '!' || c == '?' || c == ';':
			if i+1 == len(m) || m[i+1] == ' ' || m[i+1] == '\n' || m[i+1] == '\t' {
				if start < 0 {
					start = i
				}
				flush(i + 1)
				continue
			}
			if start < 0 {
				start = i
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(m))
	return out
}

// lowerASCII lower-cases ASCII letters only, so that byte offsets stay the
// same as in the original.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
