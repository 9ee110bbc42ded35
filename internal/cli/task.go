package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/task"
)

func newTaskCmd(env *Env) *cobra.Command {
	cmd := asParent(&cobra.Command{
		Use:   "task",
		Short: "Tasks through stages: rejections that become lessons, two-strike, circuit breaker, done and merged",
		Long: `A task moves through stages (brainstorm, design_review, plan, implement,
code_review, verify, done). Its state is the append-only log
.memory/tasks/<task>.jsonl, merged by devlearn's merge driver, so it
survives restarts and merges.

A rejection (task reject, or a required gate that fails) saves its feedback
as a candidate lesson (docs/gates.md). The second rejection at a
stage similar to the one before gives the agent the Two-Strike Protocol
(printed here, served by 'devlearn prompt'); the third (tasks.breaker_after)
trips the circuit breaker: the task is blocked (exit 4) with its
candidates listed for a person ('devlearn learn --review'), until 'task
resume'. 'task done' runs the done stage's post gates and merges the task's
branch into its base.`,
		GroupID: "learn",
	})
	cmd.AddCommand(newTaskStartCmd(env), newTaskStageCmd(env), newTaskRejectCmd(env), newTaskStatusCmd(env),
		newTaskListCmd(env), newTaskResumeCmd(env), newTaskDoneCmd(env))
	return cmd
}

// taskWS is what the task and gate commands work on.
type taskWS struct {
	env   *Env
	proj  *project.Project
	cfg   *config.Config
	now   time.Time
	store *task.Store
}

func (env *Env) taskWS(src string) (*taskWS, error) {
	now, err := env.Now()
	if err != nil {
		return nil, err
	}
	p, err := env.Project()
	if err != nil {
		return nil, err
	}
	l, err := env.Config(p)
	if err != nil {
		return nil, err
	}
	return &taskWS{env: env, proj: p, cfg: l.Config, now: now,
		store: &task.Store{Proj: p, Config: l.Config, Now: now, Src: src, Redact: redact.Text}}, nil
}

// taskName is --task, else $DEVLEARN_TASK; "" when neither names one.
func (env *Env) taskName(flag string) (string, error) { return env.taskNamed(nil, flag) }

// taskNamed is the task a command is about, by one rule wherever it is
// named: its argument, else --task, else $DEVLEARN_TASK ("" when none
// names one), checked by task.ValidName.
func (env *Env) taskNamed(args []string, flag string) (string, error) {
	name := ""
	if len(args) > 0 {
		name = args[0]
	}
	if flag != "" {
		if name != "" && name != flag {
			return "", exitcode.Usagef("TASK %q and --task %q names two tasks: give one", name, flag)
		}
		name = flag
	}
	if name == "" {
		name = env.Getenv("DEVLEARN_TASK")
	}
	if name == "" {
		return "", nil
	}
	if err := task.ValidName(name); err != nil {
		return "", exitcode.UsageError(err)
	}
	return name, nil
}

// knownTask refuses a task with no log here, naming the tasks there are.
func knownTask(w *taskWS, name string) error {
	if err := w.store.Known(name); err != nil {
		return exitcode.UsageError(err)
	}
	return nil
}

func checkStage(stage string, stop bool) error {
	if stage == "" {
		return exitcode.Usagef("--stage is needed: one of %s", strings.Join(config.Stages, ", "))
	}
	if !stop && stage == task.StopStage || task.ValidStage(stage) != nil {
		return exitcode.Usagef("--stage %q is not one of %s", stage, strings.Join(config.Stages, ", "))
	}
	return nil
}

