package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

type historyOptions struct {
	json  bool
	since string
	file  string
}

func newHistoryCmd(env *Env) *cobra.Command {
	opts := &historyOptions{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Every change devlearn made to this project, and why",
		Long: `List every change devlearn made to the project's files, oldest first, from
its audit log (.memory/evolution/log.jsonl): when, what triggered it (a
command, the session or task behind it), which files, and why (the
observations it acted on, with their lessons). 'history show ID' shows one
change with its diff; 'devlearn revert ID' undoes it.

--since takes a time (2026-05-01, 2026-05-01T09:00:00Z) or an age (36h,
7d). --file keeps the changes to one file (a path relative to the project
root). Appends to the event logs (.memory/learning-log.jsonl) are not
changes of this kind: each event carries its own time and source ('devlearn
learn --show').`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runHistory(env, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the entries as JSON")
	cmd.Flags().StringVar(&opts.since, "since", "", "only changes at or after this time (2026-05-01, RFC 3339) or within this age (36h, 7d)")
	cmd.Flags().StringVar(&opts.file, "file", "", "only changes to this file (relative to the project root)")
	cmd.AddCommand(newHistoryShowCmd(env), newHistoryPruneCmd(env))
	return cmd
}

// historyItem is an entry as history lists it.
type historyItem struct {
	evolve.Entry
	RevertedBy string `json:"reverted_by,omitempty"`
	// Lessons are the observations the entry acted on, as they stand.
	Lessons []historyLesson `json:"lessons,omitempty"`
}

type historyLesson struct {
	ID       string   `json:"id"`
	Type     string   `json:"type,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	Status   string   `json:"status,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
}

func runHistory(env *Env, opts *historyOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	q := evolve.Query{}
	if opts.since != "" {
		if q.Since, err = parseSince(opts.since, w.now); err != nil {
			return err
		}
	}
	if opts.file != "" {
		q.File, err = projectRel(env, w.proj, opts.file)
		if err != nil {
			return err
		}
	}
	all, problems, err := evolve.ReadLog(w.proj)
	if err != nil {
		return err
	}
	warnProblems(env, evolve.LogPath, problems)
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	items := []historyItem{}
	for i := range all {
		if q.Matches(all[i]) {
			items = append(items, historyItemOf(all, &all[i], log, w, false))
		}
	}
	if opts.json {
		return printJSON(env.Out, items)
	}
	if len(items) == 0 {
		if len(all) == 0 {
			fmt.Fprintln(env.Out, "devlearn has changed no file of this project yet.")
		} else {
			fmt.Fprintf(env.Out, "No change matches (of %s).\n", plural(len(all), "change", "changes"))
		}
		return nil
	}
	for i, it := range items {
		if i > 0 {
			fmt.Fprintln(env.Out)
		}
		printHistoryItem(env.Out, it, false)
	}
	return nil
}

func historyItemOf(all []evolve.Entry, e *evolve.Entry, log *observe.Log, w *workspace, evidence bool) historyItem {
	it := historyItem{Entry: *e}
	if by := evolve.RevertedBy(all, e); by != nil {
		it.RevertedBy = by.ID
	}
	for _, id := range e.Reason.Observations {
		l := historyLesson{ID: id}
		if o, ok := log.Observation(id, w.now, w.cfg.Config); ok {
			l.Type, l.Pattern, l.Status = o.Type, o.Pattern, o.Status
			if evidence {
				l.Evidence = o.Evidence
			}
		}
		it.Lessons = append(it.Lessons, l)
	}
	return it
}

func printHistoryItem(out io.Writer, it historyItem, full bool) {
	trigger := it.Trigger.Command
	var by []string
	if it.Trigger.Session != "" {
		by = append(by, "session "+it.Trigger.Session)
	}
	if it.Trigger.Task != "" {
		by = append(by, "task "+it.Trigger.Task)
	}
	if len(by) > 0 {
		trigger += " (" + strings.Join(by, ", ") + ")"
	}
	note := ""
	if it.RevertedBy != "" {
		note = "  [reverted by " + it.RevertedBy + "]"
	}
	if it.Reason.Reverts != "" {
		note = "  [reverts " + it.Reason.Reverts + "]"
	}
	fmt.Fprintf(out, "%s  %s  %s%s\n", it.ID, it.Time, trigger, note)
	fmt.Fprintf(out, "  why:   %s\n", it.Reason.Text)
	for _, f := range it.Files {
		fmt.Fprintf(out, "  file:  %s (%s)\n", f.Path, fileVerb(f))
	}
	for _, l := range it.Lessons {
		if l.Pattern == "" {
			fmt.Fprintf(out, "  from:  %s (no longer in the log)\n", l.ID)
			continue
		}
		fmt.Fprintf(out, "  from:  %s %s, %s: %s\n", l.ID, l.Type, l.Status, l.Pattern)
		if full {
			for _, ev := range l.Evidence {
				fmt.Fprintf(out, "         evidence: %s\n", ev)
			}
		}
	}
}

func fileVerb(f evolve.FileChange) string {
	switch {
	case f.Before == "":
		return "created"
	case f.After == "":
		return "removed"
	}
	return "changed"
}

func newHistoryShowCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "One change devlearn made, with its reason, evidence and diff",
		Long: `Show one entry of the audit log: when and by what it was made, why (the
observations it acted on, with their evidence), and the diff of every file
it changed, from the copies devlearn keeps of what it replaced and wrote
(<git-common-dir>/devlearn/objects). ID may be shortened, as long as it is
unique ("1a2b3c" for "ev_1a2b3c4d5e6f").`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			all, problems, err := evolve.ReadLog(w.proj)
			if err != nil {
				return err
			}
			warnProblems(env, evolve.LogPath, problems)
			e, err := evolve.Find(all, args[0])
			if err != nil {
				return exitcode.WithHint(err, "'devlearn history' lists the ids")
			}
			log, err := w.loadLog(env)
			if err != nil {
				return err
			}
			diffs, err := evolve.Diffs(w.proj, e)
			if err != nil {
				return err
			}
			it := historyItemOf(all, e, log, w, true)
			if asJSON {
				return printJSON(env.Out, struct {
					historyItem
					Diffs []evolve.FileDiff `json:"diffs"`
				}{it, diffs})
			}
			printHistoryItem(env.Out, it, true)
			for _, d := range diffs {
				fmt.Fprintln(env.Out)
				if d.Missing != "" {
					fmt.Fprintf(env.Out, "%s: no diff: %s\n", d.Path, d.Missing)
					continue
				}
				fmt.Fprint(env.Out, d.Diff)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entry and its diffs as JSON")
	return cmd
}

func newHistoryPruneCmd(env *Env) *cobra.Command {
	var asJSON, dryRun bool
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove old copies of replaced files, within history.* limits",
		Long: `Remove the copies devlearn keeps of the files it replaced and wrote
(<git-common-dir>/devlearn/objects, shared by every worktree of the clone)
that are older than history.snapshot_max_age_days, then, oldest first,
while they take more than history.snapshot_budget_mb. The newest copy of
what each file held before devlearn last changed it is never removed, so
the last change to every file can always be reverted. The worker prunes
after each run; this prunes now.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			res, err := pruneSnapshots(w, dryRun)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, res)
			}
			verb := "Removed"
			if dryRun {
				verb = "Would remove"
			}
			fmt.Fprintf(env.Out, "%s %s (%s) of %s (%s); %s never removed (the newest of a file).\n",
				verb, plural(len(res.Removed), "copy", "copies"), bytesText(res.RemovedBytes),
				plural(res.Objects, "copy", "copies"), bytesText(res.Bytes), plural(res.Protected, "copy", "copies"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed as JSON")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "remove nothing; say what would be removed")
	return cmd
}

// pruneSnapshots prunes the kept copies within the config's limits.
func pruneSnapshots(w *workspace, dryRun bool) (*evolve.PruneResult, error) {
	return evolve.Prune(w.ctx, w.proj, pruneOptions(w.cfg.Config, w.now, dryRun))
}

func pruneOptions(cfg *config.Config, now time.Time, dryRun bool) evolve.PruneOptions {
	h := cfg.History
	return evolve.PruneOptions{
		Now:      now,
		MaxAge:   time.Duration(h.SnapshotMaxAgeDays) * 24 * time.Hour,
		MaxBytes: int64(h.SnapshotBudgetMB) << 20,
		DryRun:   dryRun,
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return plural(int(n), "byte", "bytes")
}

// parseSince reads --since: a date, an RFC 3339 time, or an age before
// now (36h, 7d).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		if _, err := fmt.Sscanf(days, "%g", &n); err == nil && n >= 0 {
			return now.Add(-time.Duration(n * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, exitcode.Usagef("--since %q is neither a time (2026-05-01, 2026-05-01T09:00:00Z) nor an age (36h, 7d)", s)
}

// projectRel turns a path given on the command line (relative to the
// working folder, or absolute) into the project-relative form the audit
// log records.
func projectRel(env *Env, p *project.Project, path string) (string, error) {
	abs := path
	if !filepath.IsAbs(path) {
		abs = filepath.Join(env.Dir, path)
	}
	rel, err := p.Rel(abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", exitcode.Usagef("--file %s is not inside the project (%s)", path, p.Root)
	}
	return rel, nil
}
