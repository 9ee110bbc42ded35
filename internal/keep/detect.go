package keep

import (
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// About reports whether text (a lesson, a correction) is about the lesson
// an entry states: most of the lesson's telling words are in it, two at
// least. Words every lesson uses ("never", "please", "the") tell nothing;
// Chinese and Japanese are compared two characters at a time.
func About(text, lesson string) bool { return Tell(text).About(lesson) }

// Text is a text's telling words, read once to be compared with many
// lessons.
type Text struct{ words map[string]bool }

// Tell reads a text's telling words.
func Tell(text string) Text { return Text{telling(text)} }

// About is the package's About, for this text.
func (t Text) About(lesson string) bool {
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

// telling is the set of a text's words that say what it is about.
func telling(s string) map[string]bool {
	extrasByCode()
	out := map[string]bool{}
	for _, w := range knowledge.Words(s) {
		if strings.IndexFunc(w, cjk) >= 0 {
			r := []rune(w)
			for i := 0; i+1 < len(r); i++ {
				if cjk(r[i]) && cjk(r[i+1]) {
					if bg := string(r[i : i+2]); !common[bg] {
						out[bg] = true
					}
				}
			}
			continue
		}
		if len(w) < 3 || common[w] {
			continue
		}
		out[w] = true
	}
	return out
}