func newTaskStartCmd(env *Env) *cobra.Command {
	var o task.StartOptions
	var noAuto, auto, asJSON bool
	cmd := &cobra.Command{
		Use:   "start TASK",
		Short: "Describe a task: its title, branch, base, worktree, first stage",
		Long: `Record what a task is: its title (its lessons' keys and tags come from it),
the branch and worktree that hold its work, the base it merges into, its
stage, and whether 'task done' merges it (--no-auto-merge keeps the branch,
for a pull request, say). Run again to change any of them. TASK holds
letters, digits, '.', '_' and '-'.`,
		Example: `  devlearn task start auth-fix --title "Fix token refresh" --branch task/auth-fix --worktree ../wt-auth --stage plan`,
		Args:    argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			name, err := env.taskNamed(args, "")
			if err != nil {
				return err
			}
			if o.Stage != "" {
				if err := checkStage(o.Stage, false); err != nil {
					return err
				}
			}
			if noAuto && auto {
				return exitcode.Usagef("--auto-merge and --no-auto-merge exclude each other")
			}
			if noAuto || auto {
				v := auto
				o.AutoMerge = &v
			}
			w, err := env.taskWS("task start")
			if err != nil {
				return err
			}
			if o.Worktree != "" {
				made, err := taskWorktree(env, w, name, &o)
				if err != nil {
					return err
				}
				if made != "" && !asJSON {
					fmt.Fprintln(env.Out, made)
				}
			}
			st, err := w.store.Start(env.Context(), name, o)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, st)
			}
			fmt.Fprintf(env.Out, "Task %s recorded in %s.\n", st.Task, task.LogRel(st.Task))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Title, "title", "", "what the task is, in a few words")
	f.StringVar(&o.Branch, "branch", "", "the branch holding its work (default: the task's name)")
	f.StringVar(&o.Base, "base", "", "the branch it merges into (default: tasks.base, else the repository's main branch)")
	f.StringVar(&o.Worktree, "worktree", "", "its linked worktree, where its gates run")
	f.StringVar(&o.Stage, "stage", "", "the stage it starts at")
	f.BoolVar(&noAuto, "no-auto-merge", false, "'task done' keeps the branch instead of merging it")
	f.BoolVar(&auto, "auto-merge", false, "'task done' merges the branch (the default, unless tasks.auto_merge is off)")
	f.BoolVar(&asJSON, "json", false, "print the task as JSON")
	return cmd
}

func newTaskStageCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stage TASK STAGE",
		Short: "Record that a task moved to a stage",
		Long: `Record that a task moved to a stage: its strikes, its attempts and its
two-strike addendum are counted per stage. 'gate pre|post --task' and 'task
reject' record the stage they are about too.`,
		Args: argsRange(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := env.taskNamed(args, ""); err != nil {
				return err
			}
			if err := checkStage(args[1], false); err != nil {
				return err
			}
			w, err := env.taskWS("task stage")
			if err != nil {
				return err
			}
			if err := knownTask(w, args[0]); err != nil {
				return err
			}
			if err := w.store.EnterStage(env.Context(), args[0], args[1]); err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, map[string]string{"task": args[0], "stage": args[1]})
			}
			fmt.Fprintf(env.Out, "Task %s is at %s.\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newTaskRejectCmd(env *Env) *cobra.Command {
	var name, stage, feedback string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reject [TASK] --stage STAGE --feedback TEXT|-",
		Short: "Reject a stage: the feedback becomes a candidate lesson; two-strike, circuit breaker",
		Long: `Record that a stage of a task was rejected, with the reason (- reads it
from stdin). The task is TASK, else --task, else $DEVLEARN_TASK, and must
have been started ('devlearn task start'). The feedback is redacted and saved as a candidate entry, as
docs/gates.md gives: key <task>-<stage>-rejection-<n>, summary its
first sentence, category lesson_learned, source fdrl, tags the stage and the
task's keywords. When it is similar to the previous rejection at the stage
(more than tasks.similarity of error messages, paths and key nouns shared),
the Two-Strike Protocol is printed for the next attempt. At
tasks.breaker_after rejections the circuit breaker blocks the task (exit 4)
and lists its candidates for review.`,
		Example: `  devlearn task reject auth-fix --stage plan --feedback "The plan ignores token refresh."
  go test ./... 2>&1 | devlearn task reject --task auth-fix --stage implement --feedback -`,
		Args: argsRange(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			n, err := env.taskNamed(args, name)
			if err != nil {
				return err
			}
			if n == "" {
				return exitcode.Usagef("name the task: devlearn task reject TASK (or --task, or $DEVLEARN_TASK)")
			}
			if err := checkStage(stage, true); err != nil {
				return err
			}
			if feedback == "-" {
				data, err := io.ReadAll(io.LimitReader(env.In, 4*task.MaxFeedback))
				if err != nil {
					return err
				}
				feedback = string(data)
			}
			if strings.TrimSpace(feedback) == "" {
				return exitcode.Usagef("--feedback is needed: why the stage was rejected (- reads it from stdin)")
			}
			w, err := env.taskWS("task reject")
			if err != nil {
				return err
			}
			if err := knownTask(w, n); err != nil {
				return err
			}
			o, err := w.store.Reject(env.Context(), task.RejectInput{Task: n, Stage: stage, Feedback: feedback, From: "person"})
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(env.Out, o); err != nil {
					return err
				}
			} else {
				printOutcome17(env.Out, o)
			}
			return outcomeErr(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "task", "", "the task (default $DEVLEARN_TASK)")
	f.StringVar(&stage, "stage", "", "the stage rejected: "+strings.Join(config.Stages, ", "))
	f.StringVar(&feedback, "feedback", "", "why, as the agent should hear it (- reads stdin)")
	f.BoolVar(&asJSON, "json", false, "print what the rejection did as JSON")
	return cmd
}

