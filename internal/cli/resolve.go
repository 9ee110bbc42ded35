package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gitx"
)

type resolveOptions struct {
	dryRun bool
	json   bool
}

func newResolveCmd(env *Env) *cobra.Command {
	o := &resolveOptions{}
	c := &cobra.Command{
		Use:   "resolve",
		Short: "Finish a merge of devlearn's files that ran without the merge driver",
		Long: `Turn devlearn's files that a merge left in conflict into what the merge
driver would have made: a merge on a machine without devlearn, or on a
hosting site, merges them line by line and leaves conflict markers.

A file git still has in conflict is merged again from the three versions
git keeps in its index (exactly the driver's result) and staged, as 'git
add' would. A file whose conflict markers were already added or committed
is merged from the sides its markers hold: exact for the diff3 conflict
style (devlearn's own markers, git merge.conflictStyle=diff3 or zdiff3);
with git's default style, whatever either side has is kept. A file that
cannot be merged by meaning (a person rewrote it) is left as it is.

Then the manifest's anchors are moved to the numbers the knowledge files
give their entries now, by observation id: a merge may renumber an entry,
and git merges the manifest without seeing the knowledge files.

Exits with 3 when a devlearn file is still in conflict.`,
		Example: `  git merge feature        # conflicts in .memory/ (no driver here)
  devlearn resolve
  git commit`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runResolve(c, env, o)
		},
	}
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "report what would be resolved, write nothing")
	c.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

func runResolve(c *cobra.Command, env *Env, o *resolveOptions) error {
	if _, err := env.Project(); err != nil {
		return err
	}
	res, err := gitx.Resolve(c.Context(), gitx.ResolveOptions{Dir: env.Dir, DryRun: o.dryRun})
	if err != nil {
		return err
	}
	if o.json {
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		printResolve(env.Out, res)
	}
	if left := res.Unresolved(); len(left) > 0 {
		return exitcode.RefusedError(fmt.Errorf("%s still in conflict: %s", plural(len(left), "devlearn file is", "devlearn files are"), strings.Join(left, ", ")),
			"resolve them by hand (see the reasons above), then 'git add' them")
	}
	return nil
}

func printResolve(w io.Writer, r *gitx.ResolveResult) {
	would := ""
	if r.DryRun {
		would = "would be "
	}
	if len(r.Files) == 0 && len(r.Anchors) == 0 {
		fmt.Fprintln(w, "Nothing to resolve: no devlearn file is in conflict.")
	}
	for _, f := range r.Files {
		from := "from git's index"
		if f.From == gitx.FromMarkers {
			from = "from its conflict markers"
		}
		if !f.Clean {
			fmt.Fprintf(w, "left %s: %s\n", f.Path, f.Reason)
			continue
		}
		staged := ""
		if f.Staged {
			staged = ", staged"
		}
		fmt.Fprintf(w, "%sresolved %s (%s%s)\n", would, f.Path, from, staged)
		for _, n := range f.Renumbered {
			fmt.Fprintf(w, "  %s (%s) renumbered %s\n", n.From, n.Source, n.To)
		}
	}
	for _, a := range r.Anchors {
		fmt.Fprintf(w, "manifest: %s %s %s -> %s\n", a.ObservationID, a.Path, a.From, a.To)
	}
	if len(r.Unstaged) > 0 && !r.DryRun {
		why := ""
		if r.StageHint != "" {
			why = " (" + r.StageHint + ")"
		}
		fmt.Fprintf(w, "not staged%s: git add %s\n", why, strings.Join(r.Unstaged, " "))
	}
	if len(r.Other) > 0 {
		fmt.Fprintf(w, "%s not devlearn's still in conflict: %s\n", plural(len(r.Other), "path", "paths"), strings.Join(r.Other, ", "))
	}
}
