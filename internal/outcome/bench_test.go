package outcome

import (
	"fmt"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/observe"
)

// BenchmarkAssess is the counters' share of an ingest: a batch of 20
// sessions, each applying 10 of 200 items and sighting 5 lessons, against
// a log that already holds the counts of earlier batches (and, as the
// benchmark runs, of every batch before).
func BenchmarkAssess(b *testing.B) {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	items := map[string]Item{}
	for i := range 200 {
		s := fmt.Sprintf("obs_%012d", i)
		items[s] = Item{Subject: s, Observation: s, Text: fmt.Sprintf("Lesson %d: run the check number %d before committing module %d", i, i, i%17)}
	}
	batch := func(n int) ([]Use, []Sighting) {
		var uses []Use
		var seen []Sighting
		for s := range 20 {
			sess := fmt.Sprintf("s%d-%d", n, s)
			for k := range 10 {
				uses = append(uses, Use{Subject: fmt.Sprintf("obs_%012d", (s*7+k)%200), Session: sess, At: t0, How: Served})
			}
			for k := range 5 {
				seen = append(seen, Sighting{ID: fmt.Sprintf("obs_x%d", k), Pattern: fmt.Sprintf("Forgot to run the check number %d before committing", s*3+k), Session: sess, At: t0.Add(time.Minute)})
			}
		}
		return uses, seen
	}
	find := func(s string) (Item, bool) { it, ok := items[s]; return it, ok }
	opt := Options{Now: t0, HelpfulAfter: 3, Similarity: 0.6}
	log := observe.NewLog()
	for n := range 10 {
		u, s := batch(n)
		Assess(log, u, s, find, opt)
	}
	n := 10
	for b.Loop() {
		b.StopTimer()
		uses, seen := batch(n)
		n++
		b.StartTimer()
		Assess(log, uses, seen, find, opt)
	}
}
