package cli

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
)

// Env is everything a command takes from the world outside it: streams,
// environment, working folder and clock. Commands never touch os.* for these,
// so tests and the demo can run them in-process with exact inputs.
type Env struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// Environ is the whole environment, for the commands devlearn starts
	// (the LLM extractor); nil starts them with an empty one.
	Environ func() []string
	Dir     string
	// Clock is the real clock; Now() applies DEVLEARN_NOW over it.
	Clock func() time.Time
	// OutTTY reports whether Out is a terminal (colour, progress, prompts).
	OutTTY bool
}

// SystemEnv is the Env of a real process.
func SystemEnv() *Env {
	dir, _ := os.Getwd()
	return &Env{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		Getenv:  os.Getenv,
		Environ: os.Environ,
		Dir:     dir,
		Clock:   time.Now,
		OutTTY:  isTerminal(os.Stdout),
	}
}

// isTerminal asks the terminal driver: /dev/null and other character
// devices are not terminals, and taking them for one left a script that
// silenced devlearn waiting for an answer that never came.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Now is the current time: DEVLEARN_NOW (RFC 3339) when set, so that many
// days of history can be replayed in tests, benchmarks and the demo.
func (e *Env) Now() (time.Time, error) { return hookcmd.Now(e.Getenv, e.Clock) }

// Home is the global devlearn folder: $DEVLEARN_HOME, else ~/.devlearn.
func (e *Env) Home() string { return hookcmd.Home(e.Getenv) }

// Project finds the project around the working folder.
func (e *Env) Project() (*project.Project, error) {
	return hookcmd.FindProject(e.Dir)
}

// Config loads the configuration of p (global, then project).
func (e *Env) Config(p *project.Project) (*config.Loaded, error) {
	root := ""
	if p != nil {
		root = p.Root
	}
	return hookcmd.LoadConfig(e.Getenv, root)
}

// printJSON writes v as indented JSON, the shape every --json flag prints.
func printJSON(w io.Writer, v any) error { return hookcmd.PrintJSON(w, v) }

// plural returns "1 observation" or "3 observations"; the short name
// keeps the many messages that count things readable.
func plural(n int, one, many string) string { return knowledge.Plural(n, one, many) }
