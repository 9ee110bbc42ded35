// Package textcase changes the case of a sentence's first letter: a
// lesson joined after a clause ("When you change the schema, always
// run…") or made the start of one. A leaf, so that every package that
// writes lessons words them the same way.
package textcase

import (
	"unicode"
	"unicode/utf8"
)

// UpperFirst upper-cases the first letter.
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// LowerFirst lowers a capital that only opens a sentence ("Always run"),
// not one that names something: an acronym such as "API" keeps its case.
func LowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
