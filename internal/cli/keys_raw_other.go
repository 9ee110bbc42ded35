//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package cli

import "golang.org/x/term"

// rawKeys puts the terminal's input in raw mode for a form.
func rawKeys(fd int) (restore func(), err error) {
	st, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	return func() { term.Restore(fd, st) }, nil
}
