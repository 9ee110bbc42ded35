//go:build !linux

package stamp

import "time"

// tickSlack bounds how far behind the time a file's mtime can be taken;
// Windows updates its file times from a 15.6 ms timer, macOS from a fine
// clock. Without a way to ask, 50 ms covers both.
func tickSlack() time.Duration { return 50 * time.Millisecond }
