package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
	s := Session{Root: d, Path: filepath.Join(d, "s.jsonl")}
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
	if fi, _ := os.Stat(s.Path); fi.Size() > promptsKeepBytes+4*MaxPromptRunes {
		t.Fatalf("prompts file grew to %d bytes", fi.Size())
	}
	long := strings.Repeat("é", MaxPromptRunes+10)
	s.AddPrompt(now, long)
	if got := s.Prompts(1); len([]rune(got[0])) != MaxPromptRunes {
		t.Fatalf("stored %d characters", len([]rune(got[0])))
	}
	// A torn last line is skipped, the ones before it are read.
	f, _ := os.OpenFile(s.Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"at":"x","prompt":"tor`)
	f.Close()
	if got := s.Prompts(2); len(got) != 2 || got[1] != long[:2*MaxPromptRunes] {
		t.Fatalf("after a torn line: %d prompts", len(got))
	}
	// The next line starts on a line of its own: the torn one does not
	// swallow it.
	if err := s.AddPrompt(now, "after the tear"); err != nil {
		t.Fatal(err)
	}
	if got := (Session{Root: d, Path: s.Path}).Prompts(1); len(got) != 1 || got[0] != "after the tear" {
		t.Fatalf("the prompt after a torn line: %q", got)
	}
}

func TestClaimIsExclusive(t *testing.T) {
	d := t.TempDir()
	path := filepath.Join(d, "sessions", "s.jsonl")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each its own Session, as each hook is its own process.
			s := Session{Root: d, Path: path, st: &sessionState{}}
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
	s := Session{Root: d, Path: path, st: &sessionState{}}
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

// Trimming the prompts keeps every claim: an item served before stays
// served.
func TestTrimKeepsClaims(t *testing.T) {
	d := t.TempDir()
	path := filepath.Join(d, "s.jsonl")
	s := Session{Root: d, Path: path, st: &sessionState{}}
	for i := 0; i < 5; i++ {
		if ok, err := s.Claim(Served{Ref: fmt.Sprintf("entry:%d", i), Path: "x.go", At: "2026-05-10T09:00:0" + fmt.Sprint(i) + "Z"}); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	for i := 0; i < 60; i++ {
		if err := s.AddPrompt(now, fmt.Sprintf("prompt %d %s", i, strings.Repeat("x", 1900))); err != nil {
			t.Fatal(err)
		}
	}
	if fi, _ := os.Stat(path); fi.Size() > promptsKeepBytes+4*MaxPromptRunes {
		t.Fatalf("the file grew to %d bytes", fi.Size())
	}
	fresh := Session{Root: d, Path: path, st: &sessionState{}}
	for i := 0; i < 5; i++ {
		if !fresh.Claimed(fmt.Sprintf("entry:%d", i), "x.go") {
			t.Fatalf("claim %d lost by the trim", i)
		}
	}
	if ok, _ := fresh.Claim(Served{Ref: "entry:0", Path: "x.go"}); ok {
		t.Fatal("claimed twice after the trim")
	}
	if served, err := fresh.ServedIn(); err != nil || len(served) != 5 || served[4].Ref != "entry:4" {
		t.Fatalf("%+v %v", served, err)
	}
	if got := fresh.Prompts(RecentPrompts); len(got) != RecentPrompts || !strings.HasPrefix(got[2], "prompt 59 ") {
		t.Fatalf("%d prompts, %.12q", len(got), got)
	}
}

// A session's state is one file, whatever is served and asked: its first
// calls create that file and nothing else (docs/benchmarks.md; each creation costs
// about as much as the rest of the call on a slow disk).
func TestNewSessionCreatesOneFile(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	// The cache and the sessions folder, made once per clone.
	if p.run(PreToolUse, p.write("plugin.json", "warm")) == "" {
		t.Fatal("not served")
	}
	sessions := filepath.Join(p.root, ".git", "devlearn", "sessions")
	before := tree(t, p.root)
	if p.run(UserPromptSubmit, map[string]any{"session_id": "s9", "cwd": p.root, "prompt": "do the version bump"}) == "" {
		t.Fatal("the prompt was not served")
	}
	for _, f := range []string{".claude-plugin/plugin.json", "a/plugin.json", "b/plugin.json"} {
		if p.run(PreToolUse, p.write(f, "s9")) == "" {
			t.Fatalf("%s not served", f)
		}
	}
	var created []string
	for path := range tree(t, p.root) {
		if !before[path] {
			created = append(created, path)
		}
	}
	if want := filepath.Join(sessions, "s9.jsonl"); len(created) != 1 || created[0] != want {
		t.Fatalf("created %q, want only %s", created, want)
	}
}

// tree is every file and folder under root.
func tree(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		out[path] = true
		return nil
	})
	return out
}

// A session's file grown far past what a session writes (broken, or a
// sparse file of zeros) is read from near its end, not whole at each call:
// a gigabyte took a minute and 3 GB before.
func TestHugeSessionFileIsReadToABound(t *testing.T) {
	d := t.TempDir()
	path := filepath.Join(d, "s.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(256 << 20)
	f.Close()
	s := Session{Root: d, Path: path}
	if err := s.AddPrompt(now, "after the zeros"); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := Session{Root: d, Path: path}.Prompts(1)
	runtime.ReadMemStats(&after)
	if len(got) != 1 || got[0] != "after the zeros" {
		t.Fatalf("prompts: %q", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*maxStateRead {
		t.Fatalf("read a 256 MB file with %d MB allocated", n>>20)
	}
}
