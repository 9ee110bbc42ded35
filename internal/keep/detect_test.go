package keep

import (
	"maps"
	"strings"
	"testing"
	"unicode"

	"github.com/devlearn/devlearn/internal/words"
)

// refTelling is telling as it was first written: the words, then the
// pairs of characters of a []rune, each a new string.
func refTelling(s string) map[string]bool {
	extrasByCode()
	out := map[string]bool{}
	for _, w := range words.Words(s) {
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

// refAbout is About without the early "no telling word shared".
func refAbout(text, lesson string) bool {
	t, l := refTelling(text), refTelling(lesson)
	if len(l) == 0 {
		return false
	}
	shared := 0
	for w := range l {
		if t[w] {
			shared++
		}
	}
	need := 2
	if len(l) == 1 {
		need = 1
	}
	return shared >= need && 2*shared >= len(l)
}

// FuzzTelling: the telling words read without copies, and About with its
// early answer, are what the plain reading gives.
func FuzzTelling(f *testing.F) {
	for _, s := range []string{
		"Never run git push yourself.", "不要自己运行 git push，我说过了", "コミット前に必ず npm test を実行すること",
		"Use pnpm, not npm; the lockfile is pnpm-lock.yaml", "日本語とEnglishの混在テキスト", "한국어 문장도 있습니다", "\xffä日\x80本",
	} {
		f.Add(s, "Never run git push yourself; 不要自己运行 git push。")
	}
	f.Fuzz(func(t *testing.T, text, lesson string) {
		if got, want := telling(text), refTelling(text); !maps.Equal(got, want) {
			t.Fatalf("telling(%q) = %v, want %v", text, got, want)
		}
		if got, want := About(text, lesson), refAbout(text, lesson); got != want {
			t.Fatalf("About(%q, %q) = %v, want %v", text, lesson, got, want)
		}
	})
}

// cjk's shortcut: no rune below cjkFirst is in its tables, and the first
// rune of Hangul Jamo is.
func TestCJKBelowJamo(t *testing.T) {
	for r := rune(0); r < cjkFirst; r++ {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			t.Fatalf("%U is in cjk's tables, below cjkFirst", r)
		}
	}
	if !cjk(cjkFirst) {
		t.Fatalf("%U is not cjk", cjkFirst)
	}
}
