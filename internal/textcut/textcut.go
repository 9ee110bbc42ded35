// Package textcut bounds text by its size in bytes without splitting a
// character: the hook and the keep detector both read only the start of a
// prompt that may be megabytes of pasted log. It imports nothing of
// devlearn, so that any package may use it.
package textcut

import "unicode/utf8"

// Bytes returns the longest start of s that is at most max bytes and ends
// at a character boundary. max <= 0 gives "". In text that is not valid
// UTF-8 the cut moves back past stray continuation bytes too, so it is
// never longer than max.
func Bytes(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// Tail returns the longest end of s that is at most max bytes and starts
// at a character boundary: the end of an agent's turn is what the
// person's reply answers. max <= 0 gives "".
func Tail(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max {
		return s
	}
	from := len(s) - max
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return s[from:]
}
