package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/settings"
)

// hookTimeout bounds a hook's own work (reconcile, at session start),
// below the 10 seconds devlearn registers session start with.
const hookTimeout = 8 * time.Second

// hookStdinBudget bounds the wait for the hook's input: Claude Code writes
// it at once, so a writer that sends no complete object within this and
// never closes stdin is not coming; the hook gives up, logs why and exits
// 0, well within the shortest timeout devlearn registers a hook with (5 s).
const hookStdinBudget = 3 * time.Second

// hookMemoryLimit is where a hook's garbage collector, off otherwise,
// starts.
const hookMemoryLimit = 256 << 20

func newHookCmd(env *Env) *cobra.Command {
	var cmd *cobra.Command
	cmd = &cobra.Command{
		Use:   "hook [AGENT] EVENT",
		Short: "Serve an agent's hook event: JSON on stdin, JSON out",
		Long: `Serve a Claude Code hook event. Claude Code runs these; they read the hook
JSON on stdin and print the one output shape Claude Code honours, or nothing:

  session-start        the knowledge index, CRITICAL entries in full, and the
                       number of candidate entries waiting for review
  user-prompt-submit   records the prompt (redacted) for keyword matching and
                       serves entries whose keywords it mentions
  pre-tool-use         serves the entries relevant to the tool call (at most
                       serve.max_items, each once per session and file)
  post-tool-use        gives the .directives/ files in force above the file a
                       read or an edit named that the session has not seen
                       (core types in full, others by name), each once
  stop                 saves the [PROCESS_KNOWLEDGE] blocks of the agent's last
                       message as draft entries (served at once, below active
                       ones, until a person promotes or archives them); runs
                       the stop gates (a required failure blocks the stop with
                       its output, see 'devlearn gate --help'); then blocks
                       once while a CHECKLIST.md of an area the session
                       changed waits for 'devlearn directives check', and
                       names new directive files in the nearest AGENTS.md
  session-end          spools the session and, when worker.batch_size sessions
                       wait and worker.daily_cap allows, starts 'devlearn
                       worker' detached to ingest them

Other agents name themselves first: devlearn hook codex|gemini|cursor|copilot
EVENT, with the same event names. Each agent's input is read as devlearn's
one request and the answer printed in the shape that agent honours, or
nothing where it honours none (see docs/agents.md; 'devlearn init --agent'
registers them).

A hook always exits 0 and prints nothing on error: the error goes to the
worker log, <git-common-dir>/devlearn/logs/hooks.log. DEVLEARN_DISABLE=1,
DEVLEARN_INTERNAL=1 or "enabled": false silence every hook; "serve":
{"enabled": false} or DISABLE_EXPERIENCE_INJECTION=1 stops injection only.
A call slower than 100 ms (DEVLEARN_SLOW_HOOK_MS) says so in the log and on
stderr. DEVLEARN_WORKER=wait makes
session-end wait for the worker it starts, DEVLEARN_WORKER=off starts none.`,
		GroupID:            "setup",
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			// Flags are not parsed (a hook never fails on them), so help is
			// looked for by hand: `hook session-end --help` must print it,
			// not wait for hook input.
			for _, a := range args {
				if a == "--help" || a == "-h" || a == "help" {
					return c.Help()
				}
			}
			if len(args) == 0 {
				return c.Help()
			}
			if a, ok := agent.Lookup(args[0]); ok {
				if len(args) < 2 {
					fmt.Fprintf(env.Err, "devlearn: hook %s needs an event (%s); nothing done\n", a.Name, strings.Join(a.Events(), ", "))
					return nil
				}
				return runAgentHook(env, a, args[1])
			}
			return runHook(env, args[0])
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return hook.Events(), cobra.ShellCompDirectiveNoFileComp
		},
	}
	return cmd
}

// runHook never returns an error: a hook's failure must not reach the
// agent (an exit code of 2 would even block the tool call).
func runHook(env *Env, event string) error { return serveHook(env, event, hookEnv(env)) }

