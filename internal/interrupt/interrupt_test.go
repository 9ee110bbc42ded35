//go:build unix

package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestSignalCancelsTheRootContext(t *testing.T) {
	exited := make(chan os.Signal, 1)
	c := Catch(context.Background(), 100*time.Millisecond, func(s os.Signal) { exited <- s })
	defer c.Stop()
	if c.Signal() != nil {
		t.Fatal("a signal before any")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	if c.Signal() != syscall.SIGTERM || Code(c.Signal()) != 143 || Code(os.Interrupt) != 130 {
		t.Fatalf("%v %d", c.Signal(), Code(c.Signal()))
	}
	// Whatever ignores the context is not waited for past the grace.
	select {
	case s := <-exited:
		if s != syscall.SIGTERM {
			t.Fatal(s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit after the grace")
	}
}

func TestStopBeforeAnySignal(t *testing.T) {
	c := Catch(context.Background(), time.Millisecond, func(os.Signal) { t.Error("exit without a signal") })
	c.Stop()
	c.Stop()
	if c.Context().Err() == nil || c.Signal() != nil {
		t.Fatal(c.Context().Err(), c.Signal())
	}
	time.Sleep(10 * time.Millisecond)
}
