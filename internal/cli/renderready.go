package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/render"
)

type renderOptions struct {
	json    bool
	dryRun  bool
	session string
}

func newRenderReadyCmd(env *Env) *cobra.Command {
	opts := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render-ready",
		Short: "Turn every ready observation into its artifact",
		Long: `Render every ready observation into its artifact:

  workflow    a slash command    .claude/commands/self-learning/<slug>.md
  procedural  a skill            .claude/skills/<slug>/SKILL.md
  decision    an ADR section     .memory/knowledge/decisions.md
  pitfall     a PF section       .memory/knowledge/pitfalls.md

Every artifact carries its observation id, every write goes through the
audit log (.memory/evolution/log.jsonl), and the manifest records what was
written. A run interrupted at any point is completed by the next one: an
artifact already on disk is adopted, never written twice.`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runRenderReady(env, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was rendered and skipped as JSON")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "write nothing; say what would be written")
	cmd.Flags().StringVar(&opts.session, "session", "", "the session that triggered this run (for the audit log)")
	return cmd
}

func runRenderReady(env *Env, opts *renderOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	r := &render.Renderer{
		Proj:   w.proj,
		Log:    w.log,
		Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: "render-ready", Session: opts.session}),
		Opts:   render.Options{Now: w.now, Config: w.cfg.Config, DryRun: opts.dryRun},
	}
	res, err := r.Run(ctxBackground())
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	printRendered(env.Out, res)
	return nil
}

func printRendered(out io.Writer, res *render.Result) {
	verb, files := "Rendered", "Wrote"
	if res.DryRun {
		verb, files = "Would render", "Would write"
	}
	if len(res.Rendered) == 0 && len(res.Skipped) == 0 {
		fmt.Fprintln(out, "Nothing is ready to render.")
		return
	}
	fmt.Fprintf(out, "%s %s.\n", verb, plural(len(res.Rendered), "artifact", "artifacts"))
	for _, r := range res.Rendered {
		where := r.Path
		if r.Anchor != "" {
			where += " " + r.Anchor
		}
		note := ""
		if r.Adopted {
			note = " (already there, adopted)"
		}
		fmt.Fprintf(out, "  %-10s %s  %s%s\n", r.Type, r.ID, where, note)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(out, "Skipped %s: %s\n", s.ID, s.Reason)
	}
	if len(res.Files) > 0 {
		fmt.Fprintf(out, "%s %s:\n", files, plural(len(res.Files), "file", "files"))
		for _, f := range res.Files {
			fmt.Fprintf(out, "  %s\n", f)
		}
	}
}
