package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Store is the tasks of one project, and the clock and source every event
// written through it carries.
type Store struct {
	Proj   *project.Project
	Config *config.Config
	Now    time.Time
	// Src names what writes: "task reject", "gate post", "hook stop".
	Src string
	// Redact scrubs secrets from feedback, titles and reasons before
	// anything keeps them; nil keeps them as they are.
	Redact func(string) string
}

func (s *Store) redact(text string) string {
	if s.Redact == nil || text == "" {
		return text
	}
	return s.Redact(text)
}

// MaxFeedback bounds a rejection's feedback as it is kept: the log line,
// the candidate's body.
const MaxFeedback = 32 << 10

// TwoStrikeTemplate is ClawFlow's two-strike addendum, word for word (docs/gates.md).
const TwoStrikeTemplate = `## Two-Strike Protocol

Your previous two attempts at this stage were rejected for similar reasons:
- Attempt 1: {{rejection_1_summary}}
- Attempt 2: {{rejection_2_summary}}

Before proceeding, you MUST:
1. Explain why your previous approach failed
2. List 3 fundamentally different strategies to solve this
3. Choose the best strategy and explain why
4. Only then proceed with implementation`

// Addendum fills the Two-Strike Protocol in with the two rejections'
// summaries.
func Addendum(first, second string) string {
	return strings.NewReplacer("{{rejection_1_summary}}", first, "{{rejection_2_summary}}", second).Replace(TwoStrikeTemplate)
}

// roots are the working trees whose logs hold a task's events: the
// project's, and the task's own worktree when it has one elsewhere (the
// merge records a block there).
func (s *Store) roots(st *State) []string {
	roots := []string{s.Proj.Root}
	if st != nil && st.Worktree != "" && filepath.Clean(st.Worktree) != filepath.Clean(s.Proj.Root) {
		if fi, err := os.Stat(st.Worktree); err == nil && fi.IsDir() {
			roots = append(roots, st.Worktree)
		}
	}
	return roots
}

// Load returns a task's state. A task with no log is new (no events).
func (s *Store) Load(name string) (*State, []Problem, error) {
	if err := ValidName(name); err != nil {
		return nil, nil, err
	}
	evs, probs, err := loadEvents([]string{s.Proj.Root}, name)
	if err != nil {
		return nil, nil, err
	}
	st := Fold(name, evs)
	if roots := s.roots(st); len(roots) > 1 {
		if evs, probs, err = loadEvents(roots, name); err != nil {
			return nil, nil, err
		}
		st = Fold(name, evs)
	}
	return st, probs, nil
}

// Exists reports whether a task has a log here.
func (s *Store) Exists(name string) bool {
	_, err := os.Stat(s.Proj.Path(LogRel(name)))
	return err == nil
}

// UnknownError is a task that has no log here, with the tasks there are.
type UnknownError struct {
	Task  string
	Known []string
}

