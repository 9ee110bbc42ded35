// Package worker keeps the SessionEnd worker's per-clone state and runs its
// loop: the spool of ended sessions waiting for a batch, the daily run
// counter, the lock that keeps one worker per clone, and the record of the
// last run that `learn --status` shows. Everything lives in
// <git-common-dir>/devlearn/worker/ (the roots rule, docs/architecture.md), shared by the clone's
// worktrees and never committed:
//
//	spool/<session>.json    an ended session waiting for a batch
//	claimed/<session>.json  taken by the running worker (left by a crash only)
//	runs.json               {"day": "2026-05-10", "runs": 2}, for the daily cap
//	last.json               the last run: started, finished, outcome, counts, error
//	lock                    flock: one worker at a time
//
// The hook's side (Add, Due) costs a few file operations and no parsing,
// so that SessionEnd returns in milliseconds; the worker's side (Runner)
// does the rest under the lock.
package worker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// State is the worker's folder in the per-clone state.
type State struct {
	// Root is the clone's git folder: no symbolic link below it is
	// followed when the state is written.
	Root string
	Dir  string
}

// For returns the worker state of a project's clone.
func For(p *project.Project) *State { return &State{Root: p.CommonDir, Dir: p.StatePath("worker")} }

func (s *State) spoolDir() string   { return filepath.Join(s.Dir, "spool") }
func (s *State) claimedDir() string { return filepath.Join(s.Dir, "claimed") }

// LockPath is the lock that keeps one worker per clone.
func (s *State) LockPath() string { return filepath.Join(s.Dir, "lock") }

// LastPath is the record of the last run (learn --status reads it).
func (s *State) LastPath() string { return filepath.Join(s.Dir, "last.json") }

func (s *State) runsPath() string { return filepath.Join(s.Dir, "runs.json") }

// Entry is one ended session waiting to be ingested: what the SessionEnd
// hook was told, and the working tree it ran in (a clone's worktrees share
// the spool; each session is ingested into its own worktree's log).
type Entry struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Root           string `json:"root"`
	Reason         string `json:"reason,omitempty"`
	EndedAt        string `json:"ended_at"`
	// Attempts counts the runs that failed to ingest it; at MaxAttempts it
	// is dropped (and logged) rather than retried forever.
	Attempts int `json:"attempts,omitempty"`
}

// MaxAttempts is how many runs may fail on one session before it is
// dropped.
const MaxAttempts = 3

// Add puts an ended session in the spool. A session that ends twice (it
// was resumed) has one entry, the latest. The write is a rename, so the
// worker never reads half an entry; it is not synced: losing a spooled
// session to a power cut costs one session's lessons, while a sync would
// cost every SessionEnd hook its latency budget.
func (s *State) Add(e Entry) error {
	if e.SessionID == "" {
		return errors.New("no session_id in the hook input: nothing to spool")
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	dir := s.spoolDir()
	if err := safefile.MkdirAll(s.Root, dir, 0o700); err != nil {
		return err
	}
	return s.writeRename(filepath.Join(dir, FileName(e.SessionID)), append(data, '\n'))
}

// writeRename replaces path whole: a reader sees the old entry or the new,
// never half of one. No fsync: a spool entry lost in a power cut is one
// session not learned from.
func (s *State) writeRename(path string, data []byte) error {
	return jsonl.WriteFileRename(s.Root, path, data, 0o600)
}

// FileName is the spool file of a session: its id when that is a plain
// name (Claude Code's are UUIDs), else a hash, so that no id from hook
// input can name a file elsewhere.
func FileName(id string) string {
	ok := id != "" && len(id) <= 128 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if !ok {
		sum := sha256.Sum256([]byte(id))
		id = "h-" + hex.EncodeToString(sum[:12])
	}
	return id + ".json"
}

// Waiting counts the sessions in the spool without reading them (the
// hook's question).
func (s *State) Waiting() (int, error) {
	names, err := entryNames(s.spoolDir())
	return len(names), err
}

// entryNames lists the entry files of a folder (not the temporary files
// of a write in progress), sorted.
func entryNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".json") {
			out = append(out, n)
		}
	}
	return out, nil
}

// queued is an entry and the file it was read from.
type queued struct {
	Entry
	file   string
	orphan bool // read from claimed/
	blamed bool // an orphan whose run stopped while working on it
}

// read returns the entries of a folder, oldest first. An entry that cannot
// be read is removed and reported: it can never be ingested, and leaving it
// would count it towards every batch.
func (s *State) readEntries(dir string, bad func(file string, err error)) ([]queued, error) {
	names, err := entryNames(dir)
	if err != nil {
		return nil, err
	}
	var out []queued
	for _, n := range names {
		p := filepath.Join(dir, n)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var e Entry
		if err == nil {
			err = json.Unmarshal(data, &e)
			if err == nil && e.SessionID == "" {
				err = errors.New("no session_id")
			}
		}
		if err != nil {
			bad(p, err)
			safefile.Remove(s.Root, p)
			continue
		}
		out = append(out, queued{Entry: e, file: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].EndedAt < out[j].EndedAt })
	return out, nil
}

// Runs is the daily run counter.
type Runs struct {
	Day  string `json:"day"` // UTC date of the runs counted
	Runs int    `json:"runs"`
	// Refunded is the start of a run that died (killed) and was taken
	// off the count, so that it is never taken off twice.
	Refunded string `json:"refunded,omitempty"`
}

// Day is the counter's day of t: the UTC date, so that the cap does not
// depend on the machine's time zone (and DEVLEARN_NOW replays it exactly).
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// RunsOn returns the runs counted on the day of now (0 on a new day).
func (s *State) RunsOn(now time.Time) (int, error) {
	r, err := s.runs(now)
	return r.Runs, err
}

// runs is the counter of the day of now (zero on a new day).
func (s *State) runs(now time.Time) (Runs, error) {
	data, err := os.ReadFile(s.runsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return Runs{}, nil
	}
	if err != nil {
		return Runs{}, err
	}
	var r Runs
	if err := json.Unmarshal(data, &r); err != nil {
		return Runs{}, fmt.Errorf("%s: %v (delete it to reset the daily count)", s.runsPath(), err)
	}
	if r.Day != Day(now) {
		return Runs{}, nil
	}
	return r, nil
}

// usedRuns is the runs of the day of now that count against the cap: a
// run that died (dead, the last run, said "running" with no worker
// holding the lock) did no work and is not counted, once.
func (s *State) usedRuns(now time.Time, dead *Run) (used int, refund string, err error) {
	r, err := s.runs(now)
	if err != nil {
		return 0, "", err
	}
	if dead != nil && r.Runs > 0 && r.Refunded != dead.Started {
		if t, err := time.Parse(time.RFC3339, dead.Started); err == nil && Day(t) == Day(now) {
			return r.Runs - 1, dead.Started, nil
		}
	}
	return r.Runs, r.Refunded, nil
}

func (s *State) setRuns(now time.Time, n int, refunded string) error {
	data, _ := json.Marshal(Runs{Day: Day(now), Runs: n, Refunded: refunded})
	if err := safefile.MkdirAll(s.Root, s.Dir, 0o700); err != nil {
		return err
	}
	return s.writeRename(s.runsPath(), append(data, '\n'))
}
