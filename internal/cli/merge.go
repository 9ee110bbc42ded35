package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gitx"
)

type mergeOptions struct {
	into         string
	dryRun       bool
	keepWorktree bool
	json         bool
}

func newMergeCmd(env *Env) *cobra.Command {
	o := &mergeOptions{}
	c := &cobra.Command{
		Use:   "merge TASK-BRANCH|WORKTREE-PATH",
		Short: "Merge a finished task into its base branch, with what it learned",
		Long: `Merge a finished task into its base branch with go-git.

First the task worktree's uncommitted learning (.memory/, .claude/commands/
self-learning/, .claude/skills/) is committed on the task branch. Then the
base is fast-forwarded when possible, or a merge commit is made: files
changed on one side are taken from it, devlearn's event logs are merged as
sets of lines, other text files line by line. The base ref moves only by a
compare-and-swap, and the worktree that has the base checked out gets the
changed files. The task's linked worktree is removed when it is clean.

On a conflict no branch or file is changed, the task is recorded as blocked
with the conflicting paths in its log (.memory/tasks/<task>.jsonl, in the
task's worktree when it has one), and the exit code is 3.`,
		Example: `  devlearn merge task/login-form
  devlearn merge ../wt-login --into develop
  devlearn merge task/login-form --dry-run --json`,
		GroupID: "setup",
		Args:    argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			return runMerge(c, env, o, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.into, "into", "", "base branch to merge into (default: the repository's main branch)")
	f.BoolVar(&o.dryRun, "dry-run", false, "report what would happen, change nothing")
	f.BoolVar(&o.keepWorktree, "keep-worktree", false, "keep the task's linked worktree after merging")
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
	return c
}

func runMerge(c *cobra.Command, env *Env, o *mergeOptions, target string) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	id, err := gitx.ResolveIdentity(env.Dir, env.Getenv)
	if err != nil && !o.dryRun {
		return err
	}
	res, err := gitx.Merge(c.Context(), gitx.Options{
		Dir:          env.Dir,
		Target:       target,
		Into:         o.into,
		DryRun:       o.dryRun,
		KeepWorktree: o.keepWorktree,
		Identity:     id,
		Now:          now,
		LockWait:     2 * time.Minute,
	})
	if res != nil {
		if o.json {
			if perr := printJSON(env.Out, res); perr != nil {
				return perr
			}
		} else {
			printMerge(env.Out, res)
		}
	}
	var refused *gitx.Refused
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return exitcode.RefusedError(err, refused.Hint)
	case errors.Is(err, gitx.ErrNotFound):
		return exitcode.UsageError(err)
	}
	return err
}

func printMerge(w io.Writer, r *gitx.Result) {
	printRecovered(w, r.Recovered)
	would := ""
	if r.DryRun {
		would = "would be "
	}
	if len(r.Learned) > 0 {
		fmt.Fprintf(w, "learned: %s %scommitted on %s (%s)\n", plural(len(r.Learned), "file", "files"), would, r.Branch, r.LearnedCommit[:12])
	}
	refused := r.Refused != nil && r.Kind != gitx.KindConflict
	switch r.Kind {
	case gitx.KindUpToDate:
		fmt.Fprintf(w, "%s is already merged into %s\n", r.Branch, r.Base)
	case gitx.KindFastForward:
		if refused {
			fmt.Fprintf(w, "%s could be fast-forwarded to %s, but was not: %s\n", r.Base, r.Branch, r.Refused.Reason)
		} else {
			fmt.Fprintf(w, "%s %sfast-forwarded to %s (%s)\n", r.Base, would, r.Branch, r.BaseTo[:12])
		}
	case gitx.KindMerge:
		if refused || r.BaseTo == "" {
			// Refused after the merge was computed (local changes, base moved).
			fmt.Fprintf(w, "%s merges cleanly into %s, but was not merged\n", r.Branch, r.Base)
		} else {
			fmt.Fprintf(w, "%s %smerged into %s (merge commit %s)\n", r.Branch, would, r.Base, r.BaseTo[:12])
		}
	case gitx.KindConflict:
		fmt.Fprintf(w, "%s conflicts with %s in %s:\n", r.Branch, r.Base, plural(len(r.Conflicts), "path", "paths"))
		for _, cf := range r.Conflicts {
			fmt.Fprintf(w, "  %s: %s\n", cf.Path, cf.Reason)
		}
	}
	if r.Kind == gitx.KindMerge || r.Kind == gitx.KindFastForward {
		counts := map[string]int{}
		var order []string
		for _, p := range r.Paths {
			if counts[p.How] == 0 {
				order = append(order, p.How)
			}
			counts[p.How]++
		}
		var parts []string
		for _, how := range order {
			parts = append(parts, fmt.Sprintf("%d %s", counts[how], howText(how)))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", plural(len(r.Paths), "path", "paths"), strings.Join(parts, ", "))
		}
	}
	if r.Checkout != "" && len(r.Updated) > 0 {
		fmt.Fprintf(w, "  %s %supdated in %s\n", plural(len(r.Updated), "file", "files"), would, r.Checkout)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "  left alone (changed on disk during the merge): %s\n", strings.Join(r.Skipped, ", "))
	}
	switch {
	case r.Worktree == "":
	case r.Removed:
		fmt.Fprintf(w, "  worktree %s %sremoved\n", r.Worktree, would)
	case r.KeptBecause != "":
		fmt.Fprintf(w, "  worktree %s kept: %s\n", r.Worktree, r.KeptBecause)
		for _, p := range r.Dirty {
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
	if r.TaskLog != "" {
		fmt.Fprintf(w, "  recorded in %s\n", r.TaskLog)
	}
}

// printRecovered says what became of the merges a crash had interrupted.
func printRecovered(w io.Writer, recs []*gitx.Recovered) {
	for _, rec := range recs {
		if !rec.Finished {
			fmt.Fprintf(w, "An interrupted merge of %s into %s was undone: %s had not moved.\n", rec.Branch, rec.Base, rec.Base)
			continue
		}
		fmt.Fprintf(w, "An interrupted merge of %s into %s was finished:\n", rec.Branch, rec.Base)
		printMerge(w, rec.Result)
	}
}

func howText(how string) string {
	switch how {
	case gitx.TakenTheirs:
		return "from the task"
	case gitx.TakenBoth:
		return "identical on both sides"
	case gitx.MergedLines:
		return "merged line by line"
	case gitx.MergedByRule:
		return "knowledge merged"
	case gitx.MergedRenamed:
		return "renamed"
	}
	return how
}
