package worker

import (
	"context"
	"os"
	"time"
)

// Cloche's debounce (docs/evolution.md, Worker throttling): sessions that end together (parallel agents on one
// project, a person closing several terminals) make one pass, not one
// each. The worker waits, holding its lock, until no session has ended for
// Debounce; a SessionEnd hook that comes meanwhile finds the lock held and
// leaves its session to this worker, which reads the spool only once the
// wait is over.

// MaxDebounceRounds bounds the wait: sessions that keep ending every few
// seconds would otherwise hold the batch back for ever.
const MaxDebounceRounds = 10

// debounce waits until the newest spooled session is Debounce old, by the
// files' times and the wall clock (not DEVLEARN_NOW: the sessions ended in
// real time). It returns how long it waited.
func (r *Runner) debounce(ctx context.Context) time.Duration {
	if r.Debounce <= 0 {
		return 0
	}
	wall, sleep := r.Wall, r.Sleep
	if wall == nil {
		wall = time.Now
	}
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
		}
	}
	var waited time.Duration
	for round := 0; round < MaxDebounceRounds && ctx.Err() == nil; round++ {
		newest := r.State.newestEnd()
		if newest.IsZero() {
			return waited
		}
		wait := newest.Add(r.Debounce).Sub(wall())
		if wait <= 0 {
			return waited
		}
		sleep(ctx, wait)
		waited += wait
	}
	return waited
}

// newestEnd is when the latest spooled session ended (its entry's time).
func (s *State) newestEnd() time.Time {
	ents, err := os.ReadDir(s.spoolDir())
	if err != nil {
		return time.Time{}
	}
	var newest time.Time
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || fi.IsDir() {
			continue
		}
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
	}
	return newest
}
