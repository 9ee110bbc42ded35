package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/hookcmd"
)

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
  post-tool-use-failure
                       after a Bash call failed, serves the failures learned
                       before that ran its program and printed the same
                       error, with what made them pass (each once per
                       session)
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
				return runAgentHook(c.Context(), env, a, args[1])
			}
			return runHook(c.Context(), env, args[0])
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
func runHook(ctx context.Context, env *Env, event string) error {
	hookcmd.Hook(env.hookCmd(ctx), event)
	return nil
}

// runAgentHook serves another agent's hook through its adapter.
func runAgentHook(ctx context.Context, env *Env, a *agent.Agent, event string) error {
	hookcmd.AgentHook(env.hookCmd(ctx), a, event)
	return nil
}

// hookCmd is env as the commands shared with devlearn-hook take it.
func (e *Env) hookCmd(ctx context.Context) *hookcmd.Env {
	h := e.Env
	h.Ctx = ctx
	if h.Devlearn == nil {
		h.Devlearn = os.Executable
	}
	return &h
}
