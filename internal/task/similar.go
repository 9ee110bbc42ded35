package task

import (
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Terms are what two rejections are compared by (ClawFlow's similarity detection, docs/gates.md): the error
// messages, the file paths and the key nouns of their feedback, as simple
// strings (no model). Numbers are dropped from messages and paths lose
// their line and column, so the same failure seen twice gives the same
// terms whatever moved between the two runs.
type Terms struct {
	Messages []string `json:"messages,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Nouns    []string `json:"nouns,omitempty"`
}

// Size is the number of terms.
func (t Terms) Size() int { return len(t.Messages) + len(t.Paths) + len(t.Nouns) }

// errorWords mark a line as an error message.
// They are the words tools print, not the words people use to describe a
// problem ("missing", "wrong"), which stay nouns.
var errorWords = []string{"error", "fail", "panic", "exception", "assert", "expected", "undefined", "cannot", "can't", "not found", "traceback", "timed out"}

// stopwords are words that say nothing about what went wrong: English
// glue, and the words every test runner prints. Built the first time they
// are asked for: the hook binary links this package, and an init cost
// every hook call 0.04 ms.
var stopwords = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(`the and for with that this from have has had was were are not but into must should also still again when then than there their them they will would could does did done been being just only more most some such very your you our its over under about after before because while which what where who how why all any each other same here now one two three out off onto upon like make made makes use used uses using need needs needed want wants seems seem look looks
		fail fails failed failing failure failures error errors pass passes passed passing run runs running ran exit exited status code line lines file files test tests testing ok got want expected actual value values true false nil null none
		please fix fixed fixing again approach attempt attempts previous rejected rejection reject`) {
		out[w] = true
	}
	return out
})

// ExtractTerms finds the terms of a feedback text. Nouns come from the
// error lines when there are any (a test run's log is mostly noise), and
// from the whole text otherwise (a person's words).
func ExtractTerms(text string) Terms {
	seen := map[string]bool{}
	add := func(list *[]string, kind, term string) {
		if term == "" || seen[kind+term] {
			return
		}
		seen[kind+term] = true
		*list = append(*list, term)
	}
	var t Terms
	var errLines []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		low := strings.ToLower(l)
		for _, w := range errorWords {
			if strings.Contains(low, w) {
				errLines = append(errLines, l)
				add(&t.Messages, "m", normalizeMessage(low))
				break
			}
		}
		for _, p := range paths(l) {
			add(&t.Paths, "p", p)
		}
	}
	nounText := text
	if len(errLines) > 0 {
		nounText = strings.Join(errLines, "\n")
	}
	for _, w := range words(nounText) {
		add(&t.Nouns, "n", w)
	}
	sort.Strings(t.Messages)
	sort.Strings(t.Paths)
	sort.Strings(t.Nouns)
	return t
}

// normalizeMessage drops what changes between two runs of one failure:
// numbers (with their decimals, separators and unit: 0.01s, 12:5, 42%),
// hexadecimal addresses, and runs of spacing. Hand-written: it runs on
// every error line of a gate's output, where regular expressions cost ten
// times as much.
func normalizeMessage(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			space = b.Len() > 0
			i++
			continue
		case c == '0' && i+2 < len(s) && s[i+1] == 'x' && isHex(s[i+2]):
			i += 2
			for i < len(s) && isHex(s[i]) {
				i++
			}
			c = '#'
		case c >= '0' && c <= '9' && (i == 0 || !isWordByte(s[i-1])):
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || (s[i] == '.' || s[i] == ',' || s[i] == ':') && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9') {
				i++
			}
			for _, unit := range []string{"ms", "µs", "ns", "s", "m", "h", "%"} {
				if strings.HasPrefix(s[i:], unit) && (i+len(unit) == len(s) || !isWordByte(s[i+len(unit)])) {
					i += len(unit)
					break
				}
			}
			c = '#'
		default:
			i++
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// paths finds the file paths of a line, lower-cased with forward slashes
// and without their :line:col: a/b/c.go, ./x.ts, C:\src\y.py, main.rs:12:5,
// example.com/pkg. A path is a word (split at spaces, quotes, brackets and
// commas) with a slash in it, or a name with an extension of one to five
// letters and digits that starts with a letter.
func paths(line string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(line, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;=|", r)
	}) {
		p := strings.TrimRight(w, ".:")
		for { // drop :line and :col
			i := strings.LastIndexByte(p, ':')
			if i <= 1 || !isNumber(p[i+1:]) || p[i+1:] == "" {
				break
			}
			p = p[:i]
		}
		p = strings.TrimPrefix(strings.ReplaceAll(p, `\`, "/"), "./")
		if isPathLike(p) {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}

func isPathLike(p string) bool {
	if strings.Trim(p, "./") == "" || isNumber(p) {
		return false
	}
	if strings.Contains(p, "/") {
		return strings.IndexFunc(p, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
	}
	dot := strings.LastIndexByte(p, '.')
	if dot < 2 || len(p)-dot-1 < 1 || len(p)-dot-1 > 5 {
		return false
	}
	ext := p[dot+1:]
	if !(ext[0] >= 'a' && ext[0] <= 'z' || ext[0] >= 'A' && ext[0] <= 'Z') {
		return false
	}
	for _, r := range ext {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	return true
}

// words are the key nouns of a text, as well as plain string matching can
// find them: words of four letters or more (identifiers split at case
// changes and underscores are kept whole), lower-cased, a plural "s"
// dropped, without the stopwords.
func words(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		w := strings.ToLower(f)
		if len([]rune(w)) < 4 || isNumber(w) || stopwords()[w] {
			continue
		}
		if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 4 {
			w = strings.TrimSuffix(w, "s")
		}
		if stopwords()[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// Overlap is the share of terms two feedbacks have in common: the number
// of shared terms over the number of distinct terms of both (Jaccard),
// messages, paths and nouns alike. Two empty feedbacks share nothing.
func Overlap(a, b Terms) float64 {
	set := func(t Terms) map[string]bool {
		m := map[string]bool{}
		for _, x := range t.Messages {
			m["m:"+x] = true
		}
		for _, x := range t.Paths {
			m["p:"+x] = true
		}
		for _, x := range t.Nouns {
			m["n:"+x] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	union := len(sa)
	shared := 0
	for k := range sb {
		if sa[k] {
			shared++
		} else {
			union++
		}
	}
	if union == 0 {
		return 0
	}
	return float64(shared) / float64(union)
}

// Similar reports whether two feedbacks are similar: more than threshold
// of their terms overlap (ClawFlow: "> 50%").
func Similar(a, b string, threshold float64) (bool, float64) {
	o := Overlap(ExtractTerms(a), ExtractTerms(b))
	return o > threshold, o
}
