//go:build unix

package hookcmd

import "syscall"

// detached puts the worker in a session of its own: no controlling
// terminal, and out of the hook's process group, which Claude Code may
// kill when the hook's time is up.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func exeSuffix() string { return "" }
