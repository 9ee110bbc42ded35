// Package textcase changes the case of a sentence's first letter: a
// lesson joined after a clause ("When you change the schema, always
// run…") or made the start of one. A leaf, so that every package that
// writes lessons words them the same way.
package textcase

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// UpperFirst upper-cases the first letter, unless the first word names a
// file or a name in code, whose case is part of it ("config/settings.yaml
// is generated", "package.json", "user_id is a UUID").
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || named(s) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// named reports a first word that is a path, a file name or a name in
// code: it holds a slash, an underscore, or a dot followed by two letters
// ("package.json", "node.js"; not "e.g." or "i.e.").
func named(s string) bool {
	w, _, _ := strings.Cut(s, " ")
	w = strings.TrimRight(w, ".,:;!?")
	if strings.ContainsAny(w, "/\\_") {
		return true
	}
	for i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1; {
		r1, n := utf8.DecodeRuneInString(w[i+1:])
		r2, _ := utf8.DecodeRuneInString(w[i+1+n:])
		if unicode.IsLetter(r1) && unicode.IsLetter(r2) {
			return true
		}
		j := strings.IndexByte(w[i+1:], '.')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
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