// printOutcome17 prints what a rejection did: the lesson saved, the
// addendum, the breaker, the cross-task suggestion.
func printOutcome17(w io.Writer, o *task.Outcome) {
	fmt.Fprintf(w, "Rejected %s at %s (rejection %d): %s\n", o.Task, o.Stage, o.Strike, o.Summary)
	switch {
	case o.Candidate != "" && o.Recurrences > 0:
		fmt.Fprintf(w, "The same failure as candidate lesson %s (%s): counted there, %d times now.\n", o.Candidate, o.CandidatePath, o.Recurrences)
	case o.Candidate != "":
		fmt.Fprintf(w, "Saved as candidate lesson %s (%s).\n", o.Candidate, o.CandidatePath)
	}
	if o.TwoStrike != "" {
		fmt.Fprintf(w, "\nThe last two rejections at %s are similar (%.0f%% of their terms shared): the next attempt gets the Two-Strike Protocol (also in 'devlearn prompt --stage %s --task %s'):\n\n%s\n", o.Stage, o.Overlap*100, o.Stage, o.Task, o.TwoStrike)
	}
	if o.Breaker {
		fmt.Fprintf(w, "\nCircuit breaker: %d rejections at %s. Task %s is blocked until a person looks.\n", o.Strike, o.Stage, o.Task)
		printCandidates(w, o.Candidates)
		fmt.Fprintf(w, "Then 'devlearn task resume %s' lets it go on.\n", o.Task)
	}
	if sg := o.Suggest; sg != nil {
		fmt.Fprintf(w, "\nGate %q failed on %d tasks (%s): its lesson may hold for every project. Promote one with 'devlearn knowledge promote --global KEY' (%s).\n",
			sg.Gate, len(sg.Tasks), strings.Join(sg.Tasks, ", "), strings.Join(sg.Candidates, ", "))
	}
}

func printCandidates(w io.Writer, keys []string) {
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(w, "Lessons waiting for review (%s):\n", plural(len(keys), "candidate", "candidates"))
	for _, k := range keys {
		fmt.Fprintf(w, "  %s\n", k)
	}
	fmt.Fprintln(w, "Confirm, edit, discard or promote them to every project: 'devlearn learn --review' (--keep, --edit, --deprecate, --promote-global KEY), or 'devlearn knowledge promote [--global] KEY'.")
}

// outcomeErr is the exit code of a rejection: 4 when it tripped the
// breaker, 0 otherwise (recording a rejection is what was asked).
func outcomeErr(o *task.Outcome) error {
	if o.Breaker {
		return exitcode.Silent{Code: exitcode.Breaker}
	}
	return nil
}

// breakerErr turns a blocked task into exit 4 with what to do.
func breakerErr(err error) error {
	var be *task.BreakerError
	if errors.As(err, &be) {
		hint := "review its lessons with 'devlearn learn --review', then 'devlearn task resume " + be.Task + "'"
		if len(be.Candidates) > 0 {
			hint = "review " + strings.Join(be.Candidates, ", ") + " with 'devlearn learn --review', then 'devlearn task resume " + be.Task + "'"
		}
		return exitcode.BreakerError(err, hint)
	}
	return err
}

func newTaskStatusCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status TASK",
		Short: "A task's stage, attempts, strikes, gates, lessons and merge",
		Long: `Print a task's state as its log says: its stage, the attempt under way
and the strikes (rejections at the stage since it last resumed), its
status (blocked by the circuit breaker or a merge conflict, and what to do),
its branch and base, its last run of gates, its lessons and their review
status, its merge, and whether the next attempt gets the Two-Strike
Protocol.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := env.taskNamed(args, ""); err != nil {
				return err
			}
			w, err := env.taskWS("task status")
			if err != nil {
				return err
			}
			st, probs, err := w.store.Load(args[0])
			if err != nil {
				return err
			}
			for _, p := range probs {
				fmt.Fprintf(env.Err, "devlearn: %v\n", p)
			}
			warnInterruptedMerges(env)
			if st.Events == 0 {
				return knownTask(w, args[0])
			}
			lessons := lessonStates(w, st.Lessons)
			if asJSON {
				return printJSON(env.Out, map[string]any{"task": st, "lessons": lessons, "auto_merge": st.Merges(w.cfg.Tasks.AutoMerge)})
			}
			printStatus(env.Out, w, st, lessons)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the task as JSON")
	return cmd
}

type lessonState struct {
	Key    string `json:"key"`
	Status string `json:"status"`
}

func lessonStates(w *taskWS, keys []string) []lessonState {
	out := []lessonState{}
	for _, k := range keys {
		st := "gone"
		if e, _, err := (&entrystore.Store{Scope: knowledge.ScopeProject, Proj: w.proj}).Read(k); err == nil {
			st = e.Status
		}
		out = append(out, lessonState{Key: k, Status: st})
	}
	return out
}

func printStatus(out io.Writer, w *taskWS, st *task.State, lessons []lessonState) {
	title := ""
	if st.Title != "" {
		title = ": " + st.Title
	}
	fmt.Fprintf(out, "Task %s%s\n", st.Task, title)
	row := func(k, v string) { fmt.Fprintf(out, "  %-10s %s\n", k, v) }
	stage := st.Stage
	if stage == "" {
		stage = "(none yet)"
	}
	row("stage", fmt.Sprintf("%s (attempt %d, %s)", stage, st.Attempts, plural(st.Strikes, "strike", "strikes")))
	status := st.Status
	switch st.BlockedBy {
	case task.BlockedBreaker:
		status += " by the circuit breaker: review its lessons, then 'devlearn task resume " + st.Task + "'"
	case task.BlockedConflict:
		status += " by a merge conflict: resolve it, then 'devlearn task done " + st.Task + "' again"
	case task.BlockedMergeFailed:
		status += " by a failed merge: " + firstNonEmpty(st.Merge.Next, "fix what its merge row says, then 'devlearn task done "+st.Task+"' again")
	}
	row("status", status)
	if st.Entering != "" {
		row("entering", fmt.Sprintf("%s refused by its pre gates (%s)", st.Entering, plural(st.StrikesAt(st.Entering), "strike", "strikes")))
	}
	auto := "auto-merge"
	if !st.Merges(w.cfg.Tasks.AutoMerge) {
		auto = "keeps its branch"
	}
	base := st.Base
	if base == "" {
		base = firstNonEmpty(w.cfg.Tasks.Base, "the main branch")
	}
	row("branch", fmt.Sprintf("%s → %s (%s)", firstNonEmpty(st.Branch, st.Task), base, auto))
	if st.Worktree != "" {
		row("worktree", st.Worktree)
	}
	if g := st.LastGates; g != nil {
		var parts []string
		for _, r := range g.Gates {
			mark := "✓"
			if !r.OK {
				mark = "✗"
				if !r.Required {
					mark = "!"
				}
			}
			parts = append(parts, mark+" "+r.Name)
		}
		row("gates", fmt.Sprintf("%s %s at %s: %s", g.When, g.Stage, g.At, strings.Join(parts, ", ")))
	}
	if len(st.Rejections) > 0 {
		last := st.Rejections[len(st.Rejections)-1]
		row("rejected", fmt.Sprintf("%s, last at %s: %s", plural(len(st.Rejections), "time", "times"), last.Stage, last.Summary))
	}
	if len(lessons) > 0 {
		var parts []string
		for _, l := range lessons {
			parts = append(parts, fmt.Sprintf("%s (%s)", l.Key, l.Status))
		}
		row("lessons", strings.Join(parts, ", "))
	}
	if m := st.Merge; m != nil {
		switch m.Kind {
		case task.KindConflict:
			var paths []string
			for _, c := range m.Conflicts {
				paths = append(paths, c.Path)
			}
			row("merge", "conflicts with "+m.Base+" in "+strings.Join(paths, ", "))
		case task.KindFailed:
			row("merge", fmt.Sprintf("into %s failed at %s: %s", firstNonEmpty(m.Base, "the main branch"), m.At, m.Reason))
		default:
			row("merge", fmt.Sprintf("%s into %s, commit %s", m.Kind, m.Base, m.Commit))
		}
	}
	if st.TwoStrike != "" {
		fmt.Fprintf(out, "The next attempt at %s gets the Two-Strike Protocol: 'devlearn prompt --stage %s --task %s'.\n", st.Stage, st.Stage, st.Task)
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func newTaskListCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Every task with a log here, most recently changed first",
		Long: `List the tasks of .memory/tasks/: stage, status (active, blocked, done,
merged), the attempt under way at the stage, the lessons saved, and the time
of the last event.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.taskWS("task list")
			if err != nil {
				return err
			}
			warnInterruptedMerges(env)
			list, err := w.store.List()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(env.Out, "No tasks. 'devlearn task start TASK' describes one; a gate run with --task (or the Stop hook) records one.")
				return nil
			}
			width := 4
			for _, st := range list {
				width = max(width, len(st.Task))
			}
			fmt.Fprintf(env.Out, "%-*s  %-13s  %-8s  %-8s  %-7s  %s\n", width, "TASK", "STAGE", "STATUS", "ATTEMPTS", "LESSONS", "UPDATED")
			for _, st := range list {
				fmt.Fprintf(env.Out, "%-*s  %-13s  %-8s  %-8d  %-7d  %s\n", width, st.Task, firstNonEmpty(st.Stage, "-"), st.Status, st.Attempts, len(st.Lessons), st.Updated)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tasks as JSON")
	return cmd
}

