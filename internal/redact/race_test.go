//go:build race

package redact

// raceEnabled lets the tests that measure speed, or that run the slow
// whole-text scan at length, do less under -race: it slows Go's regexp
// some fiftyfold and finds nothing in single-goroutine code.
const raceEnabled = true
