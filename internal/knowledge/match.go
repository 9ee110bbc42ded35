package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devlearn/devlearn/internal/repopath"
)

// Words splits text into the words keywords are matched on: lower case,
// letters and digits only, a plural "s" dropped ("releases" matches
// "release"). Matching whole words keeps "test" from firing on "latest".
func Words(s string) []string {
	var out []string
	eachWord(s, func(w string) { out = append(out, w) })
	return out
}

// EachWord calls fn with each word of Words(s), in order, without making
// the list.
func EachWord(s string, fn func(string)) { eachWord(s, fn) }

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

// Glob is a file trigger ready to match: the doublestar pattern in the
// form paths are compared in (slashed, lower case: file systems on
// Windows and macOS ignore case, and a lesson learned on one fires on the
// other), and a literal part every matching path must contain, checked
// first because a substring test costs a fraction of a full match.
type Glob struct {
	Pattern string
	Literal string
	// Shown is the pattern as written, for explanations.
	Shown string
	// Derived: read from the lesson's text rather than written as a
	// trigger (explanations say so).
	Derived bool
}

// CompileGlob prepares a pattern, written relative to the project root
// with either kind of slash. An absolute pattern (a path in another clone
// or on another machine) matches a project path that its own path ends
// with: "/home/alice/shop/internal/x.go" matches "internal/x.go".
func CompileGlob(pattern string) Glob {
	g := Glob{Pattern: repopath.Fold(pattern), Shown: pattern}
	if strings.ContainsAny(g.Pattern, "{") {
		return g // alternatives: no single literal is required
	}
	best := ""
	for _, part := range strings.FieldsFunc(g.Pattern, func(r rune) bool { return strings.ContainsRune("*?[]", r) }) {
		if strings.Contains(part, "]") {
			continue
		}
		if len(part) > len(best) {
			best = part
		}
	}
	// A class "[...]" was split on its brackets above; its inside is not
	// literal. Only keep the literal when the pattern has no class at all.
	if strings.ContainsAny(g.Pattern, "[]") {
		best = ""
	}
	if repopath.IsAbs(g.Pattern) {
		// A tail may start anywhere in it: only its last segment is sure.
		best = best[strings.LastIndexByte(best, '/')+1:]
	}
	g.Literal = strings.Trim(best, "/")
	return g
}

// Match reports whether path matches; path is in the form Fold gives.
func (g Glob) Match(path string) bool {
	if g.Literal != "" && !strings.Contains(path, g.Literal) {
		return false
	}
	if doublestar.MatchUnvalidated(g.Pattern, path) {
		return true
	}
	if repopath.IsAbs(path) || !repopath.IsAbs(g.Pattern) {
		return false
	}
	// An absolute pattern: does a tail of it, starting at a whole
	// segment, match the project path?
	for i := 0; i < len(g.Pattern); i++ {
		if g.Pattern[i] != '/' {
			continue
		}
		tail := g.Pattern[i+1:]
		if tail == "" || tail[0] == '*' {
			break // "**/x" would match far more than the lesson's file
		}
		if doublestar.MatchUnvalidated(tail, path) {
			return true
		}
	}
	return false
}

// MatchName reports whether a bare file name, as a request names it
// ("fix client.ts"), is the file the glob's last segment names.
func (g Glob) MatchName(name string) bool {
	last := g.Pattern[strings.LastIndexByte(g.Pattern, '/')+1:]
	if last == "" || strings.ContainsAny(last, "*?[{") {
		return false
	}
	return last == name
}

// Broad reports whether the glob names neither a file nor a folder, only
// an ending anywhere under a tree ("**/*.go", "internal/**/*.go"):
// matching it says little about what a call is for. "db/migrations/**"
// and "**/module5/*.go" name a folder, "**/*_test.go" a kind of file.
func (g Glob) Broad() bool {
	i := strings.LastIndexByte(g.Pattern, '/')
	last := g.Pattern[i+1:]
	if !strings.ContainsAny(last, "*?") {
		return false
	}
	if dot := strings.IndexByte(last, '.'); dot >= 0 {
		last = last[:dot]
	}
	if strings.Trim(last, "*?") != "" {
		return false
	}
	if i < 0 {
		return true
	}
	prev := g.Pattern[strings.LastIndexByte(g.Pattern[:i], '/')+1 : i]
	return prev == "**"
}
