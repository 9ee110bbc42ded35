package hookcmd

import (
	"bufio"
	"fmt"
	"io"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
	"github.com/devlearn/devlearn/internal/render"
)

// RenderOptions are render-ready's flags.
type RenderOptions struct {
	JSON    bool   // print what was rendered and skipped as JSON
	DryRun  bool   // write nothing; say what would be written
	Session string // the session that triggered the run (for the audit log)
}

// RenderReady renders every ready observation of the project around the
// folder: `devlearn render-ready`, and `devlearn-hook render-ready` for a
// hook that renders at session end, as devflow's does, without paying for
// the start of the whole CLI.
func RenderReady(env *Env, opts RenderOptions) error {
	w, err := openWorkspace(env)
	if err != nil {
		return err
	}
	r := &render.Renderer{
		Proj:   w.proj,
		Log:    observe.ProjectStore(w.proj),
		Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: "render-ready", Session: opts.Session}),
		Opts:   render.Options{Now: w.now, Config: w.cfg, DryRun: opts.DryRun},
	}
	res, err := r.Run(env.Context())
	if err != nil {
		return err
	}
	if !opts.DryRun {
		// What is rendered as a section is served as itself now, not as
		// a draft; a command's or a skill's lesson stays served for the
		// agents that do not load them.
		if err := observed.Drop(w.proj.Root, res.SectionIDs()...); err != nil {
			return err
		}
	}
	if opts.JSON {
		return PrintJSON(env.Out, res)
	}
	printRendered(env.Out, res)
	return nil
}

func printRendered(w io.Writer, res *render.Result) {
	// A bulk render lists a thousand artifacts: one write, not one each.
	out := bufio.NewWriter(w)
	defer out.Flush()
	verb, files := "Rendered", "Wrote"
	if res.DryRun {
		verb, files = "Would render", "Would write"
	}
	if len(res.Rendered) == 0 && len(res.Skipped) == 0 {
		fmt.Fprintln(out, "Nothing is ready to render.")
		return
	}
	fmt.Fprintf(out, "%s %s.\n", verb, knowledge.Plural(len(res.Rendered), "artifact", "artifacts"))
	for _, r := range res.Rendered {
		where := r.Path
		if r.Anchor != "" {
			where += " " + r.Anchor
		}
		note := ""
		switch {
		case r.MergedInto != "":
			note = fmt.Sprintf(" (merged: a near-duplicate of %s, similarity %.2f)", r.MergedInto, r.Similarity)
		case r.Adopted:
			note = " (already there, adopted)"
		}
		fmt.Fprintf(out, "  %-10s %s  %s%s\n", r.Type, r.ID, where, note)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(out, "Skipped %s: %s\n", s.ID, s.Reason)
	}
	if len(res.Files) > 0 {
		fmt.Fprintf(out, "%s %s:\n", files, knowledge.Plural(len(res.Files), "file", "files"))
		for _, f := range res.Files {
			fmt.Fprintf(out, "  %s\n", f)
		}
	}
}
