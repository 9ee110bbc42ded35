package stamp

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// tickSlack bounds how far behind the time a file's mtime can be taken:
// the kernel stamps writes from its coarse clock, whose resolution is its
// tick (1–10 ms). Twice that and a millisecond leave room for a tick
// that comes late. Asked on first use, so that a process that never judges a stamp does
// not pay for the call at start.
var tickSlack = sync.OnceValue(func() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &ts); err != nil || ts.Nano() <= 0 || ts.Nano() > int64(50*time.Millisecond) {
		return 50 * time.Millisecond
	}
	return 2*time.Duration(ts.Nano()) + time.Millisecond
})
