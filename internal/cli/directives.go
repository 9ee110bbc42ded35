package cli

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/skills"
	"github.com/devlearn/devlearn/internal/task"
)

func newDirectivesCmd(env *Env) *cobra.Command {
	cmd := asParent(&cobra.Command{
		Use:   "directives",
		Short: "The .directives/ files: discover, check a checklist, init templates",
		Long: `Teams keep agent-facing rules in .directives/ folders at any level of a
repository: AGENTS.md, INVARIANTS.md and ARCHITECTURE.md (core: given to
the agent in full), TESTING.md, PITFALLS.md, CONTRIBUTING.md, TEMPLATE.md
and CHECKLIST.md (filtered: in full when the skill of the task's stage
declares them, else named). They add up from $DEVLEARN_HOME/directives/ to
the root to the deepest folder; none shadows another. The post-tool-use hook
gives the agent those it has not seen in the session; the Stop hook holds
the checklist gate. See docs/directives.md.`,
		GroupID: "learn",
	})
	cmd.AddCommand(newDirectivesDiscoverCmd(env), newDirectivesCheckCmd(env), newDirectivesInitCmd(env))
	return cmd
}

type discoverOptions struct {
	root, stage, task string
	json              bool
}

// discoverFile is a file found, and whether the agent is given it in
// full (a core type, or a filtered one the stage's skill declares).
type discoverFile struct {
	directives.File
	Loaded bool `json:"loaded"`
}

type discoverOutput struct {
	Root string `json:"root"`
	*directives.Result
	Files []discoverFile `json:"files"`
	// Declaration is what the stage's skill declares, with --stage or a
	// task at a stage.
	Declaration *skills.Declaration `json:"declaration,omitempty"`
}

