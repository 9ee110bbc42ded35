package keep

import (
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// MayBeCorrection is the cheap, language-light test of a prompt that may
// correct the agent or teach it something: a request to keep a lesson,
// or a word of negation, contrast or rejection in any language of the
// tables. It favours recall: a prompt it flags only costs the agent a
// short note (see the nudge in internal/hook).
func MayBeCorrection(prompt string) bool {
	if len(prompt) > maxPrompt {
		prompt = cutUTF8(prompt, maxPrompt)
	}
	if notPerson(prompt) {
		return false
	}
	text := stripCode(prompt)
	t := markers()
	for _, s := range sentences(text) {
		low := lowerSameLength(s)
		for _, l := range t.langs {
			if l.anyIn(low, l.corrections) || l.anyIn(low, l.rememberers) {
				return true
			}
		}
	}
	return len(Find(prompt)) > 0
}

// About reports whether text (a lesson, a correction) is about the lesson
// an entry states: most of the lesson's telling words are in it, two at
// least. Words every lesson uses ("never", "please", "the") tell nothing;
// Chinese and Japanese are compared two characters at a time.
func About(text, lesson string) bool {
	l := telling(lesson)
	if len(l) == 0 {
		return false
	}
	tx := telling(text)
	shared := 0
	for w := range l {
		if tx[w] {
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
	t := markers()
	out := map[string]bool{}
	common := func(w string) bool {
		if t.words[w] {
			return true
		}
		for _, l := range t.langs {
			if l.common[w] {
				return true
			}
		}
		return false
	}
	for _, w := range knowledge.Words(s) {
		if strings.IndexFunc(w, cjk) >= 0 {
			r := []rune(w)
			for i := 0; i+1 < len(r); i++ {
				if cjk(r[i]) && cjk(r[i+1]) {
					if bg := string(r[i : i+2]); !common(bg) {
						out[bg] = true
					}
				}
			}
			continue
		}
		if len(w) < 3 || common(w) {
			continue
		}
		out[w] = true
	}
	return out
}
