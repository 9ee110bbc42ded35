package proc

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestRunOKAndExitCode(t *testing.T) {
	var out HeadTail
	out.Head, out.TailMax = 100, 100
	r, err := Run(context.Background(), Spec{Argv: sh("echo out; echo err >&2; exit 3"), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.ExitCode != 3 || r.WaitErr == nil {
		t.Fatalf("%+v", r)
	}
	if got := out.String(); got != "out\nerr\n" {
		t.Fatalf("shared pipe: %q", got)
	}
	r, err = Run(context.Background(), Spec{Argv: sh("cat"), Stdin: []byte("in"), Stdout: &out})
	if err != nil || !r.OK() || r.ExitCode != 0 {
		t.Fatal(r, err)
	}
}

func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	// The grandchild holds the pipe open; it must die with the group.
	r, err := Run(ctx, Spec{Argv: sh("sleep 100 & echo $! > " + pidFile + "; wait")})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.ExitCode != -1 {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
	data, _ := os.ReadFile(pidFile)
	pid := strings.TrimSpace(string(data))
	if pid == "" {
		t.Fatal("no pid")
	}
	// A killed process may linger as a zombie of init for a moment.
	for range 50 {
		if st, err := os.ReadFile("/proc/" + pid + "/stat"); err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("grandchild %s outlived its group", pid)
}

func TestLimitStopsTheCommand(t *testing.T) {
	out := &Limit{Max: 1000}
	r, err := Run(context.Background(), Spec{Argv: sh("yes"), Stdout: out})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != ErrLimit || r.OK() {
		t.Fatalf("%+v", r)
	}
}

func TestHeadTailBoundsMegabytes(t *testing.T) {
	h := &HeadTail{Head: 10, TailMax: 20}
	r, err := Run(context.Background(), Spec{Argv: sh("echo first; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo last line"), Stdout: h, Stderr: h})
	if err != nil || !r.OK() {
		t.Fatal(r, err)
	}
	s := h.String()
	if len(s) > 100 || !strings.HasPrefix(s, "first\n") || !strings.HasSuffix(s, "\nlast line\n") || !strings.Contains(s, "bytes left out") {
		t.Fatalf("%d bytes: %q", len(s), s)
	}
	if h.Total() < 5000000 {
		t.Fatal(h.Total())
	}
}

func TestHeadTailSmall(t *testing.T) {
	h := &HeadTail{Head: 4, TailMax: 4}
	h.Write([]byte("abc"))
	h.Write([]byte("defg"))
	if h.String() != "abcdefg" || h.Dropped() != 0 {
		t.Fatalf("%q", h.String())
	}
	h.Write([]byte("hij"))
	if got := h.String(); got != "abcd\n[… 2 bytes left out …]\nghij" {
		t.Fatalf("%q", got)
	}
}

func TestCancelTermsThenKills(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	dir := t.TempDir()
	// A command that cleans up on SIGTERM gets to do it.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r, err := Run(ctx, Spec{Argv: sh("trap 'echo bye > " + dir + "/bye; exit 0' TERM; sleep 100 & wait")})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cancelled || r.ExitCode != -1 {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "bye")); err != nil {
		t.Fatalf("no clean-up on SIGTERM: %v", err)
	}
	// One that ignores it is killed after the grace.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	r, err = Run(ctx, Spec{Argv: sh("trap '' TERM; while :; do sleep 0.05; done")})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); !r.Cancelled || d < TermGrace || d > TermGrace+5*time.Second {
		t.Fatalf("%+v after %v", r, d)
	}
}

// Where it cuts, it cuts between lines or words, never inside a character
// (the stores refuse text that is not UTF-8, and a failed gate would go
// unrecorded) or inside a word (half a secret escapes redaction).
func TestHeadTailCutsBetweenWords(t *testing.T) {
	h := &HeadTail{Head: 16, TailMax: 16}
	h.Write([]byte("✓ ok ✓ ok ✓ ok ✓ ok ✓ ok ✓ ok ✓ ok ✕ FAIL"))
	if s := h.String(); !utf8.ValidString(s) {
		t.Fatalf("not UTF-8: %q", s)
	}
	words := strings.Repeat("word ", 30) // 150 bytes, then a token across the cut at 200
	h = &HeadTail{Head: 200, TailMax: 200}
	h.Write([]byte(words + "see the token ghp_R8xk2LmQ9vTz4Wc7Yp1Nb6Hd3Fs5Jg0Ua2Ke in the middle " + strings.Repeat("-", 300) + " ghp_R8xk2LmQ9vTz4Wc7Yp1Nb6Hd3Fs5Jg0Ua2Ke " + words))
	s := h.String()
	for _, part := range []string{"ghp_R8", "Ua2Ke "} {
		if strings.Contains(s, part) && !strings.Contains(s, "ghp_R8xk2LmQ9vTz4Wc7Yp1Nb6Hd3Fs5Jg0Ua2Ke") {
			t.Fatalf("a piece of a word kept: %q", s)
		}
	}
	if !strings.HasPrefix(s, "word word") || !strings.HasSuffix(s, "word ") || !strings.Contains(s, "bytes left out") {
		t.Fatalf("%q", s)
	}
}
