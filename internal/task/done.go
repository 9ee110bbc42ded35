package task

import (
	"context"
	"errors"
	"fmt"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/gate"
)

// ErrBreaker is wrapped by the error of a task the circuit breaker has
// blocked: nothing more runs until a person resumes it.
var ErrBreaker = errors.New("blocked by the circuit breaker")

// BreakerError says a task is blocked by its breaker, with what waits for
// review.
type BreakerError struct {
	Task       string
	Stage      string
	Candidates []string
}

func (e *BreakerError) Error() string {
	return fmt.Sprintf("task %s is blocked by the circuit breaker at %s", e.Task, e.Stage)
}

func (e *BreakerError) Unwrap() error { return ErrBreaker }

// Blocked returns a *BreakerError when the breaker blocks st.
func (s *Store) Blocked(st *State) error {
	if st.Status == StatusBlocked && st.BlockedBy == BlockedBreaker {
		// The stage the breaker counted: a refused pre gate may have kept
		// the task out of it.
		return &BreakerError{Task: st.Task, Stage: firstOf(st.blockedAt, st.Stage), Candidates: s.OpenCandidates(st)}
	}
	return nil
}

// DoneOptions is how a task is finished.
type DoneOptions struct {
	// Gates are the post gates of the done stage (trusted config only);
	// GateOptions where they run (the task's worktree fills Worktree).
	Gates       []config.Gate
	GateOptions gate.Options
	// DefaultBase is the base when the task names none (tasks.base);
	// AutoMerge the project's default (tasks.auto_merge), a task's own
	// setting winning.
	DefaultBase string
	AutoMerge   bool
}

// DoneResult is what finishing did, and what is left to merge.
type DoneResult struct {
	Task   string       `json:"task"`
	Gates  *gate.Report `json:"gates"`
	Reject *Outcome     `json:"rejection,omitempty"`
	// Merge is true when the task is to be merged: Target (its worktree,
	// else its branch, else its name) into Into ("" for the repository's
	// main branch). Kept says why not, when it keeps its branch.
	Merge  bool   `json:"merge"`
	Target string `json:"target,omitempty"`
	Into   string `json:"into,omitempty"`
	Kept   string `json:"kept_because,omitempty"`
	// Candidates are the task's lessons still waiting for review (ClawFlow
	// reviews them at completion).
	Candidates []string `json:"candidates"`
}

// ErrGateFailed is wrapped when a required gate of the done stage failed.
var ErrGateFailed = errors.New("a required gate failed")

// Done finishes a task (ClawFlow's auto-merge on completion, docs/gates.md): the done stage's post gates run (a
// required failure is a rejection, as anywhere); when they pass, the task
// is recorded done (or, when it merges, left for its merge to record) and
// the result says what to merge where. The merge
// itself is devlearn merge's (gitx.Merge, one merge per base at a time;
// it records the merge commit, or the conflict that blocks the task, in
// this log); the caller runs it, so that this package, which the Stop hook
// links, never links go-git's transports.
func (s *Store) Done(ctx context.Context, name string, o DoneOptions) (*DoneResult, error) {
	st, _, err := s.Load(name)
	if err != nil {
		return nil, err
	}
	if st.Events == 0 {
		return nil, s.unknown(name)
	}
	if err := s.Blocked(st); err != nil {
		return nil, err
	}
	if st.Status == StatusMerged {
		return nil, fmt.Errorf("task %s is already merged (%s)", name, short(st.Merge.Commit))
	}
	res := &DoneResult{Task: name, Candidates: []string{}}
	o.GateOptions.Worktree = firstOf(st.Worktree, o.GateOptions.Worktree)
	res.Gates = gate.Run(ctx, o.Gates, o.GateOptions)
	if len(res.Gates.Results) > 0 {
		if err := s.RecordGates(ctx, name, "done", "post", res.Gates); err != nil {
			return nil, err
		}
	}
	if res.Gates.Blocked() {
		fb, from := GateFeedback(res.Gates)
		if res.Reject, err = s.Reject(ctx, RejectInput{Task: name, Stage: "done", Feedback: fb, From: from}); err != nil {
			return nil, err
		}
		return res, ErrGateFailed
	}
	res.Candidates = s.OpenCandidates(st)
	if !st.Merges(o.AutoMerge) {
		if err := s.record(ctx, name, func(*State, []*Event) ([]*Event, error) {
			return []*Event{{Op: OpDone, Stage: "done"}}, nil
		}); err != nil {
			return nil, err
		}
		res.Kept = "auto_merge is off: the branch stays for you (a pull request, say)"
		return res, nil
	}
	// A task that merges is done when its merge is: the merge records it
	// (merged), and a merge refused or cut short records nothing here.
	res.Merge = true
	res.Target = firstOf(st.Worktree, firstOf(st.Branch, name))
	res.Into = firstOf(st.Base, o.DefaultBase)
	return res, nil
}

// RecordMerged records the task merged, for a merge whose own record went
// to another worktree's log than this project's.
func (s *Store) RecordMerged(ctx context.Context, name, kind, commit, base string) error {
	return s.record(ctx, name, func(st *State, _ []*Event) ([]*Event, error) {
		if st.Status == StatusMerged && st.Merge != nil && st.Merge.Commit == commit {
			return nil, nil
		}
		return []*Event{{Op: OpMerged, Stage: "done", Kind: kind, Commit: commit, Base: base}}, nil
	})
}

// RecordMergeFailed records that the task's merge failed for another
// reason than a conflict (which the merge records itself): the task is not
// done, and next says what to do before 'task done' again.
func (s *Store) RecordMergeFailed(ctx context.Context, name, base, reason, next string) error {
	return s.record(ctx, name, func(*State, []*Event) ([]*Event, error) {
		return []*Event{{Op: OpMergeFailed, Base: base, Reason: reason, Next: next}}, nil
	})
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