func (e *UnknownError) Error() string {
	there := "no task has a log here yet"
	if len(e.Known) > 0 {
		there = "tasks here: " + strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("no task %q here (%s does not exist; %s); 'devlearn task start %s' describes a new one", e.Task, LogRel(e.Task), there, e.Task)
}

// Known returns an error naming the task and the tasks there are when name
// has no log here: a person's command about a task (a rejection, a stage,
// its status) must not start a second task from a typo.
func (s *Store) Known(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if s.Exists(name) {
		return nil
	}
	return s.unknown(name)
}

func (s *Store) unknown(name string) error {
	names, _ := Names(s.Proj)
	return &UnknownError{Task: name, Known: names}
}

// record appends events to a task's log under its lock, given its state
// as the lock found it.
func (s *Store) record(ctx context.Context, name string, build func(*State, []*Event) ([]*Event, error)) error {
	if rule := redact.InName(name); rule != "" {
		return fmt.Errorf("task name %q holds what reads as a secret (%s), and it would name a committed file: name the task by what it does", name, rule)
	}
	st, _, err := s.Load(name)
	if err != nil {
		return err
	}
	return update(ctx, s.Proj, s.roots(st), name, func(evs []*Event) ([]*Event, error) {
		add, err := build(Fold(name, evs), evs)
		if err != nil {
			return nil, err
		}
		for _, ev := range add {
			ev.Task = name
			// A title or a reason is a person's free text, committed
			// with the log; feedback was redacted before it was used.
			ev.Title, ev.Reason = s.redact(ev.Title), s.redact(ev.Reason)
			if err := stamp(ev, s.Now, s.Src); err != nil {
				return nil, err
			}
		}
		return add, nil
	})
}

// StartOptions describe a task: its title, branch, base, worktree, and
// whether 'task done' merges it.
type StartOptions struct {
	Title, Branch, Base, Worktree, Stage string
	AutoMerge                            *bool
}

// Start records a task's description (again, to change it: the latest
// value of each field wins).
func (s *Store) Start(ctx context.Context, name string, o StartOptions) (*State, error) {
	if o.Stage != "" {
		if err := ValidStage(o.Stage); err != nil {
			return nil, err
		}
	}
	err := s.record(ctx, name, func(*State, []*Event) ([]*Event, error) {
		return []*Event{{Op: OpStart, Title: o.Title, Branch: o.Branch, Base: o.Base, Worktree: o.Worktree, AutoMerge: o.AutoMerge, Stage: o.Stage}}, nil
	})
	if err != nil {
		return nil, err
	}
	st, _, err := s.Load(name)
	return st, err
}

// EnterStage records that the task moved to a stage.
func (s *Store) EnterStage(ctx context.Context, name, stage string) error {
	if err := ValidStage(stage); err != nil {
		return err
	}
	return s.record(ctx, name, func(*State, []*Event) ([]*Event, error) {
		return []*Event{{Op: OpStage, Stage: stage}}, nil
	})
}

// ValidStage checks a stage name: one of ClawFlow's seven, or the Stop
// hook's.
func ValidStage(stage string) error {
	if stage == StopStage || contains(config.Stages, stage) {
		return nil
	}
	return fmt.Errorf("stage %q is not one of %s, %s", stage, strings.Join(config.Stages, ", "), StopStage)
}

// RecordGates records a run of gates on the task.
func (s *Store) RecordGates(ctx context.Context, name, stage, when string, rep *gate.Report) error {
	recs := make([]GateRecord, 0, len(rep.Results))
	for _, r := range rep.Results {
		recs = append(recs, GateRecord{
			Name: r.Name, Required: r.Required, OK: r.OK, ExitCode: r.ExitCode, TimedOut: r.TimedOut,
			DurationMS: r.DurationMS, Problem: r.Problem, Tail: tail(r.Output, 1<<10),
		})
	}
	return s.record(ctx, name, func(*State, []*Event) ([]*Event, error) {
		return []*Event{{Op: OpGate, Stage: stage, When: when, Gates: recs}}, nil
	})
}

// GateFeedback is the rejection feedback of a gate run: each required gate
// that failed, how, its first error line, and its bounded output. from
// names the first failed gate ("gate:<name>").
func GateFeedback(rep *gate.Report) (feedback, from string) {
	failed := rep.Failed()
	if len(failed) == 0 {
		return "", ""
	}
	var b strings.Builder
	for i, r := range failed {
		if i > 0 {
			b.WriteString("\n\n")
		}
		first := firstErrorLine(r.Output)
		fmt.Fprintf(&b, "Gate %q failed (%s)", r.Name, r.Why())
		if first != "" {
			fmt.Fprintf(&b, ": %s", first)
		}
		b.WriteString(".\n")
		if strings.TrimSpace(r.Output) != "" {
			fmt.Fprintf(&b, "\n$ %s\n%s\n", r.Command, strings.TrimRight(r.Output, "\n"))
		}
	}
	return b.String(), "gate:" + failed[0].Name
}

// firstErrorLine is the first line of output that reads like an error,
// else its first line.
func firstErrorLine(out string) string {
	var first string
	for _, line := range strings.Split(out, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "=== RUN") {
			continue
		}
		if first == "" {
			first = l
		}
		low := strings.ToLower(l)
		for _, w := range errorWords {
			if strings.Contains(low, w) {
				return knowledge.Cut(l, 150)
			}
		}
	}
	return knowledge.Cut(first, 150)
}

