package cli

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/knowledge"
)

// Env is the one environment of every command (hookcmd.Env), with the
// command tree's own helpers on it.
type Env struct {
	hookcmd.Env
}

// SystemEnv is the Env of a real process: devlearn-hook's, with the
// terminal asked properly (devlearn prompts; a hook never does) and
// devlearn itself as the binary the worker runs.
func SystemEnv() *Env {
	h := hookcmd.SystemEnv()
	h.OutTTY = isTerminal(os.Stdout)
	h.Devlearn = os.Executable
	return &Env{*h}
}

// isTerminal asks the terminal driver: /dev/null and other character
// devices are not terminals, and taking them for one left a script that
// silenced devlearn waiting for an answer that never came.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// printJSON writes v as indented JSON, the shape every --json flag prints.
func printJSON(w io.Writer, v any) error { return hookcmd.PrintJSON(w, v) }

// plural returns "1 observation" or "3 observations"; the short name
// keeps the many messages that count things readable.
func plural(n int, one, many string) string { return knowledge.Plural(n, one, many) }
