package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
)

// Decision is the SessionEnd hook's answer to "start a worker now?".
type Decision struct {
	Waiting int    // sessions in the spool, this one included
	Start   bool   // start a worker
	Why     string // why not, when Start is false
	Capped  bool   // a batch is due but the daily cap holds it back
}

// Due decides whether a worker should start: a batch is waiting, today's
// runs are under the cap, and no worker holds the lock (a running worker
// takes the waiting sessions when its batch is done). It reads names, one
// small file and a lock, nothing more.
func (s *State) Due(now time.Time, cfg config.Worker) (Decision, error) {
	n, err := s.Waiting()
	if err != nil {
		return Decision{}, err
	}
	orphans, err := entryNames(s.claimedDir())
	if err != nil {
		return Decision{}, err
	}
	d := Decision{Waiting: n + len(orphans)}
	_, d.Why, d.Capped, err = s.batchDue(now, cfg, d.Waiting, len(orphans))
	if err != nil {
		return Decision{}, err
	}
	if d.Why != "" {
		return d, nil
	}
	unlock, free, err := jsonl.TryLock(s.LockPath())
	if err != nil {
		return Decision{}, err
	}
	if !free {
		d.Why = "a worker is running: it takes these sessions when its batch is done"
		return d, nil
	}
	unlock()
	d.Start = true
	return d, nil
}

// batchDue is the one rule for "is a batch due, and does the daily cap
// allow it", shared by the hook's Due and the worker's loop so they never
// disagree: a batch is BatchSize waiting sessions, or any left claimed by
// a crashed run (part of a due batch already). why is "" when it may run,
// isCapped says the cap holds a due batch back, and used is today's runs.
func (s *State) batchDue(now time.Time, cfg config.Worker, waiting, orphans int) (used int, why string, isCapped bool, err error) {
	if waiting == 0 || waiting < cfg.BatchSize && orphans == 0 {
		return 0, fmt.Sprintf("%d of %d sessions for a batch", waiting, cfg.BatchSize), false, nil
	}
	used, err = s.RunsOn(now)
	if err != nil {
		return 0, "", false, err
	}
	if used >= cfg.DailyCap {
		return used, capped(cfg.DailyCap, waiting), true, nil
	}
	return used, "", false, nil
}

// ErrGone marks a session that can never be ingested (its transcript or
// its working tree is gone): it leaves the spool at once instead of being
// retried.
var ErrGone = errors.New("gone")

// Result is what ingesting one batch gave.
type Result struct {
	// Errs has one error per entry of the batch, nil for each ingested.
	Errs         []error
	Observations int   // observation events recorded
	Err          error // a failure after ingestion (rendering); the sessions stay ingested
}

// Run is the record of one worker run, <state>/worker/last.json: exactly
// the shape `learn --status` reads.
// OutcomeRunning is the outcome of a run that has not finished: running
// now, or stopped before it could say (its sessions are retried).
const OutcomeRunning = "running"

type Run struct {
	Started      string `json:"started"`
	Finished     string `json:"finished"`
	Outcome      string `json:"outcome"` // running | ok | partial | failed
	Sessions     int    `json:"sessions"`
	Observations int    `json:"observations"`
	Error        string `json:"error"`
}

// Runner is the worker's loop.
type Runner struct {
	State  *State
	Config config.Worker
	Now    func() time.Time
	// Ingest ingests a batch, oldest session first.
	Ingest func(ctx context.Context, batch []Entry) Result
	// Logf writes to the worker log.
	Logf func(format string, args ...any)
	// MaxBatch bounds the sessions of one run, so that a spool that grew
	// while the cap held it back is worked through over several runs.
	// 0 means DefaultMaxBatch.
	MaxBatch int
	// Debounce is worker.debounce_seconds (debounce.go); Wall and Sleep
	// are the real clock and a pause, nil for time's.
	Debounce time.Duration
	Wall     func() time.Time
	Sleep    func(context.Context, time.Duration)
}