// Outcome is what a rejection did.
type Outcome struct {
	Task  string `json:"task"`
	Stage string `json:"stage"`
	// Strike is the rejection's number at the stage since the task last
	// resumed.
	Strike  int    `json:"strike"`
	Summary string `json:"summary"`
	// Candidate is the candidate entry saved from the feedback, or the one
	// an earlier failure of the same gate saved, which Recurrences then
	// counts (0 for a new candidate).
	Candidate     string `json:"candidate,omitempty"`
	CandidatePath string `json:"candidate_path,omitempty"`
	Recurrences   int    `json:"recurrences,omitempty"`
	// TwoStrike is the addendum for the next attempt, when this rejection
	// and the one before are similar; Overlap is their share of terms.
	TwoStrike string  `json:"two_strike,omitempty"`
	Overlap   float64 `json:"overlap"`
	// Breaker: this rejection tripped the circuit breaker; the task is
	// blocked and Candidates wait for a person.
	Breaker    bool     `json:"breaker"`
	Candidates []string `json:"candidates,omitempty"`
	// Suggest: the same gate failed on this many tasks or more.
	Suggest *Suggestion `json:"suggest_global,omitempty"`
}

// Suggestion is a gate failing across tasks: its lessons may belong in the
// global store.
type Suggestion struct {
	Gate       string   `json:"gate"`
	Tasks      []string `json:"tasks"`
	Candidates []string `json:"candidates"`
}

// RejectInput is one rejection.
type RejectInput struct {
	Task, Stage, Feedback string
	// From is "person" (task reject) or "gate:<name>" (a failed gate).
	From    string
	Session string
	// When is "pre" for a stage's pre gates that refused it: the task
	// did not enter the stage.
	When string
}

