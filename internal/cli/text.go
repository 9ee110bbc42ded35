package cli

import (
	"context"
	"unicode/utf8"
)

// ellipsis cuts s to at most n characters, marking the cut.
func ellipsis(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ctxBackground is the context of a command run from the terminal: locks
// wait as long as they must. Hooks use their own deadline instead.
func ctxBackground() context.Context { return context.Background() }
