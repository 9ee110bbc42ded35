package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
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
	dead, err := s.Dead()
	if err != nil {
		return Decision{}, err
	}
	_, _, d.Why, d.Capped, err = s.batchDue(now, cfg, d.Waiting, len(orphans), dead)
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
// isCapped says the cap holds a due batch back, and used is today's runs
// but dead, a run that died (killed), which did no work: counting it would
// hold learning back until the next day. refunded is what the counter
// records as taken off.
func (s *State) batchDue(now time.Time, cfg config.Worker, waiting, orphans int, dead *Run) (used int, refunded, why string, isCapped bool, err error) {
	if size := s.BatchSize(cfg); waiting == 0 || waiting < size && orphans == 0 {
		return 0, "", fmt.Sprintf("%d of %d sessions for a batch", waiting, size), false, nil
	}
	used, refunded, err = s.usedRuns(now, dead)
	if err != nil {
		return 0, "", "", false, err
	}
	if used >= cfg.DailyCap {
		return used, refunded, capped(cfg.DailyCap, waiting), true, nil
	}
	return used, refunded, "", false, nil
}

// Dead returns the last run when it died: it says it is running and no
// worker holds the lock (a worker killed, or the machine stopped); nil
// otherwise. Not for a caller that holds the lock itself.
func (s *State) Dead() (*Run, error) {
	last, err := s.Last()
	if err != nil || last == nil || last.Outcome != OutcomeRunning {
		return nil, nil // an unreadable record is no run, as Last's callers read it
	}
	unlock, free, err := jsonl.TryLock(s.LockPath())
	if err != nil || !free {
		return nil, err
	}
	unlock()
	return last, nil
}

// BatchSize is how many ended sessions make a batch: worker.batch_size,
// and worker.large_batch_size once the log holds worker.large_batch_after
// observations (devflow: 3 sessions, 5 from 15 observations), as the last
// run counted them. A project that has learned much gains less from each
// session, so it waits for more of them per run.
func (s *State) BatchSize(cfg config.Worker) int {
	if cfg.LargeBatchAfter <= 0 || cfg.LargeBatchSize <= 0 {
		return cfg.BatchSize
	}
	last, err := s.Last()
	if err != nil || last == nil || last.Known < cfg.LargeBatchAfter {
		return cfg.BatchSize
	}
	return cfg.LargeBatchSize
}

// ErrGone marks a session that can never be ingested (its transcript or
// its working tree is gone): it leaves the spool at once instead of being
// retried.
var ErrGone = errors.New("gone")

// ErrBatch marks a failure of the whole batch rather than of one session
// (the log cannot be written, the config does not load): the sessions go
// back to the spool without a failed attempt counted against any of them.
var ErrBatch = errors.New("the batch failed, not this session")

// Result is what ingesting one batch gave.
type Result struct {
	// Errs has one error per entry of the batch, nil for each ingested.
	Errs         []error
	Observations int   // observation events recorded
	Known        int   // observations the log holds after the run (the most of the batch's working trees)
	Err          error // a failure after ingestion (rendering); the sessions stay ingested
}

// OutcomeRunning is the outcome of a run that has not finished: running
// now, or stopped before it could say (its sessions are retried).
const OutcomeRunning = "running"

// OutcomeInterrupted is how a reader shows a run that says "running" when
// no worker holds the lock (Dead): it was killed, and is not running.
const OutcomeInterrupted = "interrupted"

// Run is the record of one worker run, <state>/worker/last.json: exactly
// the shape `learn --status` reads.
type Run struct {
	Started      string `json:"started"`
	Finished     string `json:"finished"`
	Outcome      string `json:"outcome"` // running | ok | partial | failed
	Sessions     int    `json:"sessions"`
	Observations int    `json:"observations"`
	Error        string `json:"error"`
	// Current is, while the run is running, the session being worked on:
	// the one to blame if the run never finishes. "" while the batch as a
	// whole is stored and rendered (then no one session is to blame).
	Current string `json:"current,omitempty"`
	// Known is the number of observations the log held after the run,
	// which sets the next batch's size (BatchSize).
	Known int `json:"known_observations,omitempty"`
}

