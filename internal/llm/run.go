package llm

import (
	"context"
	"errors"

	"github.com/devlearn/devlearn/internal/proc"
)

// stderrTail is how much of stderr is kept, for the log of a failure.
const stderrTail = 2 << 10

type result struct {
	stdout    []byte
	stderr    string // its last stderrTail bytes
	timedOut  bool
	cancelled bool
	overflow  bool  // stdout passed its bound
	waitErr   error // how the command ended, when not well
}

// run runs argv through proc.Run (its own process group, killed whole at
// the deadline of ctx and when it ends), stopping it as soon as stdout
// passes maxOut bytes: an answer cut short is no answer.
func run(ctx context.Context, argv, env []string, dir string, stdin []byte, maxOut int) (*result, error) {
	out := &proc.Limit{Max: maxOut}
	errTail := &proc.Tail{Max: stderrTail}
	r, err := proc.Run(ctx, proc.Spec{Argv: argv, Env: env, Dir: dir, Stdin: stdin, Stdout: out, Stderr: errTail})
	if err != nil {
		return nil, err
	}
	res := &result{
		stderr:    errTail.String(),
		timedOut:  r.TimedOut,
		cancelled: r.Cancelled,
		overflow:  errors.Is(r.Stopped, proc.ErrLimit),
		waitErr:   r.WaitErr,
	}
	if !res.overflow {
		res.stdout = out.Bytes()
	}
	return res, nil
}
