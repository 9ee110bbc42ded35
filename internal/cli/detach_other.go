//go:build !unix

package cli

import "syscall"

// detached: elsewhere the worker is an ordinary child, which outlives the
// hook that started it once released.
func detached() *syscall.SysProcAttr { return nil }
