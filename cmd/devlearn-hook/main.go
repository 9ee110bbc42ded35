// Command devlearn-hook serves Claude Code's hooks and status line for
// devlearn: `devlearn-hook EVENT` is `devlearn hook EVENT`, and
// `devlearn-hook hud`, `render-ready` and `reconcile` are devlearn's, in a
// binary that links only what they use.
//
// Every tool call of every session starts a hook process, and Go runs the
// initialisation of every package a binary links before main. devlearn
// links a terminal UI, a clipboard, go-git's transports and their crypto
// for its other commands; their initialisation and the pages of a 26 MB
// binary made each hook start several times slower than a Go program
// that does nothing. This entry point links internal/hookcmd alone, which
// a test keeps free of those packages (see import_test.go).
package main

import (
	"os"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

func main() { os.Exit(hookcmd.Main(hookcmd.SystemEnv(), os.Args[1:])) }
