package worker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

// Sessions that end together make one pass: the worker waits until the
// newest has been spooled for Debounce, taking in one that ends during
// the wait, and then runs one batch with all of them.
func TestDebounceWaitsForSessionsEndingTogether(t *testing.T) {
	c := &clock{t: day1}
	r := newRunner(t, config.Worker{BatchSize: 2, DailyCap: 5}, c)
	wall := time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)
	spool := func(id string, at time.Time) {
		if err := r.State.Add(entry(id, at)); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(r.State.spoolDir(), FileName(id)), at, at)
	}
	spool("a", wall.Add(-20*time.Second))
	spool("b", wall.Add(-5*time.Second))
	var slept []time.Duration
	r.Debounce = 30 * time.Second
	r.Wall = func() time.Time { return wall }
	r.Sleep = func(_ context.Context, d time.Duration) {
		slept = append(slept, d)
		wall = wall.Add(d)
		if len(slept) == 1 {
			spool("c", wall.Add(-time.Second)) // ends during the wait
		}
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 2 || slept[0] != 25*time.Second || slept[1] != 29*time.Second {
		t.Fatalf("slept %v", slept)
	}
	if len(r.batches) != 1 || len(r.batches[0]) != 3 {
		t.Fatalf("batches %v: want one with the three sessions", r.batches)
	}
}

func TestNoDebounceRunsAtOnce(t *testing.T) {
	c := &clock{t: day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 5}, c)
	r.State.Add(entry("a", day1))
	r.Sleep = func(context.Context, time.Duration) { t.Fatal("slept with Debounce 0") }
	if _, err := r.Run(context.Background()); err != nil || len(r.batches) != 1 {
		t.Fatalf("%v %v", r.batches, err)
	}
}