// Runner is the worker's loop.
type Runner struct {
	State  *State
	Config config.Worker
	Now    func() time.Time
	// Ingest ingests a batch, oldest session first. It calls begin(i)
	// before it starts on session i, and begin(-1) before the work on the
	// batch as a whole (storing, rendering), so that a run that is killed
	// blames only the session it was on.
	Ingest func(ctx context.Context, batch []Entry, begin func(i int)) Result
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

	// retried are the spool files of sessions that failed in this Run:
	// they wait for the next worker rather than spending the
	// daily cap on a retry that would fail the same way at once.
	retried map[string]bool
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
	r.retried = nil
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
		n, err := func() (int, error) {
			defer unlock()
			return r.batches(ctx)
		}()
		total += n
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
		orphans, err := r.State.readEntries(r.State.claimedDir(), bad)
		if err != nil {
			return runs, err
		}
		// The lock is held here: a last run still "running" died.
		var dead *Run
		if last, err := r.State.Last(); err == nil && last != nil && last.Outcome == OutcomeRunning {
			dead = last
		}
		alone := false
		if len(orphans) > 0 {
			// The run that claimed them never finished. Only the session it
			// was on when it stopped is to blame; when it was on the batch
			// as a whole, none is, and they are taken one per run until one
			// shows itself. (A run stopped before it said it was running
			// had not started on any.)
			blame := ""
			if last, err := r.State.Last(); err == nil && last != nil && last.Outcome == OutcomeRunning {
				blame = last.Current
				alone = blame == ""
			}
			for i := range orphans {
				orphans[i].orphan = true
				orphans[i].blamed = blame != "" && orphans[i].SessionID == blame
			}
		}
		spooled, err := r.State.readEntries(r.State.spoolDir(), bad)
		if err != nil {
			return runs, err
		}
		spooled = slices.DeleteFunc(spooled, func(q queued) bool { return r.retried[q.file] })
		now := r.Now()
		used, refunded, why, isCapped, err := r.State.batchDue(now, r.Config, len(orphans)+len(spooled), len(orphans), dead)
		if err != nil {
			return runs, err
		}
		if why != "" {
			if isCapped {
				r.logf("%s", why)
			}
			return runs, nil
		}
		batch, err := r.claim(append(orphans, spooled...), alone, now)
		if err != nil || len(batch) == 0 {
			return runs, err
		}
		// Counted before the work, so the cap bounds how many start; a run
		// killed before its end is taken off by the next (usedRuns). (A
		// crash before this line leaves the batch claimed and uncounted:
		// the next run takes it.)
		if err := r.State.setRuns(now, used+1, refunded); err != nil {
			return runs, err
		}
		runs++
		run := Run{Started: now.UTC().Format(time.RFC3339)}
		known := 0
		if prev, err := r.State.Last(); err == nil && prev != nil {
			known = prev.Known
		}
		// Written before the work too, and again before each session: a
		// worker killed mid-batch leaves "running" behind, with the session
		// it was on, not the previous run's outcome.
		running := Run{Started: run.Started, Outcome: OutcomeRunning, Sessions: len(batch), Known: known}
		if err := r.State.writeLast(running); err != nil {
			return runs, err
		}
		entries := make([]Entry, len(batch))
		for i, q := range batch {
			entries[i] = q.Entry
		}
		begin := func(i int) {
			cur := ""
			switch {
			case i >= 0 && i < len(entries):
				cur = entries[i].SessionID
			case len(entries) == 1:
				cur = entries[0].SessionID // alone: the batch's work is its own
			}
			if cur == running.Current {
				return
			}
			running.Current = cur
			// Not synced: what it guards against is a killed process, not
			// a power cut, and a sync per session would slow every batch.
			if err := r.State.writeLastFast(running); err != nil {
				r.logf("recording the session in progress: %v", err)
			}
		}
		res := r.Ingest(ctx, entries, begin)
		if ctx.Err() != nil {
			// Stopped (SIGTERM, Ctrl-C): what failed was cut short, which
			// says nothing of the sessions; none counts a failed attempt.
			for i, err := range res.Errs {
				if err != nil && !errors.Is(err, ErrGone) {
					res.Errs[i] = fmt.Errorf("stopped (%v): %w", ctx.Err(), ErrBatch)
				}
			}
		}
		run.Known = known
		r.settle(batch, res, &run, now)
		run.Finished = r.Now().UTC().Format(time.RFC3339)
		if err := r.State.writeLast(run); err != nil {
			return runs, err
		}
		r.logf("run %s: %s, %s; %s", run.Outcome, plural(run.Sessions, "session", "sessions"),
			plural(run.Observations, "observation", "observations"), orNone(run.Error))
	}
	return runs, nil
}

