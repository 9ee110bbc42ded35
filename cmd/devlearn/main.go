// Command devlearn makes AI coding agents learn from their own sessions.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/devlearn/devlearn/internal/cli"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/interrupt"
)

func main() { os.Exit(run()) }

// run executes the command line and turns its outcome into the exit code
// (the exit codes rule, docs/architecture.md); this is the only place where that happens (a signal's own
// code, 130 or 143, comes from interrupt.Main).
func run() int {
	// devlearn runs for milliseconds to seconds and folds logs into many
	// small objects: collecting four times less often saves a third of a
	// fold, and the memory limit still starts a collection long before a
	// big log could hurt. (Hooks turn collection off for themselves.)
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(1 << 30)
	env := cli.SystemEnv()
	// One root context for every command, cancelled at SIGINT or SIGTERM:
	// the commands pass it to what they start, which ends with them.
	return interrupt.Main(context.Background(), env.Err, func(ctx context.Context) int {
		return execute(ctx, env)
	})
}

func execute(ctx context.Context, env *cli.Env) int {
	err := cli.NewRoot(env).ExecuteContext(ctx)
	if ctx.Err() != nil {
		// Stopped by a signal: interrupt.Main says so, with its code,
		// instead of the error the cut-short command returned.
		return exitcode.Error
	}
	if err == nil {
		return exitcode.OK
	}
	var silent exitcode.Silent
	if !errors.As(err, &silent) {
		fmt.Fprintf(env.Err, "devlearn: %v\n", err)
		if hint := exitcode.HintOf(err); hint != "" {
			fmt.Fprintf(env.Err, "hint: %s\n", hint)
		}
	}
	return exitcode.Of(err)
}
