package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// devlearn ingest shows a progress line on a terminal (and only there:
// the testscript scripts check that a pipe gets none). tmux records the
// raw bytes the terminal received, carriage returns included.
func TestIngestProgressInARealTerminal(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	_, env := isolatedEnv(dir)
	for _, args := range [][]string{{"git", "init", "-q"}, {bin, "init"}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	transcripts, _ := filepath.Abs("../../testdata/transcripts")
	raw := filepath.Join(t.TempDir(), "raw")
	// The pause lets tmux start recording before devlearn writes.
	tm := newTerm(t, dir, append(env, "NO_COLOR=1", "TERM=xterm-256color"), "sh -c 'sleep 1; "+bin+" ingest "+transcripts+"'")
	tm.tmux("pipe-pane", "-o", "-t", tm.name, "cat >> "+raw)
	s := tm.waitForOnly("EXIT=")
	if !strings.Contains(s, "Read 21 sessions; recorded") || !strings.Contains(s, "EXIT=0") {
		t.Fatalf("screen:\n%s", s)
	}
	if strings.Contains(s, "sessions\r") || strings.Contains(s, "] 21/21") {
		t.Fatalf("the progress line was left on the screen:\n%s", s)
	}
	var got []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got, _ = os.ReadFile(raw); strings.Contains(string(got), "EXIT=") {
			break
		}
	}
	if !strings.Contains(string(got), "\r[") || !strings.Contains(string(got), "] 21/21 sessions") || !strings.Contains(string(got), "\r\x1b[K") {
		t.Fatalf("no progress line on the terminal: %q", got)
	}
}