func newTaskResumeCmd(env *Env) *cobra.Command {
	var reason string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "resume TASK",
		Short: "Let a task blocked by the circuit breaker go on: its strikes start again",
		Long: `A person looked at a task the circuit breaker blocked (its lessons
reviewed with 'devlearn learn --review'): its rejections count from zero
again, and its gates run again.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := env.taskNamed(args, ""); err != nil {
				return err
			}
			w, err := env.taskWS("task resume")
			if err != nil {
				return err
			}
			st, _, err := w.store.Load(args[0])
			if err != nil {
				return err
			}
			if open := w.store.OpenCandidates(st); len(open) > 0 {
				fmt.Fprintf(env.Err, "devlearn: %s of %s still %s review: %s\n", plural(len(open), "lesson", "lessons"), args[0], map[bool]string{true: "waits for", false: "wait for"}[len(open) == 1], strings.Join(open, ", "))
			}
			if err := w.store.Resume(env.Context(), args[0], reason); err != nil {
				return exitcode.UsageError(err)
			}
			if asJSON {
				return printJSON(env.Out, map[string]any{"task": args[0], "resumed": true})
			}
			fmt.Fprintf(env.Out, "Task %s resumed: its strikes start again.\n", args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "what the person decided")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func newTaskDoneCmd(env *Env) *cobra.Command {
	var asJSON, keepWorktree bool
	cmd := &cobra.Command{
		Use:   "done TASK",
		Short: "Finish a task: the done stage's post gates, then the merge into its base",
		Long: `Finish a task (docs/gates.md): the done stage's post gates run (a required
failure is a rejection, exit 3), then the task's branch (or worktree) is
merged into its base with devlearn merge, one merge into a base at a time.
A conflict blocks the task with the conflicting paths (exit 3); resolve it
and run 'task done' again. A task started with --no-auto-merge (or
tasks.auto_merge off) keeps its branch. The merge commit is recorded in the
task's log, and its lessons still waiting for review are listed; a merge
refused or cut short records nothing, so the task is never done unmerged.
A merge a crash interrupted (any task's) is finished, or undone when its
base had not moved, before anything else (docs/merging.md).`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := env.taskNamed(args, ""); err != nil {
				return err
			}
			w, err := env.taskWS("task done")
			if err != nil {
				return err
			}
			in, err := gate.Trusted(env.Home(), w.proj.Root, w.cfg)
			if err != nil {
				return err
			}
			if in.Untrusted != "" {
				fmt.Fprintf(env.Err, "devlearn: %s\n", in.Untrusted)
			}
			// A merge a crash interrupted is finished (or undone) first:
			// nothing below may build on a base whose checkout lags.
			recs, err := gitx.Recover(c.Context(), gitx.Options{Dir: env.Dir, Now: w.now})
			if !asJSON {
				printRecovered(env.Out, recs)
			}
			if err != nil {
				return exitcode.WithHint(fmt.Errorf("an interrupted merge could not be finished: %w", err),
					"fix what it says, then run 'devlearn task done "+args[0]+"' again ('devlearn doctor' shows it)")
			}
			for _, rec := range recs {
				if rec.Task != args[0] || !rec.Finished {
					continue
				}
				if st, _, lerr := w.store.Load(args[0]); lerr == nil && st.Status == task.StatusMerged {
					if asJSON {
						return printJSON(env.Out, map[string]any{"recovered": recs})
					}
					fmt.Fprintf(env.Out, "Task %s is done and merged.\n", args[0])
					return nil
				}
			}
			post, _ := in.Gates.Post.For("done")
			res, err := w.store.Done(c.Context(), args[0], task.DoneOptions{
				Gates:       post,
				GateOptions: gate.Options{Project: w.proj.Root, Worktree: w.proj.Root, Env: env.environ(), Redact: redact.Text},
				DefaultBase: w.cfg.Tasks.Base,
				AutoMerge:   w.cfg.Tasks.AutoMerge,
			})
			var merged *gitx.Result
			var mergeErr error
			again := "'devlearn task done " + args[0] + "'"
			if err == nil && res.Merge {
				// devlearn merge's code: one merge into a base at a time,
				// the outcome recorded in the task's log.
				id, ierr := gitx.ResolveIdentity(env.Dir, env.Getenv)
				if ierr != nil {
					return ierr
				}
				merged, mergeErr = gitx.Merge(c.Context(), gitx.Options{
					Dir: env.Dir, Target: res.Target, Into: res.Into, Task: args[0],
					Identity: id, Now: w.now, LockWait: 2 * time.Minute, KeepWorktree: keepWorktree, Again: again,
				})
				err = mergeErr
				if err == nil && !samePath(merged.TaskLogIn, w.proj.Root) {
					// The merge recorded itself in another worktree's log
					// (or none): this project's must say merged too.
					err = w.store.RecordMerged(c.Context(), args[0], merged.Kind, merged.BaseTo, merged.Base)
				}
			}
			base := ""
			if res != nil {
				base = res.Into
			}
			if merged != nil && merged.Base != "" {
				base = merged.Base
			}
			failed := mergeErr != nil && (merged == nil || merged.Kind != gitx.KindConflict)
			if failed {
				// Never done unmerged, and never silent: the log says the
				// merge failed and what to do, and the task stays open for
				// 'task done' again (a conflict the merge records itself).
				next := "fix what the error says, then run " + again + " again"
				var refused *gitx.Refused
				switch {
				case errors.As(mergeErr, &refused) && refused.Hint != "":
					next = refused.Hint
				case errors.Is(mergeErr, gitx.ErrNotFound):
					next = "name the task's branch with 'devlearn task start " + args[0] + " --branch B', then run " + again + " again"
				}
				if rerr := w.store.RecordMergeFailed(env.Context(), args[0], base, mergeErr.Error(), next); rerr != nil {
					fmt.Fprintf(env.Err, "devlearn: the failed merge could not be recorded: %v\n", rerr)
				}
			}
			var uncommitted []string
			if err == nil {
				// A person's checkout is theirs to commit: devlearn names
				// its own files there, as init does (in the task's
				// worktree, which it removes, the merge committed them).
				uncommitted, _ = gitx.Unlearned(w.proj.Root)
			}
			if res != nil {
				if asJSON {
					if perr := printJSON(env.Out, map[string]any{"done": res, "merge": merged, "recovered": recs, "uncommitted": uncommitted}); perr != nil {
						return perr
					}
				} else {
					if len(res.Gates.Results) > 0 {
						printGateResults(env.Out, "post done", res.Gates)
					}
					if res.Reject != nil {
						printOutcome17(env.Out, res.Reject)
					}
					if merged != nil {
						printMerge(env.Out, merged)
					}
					switch {
					case res.Kept != "":
						fmt.Fprintf(env.Out, "Task %s is done; %s.\n", args[0], res.Kept)
					case err == nil:
						fmt.Fprintf(env.Out, "Task %s is done and merged.\n", args[0])
					case failed:
						fmt.Fprintf(env.Out, "Task %s is not done: its merge into %s failed. Its log records why; 'devlearn task status %s' shows it.\n", args[0], firstNonEmpty(base, "the main branch"), args[0])
					}
					if err == nil || res.Reject == nil {
						printCandidates(env.Out, res.Candidates)
					}
					printUncommitted(env.Out, args[0], uncommitted)
				}
			}
			var refused *gitx.Refused
			var unknown *task.UnknownError
			switch {
			case err == nil:
				return nil
			case errors.Is(err, task.ErrGateFailed):
				if res.Reject != nil && res.Reject.Breaker {
					return exitcode.Silent{Code: exitcode.Breaker}
				}
				return exitcode.RefusedError(err, "fix what the gate says, then 'devlearn task done "+args[0]+"' again")
			case errors.As(err, &refused):
				return exitcode.RefusedError(err, refused.Hint)
			case errors.Is(err, gitx.ErrNotFound):
				return exitcode.UsageError(exitcode.WithHint(err, "name the task's branch with 'devlearn task start "+args[0]+" --branch B', then run "+again+" again"))
			case errors.As(err, &unknown):
				return exitcode.UsageError(err)
			}
			return breakerErr(err)
		},
	}
	cmd.Flags().BoolVar(&keepWorktree, "keep-worktree", false, "keep the task's linked worktree after merging")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was done as JSON")
	return cmd
}

// printUncommitted names devlearn's files a person's checkout has not
// committed after a task is done, and the command that commits exactly
// them (git add and commit limited to devlearn's folders, so nothing else
// staged goes with them).
func printUncommitted(w io.Writer, name string, paths []string) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintln(w, "devlearn's files here are not committed yet:")
	var dirs []string
	for _, p := range paths {
		fmt.Fprintf(w, "  %s\n", p)
		for _, d := range gitx.LearnedDirs {
			if strings.HasPrefix(p, d+"/") && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	list := strings.Join(dirs, " ")
	fmt.Fprintf(w, "Commit them: git add -- %s && git commit -m 'devlearn: what task %s learned' -- %s\n", list, name, list)
}

// environ is the environment commands devlearn starts (gates) inherit.
func (env *Env) environ() []string {
	if env.Environ == nil {
		return []string{}
	}
	return env.Environ()
}

// samePath reports whether two paths name the same folder.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// warnInterruptedMerges names, on stderr, a merge a crash cut short: the
// state a task command shows is not settled until it is finished.
func warnInterruptedMerges(env *Env) {
	list, err := gitx.Interrupted(env.Dir)
	if err != nil {
		return
	}
	for _, it := range list {
		if !it.Running {
			fmt.Fprintf(env.Err, "devlearn: %s; next: %s\n", it.What, it.Next)
		}
	}
}
