// Package proc runs a command that a person configured (the LLM
// extractor, a quality gate) the one way devlearn runs commands: in a
// process group of its own, killed whole at its deadline and when it ends,
// so that nothing it started outlives it, with its output handed to sinks
// that bound what is kept.
package proc

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// drainGrace is how long the pipes stay open after the command's process
// group is killed: enough for the kernel to close them, so that readers
// see the end of the output. Only a process that left the group (setsid)
// can hold them longer, and it is cut off.
const drainGrace = 500 * time.Millisecond

// TermGrace is how long a command whose context ended has, after its
// process group got SIGTERM, to end on its own (a test runner removing its
// temporary files) before the group gets SIGKILL.
const TermGrace = 2 * time.Second

// Spec is one command to run.
type Spec struct {
	Argv  []string
	Env   []string // the whole environment; nil is an empty one
	Dir   string   // the working folder; "" is the caller's
	Stdin []byte
	// Stdout and Stderr receive the output as it comes; nil discards it.
	// When both are the same writer, the two streams share one pipe, so
	// they arrive interleaved as the command wrote them. A sink whose
	// Write fails stops the command: its process group is killed and the
	// error is the Result's Stopped.
	Stdout, Stderr io.Writer
}

// Result is how a command ended.
type Result struct {
	// TimedOut: the context's deadline passed; Cancelled: the context was
	// cancelled otherwise (devlearn got SIGINT or SIGTERM); Stopped: a sink
	// refused more output. In those three cases the process group was
	// killed and WaitErr is nil.
	TimedOut  bool
	Cancelled bool
	Stopped   error
	// WaitErr is how the command ended when it ended badly on its own (an
	// *exec.ExitError for a non-zero status).
	WaitErr error
	// ExitCode is the command's exit status; -1 when it was killed.
	ExitCode int
	Duration time.Duration
}

// OK reports whether the command ran to its end and exited 0.
func (r *Result) OK() bool {
	return !r.TimedOut && !r.Cancelled && r.Stopped == nil && r.WaitErr == nil
}

// Run starts the command in a process group of its own with Stdin as its
// input, and waits for it, the end of ctx, or a sink refusing more output,
// whichever comes first. When ctx ends, the group gets SIGTERM, then
// SIGKILL after TermGrace. Whatever happens, the whole group is killed
// before Run returns: the command's children and grandchildren included. The pipes are the process's own (os.Pipe), not copied by
// os/exec, so waiting for the command never waits for a grandchild that
// holds one of them. The error is for a command that could not start.
func Run(ctx context.Context, s Spec) (*Result, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, errors.New("no command")
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	errR, errW := outR, outW
	shared := s.Stdout != nil && s.Stdout == s.Stderr
	if !shared {
		if errR, errW, err = pipe(); err != nil {
			closeAll()
			return nil, err
		}
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Env = s.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = s.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownGroup(cmd)
	start := time.Now()
	startErr := cmd.Start()
	// The child has its copies; ours of its ends must go, or the readers
	// would never see the end of the output.
	inR.Close()
	outW.Close()
	errW.Close()
	if startErr != nil {
		closeAll()
		return nil, startErr
	}
	pid := cmd.Process.Pid

	go func() {
		// A command that never reads its input gets EPIPE or is killed;
		// either way the write ends.
		_, _ = inW.Write(s.Stdin)
		inW.Close()
	}()
	res := &Result{}
	var stopOnce sync.Once
	stop := make(chan struct{})
	refuse := func(err error) {
		stopOnce.Do(func() {
			res.Stopped = err
			close(stop)
		})
	}
	streams := []struct {
		r *os.File
		w io.Writer
	}{{outR, s.Stdout}}
	if !shared {
		streams = append(streams, struct {
			r *os.File
			w io.Writer
		}{errR, s.Stderr})
	}
	var pumps []chan struct{}
	for _, st := range streams {
		done := make(chan struct{})
		pumps = append(pumps, done)
		go func(r io.Reader, w io.Writer) {
			defer close(done)
			pump(r, w, refuse)
		}(st.r, st.w)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	select {
	case res.WaitErr = <-waited:
	case <-stop:
		killGroup(pid)
		<-waited
	case <-ctx.Done():
		termGroup(pid)
		grace := time.NewTimer(TermGrace)
		select {
		case <-waited:
		case <-grace.C:
			killGroup(pid)
			<-waited
		}
		grace.Stop()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.TimedOut = true
		} else {
			res.Cancelled = true
		}
	}
	res.Duration = time.Since(start)
	// The command is gone; anything it left behind in its group goes too.
	killGroup(pid)
	grace := time.NewTimer(drainGrace)
	defer grace.Stop()
	for _, done := range pumps {
		select {
		case <-done:
		case <-grace.C:
			closeAll()
			<-done
		}
	}
	closeAll()
	res.ExitCode = cmd.ProcessState.ExitCode()
	if res.Stopped != nil || res.TimedOut || res.Cancelled {
		res.WaitErr = nil
		res.ExitCode = -1
	}
	return res, nil
}

// pump copies r to w until r ends. Once w fails, it tells refuse and reads
// on without keeping anything, so the command is never stuck on a full
// pipe before it is killed.
func pump(r io.Reader, w io.Writer, refuse func(error)) {
	if w == nil {
		w = io.Discard
	}
	chunk := make([]byte, 32<<10)
	failed := false
	for {
		n, err := r.Read(chunk)
		if n > 0 && !failed {
			if _, werr := w.Write(chunk[:n]); werr != nil {
				failed = true
				refuse(werr)
			}
		}
		if err != nil {
			return
		}
	}
}
