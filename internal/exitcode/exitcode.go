// Package exitcode holds the process exit codes (the exit codes rule of docs/architecture.md) and
// the one function that turns an error into one of them.
//
// Domain packages never choose an exit code: they return ordinary errors,
// and the command layer wraps the few that mean "usage" or "refused by
// state" with the constructors here.
package exitcode

import (
	"errors"
	"fmt"
)

// The exit codes (the exit codes rule, docs/architecture.md).
const (
	OK      = 0 // success
	Error   = 1 // something failed
	Usage   = 2 // the command line was wrong
	Refused = 3 // refused by state: merge conflict, failed gate, base moved
	// Breaker is the circuit breaker's own code (ClawFlow's circuit breaker, docs/gates.md): a
	// task is blocked until a person has reviewed its lessons, so a script
	// driving stages stops instead of retrying as after a failed gate (3).
	Breaker = 4
)

// Err carries an exit code and, optionally, a hint that tells the user what
// to do next. Its message is the wrapped error's.
type Err struct {
	Code int
	Err  error
	Hint string
}

func (e *Err) Error() string { return e.Err.Error() }
func (e *Err) Unwrap() error { return e.Err }

// UsageError marks err as a command-line mistake (exit 2).
func UsageError(err error) error { return &Err{Code: Usage, Err: err} }

// Usagef formats a command-line mistake (exit 2).
func Usagef(format string, args ...any) error {
	return &Err{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// RefusedError marks err as a refusal by state (exit 3), with a hint.
func RefusedError(err error, hint string) error {
	return &Err{Code: Refused, Err: err, Hint: hint}
}

// BreakerError marks err as the circuit breaker blocking a task (exit 4),
// with a hint.
func BreakerError(err error, hint string) error {
	return &Err{Code: Breaker, Err: err, Hint: hint}
}

// WithHint attaches a next step to err without changing its exit code.
func WithHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	var e *Err
	if errors.As(err, &e) {
		return &Err{Code: e.Code, Err: err, Hint: hint}
	}
	return &Err{Code: Error, Err: err, Hint: hint}
}

// Silent is returned by a command that has already told the user everything
// (for example a doctor run whose failures were printed) and only needs the
// exit code to say so.
type Silent struct{ Code int }

func (s Silent) Error() string { return fmt.Sprintf("exit status %d", s.Code) }

// Of is the one place where an error becomes an exit code.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var s Silent
	if errors.As(err, &s) {
		return s.Code
	}
	var e *Err
	if errors.As(err, &e) {
		return e.Code
	}
	return Error
}

// HintOf returns the outermost hint attached to err, if any.
func HintOf(err error) string {
	var e *Err
	for errors.As(err, &e) {
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}