// claim moves up to MaxBatch entries from the spool to claimed/ (one when
// alone). A session that ends again while it is claimed gets a new spool
// entry, which the next batch takes: nothing that ends during a run is
// lost.
func (r *Runner) claim(waiting []queued, alone bool, now time.Time) ([]queued, error) {
	max := r.MaxBatch
	if max <= 0 {
		max = DefaultMaxBatch
	}
	if alone {
		max = 1
	}
	if err := safefile.MkdirAll(r.State.Root, r.State.claimedDir(), 0o700); err != nil {
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
		if q.blamed {
			// The run that claimed it stopped while working on it: a failed
			// attempt, or a session that kills the worker would be retried
			// first in every batch for ever. The others of that run were
			// not shown to break anything: they are retried as they are.
			q.Attempts++
			if q.Attempts >= MaxAttempts {
				why := fmt.Sprintf("%d worker runs stopped while ingesting it", q.Attempts)
				r.logf("session %s dropped: %s", q.SessionID, why)
				r.drop(q.Entry, why, now)
				safefile.Remove(r.State.Root, dst)
				continue
			}
			data, _ := json.Marshal(q.Entry)
			if err := r.State.writeRename(dst, append(data, '\n')); err != nil {
				return out, err
			}
		}
		if _, err := os.Stat(dst); err != nil {
			if err := safefile.Rename(r.State.Root, filepath.Join(r.State.spoolDir(), q.file), dst); err != nil {
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
// entry stands): a session's own failure counts towards MaxAttempts, a
// failure of the batch as a whole (ErrBatch) does not.
func (r *Runner) settle(batch []queued, res Result, run *Run, now time.Time) {
	var errs []string
	for i, q := range batch {
		claimed := filepath.Join(r.State.claimedDir(), q.file)
		var err error
		if i < len(res.Errs) {
			err = res.Errs[i]
		} else {
			err = fmt.Errorf("not ingested: %w", ErrBatch)
		}
		switch {
		case err == nil:
			run.Sessions++
		case errors.Is(err, ErrGone):
			r.logf("session %s dropped: %v", q.SessionID, err)
			r.drop(q.Entry, err.Error(), now) // listed, with the command that ingests it
			errs = append(errs, err.Error())
		case !errors.Is(err, ErrBatch) && q.Attempts+1 >= MaxAttempts:
			why := fmt.Sprintf("%d runs failed on it: %v", q.Attempts+1, err)
			r.logf("session %s dropped: %s", q.SessionID, why)
			r.drop(q.Entry, why, now)
			errs = append(errs, err.Error())
		default:
			errs = append(errs, err.Error())
			e := q.Entry
			if !errors.Is(err, ErrBatch) {
				e.Attempts++
			}
			spooled := filepath.Join(r.State.spoolDir(), q.file)
			if _, serr := os.Stat(spooled); serr == nil {
				break // ended again since: its new entry is retried
			}
			data, _ := json.Marshal(e)
			if werr := r.State.writeRename(spooled, append(data, '\n')); werr != nil {
				r.logf("session %s: cannot put it back in the spool: %v", q.SessionID, werr)
			}
			if r.retried == nil {
				r.retried = map[string]bool{}
			}
			r.retried[q.file] = true
		}
		safefile.Remove(r.State.Root, claimed)
	}
	run.Observations = res.Observations
	if res.Known > 0 {
		run.Known = res.Known // else the count before the run stands
	}
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

func (s *State) writeLast(run Run) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(s.Root, s.LastPath(), append(data, '\n'), 0o600)
}

func (s *State) writeLastFast(run Run) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return s.writeRename(s.LastPath(), append(data, '\n'))
}

// Dropped is a session the worker gave up on, kept so that `learn
// --status` and `doctor` can name it and `devlearn ingest --session ID`
// can retry it.
type Dropped struct {
	Entry
	Why string `json:"why"`
	At  string `json:"dropped_at"`
}

func (s *State) droppedPath() string { return filepath.Join(s.Dir, "dropped.json") }

// Dropped lists the sessions the worker gave up on, oldest first.
func (s *State) Dropped() ([]Dropped, error) {
	data, err := os.ReadFile(s.droppedPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Dropped
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it to forget the dropped sessions)", s.droppedPath(), err)
	}
	return out, nil
}

// drop records a session given up on; a failure to record is logged.
func (r *Runner) drop(e Entry, why string, now time.Time) {
	if err := r.State.editDropped(func(d []Dropped) []Dropped {
		d = slices.DeleteFunc(d, func(x Dropped) bool { return x.SessionID == e.SessionID })
		return append(d, Dropped{Entry: e, Why: why, At: now.UTC().Format(time.RFC3339)})
	}); err != nil {
		r.logf("session %s: cannot record it as dropped: %v", e.SessionID, err)
	}
}

// Forget removes sessions from the dropped list: they were ingested by
// hand (devlearn ingest --session ID).
func (s *State) Forget(ids ...string) error {
	return s.editDropped(func(d []Dropped) []Dropped {
		return slices.DeleteFunc(d, func(x Dropped) bool { return slices.Contains(ids, x.SessionID) })
	})
}

// editDropped changes the dropped list. The worker's lock is not needed:
// the worker holds it when it drops, and a person's ingest that forgets
// one at the same moment loses at most that line of bookkeeping.
func (s *State) editDropped(change func([]Dropped) []Dropped) error {
	old, err := s.Dropped()
	if err != nil {
		return err
	}
	next := change(slices.Clone(old))
	if len(next) == len(old) && len(old) == 0 {
		return nil
	}
	if len(next) == 0 {
		err := safefile.Remove(s.Root, s.droppedPath())
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(s.Root, s.Dir, 0o700); err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(s.Root, s.droppedPath(), append(data, '\n'), 0o600)
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
