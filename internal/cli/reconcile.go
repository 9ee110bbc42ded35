package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/reconcile"
)

type reconcileOptions struct {
	json   bool
	dryRun bool
}

func newReconcileCmd(env *Env) *cobra.Command {
	opts := &reconcileOptions{}
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Square the records with what people did to the artifacts",
		Long: `Compare every rendered artifact with the disk:

  deleted    the observation is penalised (confidence × 0.3) and deprecated:
             a "no" that sticks, until 'devlearn learn --review --restore'
  edited     the user's version wins: its hash is recorded, no penalty
  unchanged  counted

Machine-made files and sections in no manifest entry (left by a crash or a
merge) are adopted when exactly one observation claims them, and reported
otherwise. Observations whose code references no longer exist are marked
stale, and unmarked when the files are back. During a rebase, merge,
cherry-pick or bisect, and for paths outside a sparse checkout, nothing is
treated as deleted.`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			r := &reconcile.Reconciler{
				Proj:   w.proj,
				Log:    w.log,
				Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: "reconcile"}),
				Opts:   reconcile.Options{Now: w.now, Config: w.cfg.Config, DryRun: opts.dryRun},
			}
			res, err := r.Run(ctxBackground())
			if err != nil {
				return err
			}
			if opts.json {
				return printJSON(env.Out, res)
			}
			printReconciled(env.Out, res, opts.dryRun)
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the counts and details as JSON")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "find everything, record nothing")
	return cmd
}

func printReconciled(out io.Writer, res *reconcile.Result, dry bool) {
	for _, s := range res.Skipped {
		if s.Path != "" {
			fmt.Fprintf(out, "Skipped %s: %s\n", s.Path, s.Reason)
		} else {
			fmt.Fprintf(out, "Skipped: %s\n", s.Reason)
		}
	}
	total := res.Unchanged + res.Edits + res.Deletions
	var parts []string
	parts = append(parts, fmt.Sprintf("%d unchanged", res.Unchanged))
	parts = append(parts, fmt.Sprintf("%d edited", res.Edits))
	parts = append(parts, fmt.Sprintf("%d deleted", res.Deletions))
	verb := "Checked"
	if dry {
		verb = "Checked (dry run, nothing recorded)"
	}
	fmt.Fprintf(out, "%s %s: %s; %d healed, %d stale.\n", verb, plural(total, "artifact", "artifacts"), strings.Join(parts, ", "), res.Healed, res.Stale)
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
