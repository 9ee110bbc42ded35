package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/task"
)

func newGateCmd(env *Env) *cobra.Command {
	cmd := asParent(&cobra.Command{
		Use:   "gate",
		Short: "Quality gates: the commands you configured, run at stage boundaries and at Stop",
		Long: `Quality gates (docs/gates.md) are shell commands a person configured under
"gates" in the global config or the project's .memory/learning.json (which
runs them only once trusted: 'devlearn trust'):

  "gates": {
    "pre":  {"<stage>": [{"name", "command", "cwd", "timeout", "required"}]},
    "post": {"<stage>": [...]},
    "stop": [...]
  }

Each runs with sh -c in the task's worktree (or cwd), in its own process
group, killed whole after its timeout (milliseconds); its output is bounded
and redacted. A required gate that fails exits 3 and, with a task, is a
rejection (a candidate lesson, two-strike, circuit breaker: exit 4); an
optional one is a warning. Nothing learned is ever run.`,
		GroupID: "learn",
	})
	cmd.AddCommand(newGateRunCmd(env, "pre"), newGateRunCmd(env, "post"), newGateRunCmd(env, "stop"),
		newGateListCmd(env), newGatePresetCmd(env))
	return cmd
}

// gateRun is what `gate pre|post|stop` prints with --json.
type gateRun struct {
	Task      string        `json:"task,omitempty"`
	Stage     string        `json:"stage"`
	When      string        `json:"when"`
	Untrusted string        `json:"untrusted,omitempty"`
	Report    *gate.Report  `json:"report"`
	Rejection *task.Outcome `json:"rejection,omitempty"`
}

