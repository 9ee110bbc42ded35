//go:build !unix

package observe

import "time"

// cpuTime is unknown here: the CPU figure is left out.
func cpuTime() time.Duration { return 0 }
