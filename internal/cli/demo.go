package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/demo"
	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/safefile"
)

type demoOptions struct {
	dir string
}

func newDemoCmd(env *Env) *cobra.Command {
	opts := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show the whole learning loop on a sample project",
		Long: `Create a throwaway git repository from a sample project embedded in devlearn,
replay several simulated days of sessions through the real commands, and
show how each lesson's confidence and status move, and why.

Offline and quick. Nothing outside the demo's folder is touched: it uses its
own DEVLEARN_HOME. With --dir the repository is kept for you to look at;
otherwise it is removed at the end.`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDemo(env, opts)
		},
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "create the sample repository here and keep it")
	return cmd
}

// demoRun is one demo: its repository, its private home and its output.
type demoRun struct {
	env  *Env
	repo string
	home string
	prev map[string]observe.Observation
}

func runDemo(env *Env, opts *demoOptions) error {
	base, err := safefile.MkdirTemp("devlearn-demo-")
	if err != nil {
		return err
	}
	defer safefile.RemoveAll(filepath.Dir(base), base)
	d := &demoRun{env: env, repo: filepath.Join(base, "acme-notes"), home: filepath.Join(base, "home")}
	if opts.dir != "" {
		if d.repo, err = filepath.Abs(opts.dir); err != nil {
			return err
		}
	}
	if err := demo.WriteSample(d.repo, demo.Start.Add(-24*time.Hour)); err != nil {
		return err
	}
	out := env.Out
	fmt.Fprintf(out, "devlearn demo: a sample project, acme-notes, at %s\n", d.repo)
	fmt.Fprintln(out, "Each day below replays what an extractor found in that day's sessions, through the real commands.")

	for _, day := range demo.Days() {
		at := demo.Start.AddDate(0, 0, day.N)
		fmt.Fprintf(out, "\n── Day %d · %s ─────────────────────────────\n%s\n", day.N+1, at.Format("Mon 2 Jan 2006"), day.Story)
		for _, step := range day.Steps {
			if err := d.step(at, step); err != nil {
				return err
			}
		}
		if err := d.showMoves(at); err != nil {
			return err
		}
	}

	last := demo.Start.AddDate(0, 0, demo.Days()[len(demo.Days())-1].N)
	fmt.Fprintf(out, "\n── Where things stand ──────────────────────────\n")
	if err := d.run(last, []string{"learn", "--list"}, "", out); err != nil {
		return err
	}
	if opts.dir != "" {
		fmt.Fprintf(out, "\nThe repository is kept at %s; its log is .memory/learning-log.jsonl.\n", d.repo)
	} else {
		fmt.Fprintln(out, "\nThe demo's repository was removed; run 'devlearn demo --dir ./acme-notes' to keep one.")
	}
	return nil
}

// step prints a command as a person would type it, then runs it; or does
// what the person does to a file, and says so.
func (d *demoRun) step(at time.Time, s demo.Step) error {
	switch {
	case s.Edit != nil:
		path := filepath.Join(d.repo, filepath.FromSlash(s.Edit.Path))
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), s.Edit.Old) {
			return fmt.Errorf("demo: cannot edit %s: %v", s.Edit.Path, err)
		}
		fmt.Fprintf(d.env.Out, "(the user edits %s: %q → %q)\n", s.Edit.Path, s.Edit.Old, s.Edit.New)
		return safefile.WriteFile(d.repo, path, []byte(strings.Replace(string(data), s.Edit.Old, s.Edit.New, 1)), 0o644)
	case s.Delete != "":
		fmt.Fprintf(d.env.Out, "(the user deletes %s)\n$ rm %s\n", s.Delete, s.Delete)
		return safefile.Remove(d.repo, filepath.Join(d.repo, filepath.FromSlash(s.Delete)))
	}
	line := "$ devlearn " + strings.Join(s.Args, " ")
	s.Stdin = strings.ReplaceAll(s.Stdin, "@REPO@", d.repo)
	if len(s.Args) > 0 && s.Args[0] == "hook" {
		line += "   # the hook JSON Claude Code sends, on stdin"
	} else if s.Stdin != "" {
		var in struct{ Observations []json.RawMessage }
		_ = json.Unmarshal([]byte(s.Stdin), &in)
		line += fmt.Sprintf("   # %s on stdin", plural(len(in.Observations), "observation", "observations"))
	}
	fmt.Fprintln(d.env.Out, line)
	var buf bytes.Buffer
	err := d.run(at, s.Args, s.Stdin, &buf)
	fmt.Fprint(d.env.Out, indent(buf.String(), "  "))
	if err != nil {
		return err
	}
	for _, f := range s.Show {
		data, err := os.ReadFile(filepath.Join(d.repo, filepath.FromSlash(f)))
		if err != nil {
			return fmt.Errorf("demo: %s was not written: %w", f, err)
		}
		fmt.Fprintf(d.env.Out, "  ┌─ %s\n%s  └─\n", f, indent(string(data), "  │ "))
	}
	return nil
}

// run executes one devlearn command in-process, inside the demo's
// repository, at the demo's simulated time and with its private home.
func (d *demoRun) run(at time.Time, args []string, stdin string, out io.Writer) error {
	vars := map[string]string{
		"DEVLEARN_NOW":  at.Format(time.RFC3339),
		"DEVLEARN_HOME": d.home,
		"HOME":          d.home,
	}
	sub := &Env{hookcmd.Env{
		In: strings.NewReader(stdin), Out: out, Err: out,
		Getenv: func(k string) string {
			if v, ok := vars[k]; ok {
				return v
			}
			return d.env.Getenv(k)
		},
		Dir:   d.repo,
		Clock: d.env.Clock,
	}}
	root := NewRoot(sub)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		return fmt.Errorf("demo step 'devlearn %s': %w", strings.Join(args, " "), err)
	}
	return nil
}

// showMoves prints how each observation's confidence and status moved
// since the previous day, and what still keeps it from being ready.
func (d *demoRun) showMoves(at time.Time) error {
	var buf bytes.Buffer
	if err := d.run(at, []string{"learn", "--list", "--json"}, "", &buf); err != nil {
		return err
	}
	var list struct{ Observations []observe.Observation }
	if err := json.Unmarshal(buf.Bytes(), &list); err != nil {
		return err
	}
	t := newTable(d.env.Out)
	t.row("what moved today:")
	now := map[string]observe.Observation{}
	moved := 0
	for _, o := range list.Observations {
		now[o.ID] = o
		p, seen := d.prev[o.ID]
		if seen && p.Confidence == o.Confidence && p.Status == o.Status && p.Count == o.Count {
			continue
		}
		moved++
		conf, status := fmt.Sprintf("%.2f", o.Confidence), o.Status
		if seen && p.Confidence != o.Confidence {
			conf = fmt.Sprintf("%.2f → %.2f", p.Confidence, o.Confidence)
		}
		if seen && p.Status != o.Status {
			status = p.Status + " → " + o.Status
		}
		why := "ready: thresholds met"
		switch o.Status {
		case observe.Observing:
			why = "not yet: " + strings.Join(o.Why, ", ")
		case observe.Created:
			why = "now an artifact: " + o.Artifact
			if o.Anchor != "" {
				why += " " + o.Anchor
			}
		case observe.Deprecated:
			why = "deprecated: " + o.DeprecatedReason
		}
		count := fmt.Sprintf("seen %d×", o.Count)
		t.row("    "+o.Type, ellipsis(o.Pattern, 44), count, conf, status, why)
	}
	if moved == 0 {
		t.row("    nothing: the state is the same as before")
	}
	d.prev = now
	return t.flush()
}

func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
