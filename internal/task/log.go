// Package task keeps the state of tasks that move through stages
// (brainstorm, design_review, plan, implement, code_review, verify, done)
// as events in .memory/tasks/<task>.jsonl, append-only and merged as sets
// of lines by devlearn's merge driver, so a task's state survives restarts
// and merges. On top of it sits failure-driven rule learning (ClawFlow's,
// docs/gates.md): a rejection or a failed gate becomes a candidate lesson, two
// similar rejections at a stage give the agent the Two-Strike Protocol, a
// third trips the circuit breaker, and a finished task is merged home.
package task

import (
	"bufio"
	"bytes"
	"context"
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
)

// Operations of the task log. merged and merge-blocked are written by the
// merge (gitx.OpMerged, gitx.OpMergeBlocked; a test holds them equal),
// the rest here. The package does not import gitx: the Stop hook records
// rejections through it, and the hook never links go-git's root package.
const (
	OpStart         = "start"
	OpStage         = "stage"
	OpGate          = "gate"
	OpReject        = "reject"
	OpTwoStrike     = "two-strike"
	OpBreaker       = "breaker"
	OpResume        = "resume"
	OpDone          = "done"
	OpSuggestGlobal = "suggest-global"
	OpMerged        = "merged"
	OpMergeBlocked  = "merge-blocked"
	// OpMergeFailed is a merge 'task done' could not make for any reason
	// but a conflict (local changes in the way, a branch not there, the
	// base moved): the task is not done, and the event says what to do.
	OpMergeFailed = "merge-failed"
)

// StopStage is the stage of what the Stop hook's gates find when the task
// names no stage of its own.
const StopStage = "stop"

