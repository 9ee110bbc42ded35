package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSafeName(t *testing.T) {
	for _, id := range []string{"8f6c1d2e-1234-4abc-9def-0123456789ab", "abc_DEF.1"} {
		if SafeName(id) != id {
			t.Errorf("%q became %q", id, SafeName(id))
		}
	}
	seen := map[string]bool{}
	for _, id := range []string{"", "..", ".", "../x", "/etc", "a/b", "a\x00b", strings.Repeat("a", 129), "ｓｅｓｓｉｏｎ", ".hidden"} {
		n := SafeName(id)
		if strings.ContainsAny(n, "/\\\x00") || n == "." || n == ".." || strings.HasPrefix(n, ".") || len(n) > 128 {
			t.Errorf("%q became unsafe %q", id, n)
		}
		if seen[n] {
			t.Errorf("%q collides: %q", id, n)
		}
		seen[n] = true
	}
}

func TestPromptsKeepTheLatest(t *testing.T) {
	d := t.TempDir()
	s := Session{Root: d, Dir: d}
	if got := s.Prompts(3); got != nil {
		t.Fatalf("no file: %q", got)
	}
	for i := 0; i < 50; i++ {
		if err := s.AddPrompt(now, fmt.Sprintf("prompt %d %s", i, strings.Repeat("x", 1900))); err != nil {
			t.Fatal(err)
		}
	}
	got := s.Prompts(3)
	if len(got) != 3 || !strings.HasPrefix(got[0], "prompt 47 ") || !strings.HasPrefix(got[2], "prompt 49 ") {
		t.Fatalf("latest three: %d, %.12q", len(got), got)
	}
	if fi, _ := os.Stat(filepath.Join(s.Dir, "prompts.jsonl")); fi.Size() > promptsKeepBytes+4*MaxPromptRunes {
		t.Fatalf("prompts file grew to %d bytes", fi.Size())
	}
	long := strings.Repeat("é", MaxPromptRunes+10)
	s.AddPrompt(now, long)
	if got := s.Prompts(1); len([]rune(got[0])) != MaxPromptRunes {
		t.Fatalf("stored %d characters", len([]rune(got[0])))
	}
	// A torn last line is skipped, the ones before it are read.
	f, _ := os.OpenFile(filepath.Join(s.Dir, "prompts.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"at":"x","prompt":"tor`)
	f.Close()
	if got := s.Prompts(2); len(got) != 2 || got[1] != long[:2*MaxPromptRunes] {
		t.Fatalf("after a torn line: %d prompts", len(got))
	}
}

func TestClaimIsExclusive(t *testing.T) {
	d := t.TempDir()
	s := Session{Root: d, Dir: d}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.Claim(Served{Ref: "entry:a", Path: "x.go"})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won", wins.Load())
	}
	if ok, _ := s.Claim(Served{Ref: "entry:a", Path: "y.go"}); !ok {
		t.Fatal("another path was refused")
	}
	if ok, _ := s.Claim(Served{Ref: "entry:b", Path: "x.go"}); !ok {
		t.Fatal("another entry was refused")
	}
}

func TestLogStaysBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "logs", "hooks.log")
	l := &Log{Root: dir, Path: path, Event: "pre-tool-use", Now: func() time.Time { return now }}
	line := strings.Repeat("y", 1000)
	for i := 0; i < 3000; i++ {
		l.Printf("error %d: %s\nsecond line", i, line)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > MaxLogBytes+2000 {
		t.Fatalf("log of %d bytes (%v)", fi.Size(), err)
	}
	old, err := os.Stat(path + ".1")
	if err != nil || old.Size() > MaxLogBytes+2000 {
		t.Fatalf("old log: %v", err)
	}
	data, _ := os.ReadFile(path)
	last := strings.Split(strings.TrimSpace(string(data)), "\n")
	if got := last[len(last)-1]; !strings.HasPrefix(got, "2026-05-10T09:00:00Z pre-tool-use: error 2999: yyy") || !strings.HasSuffix(got, " | second line") {
		t.Fatalf("last line %.80q", got)
	}
}

// When the per-clone log cannot be written, the line goes to the fallback
// ($DEVLEARN_HOME's log) rather than nowhere.
func TestLogFallsBack(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "state")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil { // a file where the folder should be
		t.Fatal(err)
	}
	l := &Log{Root: dir, Path: filepath.Join(blocked, "logs", "hooks.log"), FallbackRoot: filepath.Join(dir, "home"), Fallback: filepath.Join(dir, "home", "logs", "hooks.log"), Event: "Stop"}
	l.Printf("it broke: %s", "why")
	data, err := os.ReadFile(l.Fallback)
	if err != nil || !strings.Contains(string(data), "Stop: it broke: why") {
		t.Fatalf("%q %v", data, err)
	}
}
