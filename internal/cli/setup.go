package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/install"
)

// step is one thing init, uninstall or learn --enable/--disable did (or,
// in a dry run, would do) to one file.
type step = install.Step

// table is a tabwriter whose lines lose the padding an empty last column
// leaves.
type table struct {
	out io.Writer
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func newTable(out io.Writer) *table {
	t := &table{out: out}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 4, 2, ' ', 0)
	return t
}

func (t *table) row(cells ...string) { fmt.Fprintln(t.tw, strings.Join(cells, "\t")) }

func (t *table) flush() error {
	t.tw.Flush()
	for _, line := range strings.SplitAfter(t.buf.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(t.out, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	t.buf.Reset()
	return nil
}

func printSteps(w io.Writer, steps []step, dry bool) {
	t := newTable(w)
	for _, s := range steps {
		action := s.Action
		if dry {
			switch action {
			case "created", "updated", "removed":
				action = "would be " + action
			}
		}
		t.row("  "+action, s.Path, s.Note)
	}
	t.flush()
}

// userSettingsPath is Claude Code's settings file for this person:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func (e *Env) userSettingsPath() (string, error) {
	if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json"), nil
	}
	if h := e.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude", "settings.json"), nil
	}
	return "", errors.New("neither $CLAUDE_CONFIG_DIR nor $HOME is set: cannot find Claude Code's user settings")
}

// colour wraps s in an ANSI colour when the output is a terminal that
// wants colour: never in a pipe or a file, never with NO_COLOR set
// (no-color.org) or TERM=dumb.
func (e *Env) colour(code, s string) string { return hookcmd.Colour(e.OutTTY, e.Getenv, code, s) }

const (
	red    = "31"
	green  = "32"
	yellow = "33"
)
