package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	huh "charm.land/huh/v2"

	"golang.org/x/term"

	"github.com/devlearn/devlearn/internal/exitcode"
)

// interactive reports whether the command talks to a person at a terminal:
// both its input and its output are terminals. Scripts and pipes get the
// flag-driven behaviour, never a prompt.
//
// A terminal with no window (0 columns: a pty a script opened, such as
// `script` run with its input redirected) shows no one a question: a form
// there redrew itself for ever.
func (e *Env) interactive() bool {
	f, ok := e.In.(*os.File)
	if !ok || !isTerminal(f) || !e.OutTTY {
		return false
	}
	w, _, err := term.GetSize(int(f.Fd()))
	return err == nil && w > 0
}

// form runs a huh form on the command's own streams. The keys come through
// the command's one keyboard (below), in raw mode for the form's time
// only, so that the text printed between two forms stays ordinary lines.
func (e *Env) form(groups ...*huh.Group) error {
	// A terminal whose input has ended (a closed pty, ^D at a pipe
	// pretending to be one) answers no question: the form is stopped
	// rather than left redrawing itself for ever.
	ctx, cancel := context.WithCancel(e.Context())
	defer cancel()
	in := e.keyboard().next()
	in.ended = cancel
	defer in.close()
	if f, ok := e.In.(*os.File); ok {
		if restore, err := rawKeys(int(f.Fd())); err == nil {
			defer restore()
		}
	}
	f := huh.NewForm(groups...).WithInput(in).WithOutput(e.Out).WithShowHelp(true)
	// The program waits (up to half a second) for its input reader to
	// stop: once the form is answered, this one stops at once. The hook
	// runs in the program's own goroutine, where the state changes.
	f = f.WithViewHook(func(v tea.View) tea.View {
		if f.State != huh.StateNormal {
			in.close()
		}
		return v
	})
	if e.Getenv("ACCESSIBLE") != "" {
		f = f.WithAccessible(true)
	}
	err := f.RunWithContext(ctx)
	if in.inputEnded.Load() {
		return exitcode.Usagef("the terminal's input ended before the question was answered; nothing was done: answer it on a terminal, or give the answer as a flag (see --help)")
	}
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

// keyboard reads the terminal for every prompt of a command, one goroutine
// for the command's whole life. Each form used to read the terminal
// itself, and the reader of a form that had ended could still be waiting
// in read(2) and swallow the first key meant for the next one (a review
// answers one form per item): here a form gets only the keys read while it
// runs, and a key read after it ended waits for the next form.
type keyboard struct {
	keys chan []byte
	mu   sync.Mutex
	rest []byte // read, and not yet given to a form
}

var keyboards sync.Map // *Env → *keyboard

func (e *Env) keyboard() *keyboard {
	if k, ok := keyboards.Load(e); ok {
		return k.(*keyboard)
	}
	k := &keyboard{keys: make(chan []byte, 64)}
	if actual, loaded := keyboards.LoadOrStore(e, k); loaded {
		return actual.(*keyboard)
	}
	go func() {
		for {
			buf := make([]byte, 256)
			n, err := e.In.Read(buf)
			if n > 0 {
				k.keys <- buf[:n]
			}
			if err != nil {
				close(k.keys)
				return
			}
		}
	}()
	return k
}

// formKeys is one form's share of the keyboard.
type formKeys struct {
	k    *keyboard
	done chan struct{}
	once sync.Once
	// ended, when set, is called once the keyboard's input has ended;
	// inputEnded then says so.
	ended      func()
	inputEnded atomic.Bool
}

// lost is the keyboard's input at its end while the form still waits.
func (f *formKeys) lost() (int, error) {
	if !f.inputEnded.Swap(true) && f.ended != nil {
		f.ended()
	}
	return 0, io.EOF
}

func (k *keyboard) next() *formKeys { return &formKeys{k: k, done: make(chan struct{})} }

func (f *formKeys) close() { f.once.Do(func() { close(f.done) }) }

func (f *formKeys) over() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *formKeys) Read(p []byte) (int, error) {
	k := f.k
	k.mu.Lock()
	if f.over() {
		k.mu.Unlock()
		return 0, io.EOF
	}
	if len(k.rest) > 0 {
		n := copy(p, k.rest)
		k.rest = k.rest[n:]
		k.mu.Unlock()
		return n, nil
	}
	k.mu.Unlock()
	select {
	case b, ok := <-k.keys:
		// A lone ^D is the end of input at a terminal in raw mode (where
		// the driver no longer turns it into one): a pty whose writer
		// reached its end sends just that.
		if !ok || string(b) == "\x04" {
			return f.lost()
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		if f.over() {
			k.rest = append(b, k.rest...) // the next form's
			return 0, io.EOF
		}
		n := copy(p, b)
		k.rest = append(b[n:], k.rest...)
		return n, nil
	case <-f.done:
		return 0, io.EOF
	}
}