func newGateRunCmd(env *Env, when string) *cobra.Command {
	var stage, name string
	var asJSON bool
	use := when + " --stage STAGE [--task TASK]"
	short := map[string]string{
		"pre":  "Run the gates before a stage: a required failure keeps it from starting",
		"post": "Run the gates after a stage: a required failure is a rejection",
		"stop": "Run the Stop gates, as the Claude Code Stop hook does",
	}[when]
	if when == "stop" {
		use = "stop [--task TASK]"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

With --task (or $DEVLEARN_TASK) the gates run in the task's worktree, their
results go to its log, and a required failure is recorded as a rejection of
the stage: its output becomes a candidate lesson, the Two-Strike Protocol is
printed on the second similar failure, and the third trips the circuit
breaker (exit 4). Exit 3 when a required gate failed, 0 otherwise (optional
failures are warnings on stderr).`,
		Example: `  devlearn gate post --stage implement --task auth-fix
  devlearn gate pre --stage verify`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if when == "stop" {
				stage = task.StopStage
			} else if err := checkStage(stage, false); err != nil {
				return err
			}
			n, err := env.taskName(name)
			if err != nil {
				return err
			}
			w, err := env.taskWS("gate " + when)
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
			list := in.Gates.Stop
			if when != "stop" {
				st := in.Gates.Pre
				if when == "post" {
					st = in.Gates.Post
				}
				list, _ = st.For(stage)
			}
			out := gateRun{Task: n, Stage: stage, When: when, Untrusted: in.Untrusted}
			worktree := w.proj.Root
			if n != "" {
				st, _, err := w.store.Load(n)
				if err != nil {
					return err
				}
				if err := w.store.Blocked(st); err != nil {
					return breakerErr(err)
				}
				if st.Worktree != "" {
					worktree = st.Worktree
				}
				if err := gate.CheckWorktree(w.proj.Root, worktree, in.Gates); err != nil {
					return exitcode.WithHint(err, "'devlearn task status "+n+"' shows the task's worktree")
				}
				if when == "stop" && st.Stage != "" {
					stage, out.Stage = st.Stage, st.Stage
				}
			}
			out.Report = gate.Run(c.Context(), list, gate.Options{Project: w.proj.Root, Worktree: worktree, Env: env.environ(), Redact: redact.Text})
			if n != "" && len(list) > 0 {
				if err := w.store.RecordGates(env.Context(), n, stage, when, out.Report); err != nil {
					return err
				}
				if out.Report.Blocked() {
					fb, from := task.GateFeedback(out.Report)
					in := task.RejectInput{Task: n, Stage: stage, Feedback: fb, From: from}
					if when == "pre" {
						in.When = "pre" // refused entry: the task stays where it was
					}
					if out.Rejection, err = w.store.Reject(env.Context(), in); err != nil {
						return err
					}
				}
			}
			if asJSON {
				if err := printJSON(env.Out, out); err != nil {
					return err
				}
			} else {
				if held := heldFor(in, when, stage); len(list) == 0 && len(held) > 0 {
					names := make([]string, len(held))
					for i, g := range held {
						names[i] = g.Name
					}
					fmt.Fprintf(env.Out, "%s of %s %s configured but not trusted on this machine, so %s did not run (%s): %s.\n",
						plural(len(held), "gate", "gates"), gateList(when, stage), map[bool]string{true: "is", false: "are"}[len(held) == 1],
						map[bool]string{true: "it", false: "they"}[len(held) == 1], strings.Join(names, ", "), trustNext())
				} else if len(list) == 0 {
					fmt.Fprintf(env.Out, "No gates for %s.\n", gateList(when, stage))
				}
				printGateResults(env.Out, gateList(when, stage), out.Report)
				for _, r := range out.Report.Warnings() {
					fmt.Fprintf(env.Err, "devlearn: warning: optional gate %q failed (%s)\n", r.Name, r.Why())
				}
				if out.Rejection != nil {
					fmt.Fprintln(env.Out)
					printOutcome17(env.Out, out.Rejection)
				} else if out.Report.Blocked() && n == "" {
					fmt.Fprintln(env.Out, "Not recorded: no task named (--task or $DEVLEARN_TASK).")
				}
			}
			switch {
			case out.Rejection != nil && out.Rejection.Breaker:
				return exitcode.Silent{Code: exitcode.Breaker}
			case out.Report.Blocked():
				if asJSON {
					return exitcode.Silent{Code: exitcode.Refused}
				}
				return exitcode.RefusedError(fmt.Errorf("%s failed", plural(len(out.Report.Failed()), "required gate", "required gates")), "fix what the output says, then run the gates again")
			}
			return nil
		},
	}
	f := cmd.Flags()
	if when != "stop" {
		f.StringVar(&stage, "stage", "", "the stage: "+strings.Join(config.Stages, ", "))
	}
	f.StringVar(&name, "task", "", "the task (default $DEVLEARN_TASK): its worktree, its log, its rejections")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

// heldFor is the gates of one list that are configured but held back
// because the folder is not trusted.
func heldFor(in *gate.InForce, when, stage string) []config.Gate {
	if in.Held == nil {
		return nil
	}
	switch when {
	case "stop":
		return in.Held.Stop
	case "pre":
		g, _ := in.Held.Pre.For(stage)
		return g
	}
	g, _ := in.Held.Post.For(stage)
	return g
}

// trustNext is what makes held gates run: the person reads the config, then
// trusts it.
func trustNext() string {
	return "read " + project.ConfigFile + ", then run 'devlearn trust'"
}

func gateList(when, stage string) string {
	if when == "stop" {
		return "stop"
	}
	return when + "." + stage
}

// printGateResults prints one line per gate, and the output of each that
// failed.
func printGateResults(w io.Writer, what string, rep *gate.Report) {
	for _, r := range rep.Results {
		mark, kind := "✓", ""
		if !r.OK {
			mark, kind = "✗", " (required)"
			if !r.Required {
				mark, kind = "!", " (optional)"
			}
		}
		took := time.Duration(r.DurationMS) * time.Millisecond
		fmt.Fprintf(w, "%s %s: %s%s, %s\n", mark, r.Name, r.Why(), kind, took.Round(time.Millisecond))
		if !r.OK && strings.TrimSpace(r.Output) != "" {
			for _, line := range strings.Split(strings.TrimRight(r.Output, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
			if r.OutputBytes > int64(len(r.Output)) {
				fmt.Fprintf(w, "    (%d bytes of output, its head and tail kept)\n", r.OutputBytes)
			}
		}
	}
}

func newGateListCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "The gates in force here, and whether the project's are trusted",
		Long: `List the gates that would run here, list by list (pre.<stage>,
post.<stage>, stop): the global config's and the project's, a project's
list replacing the global one of the same name. None runs in a folder not
trusted on this machine ('devlearn trust'); the note says why.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.taskWS("gate list")
			if err != nil {
				return err
			}
			in, err := gate.Trusted(env.Home(), w.proj.Root, w.cfg)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, in)
			}
			gates, mark := in.Gates, ""
			if in.Untrusted != "" && in.Held != nil {
				gates, mark = *in.Held, "  (not trusted)"
				n := len(gate.All(gates))
				fmt.Fprintf(env.Out, "%s %s configured but not trusted on this machine, so none runs: %s.\n",
					plural(n, "gate", "gates"), map[bool]string{true: "is", false: "are"}[n == 1], trustNext())
				fmt.Fprintf(env.Out, "Why: %s.\n", strings.TrimPrefix(in.Untrusted, "the gates were not run: "))
			}
			n := 0
			show := func(list string, gates []config.Gate) {
				for _, g := range gates {
					req := "optional"
					if g.Required {
						req = "required"
					}
					timeout := g.Timeout
					if timeout == 0 {
						timeout = int(gate.DefaultTimeout.Milliseconds())
					}
					fmt.Fprintf(env.Out, "%-20s %-24s %s, %d ms: %s%s\n", list, g.Name, req, timeout, g.Command, mark)
					n++
				}
			}
			for _, when := range []string{"pre", "post"} {
				st := gates.Pre
				if when == "post" {
					st = gates.Post
				}
				for _, s := range config.Stages {
					g, _ := st.For(s)
					show(when+"."+s, g)
				}
			}
			show("stop", gates.Stop)
			if n == 0 {
				fmt.Fprintln(env.Out, "No gates. 'devlearn gate preset' lists ready-made ones; docs/gates.md shows how to write your own.")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the gates as JSON")
	return cmd
}

