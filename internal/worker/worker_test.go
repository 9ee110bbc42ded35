package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
)

var day1 = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

func entry(id string, at time.Time) Entry {
	return Entry{SessionID: id, TranscriptPath: "/t/" + id + ".jsonl", Root: "/repo", Reason: "prompt_input_exit", EndedAt: at.Format(time.RFC3339)}
}

// clock is a settable clock.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// runner ingests by recording the sessions of each batch; fail decides an
// entry's error.
type runner struct {
	*Runner
	batches [][]string
	fail    func(Entry) error
	during  func() // called while a batch is being ingested
	// kill stops the run dead on an entry, as a kill -9 would: nothing
	// after it runs (the test recovers the panic).
	kill func(Entry) bool
}

var errKilled = errors.New("killed")

// runKilled runs the worker and reports whether it was killed.
func (r *runner) runKilled(t *testing.T) (killed bool) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			if p != errKilled {
				panic(p)
			}
			killed = true
		}
	}()
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return false
}

func newRunner(t *testing.T, cfg config.Worker, c *clock) *runner {
	d := t.TempDir()
	st := &State{Root: d, Dir: d}
	r := &runner{}
	var logs []string
	r.Runner = &Runner{
		State:  st,
		Config: cfg,
		Now:    c.Now,
		Logf:   func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) },
		Ingest: func(ctx context.Context, batch []Entry, begin func(int)) Result {
			var ids []string
			res := Result{Errs: make([]error, len(batch))}
			for i, e := range batch {
				begin(i)
				if r.kill != nil && r.kill(e) {
					panic(errKilled)
				}
				ids = append(ids, e.SessionID)
				if r.fail != nil {
					res.Errs[i] = r.fail(e)
				}
				if res.Errs[i] == nil {
					res.Observations++
				}
			}
			r.batches = append(r.batches, ids)
			if r.during != nil {
				r.during()
			}
			return res
		},
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", strings.Join(logs, "\n"))
		}
	})
	return r
}

func (r *runner) add(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := r.State.Add(entry(id, day1)); err != nil {
			t.Fatal(err)
		}
	}
}

func (r *runner) waiting(t *testing.T) int {
	t.Helper()
	n, err := r.State.Waiting()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAddKeepsOneEntryPerSessionAndNoHostileName(t *testing.T) {
	d := t.TempDir()
	st := &State{Root: d, Dir: d}
	for _, e := range []Entry{entry("a", day1), entry("a", day1.Add(time.Hour)), entry("../../x", day1)} {
		if err := st.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Add(Entry{}); err == nil {
		t.Fatal("an entry without a session was spooled")
	}
	names, _ := entryNames(st.spoolDir())
	if len(names) != 2 || names[0] != "a.json" || !strings.HasPrefix(names[1], "h-") {
		t.Fatalf("spool: %v", names)
	}
	got, _ := st.readEntries(st.spoolDir(), func(string, error) {})
	if got[0].EndedAt != day1.Add(time.Hour).Format(time.RFC3339) && got[1].EndedAt != day1.Add(time.Hour).Format(time.RFC3339) {
		t.Fatalf("the later end did not replace the earlier: %+v", got)
	}
}

func TestDue(t *testing.T) {
	cfg := config.Worker{BatchSize: 3, DailyCap: 1}
	c := &clock{day1}
	r := newRunner(t, cfg, c)
	check := func(want bool, why string) {
		t.Helper()
		d, err := r.State.Due(c.Now(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if d.Start != want || !strings.Contains(d.Why, why) {
			t.Fatalf("Due = %+v, want start %v, why %q", d, want, why)
		}
	}
	r.add(t, "s1", "s2")
	check(false, "2 of 3 sessions")
	r.add(t, "s3")
	check(true, "")

	unlock, ok, err := jsonl.TryLock(r.State.LockPath())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	check(false, "a worker is running")
	unlock()

	if err := r.State.setRuns(c.Now(), 1, ""); err != nil {
		t.Fatal(err)
	}
	check(false, "daily cap of 1 worker run is reached: 3 sessions wait")
	c.t = c.t.Add(24 * time.Hour)
	check(true, "") // a new day

	off := config.Worker{BatchSize: 1, DailyCap: 0}
	if d, _ := r.State.Due(c.Now(), off); d.Start || !d.Capped {
		t.Fatalf("daily_cap 0 started a worker: %+v", d)
	}
}

// devflow defect 2: the cap allowed one run fewer than configured, and the
// batch that hit it was lost. Here the cap allows exactly DailyCap runs,
// and the batch it holds back runs the next day.
func TestDailyCapIsExactAndKeepsTheBatch(t *testing.T) {
	for _, cap := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(cap), func(t *testing.T) {
			c := &clock{day1}
			r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: cap}, c)
			for i := 0; i < cap; i++ {
				r.add(t, fmt.Sprintf("s%d", i))
				if n, err := r.Run(context.Background()); err != nil || n != 1 {
					t.Fatalf("run %d: %d runs, %v", i+1, n, err)
				}
				c.t = c.t.Add(time.Minute)
			}
			r.add(t, "held")
			if n, err := r.Run(context.Background()); err != nil || n != 0 {
				t.Fatalf("over the cap: %d runs, %v", n, err)
			}
			if r.waiting(t) != 1 {
				t.Fatal("the batch over the cap was lost")
			}
			c.t = day1.Add(24 * time.Hour)
			if n, err := r.Run(context.Background()); err != nil || n != 1 {
				t.Fatalf("next day: %d runs, %v", n, err)
			}
			last := r.batches[len(r.batches)-1]
			if !reflect.DeepEqual(last, []string{"held"}) || r.waiting(t) != 0 {
				t.Fatalf("next day's batch: %v, %d waiting", last, r.waiting(t))
			}
		})
	}
}

