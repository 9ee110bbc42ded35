package cli

import "unicode/utf8"

// ellipsis cuts s to at most n characters, marking the cut.
func ellipsis(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
