//go:build !devlearn_crash

// Package crashpoint marks the places where a crash must leave a state the
// next run can complete. In a normal build Hit does nothing; a build with
// the devlearn_crash tag (used only by the crash tests) can stop the
// process dead at any of them.
package crashpoint

// Hit marks a write point.
func Hit(name string) {}
