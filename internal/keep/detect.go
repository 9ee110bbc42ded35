package keep

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/words"
)

// About reports whether text (a lesson, a correction) is about the lesson
// an entry states: most of the lesson's telling words are in it, two at
// least. Words every lesson uses ("never", "please", "the") tell nothing;
// Chinese and Japanese are compared two characters at a time.
func About(text, lesson string) bool { return Tell(text).About(lesson) }

// Restates reports whether text says the lesson again: it is about it
// (About), and neither names another thing in one of the other's places
// (refilled). "Stop running make test before you commit" is about "Always
// run make lint before you commit" by most of its words, and says another
// rule.
func Restates(text, lesson string) bool {
	return About(text, lesson) && !refilled(words.Words(text), words.Words(lesson))
}

// refilled reports two word sequences one of which holds the other's
// sentence with another word in one or two of its places (refills).
func refilled(a, b []string) bool { return refills(a, b) || refills(b, a) }

// refills reports a text (its words) that holds the lesson's sentence
// with another word in one or two of its places: the same rule for
// another thing ("never edit generated files in api/", then "in web/";
// "run make lint before you commit", then "stop running make test before
// you commit"). Said again in other words, a rule changes its sentence's
// shape ("never run git push yourself", "never run git push on your own")
// and keeps its names.
func refills(t, l []string) bool {
	if len(l) < minRefilledWords {
		return false
	}
	if len(t) == len(l) {
		differ := 0
		for i := range l {
			if !sameWord(t[i], l[i]) {
				differ++
			}
		}
		if differ >= 1 && differ <= maxRefilled {
			return true
		}
	}
	// A word of the lesson the text lacks, where the text has another
	// between the two words around it.
	for i := 1; i+1 < len(l); i++ {
		if slices.ContainsFunc(t, func(w string) bool { return sameWord(w, l[i]) }) {
			continue
		}
		for p := 0; p+2 < len(t); p++ {
			if sameWord(t[p], l[i-1]) && sameWord(t[p+2], l[i+1]) {
				return true
			}
		}
	}
	return false
}

// minRefilledWords and maxRefilled: a sentence long enough to have a
// shape, and the places another thing fills in it.
const (
	minRefilledWords = 3
	maxRefilled      = 2
)

// sameWord reports one word, inflected or not ("commit", "commits",
// "committing"): the same, or beginning with the same five letters.
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return utf8.RuneCountInString(a[:n]) >= 5
}

// Text is a text's telling words, read once to be compared with many
// lessons.
type Text struct{ words map[string]bool }

// Tell reads a text's telling words.
func Tell(text string) Text { return Text{telling(text)} }

// About is the package's About, for this text.
func (t Text) About(lesson string) bool {
	lesson = withoutMachineFolders(lesson) // once, for both reads below
	// A text is compared with every entry's summary, and shares no
	// telling word with most: that is found before the summary's own set
	// is made.
	if !t.shares(lesson) {
		return false
	}
	l := telling(lesson)
	if len(l) == 0 {
		return false
	}
	shared := 0
	for w := range l {
		if t.words[w] {
			shared++
		}
	}
	need := 2
	if len(l) == 1 {
		need = 1
	}
	return shared >= need && 2*shared >= len(l)
}

// shares reports whether lesson has one of the text's telling words.
func (t Text) shares(lesson string) bool {
	found := false
	if len(t.words) > 0 {
		eachTelling(lesson, func(w string) { found = found || t.words[w] })
	}
	return found
}

// telling is the set of a text's words that say what it is about.
func telling(s string) map[string]bool {
	out := map[string]bool{}
	eachTelling(s, func(w string) { out[w] = true })
	return out
}

// eachTelling calls fn with each of a text's telling words (some more than
// once): its words but the short and the common ones, and of words in
// Chinese or Japanese each pair of characters that is not common.
func eachTelling(s string, fn func(string)) {
	extrasByCode()
	s = withoutMachineFolders(s)
	words.Each(s, func(w string) {
		if strings.IndexFunc(w, cjk) < 0 {
			if len(w) >= 3 && !common[w] {
				fn(w)
			}
			return
		}
		// Pairs of characters, cut from w: no copy.
		r0, n0 := utf8.DecodeRuneInString(w)
		for i := 0; i < len(w); {
			if i+n0 >= len(w) {
				break
			}
			r1, n1 := utf8.DecodeRuneInString(w[i+n0:])
			if cjk(r0) && cjk(r1) {
				if bg := w[i : i+n0+n1]; !common[bg] {
					fn(bg)
				}
			}
			i, r0, n0 = i+n0, r1, n1
		}
	})
}

// pathOpeners are what may stand right before a path in a sentence.
const pathOpeners = "`'\"“‘„«‹「『([{<"

// holdsAbsolutePath reports a word of s that starts a path at the root
// ("/srv", "~/src", "C:\\", "C:/"), without a copy of s: most lessons
// that hold a slash name a path in the project.
func holdsAbsolutePath(s string) bool {
	for i := 0; i < len(s); i++ {
		if i > 0 {
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if !unicode.IsSpace(r) && !strings.ContainsRune(pathOpeners, r) {
				continue
			}
		}
		switch {
		case s[i] == '/', s[i] == '~' && i+1 < len(s) && s[i+1] == '/':
			return true
		case i+2 < len(s) && s[i+1] == ':' && (s[i+2] == '\\' || s[i+2] == '/') && (s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z'):
			return true
		}
	}
	return false
}

// withoutMachineFolders writes each absolute path in s as its last two
// names: the folders before them are the machine's ("/tmp/go-build123/
// work/repo", "/Users/alice/src"), and two rules naming one folder of
// the project would share all of their words and read as one. A text
// without such a path is returned as it is, uncopied.
func withoutMachineFolders(s string) string {
	if !strings.ContainsAny(s, `/\`) || !holdsAbsolutePath(s) {
		return s
	}
	var b strings.Builder
	for i, f := range strings.Fields(s) {
		// "~/src" is as much the machine's as "/home/me/src".
		p := strings.TrimPrefix(strings.TrimLeft(f, pathOpeners), "~")
		if repopath.IsAbs(p) {
			// Stored as a path outside any project is: its last two names.
			f = repopath.Stored("", "", strings.TrimRight(p, "`'\"”’“»›」』)]}>,;:.!?…"))
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}
