package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/propose"
)

// proposedGates are the gates the lessons in force call for, not yet in
// the config nor declined.
func proposedGates(w *workspace) ([]propose.Proposal, error) {
	log, err := w.log.Load()
	if err != nil {
		return nil, err
	}
	props := propose.Find(log, log.Observations(w.now, w.cfg.Config), w.cfg.Config)
	if props == nil {
		props = []propose.Proposal{}
	}
	return props, nil
}

func printProposedGates(env *Env, props []propose.Proposal) {
	if len(props) == 0 {
		return
	}
	fmt.Fprintf(env.Out, "%s (from lessons; none runs unless you accept it and trust the config):\n", plural(len(props), "proposed gate", "proposed gates"))
	for _, p := range props {
		fmt.Fprintf(env.Out, "  %s  %s  %q: %s\n", p.ID, p.List, p.Gate.Name, p.Gate.Command)
		fmt.Fprintf(env.Out, "      from %s: %s\n", p.Source, p.Lesson)
	}
	fmt.Fprintln(env.Out, "Accept with --accept-gate ID (it is added to .memory/learning.json, required; read it, then 'devlearn trust'), or --decline-gate ID.")
}

// decideGates accepts or declines proposed gates.
func decideGates(env *Env, w *workspace, accept, decline []string, asJSON bool) error {
	props, err := proposedGates(w)
	if err != nil {
		return err
	}
	find := func(id string) (propose.Proposal, error) {
		i := slices.IndexFunc(props, func(p propose.Proposal) bool { return p.ID == id })
		if i < 0 {
			return propose.Proposal{}, exitcode.Usagef("%s is not a proposed gate ('devlearn learn --review' lists them)", id)
		}
		return props[i], nil
	}
	type decided struct {
		ID     string           `json:"id"`
		Action string           `json:"action"`
		Gate   propose.Proposal `json:"proposal"`
		File   string           `json:"file,omitempty"`
	}
	var out []decided
	for _, id := range accept {
		p, err := find(id)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(w.proj.Path(project.ConfigFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		next, err := propose.Accept(project.ConfigFile, data, p)
		if err != nil {
			return err
		}
		wr := evolve.New(w.proj, w.now, evolve.Trigger{Command: "learn --review"})
		reason := evolve.Reason{Text: fmt.Sprintf("learn --review: a person accepted proposed gate %s (%s %q: %s), called for by %q", p.ID, p.List, p.Gate.Name, p.Gate.Command, p.Lesson), Observations: []string{p.Source}}
		if _, err := wr.Apply(env.Context(), reason, evolve.Change{Path: project.ConfigFile, Data: next}); err != nil {
			return err
		}
		out = append(out, decided{ID: id, Action: "accepted", Gate: p, File: project.ConfigFile})
	}
	for _, id := range decline {
		p, err := find(id)
		if err != nil {
			return err
		}
		o, _ := w.log.Load()
		seq := 1
		if o != nil {
			if ob, ok := o.Observation(p.Source, w.now, w.cfg.Config); ok {
				seq = ob.NextSeq()
			}
		}
		ev := observe.NewEvent(observe.OpFlag, p.Source, w.now, "review", func(e *observe.Event) {
			e.Flag, e.Reason, e.Seq = propose.FlagDeclined, p.ID, seq
		})
		if err := w.log.Append(env.Context(), ev); err != nil {
			return err
		}
		out = append(out, decided{ID: id, Action: "declined", Gate: p})
	}
	if asJSON {
		return printJSON(env.Out, map[string]any{"gates": out})
	}
	for _, d := range out {
		if d.Action == "accepted" {
			fmt.Fprintf(env.Out, "Accepted %s: %s gate %q (%s) added to %s. It runs once you have read the file and run 'devlearn trust'.\n", d.ID, d.Gate.List, d.Gate.Gate.Name, d.Gate.Gate.Command, d.File)
		} else {
			fmt.Fprintf(env.Out, "Declined %s: %q is not proposed again.\n", d.ID, d.Gate.Gate.Command)
		}
	}
	return nil
}