// Reject records a rejection (ClawFlow's first capture trigger, docs/gates.md): the feedback is
// saved as a candidate entry, the Two-Strike Protocol fires when it is
// similar to the previous rejection at the stage, and the circuit breaker
// trips at tasks.breaker_after rejections, blocking the task with its
// candidates listed for a person.
func (s *Store) Reject(ctx context.Context, in RejectInput) (*Outcome, error) {
	if err := ValidStage(in.Stage); err != nil {
		return nil, err
	}
	// Feedback read from a gate or stdin may hold bytes that are not UTF-8:
	// kept as U+FFFD, since the entry store refuses such text and the
	// rejection would go unrecorded.
	feedback := strings.TrimSpace(strings.ToValidUTF8(in.Feedback, "\uFFFD"))
	if feedback == "" {
		return nil, errors.New("the feedback is empty: say why the stage was rejected")
	}
	feedback = s.redact(feedback)
	if len(feedback) > MaxFeedback {
		feedback = strings.ToValidUTF8(feedback[:MaxFeedback], "") + "\n[… cut at 32 KiB]"
	}
	if in.From == "" {
		in.From = "person"
	}
	out := &Outcome{Task: in.Task, Stage: in.Stage, Summary: FirstSentence(feedback)}
	err := s.record(ctx, in.Task, func(st *State, evs []*Event) ([]*Event, error) {
		if st.Status == StatusMerged {
			return nil, fmt.Errorf("task %s is merged: its rejections are over", in.Task)
		}
		n := 1 // the rejection's number at the stage, ever: it names the candidate
		for _, ev := range evs {
			if ev.Op == OpReject && ev.Stage == in.Stage {
				n++
			}
		}
		cand, path, count, err := s.saveCandidate(ctx, st, in, feedback, out.Summary, n)
		if err != nil {
			return nil, err
		}
		out.Candidate, out.CandidatePath, out.Recurrences = cand, path, count
		// Stamped here to name it in a two-strike event; record stamps it
		// again to the same id.
		rej := &Event{Op: OpReject, Task: in.Task, Stage: in.Stage, When: in.When, From: in.From, Feedback: feedback, Summary: out.Summary, Candidate: cand, Session: in.Session, N: n}
		if err := stamp(rej, s.Now, s.Src); err != nil {
			return nil, err
		}
		add := []*Event{rej}
		out.Strike = st.StrikesAt(in.Stage) + 1
		prev := st.lastRejection(in.Stage)
		if prev != nil {
			_, out.Overlap = Similar(prev.Feedback, feedback, s.Config.Tasks.Similarity)
		}
		switch {
		case out.Strike >= s.Config.Tasks.BreakerAfter:
			out.Breaker = true
			out.Candidates = s.openCandidates(append(st.Lessons, cand))
			add = append(add, &Event{Op: OpBreaker, Stage: in.Stage, Candidates: out.Candidates, Reason: fmt.Sprintf("%d rejections at %s", out.Strike, in.Stage)})
		case prev != nil && out.Overlap > s.Config.Tasks.Similarity:
			out.TwoStrike = Addendum(prev.Summary, out.Summary)
			add = append(add, &Event{Op: OpTwoStrike, Stage: in.Stage, Rejections: []string{prev.EID, rej.EID}, Overlap: round2(out.Overlap)})
		}
		if strings.HasPrefix(in.From, "gate:") {
			if sg, err := s.acrossTasks(in.Task, in.From, cand); err == nil && sg != nil {
				out.Suggest = sg
				add = append(add, &Event{Op: OpSuggestGlobal, Gate: strings.TrimPrefix(in.From, "gate:"), Tasks: sg.Tasks, Candidates: sg.Candidates})
			}
		}
		return add, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// saveCandidate saves the feedback as a candidate entry, as ClawFlow's
// first capture trigger says: keyed by task title, stage and rejection number, the
// first sentence as summary, category lesson_learned, source fdrl,
// source_id the task, tagged with the stage and the task's keywords.
//
// The key ends with six hex digits of the rejection (its task, stage,
// number, time and feedback): two branches that each reach rejection 1 of
// a task write two files, not one file twice with different content, so
// merging them never conflicts (entries are one per file for that
// reason). The same rejection written again (a retry after a crash at the
// same time) lands in the same file, and so does one retried later: a
// candidate of this task, stage and number with the same feedback is taken
// as saved by a run that stopped before its log line.
func (s *Store) saveCandidate(ctx context.Context, st *State, in RejectInput, feedback, summary string, n int) (key, path string, count int, err error) {
	// The key names a committed file: a title recorded before titles
	// were redacted must not put a secret in it.
	title := s.redact(st.Title)
	if title == "" {
		title = in.Task
	}
	base := textkey.Slug(title)
	if base == "" {
		base = "task"
	}
	id := sha256.Sum256([]byte(strings.Join([]string{in.Task, in.Stage, fmt.Sprint(n), s.Now.UTC().Format(time.RFC3339), feedback}, "\x00")))
	rest := fmt.Sprintf("-%s-rejection-%d-", textkey.Slug(in.Stage), n)
	suffix := rest + hex.EncodeToString(id[:3])
	if len(base)+len(suffix) > knowledge.MaxKey {
		base = strings.TrimRight(base[:knowledge.MaxKey-len(suffix)], "-")
	}
	//devlearn:triggers "task reject" "gate pre" "gate post" "gate stop" "hook stop": the rejections
	w := evolve.New(s.Proj, s.Now, evolve.Trigger{Command: s.Src, Task: in.Task, Session: in.Session})
	store := entrystore.Project(s.Proj, w)
	if key, path, ok := s.savedBefore(store, base+rest, in.Task, feedback); ok {
		return key, path, 0, nil
	}
	evidence := knowledge.Cut(fmt.Sprintf("task %s, stage %s, rejection %d, from %s", in.Task, in.Stage, n, in.From), knowledge.MaxItemLen)
	if key, path, count, err := s.recurring(ctx, store, in, feedback, evidence); err != nil || count > 0 {
		return key, path, count, err
	}
	e := &knowledge.Entry{
		Key:      base + suffix,
		Summary:  summary,
		Kind:     "warning",
		Category: "lesson_learned",
		Status:   knowledge.StatusCandidate,
		Source:   "fdrl",
		SourceID: in.Task,
		Tags:     append([]string{in.Stage}, keywords(title)...),
		Evidence: []string{evidence},
		Body:     feedback,
	}
	why := fmt.Sprintf("%s: task %s rejected at %s (%d)", s.Src, in.Task, in.Stage, n)
	p, created, err := store.Create(ctx, e, why)
	if err != nil {
		return "", "", 0, err
	}
	if !created {
		if old, _, err := store.Read(e.Key); err != nil || knowledge.ContentHash(old) != knowledge.ContentHash(e) {
			return "", "", 0, fmt.Errorf("%s already holds another entry: the rejection was not recorded", p)
		}
	}
	return e.Key, p, 0, nil
}

// recurring counts a gate's failure on the candidate an earlier failure of
// the same gate at the same stage saved, when that one still waits for
// review and its feedback is similar (more than tasks.similarity of terms
// shared), in any task: a test that fails at every stop is one lesson for
// a person to look at, with its count, not one candidate per stop. The
// candidate's summary starts with the count and its evidence names the
// last failure. A person's own rejections, and failures after a person decided
// on the lesson, are new candidates.
func (s *Store) recurring(ctx context.Context, store *entrystore.Store, in RejectInput, feedback, evidence string) (key, path string, count int, err error) {
	if !strings.HasPrefix(in.From, "gate:") {
		return "", "", 0, nil
	}
	names, _ := filepath.Glob(filepath.Join(s.Proj.Path(project.EntriesDir), "*-"+textkey.Slug(in.Stage)+"-rejection-*.md"))
	sort.Strings(names)
	for _, name := range names {
		k := strings.TrimSuffix(filepath.Base(name), ".md")
		e, _, rerr := store.Read(k)
		if rerr != nil || e.Source != "fdrl" || e.Status != knowledge.StatusCandidate || len(e.Evidence) == 0 {
			continue
		}
		if _, stage, from, ok := parseEvidence(e.Evidence[0]); !ok || stage != in.Stage || from != in.From {
			continue
		}
		if similar, _ := Similar(e.Body, feedback, s.Config.Tasks.Similarity); !similar {
			continue
		}
		why := fmt.Sprintf("%s: task %s failed again at %s (%s)", s.Src, in.Task, in.Stage, in.From)
		_, p, err := store.Edit(ctx, k, why, func(e *knowledge.Entry) error {
			count = Recurrences(e) + 1
			// First, where a list cut to its width still shows it.
			prefix := fmt.Sprintf("(%d times) ", count)
			sum := stripCount(e.Summary)
			if utf8.RuneCountInString(prefix+sum) > knowledge.MaxSummary {
				sum = knowledge.Cut(sum, knowledge.MaxSummary-utf8.RuneCountInString(prefix))
			}
			e.Summary = prefix + sum
			last := knowledge.Cut(fmt.Sprintf("failed %d times in all: last %s, at %s", count, strings.TrimSuffix(evidence, ", from "+in.From), s.Now.UTC().Format(time.RFC3339)), knowledge.MaxItemLen)
			e.Evidence = append(e.Evidence[:1:1], last)
			return nil
		})
		if err != nil {
			return "", "", 0, err
		}
		return k, p, count, nil
	}
	return "", "", 0, nil
}

// stripCount takes the count recurring put before a summary off it:
// "(N times) ".
func stripCount(sum string) string {
	rest, ok := strings.CutPrefix(sum, "(")
	if !ok {
		return sum
	}
	num, after, ok := strings.Cut(rest, " times) ")
	if _, err := strconv.Atoi(num); !ok || err != nil {
		return sum
	}
	return after
}

// Recurrences is how many times the failure a candidate lesson was saved
// from has happened (1 until it recurs): recurring keeps the count in its
// evidence, "failed N times in all: ...".
func Recurrences(e *knowledge.Entry) int {
	for _, ev := range e.Evidence {
		rest, ok := strings.CutPrefix(ev, "failed ")
		if !ok {
			continue
		}
		if num, _, ok := strings.Cut(rest, " times in all: "); ok {
			if n, err := strconv.Atoi(num); err == nil && n > 0 {
				return n
			}
		}
	}
	return 1
}

// parseEvidence reads the evidence line saveCandidate writes: "task T,
// stage S, rejection N, from F" (a task name and a stage hold no comma).
func parseEvidence(line string) (taskName, stage, from string, ok bool) {
	parts := strings.Split(line, ", ")
	if len(parts) != 4 || !strings.HasPrefix(parts[0], "task ") || !strings.HasPrefix(parts[1], "stage ") || !strings.HasPrefix(parts[3], "from ") {
		return "", "", "", false
	}
	return strings.TrimPrefix(parts[0], "task "), strings.TrimPrefix(parts[1], "stage "), strings.TrimPrefix(parts[3], "from "), true
}

// savedBefore finds the candidate a stopped run saved for this rejection:
// the number is taken under the log's lock, so a file with its stem, task
// and feedback is that run's.
func (s *Store) savedBefore(store *entrystore.Store, stem, task, feedback string) (key, path string, ok bool) {
	names, _ := filepath.Glob(filepath.Join(s.Proj.Path(project.EntriesDir), stem+"*.md"))
	for _, name := range names {
		k := strings.TrimSuffix(filepath.Base(name), ".md")
		if e, p, err := store.Read(k); err == nil && e.Source == "fdrl" && e.SourceID == task &&
			strings.TrimSpace(e.Body) == strings.TrimSpace(feedback) {
			return k, p, true
		}
	}
	return "", "", false
}

// openCandidates keeps the keys whose entries are still candidates.
func (s *Store) openCandidates(keys []string) []string {
	out := []string{}
	//devlearn:triggers "task reject" "gate pre" "gate post" "gate stop" "hook stop": it only reads
	store := entrystore.Project(s.Proj, evolve.New(s.Proj, s.Now, evolve.Trigger{Command: s.Src}))
	for _, k := range keys {
		if e, _, err := store.Read(k); err == nil && e.Status == knowledge.StatusCandidate && !contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// OpenCandidates lists a task's lessons still waiting for review.
func (s *Store) OpenCandidates(st *State) []string { return s.openCandidates(st.Lessons) }

// acrossTasks finds the tasks whose logs hold a rejection from the same
// gate; at tasks.global_after of them (this one included) it suggests a
// global lesson.
func (s *Store) acrossTasks(self, from, cand string) (*Suggestion, error) {
	names, err := Names(s.Proj)
	if err != nil {
		return nil, err
	}
	sg := &Suggestion{Gate: strings.TrimPrefix(from, "gate:"), Tasks: []string{self}, Candidates: []string{cand}}
	for _, name := range names {
		if name == self {
			continue
		}
		evs, _, err := readLog(s.Proj.Path(LogRel(name)), LogRel(name))
		if err != nil {
			continue
		}
		hit := ""
		for _, ev := range evs {
			if ev.Op == OpReject && ev.From == from {
				hit = firstOf(ev.Candidate, hit)
				if hit == "" {
					hit = "-"
				}
			}
		}
		if hit != "" {
			sg.Tasks = append(sg.Tasks, name)
			if hit != "-" && !contains(sg.Candidates, hit) {
				sg.Candidates = append(sg.Candidates, hit)
			}
		}
	}
	if len(sg.Tasks) < s.Config.Tasks.GlobalAfter {
		return nil, nil
	}
	sort.Strings(sg.Tasks)
	sort.Strings(sg.Candidates)
	return sg, nil
}

// Resume clears the breaker (or records a person's go-ahead after a
// conflict they resolved): strikes start again from zero.
func (s *Store) Resume(ctx context.Context, name, reason string) error {
	return s.record(ctx, name, func(st *State, _ []*Event) ([]*Event, error) {
		if st.Events == 0 {
			return nil, s.unknown(name)
		}
		return []*Event{{Op: OpResume, Reason: reason}}, nil
	})
}

// List returns the state of every task with a log here, most recently
// changed first.
func (s *Store) List() ([]*State, error) {
	names, err := Names(s.Proj)
	if err != nil {
		return nil, err
	}
	out := make([]*State, 0, len(names))
	for _, n := range names {
		st, _, err := s.Load(n)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated > out[j].Updated })
	return out, nil
}

// FirstSentence is a feedback's summary (ClawFlow: "first sentence of
// feedback"): its first line, up to the end of its first sentence, one
// line of at most knowledge.MaxSummary characters.
func FirstSentence(text string) string {
	line := ""
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	for i := 0; i < len(line); i++ {
		if (line[i] == '.' || line[i] == '!' || line[i] == '?') && (i+1 == len(line) || line[i+1] == ' ') {
			line = line[:i+1]
			break
		}
	}
	if utf8.RuneCountInString(line) > knowledge.MaxSummary {
		line = knowledge.Cut(line, knowledge.MaxSummary)
	}
	if line == "" {
		line = "Rejected without a reason given"
	}
	return line
}

// titleGlue are the words of a title that say nothing on their own.
var titleGlue = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "that": true, "this": true, "when": true, "not": true}

// keywords are the words of a task's title worth a tag.
func keywords(title string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) < 3 || titleGlue[w] || contains(out, w) {
			continue
		}
		out = append(out, w)
		if len(out) == 8 {
			break
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[len(s)-n:], "")
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
