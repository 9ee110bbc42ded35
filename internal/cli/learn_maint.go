package cli

import (
	"fmt"

	"github.com/devlearn/devlearn/internal/cleanup"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// runLearnClear empties the observation log, under its lock, through the
// one writer (which keeps a copy of what it held).
func runLearnClear(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	log, err := w.log.Load()
	if err != nil {
		return err
	}
	n := len(log.IDs())
	if !opts.yes {
		ok, err := env.confirm(fmt.Sprintf("Empty %s (%s, %s)?", project.LogFile, plural(log.Lines, "line", "lines"), plural(n, "observation", "observations")), "--yes")
		if err != nil || !ok {
			if err == nil {
				fmt.Fprintln(env.Out, "Nothing was changed.")
			}
			return err
		}
	}
	unlock, err := jsonl.Lock(env.Context(), w.log.LockPath)
	if err != nil {
		return err
	}
	defer unlock()
	wr := evolve.New(w.proj, w.now, evolve.Trigger{Command: "learn --clear"})
	e, err := wr.Apply(env.Context(), evolve.Reason{Text: "learn --clear: the observation log emptied"}, evolve.Change{Path: project.LogFile, Data: []byte{}})
	if err != nil {
		return err
	}
	res := map[string]any{"cleared_lines": log.Lines, "observations": n, "audit": ""}
	if e != nil {
		res["audit"] = e.ID
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	if e == nil {
		fmt.Fprintf(env.Out, "%s was already empty.\n", project.LogFile)
		return nil
	}
	fmt.Fprintf(env.Out, "Cleared %s: %s, %s. A copy is kept in audit entry %s.\n", project.LogFile, plural(log.Lines, "line", "lines"), plural(n, "observation", "observations"), e.ID)
	return nil
}

type purgedLine struct {
	Line  int    `json:"line"`
	Torn  bool   `json:"torn,omitempty"`
	Error string `json:"error"`
	Text  string `json:"text"`
}

// runLearnPurge drops the corrupt lines of the log, listing each.
func runLearnPurge(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	wr := evolve.New(w.proj, w.now, evolve.Trigger{Command: "learn --purge"})
	audit := ""
	dropped, err := w.log.Purge(env.Context(), func(data []byte) error {
		e, err := wr.Apply(env.Context(), evolve.Reason{Text: "learn --purge: corrupt lines dropped from the observation log"}, evolve.Change{Path: project.LogFile, Data: data})
		if e != nil {
			audit = e.ID
		}
		return err
	})
	if err != nil {
		return err
	}
	// The audit log's own torn lines too: history reports them, and
	// this is where it sends the person.
	evDropped, ev, err := wr.PurgeLog(env.Context(), evolve.Reason{Text: "learn --purge: corrupt lines dropped from the audit log"}, gitx.IsMarkerLine)
	if err != nil {
		return err
	}
	lines, evLines := purgedLines(dropped), purgedLines(evDropped)
	evAudit := ""
	if ev != nil {
		evAudit = ev.ID
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"dropped": lines, "audit": audit, "dropped_audit_log": evLines, "audit_log_entry": evAudit})
	}
	if len(lines) == 0 && len(evLines) == 0 {
		fmt.Fprintf(env.Out, "%s and %s have no corrupt lines; nothing to purge.\n", project.LogFile, evolve.LogPath)
		return nil
	}
	if len(lines) > 0 {
		fmt.Fprintf(env.Out, "Dropped %s from %s:\n", plural(len(lines), "corrupt line", "corrupt lines"), project.LogFile)
		for _, l := range lines {
			fmt.Fprintf(env.Out, "  line %d: %s: %s\n", l.Line, l.Error, l.Text)
		}
		fmt.Fprintf(env.Out, "The old log is kept in audit entry %s.\n", audit)
	}
	if len(evLines) > 0 {
		fmt.Fprintf(env.Out, "Dropped %s from %s:\n", plural(len(evLines), "corrupt line", "corrupt lines"), evolve.LogPath)
		for _, l := range evLines {
			fmt.Fprintf(env.Out, "  line %d: %s: %s\n", l.Line, l.Error, l.Text)
		}
		fmt.Fprintf(env.Out, "Recorded as audit entry %s.\n", evAudit)
	}
	return nil
}

func purgedLines(problems []jsonl.Problem) []purgedLine {
	lines := []purgedLine{}
	for _, p := range problems {
		lines = append(lines, purgedLine{Line: p.Line, Torn: p.Torn, Error: p.Err.Error(), Text: p.Text})
	}
	return lines
}

// runLearnReset removes every artifact devlearn made here (never a
// person's own files or sections), forgets the observations with
// tombstones (which merge, unlike a deleted file), and clears the
// per-clone state.
func runLearnReset(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	plan, err := cleanup.Artifacts(w.proj)
	if err != nil {
		return err
	}
	log, err := w.log.Load()
	if err != nil {
		return err
	}
	ids := log.IDs()
	if !opts.yes {
		q := fmt.Sprintf("Remove %s devlearn made here and forget %s? Your own files and entries are kept.", plural(len(plan.Removed), "artifact", "artifacts"), plural(len(ids), "observation", "observations"))
		ok, err := env.confirm(q, "--yes")
		if err != nil || !ok {
			if err == nil {
				fmt.Fprintln(env.Out, "Nothing was changed.")
			}
			return err
		}
	}
	var tombs []*observe.Event
	for _, id := range ids {
		tombs = append(tombs, observe.NewEvent(observe.OpTombstone, id, w.now, "reset", nil))
	}
	if err := w.log.Append(env.Context(), tombs...); err != nil {
		return err
	}
	audit := ""
	if len(plan.Changes) > 0 {
		wr := evolve.New(w.proj, w.now, evolve.Trigger{Command: "learn --reset"})
		e, err := wr.Apply(env.Context(), evolve.Reason{Text: "learn --reset: devlearn's artifacts removed", Observations: ids}, plan.Changes...)
		if err != nil {
			return err
		}
		if e != nil {
			audit = e.ID
		}
		cleanup.RemoveEmptyDirs(w.proj, plan.Removed)
	}
	state, err := cleanup.ClearState(w.proj)
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"removed": plan.Removed, "kept": plan.Kept, "forgotten": len(ids), "state_cleared": nonNil(state), "audit": audit})
	}
	fmt.Fprintf(env.Out, "Removed %s devlearn made:\n", plural(len(plan.Removed), "artifact", "artifacts"))
	for _, r := range plan.Removed {
		fmt.Fprintf(env.Out, "  %s\n", r)
	}
	if len(plan.Kept) > 0 {
		fmt.Fprintf(env.Out, "Kept %s of your own:\n", plural(len(plan.Kept), "file or entry", "files or entries"))
		for _, k := range plan.Kept {
			fmt.Fprintf(env.Out, "  %s\n", k)
		}
	}
	fmt.Fprintf(env.Out, "Forgot %s; cleared the per-clone state (%s).\n", plural(len(ids), "observation", "observations"), stateDirName(w.proj))
	if audit != "" {
		fmt.Fprintf(env.Out, "Copies of what was removed are kept in audit entry %s.\n", audit)
	}
	return nil
}

func stateDirName(p *project.Project) string {
	if rel, err := p.Rel(p.StateDir()); err == nil {
		return rel
	}
	return p.StateDir()
}
