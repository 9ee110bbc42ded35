//go:build !unix

package hookcmd

import (
	"runtime"
	"syscall"
)

// detached: elsewhere the worker is an ordinary child, which outlives the
// hook that started it once released.
func detached() *syscall.SysProcAttr { return nil }

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}
