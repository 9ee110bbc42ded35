// Package textsim tells whether two short texts (lessons, bullets) say the
// same thing, without a model: both are normalised like observation ids
// (NFKC, lower case, no punctuation), cut into words, stripped of the
// words every lesson shares (stopwords.txt) and of common English
// suffixes, and compared as sets (Jaccard). It is meant for one-line
// lessons: "Always run the tests before you commit" and "Run the tests
// before committing" are the same lesson (1.0); "Run gofmt before
// committing" is another (0.33).
package textsim

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/textkey"
)

//go:embed stopwords.txt
var stopwordsTxt string

var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(stopwordsTxt, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
})

// Words returns the words of s that carry its meaning, stemmed, once
// each, in order of first appearance.
func Words(s string) []string {
	stop := stopwords()
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(textkey.Normalize(s)) {
		w = strings.ReplaceAll(w, "’", "")
		if stop[w] {
			continue
		}
		w = stem(w)
		if w == "" || stop[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// stem strips the English suffixes that make one word look like two
// ("commit", "commits", "committing", "committed"). It is deliberately
// crude: both sides of a comparison go through it, so it only has to be
// consistent, and it leaves words of other scripts and short words alone.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, suf := range []string{"ing", "ed", "es", "s", "ly"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			break
		}
	}
	// "committ" (from committing) and "commit": a doubled final
	// consonant left by the suffix.
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	// "changes" → "chang", "change" → "change": drop a final e.
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// Similarity is the share of words two texts have in common (Jaccard of
// their Words): 1 for the same lesson in other words, 0 for nothing
// shared. Two texts without any meaningful word are not similar.
func Similarity(a, b string) float64 {
	return Of(Words(a), Words(b))
}

// Of is Similarity for word lists already computed.
func Of(wa, wb []string) float64 {
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	set := make(map[string]bool, len(wa))
	for _, w := range wa {
		set[w] = true
	}
	shared := 0
	for _, w := range wb {
		if set[w] {
			shared++
		}
	}
	union := len(wa) + len(wb) - shared
	return float64(shared) / float64(union)
}
