package hook

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
)

// stopAndChecklists is the Stop hook: capture first (stop, capture.go),
// then the directive system's step, independent of it: the checklist gate
// and, once the agent may stop, the session-end mention of new directive
// files in the nearest AGENTS.md. A failure of either is logged and leaves
// the other's answer standing.
func (r *run) stopAndChecklists() (*Output, error) {
	o, err := r.stop()
	switch {
	case errors.Is(err, errQuiet):
		o = nil
	case err != nil:
		r.log.Printf("%v", err)
		o = nil
	}
	if g := r.checklistGate(o); g != nil {
		fitReason(g, r.cfg.Serve.BudgetChars)
		return g, nil
	}
	return nil, errQuiet
}

// fitReason cuts a block's reason in its middle until the output as
// printed is within budget: JSON writes a tab, a quote or a colour code in
// more characters than it is, so a reason within maxReason characters can
// still print past the bound every hook output keeps.
func fitReason(o *Output, budget int) {
	if o.Reason == "" || size(o) <= budget {
		return
	}
	// The longest cut that fits, found by halving: how many characters a
	// rune prints as depends on which runes are cut.
	orig := o.Reason
	lo, hi := 0, utf8.RuneCountInString(orig)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if o.Reason = cutMiddle(orig, mid); size(o) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	o.Reason = cutMiddle(orig, lo)
}

// checklistGate blocks the stop while a checklist of an area the session
// changed waits to be submitted ticked (State.Pending). It blocks once:
// when Claude Code says the agent is already continuing because of a Stop
// hook (stop_hook_active), the stop is let through with a line for the
// person, so the gate can never keep a session going for ever. o is what
// the steps before it answered; a block of theirs is kept and added to.
func (r *run) checklistGate(o *Output) *Output {
	d := r.cfg.Directives
	sess := r.directiveSession()
	if !d.Enabled || !sess.Exists() {
		return o
	}
	err := sess.Update(r.ctx, r.now, func(st *directives.State) ([]directives.Record, error) {
		var pending []directives.Pending
		if d.ChecklistGate {
			pending = st.Pending()
		}
		if len(pending) > 0 && !r.in.StopHookActive {
			o = withBlock(o, checklistReason(pending, SafeName(r.in.SessionID)))
			return []directives.Record{{Op: directives.OpBlocked}}, nil
		}
		var recs []directives.Record
		if len(pending) > 0 {
			var names []string
			for _, p := range pending {
				names = append(names, p.File)
			}
			msg := fmt.Sprintf("devlearn: the session stopped without %s submitted ticked (the agent was asked once; 'devlearn directives check' records it).", strings.Join(names, ", "))
			r.log.Printf("%s", msg)
			if o == nil {
				o = &Output{}
			}
			o.SystemMessage = strings.TrimLeft(o.SystemMessage+"\n"+msg, "\n")
			recs = append(recs, directives.Record{Op: directives.OpReleased})
		}
		return append(recs, r.mentionNew(st)...), nil
	})
	if err != nil {
		r.log.Printf("directives at stop: %v", err)
	}
	return o
}

// sessionEndAndDirectives is the SessionEnd hook: the spool first
// (sessionEnd, capture.go), then the end-of-session mention of the
// directive files created in a session that ended without a Stop the
// agent was let through (interrupted, /clear).
func (r *run) sessionEndAndDirectives() (*Output, error) {
	o, err := r.sessionEnd()
	if sess := r.directiveSession(); r.cfg.Directives.Enabled && sess.Exists() {
		if uerr := sess.Update(r.ctx, r.now, func(st *directives.State) ([]directives.Record, error) {
			return r.mentionNew(st), nil
		}); uerr != nil {
			r.log.Printf("directives at session end: %v", uerr)
		}
	}
	return o, err
}

// withBlock makes o block with reason, after the reason o already blocks
// with (a stop gate's), the two within maxReason characters: the reason
// added keeps at most half, the one before is cut in its middle to leave
// the room, so that the instructions at the end of each are read whole.
func withBlock(o *Output, reason string) *Output {
	if o == nil {
		o = &Output{}
	}
	if o.Decision == "block" && o.Reason != "" {
		reason = cutMiddle(reason, maxReason/2)
		room := maxReason - utf8.RuneCountInString(reason) - len("\n\n")
		o.Reason = cutMiddle(o.Reason, room) + "\n\n" + reason
	} else {
		o.Decision, o.Reason = "block", reason
	}
	return o
}

// maxListed bounds the checklists a block reason names one by one.
const maxListed = 10

// checklistReason tells the agent what to do, exactly: which files, how
// to submit them, and that a box is ticked only when it is true.
func checklistReason(pending []directives.Pending, session string) string {
	var b strings.Builder
	b.WriteString("devlearn: before you stop, go through the checklist of the area you changed and submit it with every box ticked:\n")
	for i, p := range pending {
		if i == maxListed {
			fmt.Fprintf(&b, "  and %d more\n", len(pending)-i)
			break
		}
		fmt.Fprintf(&b, "  %s (%s)\n", p.Abs, boxesToTick(p.Open))
	}
	fmt.Fprintf(&b, "Tick a box only when what it says is true; if one cannot be, tell the person instead of ticking it.\n"+
		"Submit as JSON on stdin, each key a checklist's absolute path, each value its whole markdown with nothing changed but [ ] made [x]:\n"+
		"  devlearn directives check --session %s < submission.json\n"+
		"with submission.json holding {%q: \"<the whole file, boxes ticked>\"}. Every line is compared with the file; any other change is rejected with the line that differs.",
		session, pending[0].Abs)
	return b.String()
}

func boxesToTick(n int) string {
	if n == 1 {
		return "1 box to tick"
	}
	return fmt.Sprintf("%d boxes to tick", n)
}

// mentionNew is the session-end management of new directive files: the
// nearest AGENTS.md of each file created in the session names it (written
// through the one writer, so the edit is in the audit log). Each new file
// is dealt with once per session, named or not.
func (r *run) mentionNew(st *directives.State) []directives.Record {
	var todo []string
	for _, f := range st.New {
		if !st.Mentioned[f] {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ms, err := directives.Mentions(r.proj.Root, todo, nil)
	if err != nil {
		r.log.Printf("naming new directive files in AGENTS.md: %v", err)
		return nil
	}
	if len(ms) > 0 {
		var changes []evolve.Change
		for _, m := range ms {
			changes = append(changes, evolve.Change{Path: m.Path, Data: m.Data})
		}
		w := evolve.New(r.proj, r.now, evolve.Trigger{Command: "hook stop", Session: r.in.SessionID})
		if _, err := w.Apply(r.ctx, evolve.Reason{Text: "directives: the nearest AGENTS.md names the directive files added in this session"}, changes...); err != nil {
			r.log.Printf("naming new directive files in AGENTS.md: %v", err)
			return nil
		}
	}
	var recs []directives.Record
	for _, f := range todo {
		recs = append(recs, directives.Record{Op: directives.OpMentioned, File: f})
	}
	return recs
}