// A session that ends while the worker ingests is spooled, and taken by
// the next batch: by the same worker when it makes a batch, else by the
// worker the next session end starts.
func TestSessionEndingDuringARunIsNotDropped(t *testing.T) {
	for _, size := range []int{1, 2} {
		t.Run(fmt.Sprint("batch_size=", size), func(t *testing.T) {
			c := &clock{day1}
			r := newRunner(t, config.Worker{BatchSize: size, DailyCap: 10}, c)
			r.add(t, "a", "b")
			ended := false
			r.during = func() {
				if !ended {
					ended = true
					// The hook of a session ending now: it spools, and sees
					// the lock held.
					r.add(t, "late")
					if d, err := r.State.Due(c.Now(), r.Config); err != nil || d.Start {
						t.Errorf("a second worker would start: %+v %v", d, err)
					}
				}
			}
			if _, err := r.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			switch size {
			case 1:
				if len(r.batches) != 2 || !reflect.DeepEqual(r.batches[1], []string{"late"}) || r.waiting(t) != 0 {
					t.Fatalf("batches %v, %d waiting", r.batches, r.waiting(t))
				}
			case 2:
				if len(r.batches) != 1 || r.waiting(t) != 1 {
					t.Fatalf("batches %v, %d waiting", r.batches, r.waiting(t))
				}
				r.add(t, "next")
				if _, err := r.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(r.batches[1], []string{"late", "next"}) {
					t.Fatalf("batches %v", r.batches)
				}
			}
		})
	}
}

func TestOneWorkerAtATime(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 5}, c)
	r.add(t, "a")
	unlock, ok, _ := jsonl.TryLock(r.State.LockPath())
	if !ok {
		t.Fatal("lock")
	}
	if n, err := r.Run(context.Background()); err != nil || n != 0 || len(r.batches) != 0 {
		t.Fatalf("ran beside another worker: %d %v", n, err)
	}
	if runs, _ := r.State.RunsOn(c.Now()); runs != 0 {
		t.Fatal("a run that did not happen was counted")
	}
	unlock()
	if n, err := r.Run(context.Background()); err != nil || n != 1 {
		t.Fatal(n, err)
	}
}

func TestFailuresAreRetriedThenDropped(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 100}, c)
	r.fail = func(e Entry) error {
		switch e.SessionID {
		case "gone":
			return fmt.Errorf("transcript missing: %w", ErrGone)
		case "flaky":
			return errors.New("disk full")
		}
		return nil
	}
	r.add(t, "gone", "flaky", "fine")
	// Each worker started (by the next session's end) retries it once: a
	// failure is not retried at once in the same run, which would spend
	// the daily cap on it.
	for i := 0; i < MaxAttempts+1; i++ {
		if _, err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if i == 0 && len(r.batches) != 1 {
			t.Fatalf("retried in the same run: %v", r.batches)
		}
	}
	last, err := r.State.Last()
	if err != nil || last == nil {
		t.Fatal(last, err)
	}
	if last.Outcome == "ok" || last.Error == "" {
		t.Fatalf("last run: %+v", last)
	}
	// "flaky" went back to the spool after each failure, and made a batch
	// of its own each time, until MaxAttempts.
	want := [][]string{{"fine", "flaky", "gone"}, {"flaky"}, {"flaky"}}
	if !reflect.DeepEqual(sorted(r.batches), want) {
		t.Fatalf("batches: %v, want %v", r.batches, want)
	}
	if r.waiting(t) != 0 {
		t.Fatal("a failing session is retried forever")
	}
	if names, _ := entryNames(r.State.claimedDir()); len(names) != 0 {
		t.Fatalf("claimed left behind: %v", names)
	}
	// Both are listed as dropped, with what to run to ingest them by hand:
	// the gone one too.
	dropped, err := r.State.Dropped()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range dropped {
		ids = append(ids, d.SessionID)
	}
	if slices.Sort(ids); !slices.Equal(ids, []string{"flaky", "gone"}) {
		t.Fatalf("dropped: %v", ids)
	}
}