func newGatePresetCmd(env *Env) *cobra.Command {
	var global, asJSON bool
	var pm string
	cmd := &cobra.Command{
		Use:   "preset [NAME]",
		Short: "List the gate presets, or add one's gates to your config",
		Long: `Without NAME, list the presets: TypeScript, Full JS and Python,
and Go and Rust. With NAME, add its gates to the project's
.memory/learning.json (or, with --global, to $DEVLEARN_HOME/config.json),
each list keeping the gates it has: a gate of the same name is left as you
wrote it. The JavaScript presets run the project's package manager:
package.json's packageManager field, else its lock file (pnpm-lock.yaml,
yarn.lock, bun.lockb), else npm; --package-manager chooses. A project file that names gates runs them only once you have read
it and run 'devlearn trust'.`,
		Example: `  devlearn gate preset
  devlearn gate preset go
  devlearn gate preset typescript --global`,
		Args: argsRange(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				all, err := gate.Presets()
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(env.Out, all)
				}
				for _, p := range all {
					fmt.Fprintf(env.Out, "%-11s %s\n", p.Name, p.Description)
				}
				fmt.Fprintln(env.Out, "Apply one with 'devlearn gate preset NAME' (--global for every project).")
				return nil
			}
			p, err := gate.FindPreset(args[0])
			if err != nil {
				return exitcode.UsageError(err)
			}
			if pm != "" && !slices.Contains(gate.PackageManagers, pm) {
				return exitcode.Usagef("--package-manager %q is not one of %s", pm, strings.Join(gate.PackageManagers, ", "))
			}
			var path, shown string
			var proj *project.Project
			if global {
				if env.Home() == "" {
					return errors.New("no devlearn home ($DEVLEARN_HOME or $HOME)")
				}
				path = filepath.Join(env.Home(), config.GlobalFile)
				shown = path
			} else {
				if proj, err = env.Project(); err != nil {
					return err
				}
				path, shown = proj.Path(project.ConfigFile), project.ConfigFile
			}
			// A JavaScript preset runs the project's package manager, as a
			// person there would type it.
			pmWhy := ""
			if p.UsesNPM() {
				switch {
				case pm != "":
					pmWhy = "--package-manager"
				case global:
					pm, pmWhy = "npm", "the global config serves every project; --package-manager chooses another"
				default:
					pm, pmWhy = gate.DetectPackageManager(proj.Root)
				}
				if p, err = p.ForPackageManager(pm); err != nil {
					return exitcode.UsageError(err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			next, changes, err := p.Apply(shown, data)
			if err != nil {
				return err
			}
			added := 0
			for _, ch := range changes {
				added += len(ch.Added)
			}
			if added > 0 {
				if global {
					if err := safefile.MkdirRoot(env.Home(), 0o755); err != nil {
						return err
					}
					err = jsonl.WriteFileAtomic(env.Home(), path, next, 0o644)
				} else {
					now, nerr := env.Now()
					if nerr != nil {
						return nerr
					}
					w := evolve.New(proj, now, evolve.Trigger{Command: "gate preset"})
					_, err = w.Apply(env.Context(), evolve.Reason{Text: "gate preset " + p.Name}, evolve.Change{Path: project.ConfigFile, Data: next})
				}
				if err != nil {
					return err
				}
			}
			if asJSON {
				out := map[string]any{"preset": p.Name, "file": shown, "changes": changes}
				if pmWhy != "" {
					out["package_manager"], out["package_manager_from"] = pm, pmWhy
				}
				return printJSON(env.Out, out)
			}
			if pmWhy != "" {
				fmt.Fprintf(env.Out, "Package manager: %s (%s).\n", pm, pmWhy)
			}
			for _, ch := range changes {
				for _, g := range ch.Added {
					fmt.Fprintf(env.Out, "added   %-20s %s\n", ch.List, g)
				}
				for _, g := range ch.Kept {
					fmt.Fprintf(env.Out, "kept    %-20s %s (yours, as you wrote it)\n", ch.List, g)
				}
			}
			if added == 0 {
				fmt.Fprintf(env.Out, "%s already has the %s preset's gates.\n", shown, p.Title)
				return nil
			}
			fmt.Fprintf(env.Out, "Saved %s.\n", shown)
			if !global {
				fmt.Fprintln(env.Out, "Its gates run once you have read it and run 'devlearn trust'.")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "add to the global config, for every project")
	cmd.Flags().StringVar(&pm, "package-manager", "", "the JavaScript presets' package manager: "+strings.Join(gate.PackageManagers, ", ")+" (default: the project's, from package.json's packageManager or its lock file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
