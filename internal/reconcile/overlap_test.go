package reconcile

import (
	"bytes"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/devlearn/devlearn/internal/observe"
)

// goroutineID is the number runtime.Stack gives the calling goroutine.
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.Atoi(string(buf[:bytes.IndexByte(buf, ' ')]))
	return id
}

// The log loads on a goroutine of its own while the hand-over, the
// manifest, the knowledge files and the artifacts' stamps are read on the
// caller's: right after a bulk render the load (the fold of the render's
// lines) is most of a first check, and the rest reads nothing it does.
// What the check finds is the same, and a panic of the load is still the
// caller's (a hook recovers it rather than break the agent).
func TestTheLogLoadsWhileTheProjectIsRead(t *testing.T) {
	p := benchProjectT(t, 8)
	handOver(t, p)
	age(t, p.Root)
	want := fullRun(t, p)
	if want.Unchanged != 8 {
		t.Fatalf("%d unchanged, want the 8 artifacts handed over", want.Unchanged)
	}

	defer func(old func(observe.Store) (*observe.Log, error)) { loadLog = old }(loadLog)
	caller, loader := goroutineID(), 0
	loadLog = func(s observe.Store) (*observe.Log, error) {
		loader = goroutineID()
		return s.Load()
	}
	if got := fullRun(t, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("with the log loaded meanwhile:\n got %+v\nwant %+v", got, want)
	}
	if loader == caller {
		t.Fatalf("the log was loaded on the caller's goroutine (%d): nothing else was read while it loaded", caller)
	}

	loadLog = func(observe.Store) (*observe.Log, error) { panic("the load failed") }
	defer func() {
		if r := recover(); r != "the load failed" {
			t.Fatalf("recovered %v, want the load's panic on the caller's goroutine", r)
		}
	}()
	fullRun(t, p)
}
