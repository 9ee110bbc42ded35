// Package gate runs quality gates (ClawFlow's validation gates, docs/gates.md): shell commands a person
// configured, at a stage's start or end, or when a Claude Code agent
// stops. Only config a person wrote names them (the global config, or a
// project config trusted with 'devlearn trust'); nothing learned is ever
// run. Each gate runs in its own process group, killed whole at its
// timeout; its output is bounded and redacted before anyone keeps it.
package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/proc"
)

// DefaultTimeout is a gate's timeout when the config gives none (0).
const DefaultTimeout = 60 * time.Second

// How much of a gate's output is kept: its first lines say what ran, its
// last ones what failed. The rest is counted, never stored.
const (
	OutputHead = 4 << 10
	OutputTail = 12 << 10
)

// Options is where and how gates run.
type Options struct {
	// Project is the project's root ({{project_path}}); Worktree the
	// task's working tree ({{worktree}}, and the default folder).
	Project, Worktree string
	// Env is the environment the gates start from (the person's); the
	// placeholders' variables and DEVLEARN_INTERNAL=1 are added.
	Env []string
	// Budget bounds all the gates together (the Stop hook's share of its
	// timeout); 0 means no bound beyond each gate's own timeout.
	Budget time.Duration
	// Redact scrubs secrets from the output before it is kept; nil keeps
	// it as it is.
	Redact func(string) string
	// Run runs one command; nil is proc.Run. Tests inject it.
	Run func(context.Context, proc.Spec) (*proc.Result, error)
	// Now is the clock the budget is measured with; nil is time.Now.
	Now func() time.Time
}

// Result is how one gate went.
type Result struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	Dir      string `json:"dir"`
	Required bool   `json:"required"`
	OK       bool   `json:"ok"`
	// ExitCode is the command's status; -1 when it was killed or never
	// started.
	ExitCode   int   `json:"exit_code"`
	TimedOut   bool  `json:"timed_out,omitempty"`
	TimeoutMS  int64 `json:"timeout_ms"`
	DurationMS int64 `json:"duration_ms"`
	// Problem says why a gate did not run to its end on its own: it
	// could not start, its folder is missing, it timed out, the budget
	// was spent.
	Problem string `json:"problem,omitempty"`
	// Output is the gate's stdout and stderr, interleaved, bounded (head
	// and tail) and redacted; OutputBytes is how much it printed.
	Output      string `json:"output"`
	OutputBytes int64  `json:"output_bytes"`
}

// Why is one line saying how a failed gate failed.
func (r *Result) Why() string {
	switch {
	case r.OK:
		return "passed"
	case r.Problem != "":
		return r.Problem
	default:
		return fmt.Sprintf("exit %d", r.ExitCode)
	}
}

// Report is what a run of gates gave.
type Report struct {
	Results []Result `json:"results"`
}

// Failed lists the required gates that failed: each blocks.
func (r *Report) Failed() []Result { return r.pick(true) }

// Warnings lists the optional gates that failed.
func (r *Report) Warnings() []Result { return r.pick(false) }

func (r *Report) pick(required bool) []Result {
	var out []Result
	for _, g := range r.Results {
		if !g.OK && g.Required == required {
			out = append(out, g)
		}
	}
	return out
}

// Blocked reports whether a required gate failed.
func (r *Report) Blocked() bool { return len(r.Failed()) > 0 }

// Run runs the gates one after the other, in the order the config lists
// them, every one of them (so the agent hears of every failure at once),
// each within its own timeout and what is left of the budget.
func Run(ctx context.Context, gates []config.Gate, o Options) *Report {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	run := o.Run
	if run == nil {
		run = proc.Run
	}
	var deadline time.Time
	if o.Budget > 0 {
		deadline = now().Add(o.Budget)
	}
	rep := &Report{Results: []Result{}}
	for _, g := range gates {
		timeout := time.Duration(g.Timeout) * time.Millisecond
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		res := Result{Name: g.Name, Command: g.Command, Required: g.Required, ExitCode: -1, TimeoutMS: timeout.Milliseconds()}
		cut := false
		if !deadline.IsZero() {
			left := deadline.Sub(now())
			if left <= 0 {
				res.Problem = fmt.Sprintf("not run: the %s budget of the gates was spent by the ones before it (give them shorter timeouts)", o.Budget)
				rep.Results = append(rep.Results, res)
				continue
			}
			if left < timeout {
				timeout, cut = left, true
			}
		}
		dir, err := o.dir(g.Cwd)
		res.Dir = dir
		if err != nil {
			res.Problem = err.Error()
			rep.Results = append(rep.Results, res)
			continue
		}
		out := &proc.HeadTail{Head: OutputHead, TailMax: OutputTail}
		gctx, cancel := context.WithTimeout(ctx, timeout)
		pr, err := run(gctx, proc.Spec{
			Argv:   []string{"/bin/sh", "-c", ExpandCommand(g.Command)},
			Env:    o.env(),
			Dir:    dir,
			Stdout: out,
			Stderr: out,
		})
		cancel()
		if err != nil {
			res.Problem = "could not start: " + err.Error()
			rep.Results = append(rep.Results, res)
			continue
		}
		res.DurationMS = pr.Duration.Milliseconds()
		res.ExitCode = pr.ExitCode
		res.OK = pr.OK()
		switch {
		case pr.TimedOut && cut:
			res.TimedOut = true
			res.Problem = fmt.Sprintf("killed after %s, when the %s budget of the gates ran out", timeout.Round(time.Millisecond), o.Budget)
		case pr.TimedOut:
			res.TimedOut = true
			res.Problem = fmt.Sprintf("killed after its timeout of %d ms, with its whole process group", timeout.Milliseconds())
		case pr.Cancelled:
			res.Problem = "stopped: " + ctx.Err().Error()
		}
		res.OutputBytes = out.Total()
		// A program's output is bytes: what is not UTF-8 (a Latin-1 name,
		// a binary's bytes) is kept as U+FFFD, or the stores refuse the text
		// and the gate's failure goes unrecorded.
		res.Output = strings.ToValidUTF8(out.String(), "\uFFFD")
		if o.Redact != nil {
			res.Output = o.Redact(res.Output)
		}
		rep.Results = append(rep.Results, res)
	}
	return rep
}

// dir is the folder a gate runs in: its cwd with the placeholders filled
// in, relative to the worktree, or the worktree itself.
func (o Options) dir(cwd string) (string, error) {
	base := o.Worktree
	if base == "" {
		base = o.Project
	}
	d := base
	if cwd != "" {
		d = ExpandPath(cwd, o.Project, base)
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
	}
	fi, err := os.Stat(d)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return d, fmt.Errorf("not run: its folder %s does not exist (check the gate's cwd)", d)
	case err != nil:
		return d, fmt.Errorf("not run: %v", err)
	case !fi.IsDir():
		return d, fmt.Errorf("not run: its cwd %s is not a folder", d)
	}
	return d, nil
}

func (o Options) env() []string {
	worktree := o.Worktree
	if worktree == "" {
		worktree = o.Project
	}
	env := make([]string, 0, len(o.Env)+3)
	for _, kv := range o.Env {
		name, _, _ := strings.Cut(kv, "=")
		if name == ProjectEnv || name == WorktreeEnv || name == "DEVLEARN_INTERNAL" {
			continue
		}
		env = append(env, kv)
	}
	// DEVLEARN_INTERNAL: a gate that starts an agent session must not
	// feed that session's hooks back into devlearn.
	return append(env, ProjectEnv+"="+o.Project, WorktreeEnv+"="+worktree, "DEVLEARN_INTERNAL=1")
}
