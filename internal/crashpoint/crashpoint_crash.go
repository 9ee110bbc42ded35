//go:build devlearn_crash

package crashpoint

import (
	"fmt"
	"os"
	"sync"
)

var (
	mu     sync.Mutex
	counts = map[string]int{}
)

// Hit counts the point; DEVLEARN_CRASH_TRACE=file lists every point hit
// ("name#n"), and DEVLEARN_CRASH_AT="name#n" exits at once with status 137,
// as a kill -9 would: no deferred call runs, no lock is released by us.
func Hit(name string) {
	mu.Lock()
	defer mu.Unlock()
	counts[name]++
	id := fmt.Sprintf("%s#%d", name, counts[name])
	if trace := os.Getenv("DEVLEARN_CRASH_TRACE"); trace != "" {
		if f, err := os.OpenFile(trace, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintln(f, id)
			f.Close()
		}
	}
	if os.Getenv("DEVLEARN_CRASH_AT") == id {
		os.Exit(137)
	}
}