func sorted(b [][]string) [][]string {
	out := make([][]string, len(b))
	for i, x := range b {
		y := append([]string(nil), x...)
		for j := range y {
			for k := j + 1; k < len(y); k++ {
				if y[k] < y[j] {
					y[j], y[k] = y[k], y[j]
				}
			}
		}
		out[i] = y
	}
	return out
}

func TestCrashOrphansAreTakenFirst(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 3, DailyCap: 5}, c)
	// A worker crashed holding "o"; then one more session ended.
	r.add(t, "o")
	os.MkdirAll(r.State.claimedDir(), 0o700)
	os.Rename(filepath.Join(r.State.spoolDir(), "o.json"), filepath.Join(r.State.claimedDir(), "o.json"))
	r.add(t, "new")
	if d, _ := r.State.Due(c.Now(), r.Config); !d.Start {
		t.Fatalf("orphans did not make a batch due: %+v", d)
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.batches, [][]string{{"o", "new"}}) {
		t.Fatalf("batches %v", r.batches)
	}
}

func TestMaxBatch(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 2}, c)
	r.MaxBatch = 2
	r.add(t, "a", "b", "c", "d", "e")
	if n, _ := r.Run(context.Background()); n != 2 {
		t.Fatalf("%d runs", n)
	}
	if r.waiting(t) != 1 || len(r.batches[0]) != 2 {
		t.Fatalf("batches %v, %d waiting", r.batches, r.waiting(t))
	}
}

// last.json has exactly the keys learn --status reads.
func TestLastRunShape(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 1}, c)
	r.add(t, "a")
	r.Run(context.Background())
	data, err := os.ReadFile(r.State.LastPath())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	want := []string{"error", "finished", "observations", "outcome", "sessions", "started"}
	if !reflect.DeepEqual(sorted([][]string{keys})[0], want) || m["outcome"] != "ok" || m["sessions"] != 1.0 {
		t.Fatalf("last.json: %s", data)
	}
}

func TestUnreadableEntriesAreDropped(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 1}, c)
	os.MkdirAll(r.State.spoolDir(), 0o700)
	os.WriteFile(filepath.Join(r.State.spoolDir(), "bad.json"), []byte("{not json"), 0o600)
	r.add(t, "a")
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r.waiting(t) != 0 || !reflect.DeepEqual(r.batches, [][]string{{"a"}}) {
		t.Fatalf("batches %v, %d waiting", r.batches, r.waiting(t))
	}
}

// A worker killed mid-batch: last.json says a run started and did not
// finish (not the run before's outcome), and names the session it was on.
func TestKilledRunShowsTheSessionInProgress(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 10}, c)
	var seen *Run
	r.during = func() { seen, _ = r.State.Last() }
	r.add(t, "k")
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.Outcome != OutcomeRunning || seen.Sessions != 1 || seen.Current != "k" {
		t.Fatalf("last.json during the run: %+v", seen)
	}
}

