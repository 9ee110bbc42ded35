package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A run a signal stopped says which part it cut and fails; one that ran
// to its end only says where the time went.
func TestPhasesSayWhatASignalCut(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := phases{start: time.Now()}
	p.done("capture", ctx)
	cancel()
	p.done("the closed loop", ctx)
	if err := p.report(out, syscall.SIGTERM); err == nil || !strings.Contains(err.Error(), "the closed loop") {
		t.Errorf("stopped run: %v", err)
	}
	if err := (&phases{start: time.Now(), parts: []string{"capture 1.0 s"}}).report(out, nil); err != nil {
		t.Errorf("whole run: %v", err)
	}
	data, _ := os.ReadFile(out.Name())
	if got := string(data); !strings.Contains(got, "Run time: capture ") || !strings.Contains(got, "STOPPED: terminated came") || !strings.Contains(got, "during the closed loop") {
		t.Errorf("printed:\n%s", got)
	}
}
