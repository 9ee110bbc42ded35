// Command devlearn makes AI coding agents learn from their own sessions.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/devlearn/devlearn/internal/cli"
	"github.com/devlearn/devlearn/internal/exitcode"
)

func main() { os.Exit(run()) }

// run executes the command line and turns its outcome into the exit code of
// contract 1; this is the only place where that happens.
func run() int {
	env := cli.SystemEnv()
	err := cli.NewRoot(env).Execute()
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