// DefaultMaxBatch is the most sessions one run takes.
const DefaultMaxBatch = 20

func (r *Runner) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// Run works through the spool: one run per due batch while the daily cap
// allows, under the lock. It returns the number of runs made; 0 with no
// error when another worker holds the lock or nothing is due.
func (r *Runner) Run(ctx context.Context) (int, error) {
	total := 0
	for round := 0; ; round++ {
		unlock, ok, err := jsonl.TryLock(r.State.LockPath())
		if err != nil {
			return total, err
		}
		if !ok {
			r.logf("another worker is running; it takes the waiting sessions")
			return total, nil
		}
		if round == 0 {
			if d := r.debounce(ctx); d > 0 {
				r.logf("waited %s for sessions ending together (worker.debounce_seconds)", d.Round(100*time.Millisecond))
			}
		}
		n, err := r.batches(ctx)
		total += n
		unlock()
		if err != nil || ctx.Err() != nil || round > 0 && n == 0 {
			return total, err // (a look again that found nothing to run ends the loop)
		}
		// A session that ended after the last look, while the lock was
		// still held, started no worker: look once more now that it is
		// free, so that its batch does not wait for another session.
		d, err := r.State.Due(r.Now(), r.Config)
		if err != nil || !d.Start {
			return total, err
		}
	}
}

// batches runs batches while one is due and the cap allows; the lock is
// held.
func (r *Runner) batches(ctx context.Context) (int, error) {
	runs := 0
	for ctx.Err() == nil {
		bad := func(file string, err error) { r.logf("dropping %s: unreadable spool entry: %v", file, err) }
		// Claimed entries left by a crashed worker come first: they were
		// part of a due batch already.
		orphans, err := readEntries(r.State.claimedDir(), bad)
		if err != nil {
			return runs, err
		}
		for i := range orphans {
			orphans[i].orphan = true
		}
		spooled, err := readEntries(r.State.spoolDir(), bad)
		if err != nil {
			return runs, err
		}
		now := r.Now()
		used, why, isCapped, err := r.State.batchDue(now, r.Config, len(orphans)+len(spooled), len(orphans))
		if err != nil {
			return runs, err
		}
		if why != "" {
			if isCapped {
				r.logf("%s", why)
			}
			return runs, nil
		}
		batch, err := r.claim(append(orphans, spooled...))
		if err != nil || len(batch) == 0 {
			return runs, err
		}
		// Counted before the work: a run that crashes has still run, and
		// the cap bounds how many start. (A crash before this line leaves
		// the batch claimed and uncounted: the next run takes it.)
		if err := r.State.setRuns(now, used+1); err != nil {
			return runs, err
		}
		runs++
		run := Run{Started: now.UTC().Format(time.RFC3339)}
		// Written before the work too: a worker killed mid-batch leaves
		// "running" behind, not the previous run's outcome.
		if err := writeLast(r.State.LastPath(), Run{Started: run.Started, Outcome: OutcomeRunning, Sessions: len(batch)}); err != nil {
			return runs, err
		}
		entries := make([]Entry, len(batch))
		for i, q := range batch {
			entries[i] = q.Entry
		}
		res := r.Ingest(ctx, entries)
		r.settle(batch, res, &run)
		run.Finished = r.Now().UTC().Format(time.RFC3339)
		if err := writeLast(r.State.LastPath(), run); err != nil {
			return runs, err
		}
		r.logf("run %s: %s, %s; %s", run.Outcome, plural(run.Sessions, "session", "sessions"),
			plural(run.Observations, "observation", "observations"), orNone(run.Error))
	}
	return runs, nil
}

