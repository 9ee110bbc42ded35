package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/charmbracelet/huh"

	"github.com/devlearn/devlearn/internal/exitcode"
)

// interactive reports whether the command talks to a person at a terminal:
// both its input and its output are terminals. Scripts and pipes get the
// flag-driven behaviour, never a prompt.
func (e *Env) interactive() bool {
	f, ok := e.In.(*os.File)
	return ok && isTerminal(f) && e.OutTTY
}

// form runs a huh form on the command's own streams.
func (e *Env) form(groups ...*huh.Group) error {
	f := huh.NewForm(groups...).WithInput(e.In).WithOutput(e.Out).WithShowHelp(true)
	if e.Getenv("ACCESSIBLE") != "" {
		f = f.WithAccessible(true)
	}
	err := f.Run()
	if errors.Is(err, huh.ErrUserAborted) {
		return errAborted
	}
	return err
}

var errAborted = exitcode.Silent{Code: exitcode.Error}

// confirm asks a yes/no question on a terminal; elsewhere it refuses and
// says which flag does it without asking.
func (e *Env) confirm(question, flag string) (bool, error) {
	if !e.interactive() {
		return false, exitcode.Usagef("not done: this asks first (%q), and there is no terminal to ask on; run it on a terminal, or add %s", question, flag)
	}
	ok := false
	err := e.form(huh.NewGroup(huh.NewConfirm().Title(question).Affirmative("Yes").Negative("No").Value(&ok)))
	return ok, err
}

// editFile opens path in the person's editor ($VISUAL, then $EDITOR),
// attached to the terminal.
func (e *Env) editFile(path string) error {
	editor := e.Getenv("VISUAL")
	if editor == "" {
		editor = e.Getenv("EDITOR")
	}
	if editor == "" {
		return fmt.Errorf("set $EDITOR (or $VISUAL) to edit %s", path)
	}
	// The editor setting is the person's own, like git's: run it through
	// the shell so "code --wait" works.
	cmd := exec.Command("sh", "-c", editor+` "$1"`, "editor", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.In, e.Out, e.Err
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Fields(editor)[0], err)
	}
	return nil
}
