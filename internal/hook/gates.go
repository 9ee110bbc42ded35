package hook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
	"github.com/devlearn/devlearn/internal/task"
)

// stopReserve is the part of the Stop hook's registered timeout kept for
// everything but the gates: reading the input, the block capture, the
// records, the output.
const stopReserve = 15 * time.Second

// StopGateBudget is what the Stop gates may take together: the timeout
// devlearn registers for the Stop hook (settings.StopTimeout) less the
// reserve, so the hook always answers before Claude Code gives up on it.
const StopGateBudget = time.Duration(settings.StopTimeout)*time.Second - stopReserve

// maxReason bounds the block's reason, as every hook output is bounded
// (the hook output rule, docs/architecture.md).
const maxReason = 8000

// stopGates is the Stop hook's gate step, deferred by stop so that it runs
// after the capture of the agent's knowledge blocks whatever that did:
// the stop gates configured (and trusted) run; a required failure is a
// rejection of the session's task (the session is the task unless
// DEVLEARN_TASK names one) and blocks the stop with the gate's output, the
// Two-Strike Protocol added on the second similar failure; the circuit
// breaker lets the session end at the third (stop_hook_active or not),
// leaving the lessons as candidates. Any internal error is logged and the
// stop goes ahead.
func (r *run) stopGates(o **Output, err *error) {
	out := r.gateStop()
	if out == nil {
		return
	}
	if *err != nil && !errors.Is(*err, errQuiet) {
		r.log.Printf("%v", *err)
	}
	*err = nil
	if out.Decision == "block" {
		// Another step may have blocked too: the agent hears of both.
		*o = withBlock(*o, out.Reason)
		return
	}
	if *o == nil {
		*o = &Output{}
	}
	(*o).SystemMessage = strings.TrimLeft((*o).SystemMessage+"\n"+out.SystemMessage, "\n")
}

// SessionTask is the task a session's stop gates record to: the one
// DEVLEARN_TASK names, else the session itself.
func SessionTask(named, sessionID string) string {
	if named != "" && task.ValidName(named) == nil {
		return named
	}
	id := SafeName(sessionID)
	if len(id) > 8 {
		id = id[:8]
	}
	return "session-" + id
}

// sessionTask is the task this session works on (SessionTask) and its
// state, as its log has it: what the stop gates record to, and whose
// stage post-tool-use gives the directives of. A task with no log is new:
// no stage.
func (r *run) sessionTask(src string) (string, *task.Store, *task.State, error) {
	name := SessionTask(r.env.Task, r.in.SessionID)
	store := &task.Store{Proj: r.proj, Config: r.cfg, Now: r.now, Src: src, Redact: r.env.Redact}
	st, probs, err := store.Load(name)
	if err != nil {
		return name, store, nil, err
	}
	for _, p := range probs {
		r.log.Printf("%v", p)
	}
	return name, store, st, nil
}