// The loss: a worker killed three times while ingesting one
// session dropped every session of its batch. Only the session it was on
// is to blame: it alone is dropped after MaxAttempts (and listed, for a
// retry by hand); every other session is ingested.
func TestKilledBatchesBlameOnlyTheSessionInProgress(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 100}, c)
	var ids []string
	for i := 1; i <= 40; i++ {
		id := fmt.Sprintf("s%02d", i)
		ids = append(ids, id)
		if err := r.State.Add(entry(id, day1.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	r.kill = func(e Entry) bool { return e.SessionID == "s07" }
	kills := 0
	for r.runKilled(t) {
		kills++
		if kills > MaxAttempts {
			t.Fatalf("killed %d times: the session that kills it is never dropped", kills)
		}
	}
	if kills != MaxAttempts {
		t.Fatalf("killed %d times, want %d", kills, MaxAttempts)
	}
	ingested := map[string]bool{}
	for _, b := range r.batches {
		for _, id := range b {
			ingested[id] = true
		}
	}
	var lost []string
	for _, id := range ids {
		if id != "s07" && !ingested[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d sessions never ingested: %v", len(lost), lost)
	}
	dropped, err := r.State.Dropped()
	if err != nil || len(dropped) != 1 || dropped[0].SessionID != "s07" || !strings.Contains(dropped[0].Why, "3 worker runs stopped") {
		t.Fatalf("dropped: %+v, %v", dropped, err)
	}
	if n := r.waiting(t); n != 0 {
		t.Fatalf("%d still waiting", n)
	}
	if names, _ := entryNames(r.State.claimedDir()); len(names) != 0 {
		t.Fatalf("still claimed: %v", names)
	}
	if err := r.State.Forget("s07"); err != nil {
		t.Fatal(err)
	}
	if d, _ := r.State.Dropped(); len(d) != 0 {
		t.Fatalf("after Forget: %+v", d)
	}
}

// A run killed between sessions, or while storing the batch as a whole,
// blames no one: the sessions it held are retried one per run, and a
// session that then kills a run on its own is the one blamed.
func TestKilledOutsideASessionRetriesAlone(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 100}, c)
	r.add(t, "a", "b")
	// A batch claimed, and killed while it was being stored: no session in
	// progress.
	r.State.writeLast(Run{Started: "x", Outcome: OutcomeRunning, Sessions: 2})
	os.MkdirAll(r.State.claimedDir(), 0o700)
	for _, n := range []string{"a.json", "b.json"} {
		os.Rename(filepath.Join(r.State.spoolDir(), n), filepath.Join(r.State.claimedDir(), n))
	}
	if _, err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(r.batches) < 1 || len(r.batches[0]) != 1 {
		t.Fatalf("batches %v: the first after an unattributed stop must hold one session", r.batches)
	}
	got, _ := (&State{}).readEntries(r.State.claimedDir(), func(string, error) {})
	if len(got) != 0 || r.waiting(t) != 0 {
		t.Fatalf("left: %d claimed, %d waiting", len(got), r.waiting(t))
	}
	if d, _ := r.State.Dropped(); len(d) != 0 {
		t.Fatalf("dropped %+v", d)
	}
}

// A failure of the batch as a whole (ErrBatch) is no session's: retried
// for ever without a count, never dropped.
func TestBatchFailuresCountAgainstNoSession(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 100}, c)
	r.fail = func(Entry) error { return fmt.Errorf("log unwritable: %w", ErrBatch) }
	r.add(t, "a")
	for i := 0; i < MaxAttempts+2; i++ {
		c.t = c.t.Add(time.Hour)
		r.State.Add(entry("b", c.t))
		if _, err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := r.State.readEntries(r.State.spoolDir(), func(string, error) {})
	if len(q) != 2 || q[0].Attempts != 0 || q[1].Attempts != 0 {
		t.Fatalf("spool: %+v", q)
	}
}

// A killed run did no work: it does not hold the day's next run back,
// and it is taken off the count once, however often the spool is looked at.
func TestKilledRunDoesNotSpendTheCap(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 1, DailyCap: 1}, c)
	r.add(t, "a")
	r.kill = func(Entry) bool { return true }
	if !r.runKilled(t) {
		t.Fatal("not killed")
	}
	r.kill = nil
	dead, err := r.State.Dead()
	if err != nil || dead == nil || dead.Current != "a" {
		t.Fatalf("dead run: %+v %v", dead, err)
	}
	for range 2 {
		if d, err := r.State.Due(c.t, r.Config); err != nil || !d.Start || d.Capped {
			t.Fatalf("the killed run holds the next back: %+v %v", d, err)
		}
	}
	if n, err := r.Run(context.Background()); err != nil || n != 1 {
		t.Fatalf("runs %d, %v", n, err)
	}
	if used, _ := r.State.RunsOn(c.t); used != 1 {
		t.Fatalf("runs counted today: %d", used)
	}
	if dead, _ := r.State.Dead(); dead != nil {
		t.Fatalf("still dead: %+v", dead)
	}
	// The cap holds again: the refund was given once.
	r.State.Add(entry("b", c.t))
	if d, _ := r.State.Due(c.t, r.Config); d.Start || !d.Capped {
		t.Fatalf("%+v", d)
	}
}

// A run stopped by a signal (its context cancelled) cut its sessions
// short: none counts a failed attempt.
func TestStoppedRunCountsNoAttempt(t *testing.T) {
	c := &clock{day1}
	r := newRunner(t, config.Worker{BatchSize: 2, DailyCap: 10}, c)
	ctx, cancel := context.WithCancel(context.Background())
	r.fail = func(Entry) error { cancel(); return ctx.Err() }
	r.add(t, "a", "b")
	if _, err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	q, _ := r.State.readEntries(r.State.spoolDir(), func(string, error) {})
	if len(q) != 2 || q[0].Attempts != 0 || q[1].Attempts != 0 {
		t.Fatalf("spool: %+v", q)
	}
}
