package hookcmd

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/reconcile"
)

// ReconcileOptions are reconcile's flags.
type ReconcileOptions struct {
	JSON   bool // print the counts and details as JSON
	DryRun bool // find everything, record nothing
}

// Reconcile squares the records with what people did to the artifacts:
// `devlearn reconcile`, and `devlearn-hook reconcile` for a hook that
// reconciles at session start, as devflow's does.
func Reconcile(env *Env, opts ReconcileOptions) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	r := &reconcile.Reconciler{
		Proj:   w.proj,
		Log:    observe.ProjectStore(w.proj),
		Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: "reconcile"}),
		Opts:   reconcile.Options{Now: w.now, Config: w.cfg, DryRun: opts.DryRun},
	}
	res, err := r.Run(env.Context())
	if err != nil {
		return err
	}
	if opts.JSON {
		return PrintJSON(env.Out, res)
	}
	printReconciled(env.Out, res, opts.DryRun)
	return nil
}

func printReconciled(w io.Writer, res *reconcile.Result, dry bool) {
	out := bufio.NewWriter(w)
	defer out.Flush()
	for _, s := range res.Skipped {
		if s.Path != "" {
			fmt.Fprintf(out, "Skipped %s: %s\n", s.Path, s.Reason)
		} else {
			fmt.Fprintf(out, "Skipped: %s\n", s.Reason)
		}
	}
	total := res.Unchanged + res.Edits + res.Deletions
	parts := []string{
		fmt.Sprintf("%d unchanged", res.Unchanged),
		fmt.Sprintf("%d edited", res.Edits),
		fmt.Sprintf("%d deleted", res.Deletions),
	}
	verb := "Checked"
	if dry {
		verb = "Checked (dry run, nothing recorded)"
	}
	fmt.Fprintf(out, "%s %s: %s; %d healed, %d stale.\n", verb, knowledge.Plural(total, "artifact", "artifacts"), strings.Join(parts, ", "), res.Healed, res.Stale)
	if len(res.Details) == 0 {
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, d := range res.Details {
		where := d.Path
		if d.Anchor != "" {
			where += " " + d.Anchor
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", d.What, d.ID, where, d.Note)
	}
	tw.Flush()
}
