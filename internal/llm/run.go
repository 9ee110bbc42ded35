package llm

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"time"
)

// drainGrace is how long the pipes stay open after the command's process
// group is killed: enough for the kernel to close them, so that readers
// see the end of the output. Only a process that left the group (setsid)
// can hold them longer, and it is cut off.
const drainGrace = 500 * time.Millisecond

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

// run starts argv in a process group of its own with stdin as its input,
// and waits for it, the deadline of ctx, or stdout passing maxOut bytes,
// whichever comes first. Whatever happens, the whole group is killed
// before run returns: the command's children and grandchildren included,
// so nothing it started outlives it. The pipes are the process's own
// (os.Pipe), not copied by os/exec, so waiting for the command never
// waits for a grandchild that holds one of them.
func run(ctx context.Context, argv, env []string, dir string, stdin []byte, maxOut int) (*result, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownGroup(cmd)
	startErr := cmd.Start()
	// The child has its copies; ours of its ends must go, or the readers
	// would never see the end of the output.
	inR.Close()
	outW.Close()
	errW.Close()
	if startErr != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, startErr
	}
	pid := cmd.Process.Pid

	go func() {
		// A command that never reads its input gets EPIPE or is killed;
		// either way the write ends.
		_, _ = inW.Write(stdin)
		inW.Close()
	}()
	res := &result{}
	var overflowed atomic.Bool
	overflow := make(chan struct{})
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		res.stdout = readBounded(outR, maxOut, func() {
			overflowed.Store(true)
			close(overflow)
		})
	}()
	errDone := make(chan struct{})
	go func() {
		defer close(errDone)
		res.stderr = readTail(errR, stderrTail)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	select {
	case res.waitErr = <-waited:
	case <-overflow:
		killGroup(pid)
		<-waited
	case <-ctx.Done():
		killGroup(pid)
		<-waited
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.timedOut = true
		} else {
			res.cancelled = true
		}
	}
	// The command is gone; anything it left behind in its group goes too.
	killGroup(pid)
	grace := time.NewTimer(drainGrace)
	defer grace.Stop()
	for _, done := range []chan struct{}{outDone, errDone} {
		select {
		case <-done:
		case <-grace.C:
			outR.Close()
			errR.Close()
			inW.Close()
			<-done
		}
	}
	outR.Close()
	errR.Close()
	res.overflow = overflowed.Load()
	if res.overflow || res.timedOut || res.cancelled {
		res.waitErr = nil
	}
	return res, nil
}

// readBounded reads r to its end, keeping at most max bytes; past max it
// calls over once and stops reading (the command is then killed).
func readBounded(r io.Reader, max int, over func()) []byte {
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if len(buf)+n > max {
			over()
			return nil
		}
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return buf
		}
	}
}

// readTail reads r to its end and returns its last max bytes.
func readTail(r io.Reader, max int) string {
	var tail []byte
	chunk := make([]byte, 8<<10)
	for {
		n, err := r.Read(chunk)
		tail = append(tail, chunk[:n]...)
		if len(tail) > max {
			tail = append(tail[:0], tail[len(tail)-max:]...)
		}
		if err != nil {
			return string(tail)
		}
	}
}
