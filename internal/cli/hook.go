package cli

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/settings"
)

// hookTimeout bounds a hook's own work (reconcile, at session start),
// below the 10 seconds devlearn registers session start with.
const hookTimeout = 8 * time.Second

// hookMemoryLimit is where a hook's garbage collector, off otherwise,
// starts.
const hookMemoryLimit = 256 << 20

func newHookCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "hook EVENT",
		Short: "Serve a Claude Code hook event: JSON on stdin, JSON out",
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
                       message as candidate entries; runs the stop gates (a
                       required failure blocks the stop with its output, see
                       'devlearn gate --help'); then blocks once while a
                       CHECKLIST.md of an area the session changed waits for
                       'devlearn directives check', and names new directive
                       files in the nearest AGENTS.md
  session-end          spools the session and, when worker.batch_size sessions
                       wait and worker.daily_cap allows, starts 'devlearn
                       worker' detached to ingest them

A hook always exits 0 and prints nothing on error: the error goes to the
worker log, <git-common-dir>/devlearn/logs/hooks.log. DEVLEARN_DISABLE=1,
DEVLEARN_INTERNAL=1 or "enabled": false silence every hook; "serve":
{"enabled": false} stops injection only. DEVLEARN_WORKER=wait makes
session-end wait for the worker it starts, DEVLEARN_WORKER=off starts none.`,
		GroupID:            "setup",
		Args:               cobra.ArbitraryArgs,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
				return c.Help()
			}
			return runHook(env, args[0])
		},
	}
}

// runHook never returns an error: a hook's failure must not reach the
// agent (an exit code of 2 would even block the tool call).
func runHook(env *Env, event string) error {
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
	hook.Run(ctx, event, hookEnv(env), env.In, env.Out)
	return nil
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
		Redact:      redact.Text,
		Reconcile:   reconcileQuietly,
		StartWorker: func(p *project.Project) error { return startWorker(env, p) },
		Task:        env.Getenv("DEVLEARN_TASK"),
		Environ:     env.environ(),
	}
}
