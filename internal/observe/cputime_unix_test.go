//go:build unix

package observe

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, every thread's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
