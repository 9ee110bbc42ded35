package cli

import (
	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

func newReconcileCmd(env *Env) *cobra.Command {
	opts := &hookcmd.ReconcileOptions{}
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
			return hookcmd.Reconcile(env.hookCmd(c.Context()), *opts)
		},
	}
	opts.Define(cmd.Flags())
	return cmd
}