func (r *run) gateStop() *Output {
	in, err := gate.Trusted(r.env.Home, r.proj.Root, r.cfg)
	if err != nil {
		r.log.Printf("stop gates: %v (not run)", err)
		return nil
	}
	if len(in.Gates.Stop) == 0 {
		if in.Untrusted != "" && in.Held != nil && len(in.Held.Stop) > 0 {
			return r.untrustedOnce(in.Untrusted)
		}
		return nil
	}
	name, store, st, err := r.sessionTask("hook stop")
	if err != nil {
		r.log.Printf("stop gates: task %s: %v (not run)", name, err)
		return nil
	}
	if store.Blocked(st) != nil {
		return &Output{SystemMessage: fmt.Sprintf("devlearn: the stop gates of task %s are paused: its circuit breaker tripped. Review its lessons ('devlearn learn --review'), then 'devlearn task resume %s'.", name, name)}
	}
	stage := st.Stage
	if stage == "" {
		stage = task.StopStage
	}
	worktree := st.Worktree
	if worktree == "" {
		worktree = r.proj.Root
	}
	if err := gate.CheckWorktree(r.proj.Root, worktree, in.Gates); err != nil {
		r.log.Printf("stop gates: %v (not run)", err)
		return &Output{SystemMessage: "devlearn: the stop gates were not run: " + err.Error()}
	}
	rep := gate.Run(r.ctx, in.Gates.Stop, gate.Options{
		Project: r.proj.Root, Worktree: worktree, Env: r.env.Environ, Budget: StopGateBudget, Redact: r.env.Redact,
	})
	if r.ctx.Err() != nil {
		// The hook was stopped (the agent gave up on it): the gates were
		// cut short, which says nothing of the work; nothing is recorded.
		r.log.Printf("stop gates: stopped before their end (%v): nothing recorded", r.ctx.Err())
		return nil
	}
	if err := store.RecordGates(r.ctx, name, stage, "stop", rep); err != nil {
		r.log.Printf("stop gates: recording the run on %s: %v", name, err)
	}
	for _, w := range rep.Warnings() {
		r.log.Printf("stop gates: optional gate %q failed (%s)", w.Name, w.Why())
	}
	if !rep.Blocked() {
		return nil
	}
	fb, from := task.GateFeedback(rep)
	o, err := store.Reject(r.ctx, task.RejectInput{Task: name, Stage: stage, Feedback: fb, From: from, Session: r.in.SessionID})
	if err != nil {
		// Not recorded, so no breaker can count it: let the stop go
		// rather than risk a loop.
		r.log.Printf("stop gates: recording the rejection of %s: %v (the stop goes ahead)", name, err)
		return nil
	}
	if o.Breaker {
		msg := fmt.Sprintf("devlearn: the stop gates failed %d times in a row (task %s): the circuit breaker lets the session end.", o.Strike, name)
		if len(o.Candidates) > 0 {
			msg += fmt.Sprintf(" Lessons waiting for review: %s ('devlearn learn --review').", strings.Join(o.Candidates, ", "))
		}
		return &Output{SystemMessage: msg + fmt.Sprintf(" 'devlearn task resume %s' turns the gates back on.", name)}
	}
	return &Output{Decision: "block", Reason: blockReason(fb, o)}
}

// blockReason is what the agent reads: why it may not stop, the failing
// gates' output, and the Two-Strike Protocol when it fired, within
// maxReason characters (the addendum is never cut; the output is, in its
// middle).
func blockReason(feedback string, o *task.Outcome) string {
	head := fmt.Sprintf("devlearn: a required stop gate failed (attempt %d), so the session does not end yet. Fix what it reports, then stop again.\n\n", o.Strike)
	tail := ""
	if o.TwoStrike != "" {
		tail = "\n\n" + o.TwoStrike
	}
	room := maxReason - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return head + cutMiddle(strings.TrimRight(feedback, "\n"), room) + tail
}

// cutMiddle keeps the start and the end of s within n characters.
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	note := fmt.Sprintf("\n[… %d characters left out …]\n", len(r)-n)
	keep := n - utf8.RuneCountInString(note)
	if keep <= 0 {
		return string(r[:max(n, 0)])
	}
	return string(r[:keep/2]) + note + string(r[len(r)-(keep-keep/2):])
}

// untrustedOnce tells the person, at the first Stop that skips the gates
// for a reason (a fresh clone never trusted, a config changed since), that
// they were skipped and how to let them run; later Stops for the same
// reason only log it. The reason said last is kept in the clone's state.
func (r *run) untrustedOnce(why string) *Output {
	r.log.Printf("stop gates: %s", why)
	path := r.proj.StatePath("gates", "untrusted-said")
	if said, err := os.ReadFile(path); err == nil && string(said) == why {
		return nil
	}
	if err := safefile.MkdirAll(r.proj.CommonDir, filepath.Dir(path), 0o700); err == nil {
		err = jsonl.WriteFileAtomic(r.proj.CommonDir, path, []byte(why), 0o600)
		if err != nil {
			r.log.Printf("stop gates: %v", err)
		}
	}
	return &Output{SystemMessage: "devlearn: " + why + ". Gates run this folder's own code (its tests, its scripts), so none runs until a person has trusted it here; devlearn says this once."}
}
