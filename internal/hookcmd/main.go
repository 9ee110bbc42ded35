package hookcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/interrupt"
)

// version is set by the Makefile through -ldflags; a plain `go build` falls
// back to the module version recorded in the binary.
var version = ""

// Version reports the version of this build, the same for both binaries.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// SystemEnv is the Env of a devlearn-hook process.
func SystemEnv() *Env {
	dir, _ := os.Getwd()
	fi, err := os.Stdout.Stat()
	return &Env{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		Getenv:   os.Getenv,
		Environ:  os.Environ,
		Dir:      dir,
		Clock:    time.Now,
		OutTTY:   err == nil && fi.Mode()&os.ModeCharDevice != 0,
		Devlearn: SiblingDevlearn,
	}
}

const usage = `devlearn-hook serves Claude Code's hooks and status line for devlearn, and
the two commands hooks run (render-ready, reconcile), and nothing else, so
that a tool call pays only for what it uses:

  devlearn-hook EVENT               the same as 'devlearn hook EVENT' (events: %s)
  devlearn-hook AGENT EVENT         the same as 'devlearn hook AGENT EVENT' for
                                    codex, gemini, cursor or copilot
  devlearn-hook hud [--stdin] [--json]
                                    the same as 'devlearn hud'
  devlearn-hook render-ready [--json] [--dry-run] [--session ID]
  devlearn-hook reconcile [--json] [--dry-run]
                                    the same as 'devlearn render-ready' and
                                    'devlearn reconcile', for a hook that
                                    renders at session end or reconciles at
                                    session start (as devflow's hooks do)

'devlearn init' registers it in .claude/settings.json, falling back to
'devlearn hook EVENT' where only devlearn is installed. Run 'devlearn hook
--help' and 'devlearn hud --help' for what each does.
`

// ownFlags are the commands that read their own flags, --help included.
var ownFlags = []string{"hud", "render-ready", "reconcile"}

// Main runs devlearn-hook with its arguments (the program's name left
// out) and returns the exit code (the exit codes rule, docs/architecture.md). SIGINT or SIGTERM (the
// agent giving up on the hook) cancels env.Ctx, so the stop gates end
// with the hook; the code is then the signal's (130, 143), as for
// devlearn. The calls of every turn and tool call start no command and
// keep the signals' default effect (see startsNothing).
func Main(env *Env, args []string) int {
	if startsNothing(args) {
		return dispatch(env, args)
	}
	return interrupt.Main(env.Context(), env.Err, func(ctx context.Context) int {
		e := *env
		e.Ctx = ctx
		return dispatch(&e, args)
	})
}

// startsNothing reports whether args are a call made on every prompt,
// every tool call or every refresh of the status line. None of them starts
// a command that could outlive it, so a signal has nothing to end but the
// process, which its default effect does at once; and catching it (a
// goroutine for the signals, one for the watch) cost a third of such a
// call's CPU time, in threads woken and pages touched. What they write is
// an appended line under a lock or a file renamed into place, which an end
// at any instant leaves whole.
func startsNothing(args []string) bool {
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	if len(args) > 1 {
		if _, ok := agent.Lookup(args[0]); ok {
			args = args[1:] // `devlearn-hook codex pre-tool-use`
		}
	}
	if len(args) == 0 || slices.ContainsFunc(args, isHelp) {
		return false
	}
	switch args[0] {
	case hook.UserPromptSubmit, hook.PreToolUse, hook.PostToolUse, hook.PostToolUseFailure, "hud":
		return true
	}
	return false
}

// isHelp reports an argument that asks for help.
func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "help" }

func dispatch(env *Env, args []string) int {
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:] // `devlearn-hook hook EVENT` reads as devlearn's
	}
	if len(args) == 0 {
		fmt.Fprintf(env.Err, usage, strings.Join(hook.Events(), ", "))
		return exitcode.Usage
	}
	// Help is looked for after the event too, as 'devlearn hook' does:
	// `devlearn-hook session-end --help` prints it, and reads no input.
	if !slices.Contains(ownFlags, args[0]) && slices.ContainsFunc(args, isHelp) {
		fmt.Fprintf(env.Out, usage, strings.Join(hook.Events(), ", "))
		return exitcode.OK
	}
	switch args[0] {
	case "--version", "version":
		fmt.Fprintf(env.Out, "devlearn-hook %s\n", Version())
		return exitcode.OK
	case "hud":
		return hudMain(env, args[1:])
	case "render-ready":
		return renderMain(env, args[1:])
	case "reconcile":
		return reconcileMain(env, args[1:])
	}
	if a, ok := agent.Lookup(args[0]); ok {
		// Another agent: `devlearn-hook codex pre-tool-use`.
		if len(args) < 2 {
			fmt.Fprintf(env.Err, "devlearn: hook %s needs an event (%s); nothing done\n", a.Name, strings.Join(a.Events(), ", "))
			return exitcode.OK
		}
		AgentHook(env, a, args[1])
		return exitcode.OK
	}
	// Whatever follows the event is ignored, as 'devlearn hook' does.
	Hook(env, args[0])
	return exitcode.OK
}

func hudMain(env *Env, args []string) int {
	var opts HudOptions
	return command(env, "hud", "[--stdin] [--json]", args, opts.Define, func() error { return Hud(env, opts) })
}

func renderMain(env *Env, args []string) int {
	var opts RenderOptions
	return command(env, "render-ready", "[--json] [--dry-run] [--session ID]", args, opts.Define, func() error { return RenderReady(env, opts) })
}

func reconcileMain(env *Env, args []string) int {
	var opts ReconcileOptions
	return command(env, "reconcile", "[--json] [--dry-run]", args, opts.Define, func() error { return Reconcile(env, opts) })
}

// command runs one of devlearn's commands that devlearn-hook serves too:
// its flags parsed as devlearn parses them, its errors, hints and exit
// codes as devlearn reports them (the exit codes rule, docs/architecture.md).
func command(env *Env, name, synopsis string, args []string, define func(FlagSet), run func() error) int {
	// As devlearn runs every command: collecting four times less often
	// than Go's default, under a memory limit.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(1 << 30)
	fs := flag.NewFlagSet("devlearn-hook "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	define(fs)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(env.Out, "Usage: devlearn-hook %s %s\n\nThe same as 'devlearn %s' (see 'devlearn %s --help').\n", name, synopsis, name, name)
		return exitcode.OK
	case err != nil:
		fmt.Fprintf(env.Err, "devlearn-hook: %v\nRun 'devlearn-hook %s --help' for usage.\n", err, name)
		return exitcode.Usage
	case fs.NArg() > 0:
		fmt.Fprintf(env.Err, "devlearn-hook: %s takes no arguments (got %q)\n", name, strings.Join(fs.Args(), " "))
		return exitcode.Usage
	}
	if err := run(); err != nil {
		fmt.Fprintf(env.Err, "devlearn-hook: %v\n", err)
		if hint := exitcode.HintOf(err); hint != "" {
			fmt.Fprintf(env.Err, "hint: %s\n", hint)
		}
		return exitcode.Of(err)
	}
	return exitcode.OK
}
