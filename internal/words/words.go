// Package words splits text into the words lessons are matched on and
// finds keywords in it. A leaf: every package that matches words uses this
// one definition, so a keyword fires the same way wherever it is checked.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words splits text into the words keywords are matched on: lower case,
// letters and digits only, a plural "s" dropped ("releases" matches
// "release"). Matching whole words keeps "test" from firing on "latest".
func Words(s string) []string {
	var out []string
	eachWord(s, func(w string) { out = append(out, w) })
	return out
}

// Each calls fn with each word of Words(s), in order, without making
// the list.
func Each(s string, fn func(string)) { eachWord(s, fn) }

// Phrase is a keyword in matching form: its words joined by one space.
func Phrase(keyword string) string { return strings.Join(Words(keyword), " ") }

func eachWord(s string, fn func(string)) {
	start := -1
	lower := true
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if word {
			if start < 0 {
				start, lower = i, true
			}
			if r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && unicode.ToLower(r) != r {
				lower = false
			}
			continue
		}
		if start >= 0 {
			fn(stem(s[start:i], lower))
			start = -1
		}
	}
	if start >= 0 {
		fn(stem(s[start:], lower))
	}
}

func stem(w string, lower bool) string {
	if !lower {
		w = strings.ToLower(w)
	}
	if len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' {
		w = w[:len(w)-1]
	}
	return w
}

// Haystack is the text a tool call's keywords are looked for in (recent
// prompts and the tool's input), indexed by word so that each keyword
// costs a map lookup, whatever the number of entries.
type Haystack struct {
	pos map[string][]int32
}

// NewHaystack indexes texts. Words of different texts are never adjacent,
// so a phrase cannot match across two prompts.
func NewHaystack(texts ...string) *Haystack {
	h := &Haystack{pos: map[string][]int32{}}
	var n int32
	for _, t := range texts {
		eachWord(t, func(w string) {
			h.pos[w] = append(h.pos[w], n)
			n++
		})
		n += 2
	}
	return h
}

// Has reports whether a phrase (in Phrase form) occurs, its words in order
// and adjacent.
func (h *Haystack) Has(phrase string) bool {
	if h == nil || phrase == "" {
		return false
	}
	first, rest, multi := strings.Cut(phrase, " ")
	starts := h.pos[first]
	if !multi || len(starts) == 0 {
		return len(starts) > 0
	}
	for _, p := range starts {
		if h.follows(rest, p+1) {
			return true
		}
	}
	return false
}

func (h *Haystack) follows(rest string, at int32) bool {
	for rest != "" {
		var w string
		w, rest, _ = strings.Cut(rest, " ")
		if !contains32(h.pos[w], at) {
			return false
		}
		at++
	}
	return true
}

func contains32(list []int32, x int32) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// PathLike reports whether a word looks like a path or a file name
// ("scripts/hooks/", "config.yaml"), not a version or an abbreviation.
func PathLike(w string) bool {
	if strings.ContainsAny(w, "/*") {
		return true
	}
	// "config.yaml", not "e.g" or "v1.2".
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return false
	}
	ext := w[dot+1:]
	if len(ext) > 5 {
		return false
	}
	letters := 0
	for _, c := range ext {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters > 0 && len(w[:dot]) > 1
}

// EachDistinct calls fn once with each distinct word indexed, in no
// particular order (a cache keys what a request could match on by them).
func (h *Haystack) EachDistinct(fn func(string)) {
	for w := range h.pos {
		fn(w)
	}
}