// runAgentHook serves another agent's hook through its adapter. An event
// devlearn does not register for that agent does nothing: the agent
// could not show what would be served.
func runAgentHook(env *Env, a *agent.Agent, event string) error {
	if !a.Serves(event) {
		fmt.Fprintf(env.Err, "devlearn: %s has no %q hook here (served: %s); nothing done\n", a.Title, event, strings.Join(a.Events(), ", "))
		return nil
	}
	he := hookEnv(env)
	he.Codec = a.For(env.Getenv)
	return serveHook(env, event, he)
}

func serveHook(env *Env, event string, he hook.Env) error {
	known := false
	for _, e := range hook.Events() {
		known = known || e == event
	}
	if !known {
		// Said on stderr for a person trying it by hand; exit 0 all the same.
		fmt.Fprintf(env.Err, "devlearn: no hook %q here (served: %s); nothing done\n", event, strings.Join(hook.Events(), ", "))
		return nil
	}
	// A hook is a process of a few milliseconds that allocates a few
	// megabytes at most: collecting garbage would cost more than it frees.
	// The memory limit still starts a collection should a hook run away.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(hookMemoryLimit))
	timeout := hookTimeout
	if event == hook.Stop {
		// The stop gates' budget, and the rest of the hook, within the
		// timeout registered for Stop.
		timeout = time.Duration(settings.StopTimeout)*time.Second - 5*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	hook.Run(ctx, event, he, &deadlineReader{r: env.In, budget: hookStdinBudget}, env.Out)
	return nil
}

// slowAfter reads DEVLEARN_SLOW_HOOK_MS, the milliseconds a hook call may
// take before it warns (default hook.SlowHook).
func slowAfter(v string) time.Duration {
	ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || ms < 0 {
		return 0
	}
	if ms == 0 {
		return time.Nanosecond // every call: for seeing the warning
	}
	return time.Duration(ms * float64(time.Millisecond))
}

func hookEnv(env *Env) hook.Env {
	on := func(k string) bool {
		v := strings.ToLower(strings.TrimSpace(env.Getenv(k)))
		return v != "" && v != "0" && v != "false"
	}
	return hook.Env{
		Dir:  env.Dir,
		Home: env.Home(),
		Now: func() time.Time {
			if t, err := env.Now(); err == nil {
				return t
			}
			return env.Clock().UTC()
		},
		Silenced:    on("DEVLEARN_INTERNAL") || on("DEVLEARN_DISABLE"),
		NoInjection: on("DISABLE_EXPERIENCE_INJECTION"),
		Stderr:      env.Err,
		SlowAfter:   slowAfter(env.Getenv("DEVLEARN_SLOW_HOOK_MS")),
		Redact:      redact.Text,
		Reconcile:   reconcileQuietly,
		StartWorker: func(p *project.Project) error { return startWorker(env, p) },
		Task:        env.Getenv("DEVLEARN_TASK"),
		Environ:     env.environ(),
	}
}

// deadlineReader gives up reading when the budget since the first Read has
// passed without the input's end: a pipe whose writer never closes it (and
// never completes the object) would otherwise hold the hook for ever. The
// read it gave up on is left to the process's exit.
type deadlineReader struct {
	r       io.Reader
	budget  time.Duration
	expires time.Time
	pending chan readResult
	rest    []byte
	err     error
}

type readResult struct {
	data []byte
	err  error
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if len(d.rest) > 0 {
		n := copy(p, d.rest)
		d.rest = d.rest[n:]
		return n, nil
	}
	if d.err != nil {
		return 0, d.err
	}
	if d.expires.IsZero() {
		d.expires = time.Now().Add(d.budget)
	}
	if d.pending == nil {
		ch := make(chan readResult, 1)
		buf := make([]byte, len(p))
		go func() {
			n, err := d.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		d.pending = ch
	}
	t := time.NewTimer(time.Until(d.expires))
	defer t.Stop()
	select {
	case res := <-d.pending:
		d.pending = nil
		n := copy(p, res.data)
		d.rest = res.data[n:]
		if len(d.rest) > 0 {
			d.err = res.err // after what is left
			return n, nil
		}
		return n, res.err
	case <-t.C:
		return 0, fmt.Errorf("no complete hook input on stdin within %s, and stdin was not closed: gave up (Claude Code writes the whole object at once)", d.budget)
	}
}
