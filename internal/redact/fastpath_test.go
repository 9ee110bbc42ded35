package redact

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestFastPathMatchesFullScan checks the anchored, windowed fast path
// against running every triggered rule over the whole text, as gitleaks
// does, on the corpus, real transcripts and the corpus joined into one
// text. The fast path is only an optimisation: it must redact every byte
// the full scan redacts. It may redact more: trying a rule at every keyword
// also finds matches that a whole-text scan skips because an earlier match
// swallowed their start (two private keys in a row, the first without its
// END line).
func TestFastPathMatchesFullScan(t *testing.T) {
	fast, err := New(Extra{})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := New(Extra{})
	full.full = true

	var texts []string
	var all []string
	for _, c := range loadCorpus(t) {
		texts = append(texts, c.text)
		all = append(all, c.text)
	}
	// The corpus joined and the transcripts take minutes under -race,
	// which has nothing to find in this single-goroutine comparison; the
	// lines alone still run there.
	if !raceEnabled {
		texts = append(texts, strings.Join(all, "\n"), strings.Join(all, " "))
		for _, name := range []string{"transcript.jsonl", "transcript2.jsonl"} {
			b, err := os.ReadFile("../../testdata/redact/" + name)
			if err != nil {
				t.Fatal(err)
			}
			// A whole-text scan with gitleaks' generic rule runs at
			// ~0.5 MB/s: 24 KB of each is enough to compare.
			texts = append(texts, string(b[:min(len(b), 24<<10)]))
		}
	}
	for _, s := range texts {
		a, b := fast.Find(s), full.Find(s)
		if slices.Equal(a, b) {
			continue
		}
		for _, f := range b {
			if !covered(a, f.Start, f.End) {
				t.Errorf("the fast path misses %s %q that the full scan finds", f.Rule, s[f.Start:f.End])
			}
		}
		t.Logf("fast path and full scan differ on %.60q:\nfast %v\nfull %v", s, a, b)
	}
}