// Event is one line of a task log (the events rule of docs/architecture.md: op, eid, at, src on every
// line). Each op uses the fields it needs.
type Event struct {
	Op   string `json:"op"`
	EID  string `json:"eid"`
	At   string `json:"at"`
	Src  string `json:"src"`
	Task string `json:"task"`
	// Stage is the stage the event is about.
	Stage string `json:"stage,omitempty"`
	// start
	Title     string `json:"title,omitempty"`
	Branch    string `json:"branch,omitempty"`
	Base      string `json:"base,omitempty"`
	Worktree  string `json:"worktree,omitempty"`
	AutoMerge *bool  `json:"auto_merge,omitempty"`
	// gate: pre, post or stop, and how each gate went; reject: "pre"
	// when a stage's pre gates refused it (the stage was not entered).
	When  string       `json:"when,omitempty"`
	Gates []GateRecord `json:"gates,omitempty"`
	// reject
	From      string `json:"from,omitempty"` // "person", or "gate:<name>"
	Feedback  string `json:"feedback,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Candidate string `json:"candidate,omitempty"` // the candidate entry's key
	Session   string `json:"session,omitempty"`
	// N is the rejection's number at its stage: two rejections alike in
	// one second (a gate failing the same way at once) are two events, as
	// the event id is a hash of the event and its time to the second.
	N int `json:"n,omitempty"`
	// two-strike: the two rejections; breaker: the candidates listed.
	Rejections []string `json:"rejections,omitempty"`
	Overlap    float64  `json:"overlap,omitempty"`
	Candidates []string `json:"candidates,omitempty"`
	// suggest-global
	Gate  string   `json:"gate,omitempty"`
	Tasks []string `json:"tasks,omitempty"`
	// resume, done; merge-failed: why, and what to do next.
	Reason string `json:"reason,omitempty"`
	Next   string `json:"next,omitempty"`
	// merged, merge-blocked (gitx.TaskEvent)
	Kind      string     `json:"kind,omitempty"`
	Commit    string     `json:"commit,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// Conflict is a path a merge could not merge, as gitx.Conflict records it.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// GateRecord is one gate's result as the log keeps it: the end of its
// output only, redacted; the whole bounded output went into the
// rejection's feedback when it failed.
type GateRecord struct {
	Name       string `json:"name"`
	Required   bool   `json:"required"`
	OK         bool   `json:"ok"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Problem    string `json:"problem,omitempty"`
	Tail       string `json:"tail,omitempty"`
}

// MaxName bounds a task's name, and so its log's file name.
const MaxName = 100

// ValidName checks a task name: it names a file, so it holds only ASCII
// letters, digits, '.', '_' and '-', and does not start with a dot (the
// names gitx.TaskName makes of branches). Anything else is refused, never
// mapped, so two names never share a log.
func ValidName(name string) error {
	if name == "" {
		return errors.New("task name is empty")
	}
	if len(name) > MaxName {
		return fmt.Errorf("task name is %d characters; at most %d", len(name), MaxName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') || i == 0 && c == '.' {
			return fmt.Errorf("task name %q may hold only letters, digits, '.', '_' and '-', and may not start with '.'", name)
		}
	}
	return nil
}

// LogRel is the project-relative path of a task's log (gitx.TaskLogRel
// for a valid name).
func LogRel(name string) string { return project.TasksDir + "/" + name + ".jsonl" }

// stamp fills in an event's time, source and id: the id is a hash of the
// rest, so appending the same event twice is recognised.
func stamp(ev *Event, at time.Time, src string) error {
	ev.At = at.UTC().Format(time.RFC3339)
	ev.Src = src
	ev.EID = ""
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	ev.EID = "tsk_" + hex.EncodeToString(sum[:6])
	return nil
}

// update reads a task's events and appends what fn returns, all under the
// log's lock, so that two rejections at once never count to the same
// number. roots are the working trees whose logs are read (the project's
// first); the events are written to the project's.
func update(ctx context.Context, p *project.Project, roots []string, name string, fn func([]*Event) ([]*Event, error)) error {
	rel := LogRel(name)
	unlock, err := jsonl.Lock(ctx, p.LockPath(rel))
	if err != nil {
		return err
	}
	defer unlock()
	evs, _, err := loadEvents(roots, name)
	if err != nil {
		return err
	}
	add, err := fn(evs)
	if err != nil || len(add) == 0 {
		return err
	}
	lines := make([][]byte, 0, len(add))
	for _, ev := range add {
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		lines = append(lines, data)
	}
	return jsonl.AppendLocked(p.Root, p.Path(rel), lines...)
}

// Problem is a line of a task log that could not be read.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d: %s (skipped)", p.Path, p.Line, p.Msg) }

// readLog reads one task log file; a missing one is empty. Bad lines are
// problems, never failures (a torn line after a crash, a merge's markers).
func readLog(path, shown string) ([]*Event, []Problem, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var evs []*Event
	var probs []Problem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ev := &Event{}
		if err := json.Unmarshal(line, ev); err != nil || ev.Op == "" {
			msg := "not a task event"
			if err != nil {
				msg = "not JSON"
			}
			probs = append(probs, Problem{Path: shown, Line: n, Msg: msg})
			continue
		}
		evs = append(evs, ev)
	}
	return evs, probs, sc.Err()
}

// loadEvents reads a task's events from the logs of the given working
// trees (the current one, and the task's own worktree, where the merge
// records a block), each event once, in time order; within one time, in
// the order they were written.
func loadEvents(roots []string, name string) ([]*Event, []Problem, error) {
	seen := map[string]bool{}
	var all []*Event
	var probs []Problem
	for _, root := range roots {
		rel := LogRel(name)
		evs, pr, err := readLog(filepath.Join(root, filepath.FromSlash(rel)), rel)
		if err != nil {
			return nil, nil, err
		}
		probs = append(probs, pr...)
		for _, ev := range evs {
			key := ev.EID
			if key == "" {
				data, _ := json.Marshal(ev)
				key = string(data)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			all = append(all, ev)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].At < all[j].At })
	return all, probs, nil
}

// Names lists the tasks that have a log in the project.
func Names(p *project.Project) ([]string, error) {
	ents, err := os.ReadDir(p.Path(project.TasksDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if ok && e.Type().IsRegular() && ValidName(name) == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
