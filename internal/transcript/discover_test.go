package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	worktreesSession = "ef958aa1-0e93-49f0-bb71-150f63befcd1" // 2.1.x, subagents/ folder
	coderabbitSess   = "741790a4-4fe2-4644-9a51-fb4482074060" // 2.0.x, flat agent file
)

// claudeDir lays the real transcripts out as Claude Code does, under a
// config folder whose path holds glob characters.
func claudeDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cfg [x]*")
	p1 := filepath.Join(dir, "projects", "-experiments-worktrees")
	copyFile(t, realFile(t, "worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"), filepath.Join(p1, worktreesSession+".jsonl"))
	copyFile(t, realFile(t, "subagents__agent-ab1e6e141221a29ab"), filepath.Join(p1, worktreesSession, "subagents", "agent-ab1e6e141221a29ab.jsonl"))
	p2 := filepath.Join(dir, "projects", "-Users-dain-workspace-coderabbit-review-helper")
	copyFile(t, realFile(t, "sniffly"), filepath.Join(p2, coderabbitSess+".jsonl")) // any main file will do
	copyFile(t, realFile(t, "agent-9fa17969"), filepath.Join(p2, "agent-9fa17969.jsonl"))
	copyFile(t, realFile(t, "agent-9fa17969"), filepath.Join(p2, "agent-other.jsonl"))
	// agent-other belongs to another session: rewrite its session id.
	data, _ := os.ReadFile(filepath.Join(p2, "agent-other.jsonl"))
	data = []byte(strings.ReplaceAll(string(data), coderabbitSess, "00000000-0000-0000-0000-000000000000"))
	if err := os.WriteFile(filepath.Join(p2, "agent-other.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFindSession(t *testing.T) {
	dir := claudeDir(t)
	f, err := FindSession(dir, worktreesSession)
	if err != nil {
		t.Fatal(err)
	}
	wantMain := filepath.Join(dir, "projects", "-experiments-worktrees", worktreesSession+".jsonl")
	wantSub := filepath.Join(dir, "projects", "-experiments-worktrees", worktreesSession, "subagents", "agent-ab1e6e141221a29ab.jsonl")
	if f.Main != wantMain || !slices.Equal(f.Subagents, []string{wantSub}) {
		t.Fatalf("files %+v", f)
	}

	f, err = FindSession(dir, coderabbitSess)
	if err != nil {
		t.Fatal(err)
	}
	wantFlat := filepath.Join(dir, "projects", "-Users-dain-workspace-coderabbit-review-helper", "agent-9fa17969.jsonl")
	if !slices.Equal(f.Subagents, []string{wantFlat}) {
		t.Fatalf("flat agent files %v, want only the one whose session id matches", f.Subagents)
	}
	ch, err := ReadFiles(f.All(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	side := 0
	for _, tc := range ch.Tools {
		if tc.Sidechain {
			side++
		}
	}
	if side != 5 {
		t.Errorf("the subagent's 5 tool calls are not in the session's channels (%d)", side)
	}

	for _, bad := range []string{"", "..", "../x", `a\b`, "a/b"} {
		if _, err := FindSession(dir, bad); err == nil {
			t.Errorf("FindSession(%q): no error", bad)
		}
	}
	if _, err := FindSession(dir, "no-such-session"); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("missing session: %v", err)
	}
	if _, err := FindSession(t.TempDir(), worktreesSession); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("config folder without projects/: %v", err)
	}
}

func TestFindSessionNewestWins(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "projects", "a", "s1.jsonl")
	newer := filepath.Join(dir, "projects", "b", "s1.jsonl")
	copyFile(t, realFile(t, "sample_session"), old)
	copyFile(t, realFile(t, "sample_session"), newer)
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	f, err := FindSession(dir, "s1")
	if err != nil || f.Main != newer {
		t.Fatalf("%+v %v, want %s", f, err, newer)
	}
}

func TestFromPath(t *testing.T) {
	if _, err := FromPath(filepath.Join(t.TempDir(), "gone.jsonl")); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := FromPath(t.TempDir()); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("a folder: %v", err)
	}
	f, err := FromPath(realFile(t, "sample_session"))
	if err != nil || len(f.Subagents) != 0 {
		t.Errorf("%+v %v", f, err)
	}
}