func newDirectivesDiscoverCmd(env *Env) *cobra.Command {
	opts := &discoverOptions{}
	cmd := &cobra.Command{
		Use:   "discover [PATH...]",
		Short: "List the directives in force for files or folders, root first",
		Long: `Walk up from each PATH (a file or a folder; the current folder when none is
given) to the repository root, or to --root, and list the .directives/
files found on the way: $DEVLEARN_HOME/directives/ first, then the root's,
then each deeper level's, each level's in type order. A file reached twice
(through a symbolic link, or from two paths) is listed once, where it is
first met; folders named in directives.ignore (node_modules, vendor, .git,
...) are not collected from.

Core types are given to the agent in full; the filtered ones (TESTING.md,
PITFALLS.md, CONTRIBUTING.md, TEMPLATE.md, CHECKLIST.md) by name, unless
the skill of the agent's stage declares them (its core.md's 'directives:'):
with --stage, or --task (default $DEVLEARN_TASK) for that task's stage,
those are listed as "loaded", as the post-tool-use hook gives them.`,
		Example: `  devlearn directives discover internal/api/handler.go
  devlearn directives discover --stage implement internal/api/handler.go
  devlearn directives discover --json pkg/a pkg/b`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDiscover(env, opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.root, "root", "", "walk up to this folder instead of the repository root")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the files as JSON")
	cmd.Flags().StringVar(&opts.stage, "stage", "", "list as loaded the filtered types this stage's skill declares")
	cmd.Flags().StringVar(&opts.task, "task", "", "the same for this task's stage (default $DEVLEARN_TASK)")
	return cmd
}

func runDiscover(env *Env, opts *discoverOptions, args []string) error {
	var p *project.Project
	if found, err := project.Find(env.Dir); err == nil {
		p = found
	}
	root := opts.root
	switch {
	case root != "":
		if !filepath.IsAbs(root) {
			root = filepath.Join(env.Dir, root)
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return exitcode.Usagef("--root %s: not a folder", opts.root)
		}
	case p != nil:
		root = p.Root
	default:
		return exitcode.Usagef("%s is not inside a git repository: give --root FOLDER to walk up to", env.Dir)
	}
	l, err := env.Config(p)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	paths := make([]string, len(args))
	for i, a := range args {
		if !filepath.IsAbs(a) {
			a = filepath.Join(env.Dir, a)
		}
		paths[i] = a
	}
	global := ""
	if h := env.Home(); h != "" {
		global = filepath.Join(h, directives.GlobalDirName)
	}
	decl, err := env.declaration(p, l.Config, opts)
	if err != nil {
		return err
	}
	res, err := directives.Discover(paths, directives.Options{Root: root, GlobalDir: global, Ignore: l.Directives.Ignore})
	if err != nil {
		return exitcode.UsageError(err)
	}
	var declared []string
	if decl != nil {
		declared = decl.Directives
	}
	out := discoverOutput{Root: root, Result: res, Files: []discoverFile{}, Declaration: decl}
	for _, f := range res.Files {
		out.Files = append(out.Files, discoverFile{File: f, Loaded: directives.Loaded(f, declared)})
	}
	if opts.json {
		return printJSON(env.Out, out)
	}
	if decl != nil {
		d := "none"
		if len(decl.Directives) > 0 {
			d = strings.Join(decl.Directives, ", ")
		}
		skill := "skill " + decl.Skill
		if decl.Skill == "" {
			skill = "no skill"
		}
		fmt.Fprintf(env.Out, "Stage %s, %s: filtered types loaded in full: %s.\n", decl.Stage, skill, d)
	}
	if len(res.Files) == 0 {
		fmt.Fprintf(env.Out, "No directives in force for %s.\n", strings.Join(args, ", "))
	}
	t := newTable(env.Out)
	for _, f := range out.Files {
		tier := "named"
		switch {
		case f.Core:
			tier = "core"
		case f.Loaded:
			tier = "loaded"
		}
		t.row(f.Level, tier, f.Path)
	}
	t.flush()
	for _, s := range res.Skipped {
		fmt.Fprintf(env.Out, "skipped %s: %s\n", s.Path, s.Reason)
	}
	return nil
}

// declaration is what the skill of --stage, or of the stage of --task
// (default $DEVLEARN_TASK), declares; nil when neither names a stage. A
// declaration that cannot be read is said on stderr, and the filtered
// types are listed as named, as the hook would give them.
func (env *Env) declaration(p *project.Project, cfg *config.Config, opts *discoverOptions) (*skills.Declaration, error) {
	stage := opts.stage
	if stage != "" {
		if err := checkStage(stage, false); err != nil {
			return nil, err
		}
	} else {
		name, err := env.taskName(opts.task)
		if err != nil || name == "" {
			return nil, err
		}
		if p == nil {
			return nil, exitcode.Usagef("task %s: not inside a git repository, whose .memory/tasks/ holds it", name)
		}
		st, _, err := (&task.Store{Proj: p, Config: cfg}).Load(name)
		if err != nil {
			return nil, err
		}
		if st.Stage == "" {
			if opts.task != "" {
				fmt.Fprintf(env.Err, "devlearn: task %s has no stage ('devlearn task stage %s STAGE'): filtered types are named.\n", name, name)
			}
			return nil, nil
		}
		stage = st.Stage
	}
	d, err := skills.Declared(env.Home(), &cfg.Skills.Stages, stage)
	if err != nil {
		fmt.Fprintf(env.Err, "devlearn: %v\n", err)
	}
	for _, pr := range d.Problems {
		fmt.Fprintf(env.Err, "devlearn: %s\n", pr)
	}
	return d, nil
}

type checkOptions struct {
	session string
	dryRun  bool
	json    bool
}

type checkedFile struct {
	Path string `json:"path"`
	OK   bool   `json:"ok"`
	directives.Comparison
}

type checkOutput struct {
	Session  string        `json:"session,omitempty"`
	DryRun   bool          `json:"dry_run,omitempty"`
	Files    []checkedFile `json:"files"`
	Recorded bool          `json:"recorded"`
	Pending  []string      `json:"pending"` // the session's checklists the Stop hook still waits for
}

// maxSubmission bounds what is read from stdin: checklists are short.
const maxSubmission = 8 << 20

func newDirectivesCheckCmd(env *Env) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Submit checklists ticked (JSON on stdin) for the Stop hook's gate",
		Long: `Read checklists submitted ticked, as JSON on stdin:

  {"<absolute path of a CHECKLIST.md>": "<its whole markdown, with [ ] made [x]>"}

Each is compared with the file line by line: a box may go from [ ] to [x],
and nothing else may change. Every other difference is reported as
FILE:LINE with the line expected and the line got, and a box left unticked
as FILE:LINE too. A checklist that passes is recorded for the session, and
the Stop hook stops waiting for it (until the file changes).

The session is --session ID, or $DEVLEARN_SESSION: the Stop hook's message
gives the exact command. --dry-run checks without recording. Exit 0 when
every checklist sent passes, 1 otherwise.`,
		Example: `  devlearn directives check --session 5a6b7c8d-... < submission.json
  devlearn directives check --dry-run < submission.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runCheck(env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.session, "session", "", "the session to record the checklists for (default $DEVLEARN_SESSION)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "check, record nothing")
	f.BoolVar(&opts.json, "json", false, "print the result as JSON")
	return cmd
}

func runCheck(env *Env, opts *checkOptions) error {
	id := opts.session
	if id == "" {
		id = env.Getenv("DEVLEARN_SESSION")
	}
	if id == "" && !opts.dryRun {
		return exitcode.Usagef("name the session: --session ID or DEVLEARN_SESSION=ID (the Stop hook's message gives the command), or --dry-run to check without recording")
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	now, err := env.Now()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(env.In, maxSubmission+1))
	if err != nil {
		return err
	}
	if len(data) > maxSubmission {
		return fmt.Errorf("stdin is over %d bytes: send only the checklists", maxSubmission)
	}
	subs, err := directives.ParseSubmission(data, p.Root)
	if err != nil {
		return exitcode.WithHint(err, "the Stop hook's message shows the exact shape; nothing was recorded")
	}
	out := checkOutput{DryRun: opts.dryRun, Files: []checkedFile{}, Pending: []string{}}
	passed := map[string]string{} // real path -> sum
	for _, s := range subs {
		content, err := os.ReadFile(s.Abs)
		if err != nil {
			return err
		}
		cmp := directives.Compare(string(content), s.Content)
		f := checkedFile{Path: shownPath(p, s.Abs), OK: cmp.OK(), Comparison: cmp}
		out.Files = append(out.Files, f)
		if f.OK {
			real, err := filepath.EvalSymlinks(s.Abs)
			if err != nil {
				return err
			}
			passed[real] = directives.Sum(content)
		}
	}
	if id != "" {
		sess := directives.SessionAt(p.Root, hook.SafeName(id))
		out.Session = id
		if !sess.Exists() {
			return exitcode.WithHint(fmt.Errorf("no session %q in %s", id, sess.Rel()), "use the id the Stop hook's message gives (devlearn records a session once its hooks ran in this working tree)")
		}
		err := sess.Update(env.Context(), now, func(st *directives.State) ([]directives.Record, error) {
			var recs []directives.Record
			if !opts.dryRun {
				for real, sum := range passed {
					recs = append(recs, directives.Record{Op: directives.OpChecked, Real: real, Sum: sum})
					st.Checked[real] = sum
				}
				out.Recorded = len(recs) > 0
			}
			for _, pc := range st.Pending() {
				out.Pending = append(out.Pending, pc.File)
			}
			return recs, nil
		})
		if err != nil {
			return err
		}
	}
	ok := true
	for _, f := range out.Files {
		ok = ok && f.OK
	}
	if opts.json {
		if err := printJSON(env.Out, out); err != nil {
			return err
		}
	} else {
		printChecked(env.Out, out)
	}
	if !ok {
		return exitcode.Silent{Code: exitcode.Error}
	}
	return nil
}

// shownPath is a file relative to the root when it is inside it.
func shownPath(p *project.Project, abs string) string {
	if rel, err := p.Rel(abs); err == nil && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return abs
}

func printChecked(w io.Writer, out checkOutput) {
	for _, f := range out.Files {
		if f.OK {
			fmt.Fprintf(w, "ok        %s: %s ticked\n", f.Path, plural(f.Boxes, "box", "boxes"))
			continue
		}
		fmt.Fprintf(w, "rejected  %s: not recorded\n", f.Path)
		for _, pr := range f.Problems {
			fmt.Fprintf(w, "  %s:%d: %s\n    expected: %q\n    got:      %q\n", f.Path, pr.Line, pr.Why, pr.Expected, pr.Got)
		}
		for _, n := range f.Unticked {
			fmt.Fprintf(w, "  %s:%d: box not ticked\n", f.Path, n)
		}
	}
	switch {
	case out.Session == "":
		fmt.Fprintln(w, "Dry run: nothing recorded.")
	case len(out.Pending) > 0:
		fmt.Fprintf(w, "Session %s: the Stop hook still waits for %s.\n", out.Session, strings.Join(out.Pending, ", "))
	default:
		fmt.Fprintf(w, "Session %s: every checklist is submitted; the Stop hook lets the agent stop.\n", out.Session)
	}
}

type directivesInitOptions struct {
	types  []string
	dryRun bool
	json   bool
}

type directivesInitOutput struct {
	*directives.Scaffold
	DryRun bool   `json:"dry_run,omitempty"`
	Audit  string `json:"audit,omitempty"`
}

func newDirectivesInitCmd(env *Env) *cobra.Command {
	opts := &directivesInitOptions{}
	cmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write the templates of the directive types into PATH/.directives/",
		Long: `Write a template for each directive type (or those named by --type) into
PATH/.directives/, PATH being a folder of the repository (the current one by
default). A file already there is never overwritten. The nearest AGENTS.md
(beside the new files, or above them) names the new files.`,
		Example: `  devlearn directives init
  devlearn directives init internal/api --type AGENTS.md --type CHECKLIST.md`,
		Args: argsRange(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			return runDirectivesInit(env, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.types, "type", nil, "a type to write ("+strings.Join(directives.TypeNames(), ", ")+"); repeat for more; default all")
	f.BoolVar(&opts.dryRun, "dry-run", false, "show the plan; write nothing")
	f.BoolVar(&opts.json, "json", false, "print what was done as JSON")
	return cmd
}

func runDirectivesInit(env *Env, opts *directivesInitOptions, args []string) error {
	p, err := env.Project()
	if err != nil {
		return err
	}
	now, err := env.Now()
	if err != nil {
		return err
	}
	dir := env.Dir
	if len(args) == 1 {
		dir = args[0]
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Dir, dir)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return exitcode.Usagef("%s: not a folder of the repository", dir)
	}
	level, err := p.Rel(filepath.Clean(dir))
	if err != nil || level == ".." || strings.HasPrefix(level, "../") {
		return exitcode.Usagef("%s is outside the repository %s", dir, p.Root)
	}
	for _, part := range strings.Split(level, "/") {
		if part == ".git" || part == directives.DirName {
			return exitcode.Usagef("%s: directives go beside the code, not inside %s", dir, part)
		}
	}
	s, err := directives.PlanScaffold(p.Root, level, opts.types)
	if err != nil {
		return exitcode.UsageError(err)
	}
	out := directivesInitOutput{Scaffold: s, DryRun: opts.dryRun}
	if !opts.dryRun && len(s.Files) > 0 {
		var changes []evolve.Change
		for _, rel := range slices.Sorted(maps.Keys(s.Files)) {
			changes = append(changes, evolve.Change{Path: rel, Data: s.Files[rel]})
		}
		w := evolve.New(p, now, evolve.Trigger{Command: "directives init"})
		e, err := w.Apply(env.Context(), evolve.Reason{Text: "directives init: templates for the directive types of " + s.Dir}, changes...)
		if err != nil {
			return err
		}
		if e != nil {
			out.Audit = e.ID
		}
	}
	if opts.json {
		return printJSON(env.Out, out)
	}
	names := map[string]string{}
	for _, m := range s.Mentions {
		names[m.Path] = "names " + strings.Join(m.Files, ", ")
	}
	steps := []step{}
	for _, c := range s.Created {
		note := "template"
		if n := names[c]; n != "" {
			note += "; " + n
			delete(names, c)
		}
		steps = append(steps, step{Action: "created", Path: c, Note: note})
	}
	for _, k := range s.Kept {
		steps = append(steps, step{Action: "kept", Path: k, Note: "already there; not overwritten"})
	}
	for _, m := range s.Mentions {
		if n := names[m.Path]; n != "" {
			steps = append(steps, step{Action: "updated", Path: m.Path, Note: n})
		}
	}
	printSteps(env.Out, steps, opts.dryRun)
	return nil
}
