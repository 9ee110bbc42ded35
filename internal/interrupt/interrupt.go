// Package interrupt turns SIGINT (Ctrl-C) and SIGTERM into the
// cancellation of one root context, so that what devlearn started (a
// gate, the LLM extractor, in process groups of their own) is ended with
// it instead of running on, orphaned, with no timeout.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/devlearn/devlearn/internal/proc"
)

// Grace is how long a process has, after SIGINT or SIGTERM, to end what it
// started (a command's group gets SIGTERM, then SIGKILL after
// proc.TermGrace) and return; past it, it exits all the same.
const Grace = proc.TermGrace + 3*time.Second

// Main runs fn, the whole of a process, with a root context cancelled at
// SIGINT or SIGTERM, and returns its exit code; after a signal, the
// signal's own (Code), said on w once fn returned, or once Grace passed
// if it does not.
func Main(parent context.Context, w io.Writer, fn func(context.Context) int) int {
	stopped := func(s os.Signal) int {
		fmt.Fprintf(w, "devlearn: stopped by a signal (%v)\n", s)
		return Code(s)
	}
	c := Catch(parent, Grace, func(s os.Signal) { os.Exit(stopped(s)) })
	defer c.Stop()
	code := fn(c.Context())
	if s := c.Signal(); s != nil {
		return stopped(s)
	}
	return code
}

// Catcher is the root context of one process and the signal that
// cancelled it, if one did.
type Catcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}
	once   sync.Once
	mu     sync.Mutex
	got    os.Signal
}

// Catch returns a Catcher whose context is cancelled at the first SIGINT
// or SIGTERM. The first signal is the process's own: a second one has its
// default effect again, so a person who presses Ctrl-C twice is never
// kept waiting. Code that does not watch the context (a lock taken with
// no deadline) cannot keep the process either: grace after the signal,
// exit is called with it.
func Catch(parent context.Context, grace time.Duration, exit func(os.Signal)) *Catcher {
	c := &Catcher{ch: make(chan os.Signal, 1), done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(parent)
	signal.Notify(c.ch, os.Interrupt, syscall.SIGTERM)
	go c.watch(grace, exit)
	return c
}

func (c *Catcher) watch(grace time.Duration, exit func(os.Signal)) {
	select {
	case <-c.done:
		return
	case s := <-c.ch:
		c.mu.Lock()
		c.got = s
		c.mu.Unlock()
		signal.Stop(c.ch)
		c.cancel()
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		if exit != nil {
			exit(c.Signal())
		}
	}
}

// Context is the root context: cancelled by the first signal.
func (c *Catcher) Context() context.Context { return c.ctx }

// Signal is the signal that cancelled the context; nil when none did.
func (c *Catcher) Signal() os.Signal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got
}

// Stop gives the signals back their default effect and ends the watch.
func (c *Catcher) Stop() {
	c.once.Do(func() {
		signal.Stop(c.ch)
		close(c.done)
		c.cancel()
	})
}

// Code is the exit status of a process a signal ended, as shells report
// it: 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM).
func Code(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}