// claim moves up to MaxBatch entries from the spool to claimed/. A session
// that ends again while it is claimed gets a new spool entry, which the
// next batch takes: nothing that ends during a run is lost.
func (r *Runner) claim(waiting []queued) ([]queued, error) {
	max := r.MaxBatch
	if max <= 0 {
		max = DefaultMaxBatch
	}
	if err := os.MkdirAll(r.State.claimedDir(), 0o700); err != nil {
		return nil, err
	}
	var out []queued
	seen := map[string]bool{}
	for _, q := range waiting {
		if len(out) == max {
			break
		}
		if seen[q.file] {
			continue // claimed already (an orphan) and spooled again: the next batch takes it
		}
		seen[q.file] = true
		dst := filepath.Join(r.State.claimedDir(), q.file)
		if q.orphan {
			// The run that claimed it never finished: that was a failed
			// attempt too, or a session that kills the worker would be
			// retried first in every batch for ever.
			q.Attempts++
			if q.Attempts >= MaxAttempts {
				r.logf("session %s dropped: %d runs stopped before finishing it", q.SessionID, q.Attempts)
				os.Remove(dst)
				continue
			}
			data, _ := json.Marshal(q.Entry)
			if err := writeRename(dst, append(data, '\n')); err != nil {
				return out, err
			}
		}
		if _, err := os.Stat(dst); err != nil {
			if err := os.Rename(filepath.Join(r.State.spoolDir(), q.file), dst); err != nil {
				return out, err
			}
		} else if !q.orphan {
			continue // its claimed copy is beyond this batch: both wait for the next
		}
		out = append(out, q)
	}
	return out, nil
}

// settle removes what was ingested or can never be, and puts what failed
// back in the spool (unless the session ended again meanwhile: the newer
// entry stands), up to MaxAttempts.
func (r *Runner) settle(batch []queued, res Result, run *Run) {
	var errs []string
	for i, q := range batch {
		claimed := filepath.Join(r.State.claimedDir(), q.file)
		var err error
		if i < len(res.Errs) {
			err = res.Errs[i]
		} else {
			err = errors.New("not ingested")
		}
		switch {
		case err == nil:
			run.Sessions++
		case errors.Is(err, ErrGone):
			r.logf("session %s dropped: %v", q.SessionID, err)
			errs = append(errs, err.Error())
		case q.Attempts+1 >= MaxAttempts:
			r.logf("session %s dropped after %d failed runs: %v", q.SessionID, q.Attempts+1, err)
			errs = append(errs, err.Error())
		default:
			errs = append(errs, err.Error())
			e := q.Entry
			e.Attempts++
			spooled := filepath.Join(r.State.spoolDir(), q.file)
			if _, serr := os.Stat(spooled); serr == nil {
				break // ended again since: its new entry is retried
			}
			data, _ := json.Marshal(e)
			if werr := writeRename(spooled, append(data, '\n')); werr != nil {
				r.logf("session %s: cannot put it back in the spool: %v", q.SessionID, werr)
			}
		}
		os.Remove(claimed)
	}
	run.Observations = res.Observations
	if res.Err != nil {
		errs = append(errs, res.Err.Error())
	}
	run.Error = strings.Join(errs, "; ")
	switch {
	case len(errs) == 0:
		run.Outcome = "ok"
	case run.Sessions > 0:
		run.Outcome = "partial"
	default:
		run.Outcome = "failed"
	}
}

func writeLast(path string, run Run) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// Last reads the record of the last run; nil when there was none.
func (s *State) Last() (*Run, error) {
	data, err := os.ReadFile(s.LastPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("%s: %w", s.LastPath(), err)
	}
	return &run, nil
}

// capped says why a due batch waits.
func capped(cap, waiting int) string {
	verb := "wait"
	if waiting == 1 {
		verb = "waits"
	}
	if cap == 0 {
		return fmt.Sprintf("worker.daily_cap is 0, so no worker starts: %s %s ('devlearn ingest --session ID' ingests one by hand)",
			plural(waiting, "session", "sessions"), verb)
	}
	return fmt.Sprintf("the daily cap of %s is reached: %s %s for the first session to end tomorrow (UTC)",
		plural(cap, "worker run", "worker runs"), plural(waiting, "session", "sessions"), verb)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func orNone(s string) string {
	if s == "" {
		return "no errors"
	}
	return s
}
