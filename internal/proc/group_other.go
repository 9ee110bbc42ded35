//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// Without process groups, only the command itself can be killed.
func ownGroup(cmd *exec.Cmd) {}

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// Without process groups or SIGTERM, asking to end is killing.
func termGroup(pid int) { killGroup(pid) }
