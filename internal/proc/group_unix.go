//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the command the leader of a new process group, so that
// it and everything it starts can be killed together.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid. A group already empty is
// not an error.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// termGroup asks the process group led by pid to end (SIGTERM).
func termGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
}
