// Package jsonstrtest holds the text that tests of devlearn's hand-written
// JSON hold to encoding/json: every way encoding/json writes a string.
package jsonstrtest

import (
	"math/rand/v2"
	"strings"
)

// Pieces are text that encoding/json writes in every way it has: plain,
// escaped for JSON, for HTML, for JavaScript, and invalid UTF-8.
var Pieces = []string{"a", "Lesson", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
	"é", "日本", "\u2028", "\u2029", "\u202f", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\U0001F600", "e_0123456789abcdef"}

// Text joins fewer than max random pieces.
func Text(r *rand.Rand, max int) string {
	var b strings.Builder
	for n := r.IntN(max); n > 0; n-- {
		b.WriteString(Pieces[r.IntN(len(Pieces))])
	}
	return b.String()
}
