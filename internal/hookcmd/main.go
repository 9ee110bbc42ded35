package hookcmd

import (
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
nothing else, so that a tool call pays only for what it uses:

  devlearn-hook EVENT               the same as 'devlearn hook EVENT' (events: %s)
  devlearn-hook AGENT EVENT         the same as 'devlearn hook AGENT EVENT' for
                                    codex, gemini, cursor or copilot
  devlearn-hook hud [--stdin] [--json]
                                    the same as 'devlearn hud'

'devlearn init' registers it in .claude/settings.json, falling back to
'devlearn hook EVENT' where only devlearn is installed. Run 'devlearn hook
--help' and 'devlearn hud --help' for what each does.
`

// Main runs devlearn-hook with its arguments (the program's name left
// out) and returns the exit code (contract 1).
func Main(env *Env, args []string) int {
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:] // `devlearn-hook hook EVENT` reads as devlearn's
	}
	if len(args) == 0 {
		fmt.Fprintf(env.Err, usage, strings.Join(hook.Events(), ", "))
		return exitcode.Usage
	}
	// Help is looked for after the event too, as 'devlearn hook' does:
	// `devlearn-hook session-end --help` prints it, and reads no input.
	if args[0] != "hud" && slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" || a == "help" }) {
		fmt.Fprintf(env.Out, usage, strings.Join(hook.Events(), ", "))
		return exitcode.OK
	}
	switch args[0] {
	case "--version", "version":
		fmt.Fprintf(env.Out, "devlearn-hook %s\n", Version())
		return exitcode.OK
	case "hud":
		return hudMain(env, args[1:])
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
	// As devlearn runs every other command: collecting four times less
	// often than Go's default, under a memory limit.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(1 << 30)
	var opts HudOptions
	fs := flag.NewFlagSet("devlearn-hook hud", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&opts.Stdin, "stdin", false, "read Claude Code's status line JSON on stdin for the session's folder")
	fs.BoolVar(&opts.JSON, "json", false, "print the counts as JSON")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(env.Out, "Usage: devlearn-hook hud [--stdin] [--json]\n\nThe same as 'devlearn hud' (see 'devlearn hud --help').\n")
		return exitcode.OK
	case err != nil:
		fmt.Fprintf(env.Err, "devlearn-hook: %v\nRun 'devlearn-hook hud --help' for usage.\n", err)
		return exitcode.Usage
	case fs.NArg() > 0:
		fmt.Fprintf(env.Err, "devlearn-hook: hud takes no arguments (got %q)\n", strings.Join(fs.Args(), " "))
		return exitcode.Usage
	}
	if err := Hud(env, opts); err != nil {
		fmt.Fprintf(env.Err, "devlearn-hook: %v\n", err)
		if hint := exitcode.HintOf(err); hint != "" {
			fmt.Fprintf(env.Err, "hint: %s\n", hint)
		}
		return exitcode.Of(err)
	}
	return exitcode.OK
}
