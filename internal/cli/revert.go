package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/curator"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/reconcile"
)

type revertOptions struct {
	json   bool
	force  bool
	dryRun bool
}

func newRevertCmd(env *Env) *cobra.Command {
	opts := &revertOptions{}
	cmd := &cobra.Command{
		Use:   "revert ID",
		Short: "Undo one change devlearn made",
		Long: `Put every file of one audit log entry ('devlearn history') back as it was
before it. The revert is itself a change in the audit log, so it can be
reverted in turn.

If a file changed since the entry wrote it, nothing is written: the command
shows what changed and exits 3. --force reverts anyway, replacing those
changes (devlearn keeps a copy of them, so 'devlearn revert' of the revert
brings them back).

Reverting a render takes its artifacts away like a deletion does: their
observations are penalised and deprecated, so the next render does not
bring them back ('devlearn learn --review --restore ID' says yes after all),
and the curated sections (curator.files) drop the bullets that pointed at
them. devlearn's own records changed since the entry (the manifest, by a
later curate or reconcile) never refuse a revert: only a change to one of
its files does, and the revert keeps devlearn's records of everything else.`,
		GroupID: "learn",
		Args:    argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			return runRevert(env, opts, args[0])
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was reverted (or why not) as JSON")
	cmd.Flags().BoolVar(&opts.force, "force", false, "revert files changed since, replacing those changes")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "write nothing; say what would be reverted")
	return cmd
}

func runRevert(env *Env, opts *revertOptions, id string) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	r := &reconcile.Reverter{
		Proj:          w.proj,
		Log:           w.log,
		Writer:        evolve.New(w.proj, w.now, evolve.Trigger{Command: "revert"}),
		Opts:          reconcile.Options{Now: w.now, Config: w.cfg.Config, DryRun: opts.dryRun},
		Force:         opts.force,
		MergeManifest: gitx.MergeManifest,
	}
	res, err := r.Run(env.Context(), id)
	var cannot *evolve.CannotRevert
	var changed *evolve.ChangedError
	switch {
	case errors.Is(err, evolve.ErrNoEntry):
		return exitcode.WithHint(err, "'devlearn history' lists the ids")
	case errors.As(err, &cannot):
		return exitcode.RefusedError(err, "")
	case errors.As(err, &changed):
		return exitcode.RefusedError(err, "")
	case err != nil:
		return err
	}
	// The curated sections follow at once: a bullet pointing at an
	// artifact the revert took away would send every agent to it until
	// the worker's next curate.
	var curated *curator.Result
	if res.Entry != nil && len(res.Withdrawn) > 0 {
		curated, err = curateProject(w.ctx, w.proj, w.cfg.Config, w.now, "revert")
		if err != nil {
			fmt.Fprintf(env.Err, "devlearn: the curated sections were not updated (the next 'devlearn curate' does it): %v\n", err)
		} else {
			for _, p := range curated.Problems {
				fmt.Fprintf(env.Err, "devlearn: %s\n", p)
			}
		}
	}
	if opts.json {
		out := struct {
			*reconcile.Reverted
			Curated *curator.Result `json:"curated,omitempty"`
		}{res, curated}
		if err := printJSON(env.Out, out); err != nil {
			return err
		}
	} else {
		printReverted(env.Out, res, opts.dryRun)
		if curated != nil {
			for _, d := range curated.Decisions {
				fmt.Fprintf(env.Out, "  %s\n", d)
			}
		}
	}
	if res.Refused {
		return exitcode.RefusedError(fmt.Errorf("refusing to revert %s: %s changed since it was written", res.Plan.Entry.ID, plural(len(res.Plan.Conflicts), "file", "files")),
			fmt.Sprintf("'devlearn revert %s --force' replaces those changes (a copy is kept: revert the revert to get them back)", res.Plan.Entry.ID))
	}
	return nil
}

func printReverted(out io.Writer, res *reconcile.Reverted, dryRun bool) {
	e := res.Plan.Entry
	if res.Refused {
		for _, c := range res.Plan.Conflicts {
			fmt.Fprintf(out, "%s changed since %s wrote it:\n", c.Path, e.ID)
			if c.Diff == "" {
				fmt.Fprintf(out, "  (what %s wrote is no longer kept: it was %s, it is now %s)\n", e.ID, hashOrAbsent(c.Wrote), hashOrAbsent(c.Now))
				continue
			}
			fmt.Fprint(out, c.Diff)
		}
		return
	}
	if len(res.Plan.Changes) == 0 {
		if res.Plan.RevertedBy != "" {
			fmt.Fprintf(out, "%s was reverted already, by %s: nothing to do.\n", e.ID, res.Plan.RevertedBy)
		} else {
			fmt.Fprintf(out, "Every file of %s is as it was before it already: nothing to do.\n", e.ID)
		}
		return
	}
	verb := "Reverted"
	if dryRun {
		verb = "Would revert"
	}
	as := ""
	if res.Entry != nil {
		as = " as " + res.Entry.ID
	}
	fmt.Fprintf(out, "%s %s (%s, %s)%s:\n", verb, e.ID, e.Trigger.Command, e.Time, as)
	for _, c := range res.Plan.Changes {
		what := "restored"
		if c.Remove {
			what = "removed "
		}
		fmt.Fprintf(out, "  %s %s\n", what, c.Path)
	}
	for _, o := range res.Withdrawn {
		where := o.Path
		if o.Anchor != "" {
			where += " " + o.Anchor
		}
		fmt.Fprintf(out, "  %s deprecated: its artifact (%s) was reverted; 'devlearn learn --review --restore %s' takes it back\n", o.ID, where, o.ID)
	}
	for _, o := range res.Restored {
		where := o.Path
		if o.Anchor != "" {
			where += " " + o.Anchor
		}
		fmt.Fprintf(out, "  %s restored: its artifact (%s) is back, and the \"no\" the earlier revert recorded with it\n", o.ID, where)
	}
}

func hashOrAbsent(h string) string {
	if h == "" {
		return "absent"
	}
	return h[:12]
}
