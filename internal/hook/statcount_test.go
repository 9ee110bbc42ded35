package hook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/stamp"
)

// statRoot is a project with n entries, one of which applies to a Write of
// src/module5/*.go, written just now (as a pull or a checkout writes them)
// or, old, an hour back.
func statRoot(t *testing.T, n int, old bool) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, ".memory", "knowledge", "entries")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		files := fmt.Sprintf("src/module%d/**", i%97+10)
		if i == n/2 {
			files = "src/module5/**"
		}
		body := fmt.Sprintf("---\nsummary: Lesson %d\npriority: HIGH\ntriggers:\n  tools: [Write]\n  files: [%q]\n---\nWhen touching %s, remember lesson %d.\n", i, files, files, i)
		path := filepath.Join(dir, fmt.Sprintf("lesson-%05d.md", i))
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if old {
			os.Chtimes(path, then, then)
		}
	}
	if old {
		os.Chtimes(dir, then, then)
	}
	return root
}

// A served pre-tool-use call stamps as many files at 1,000 entries as at
// 100: the hook's cost does not grow with the knowledge. (Counted through
// internal/stamp, which every cache check goes through; the entry served
// is read again, one open, whatever the count.) It holds for entries
// written long ago and for entries written just before the session
// started: once the folder's stamp is settled (milliseconds), the second
// tool call checks only the folders.
func TestPreToolUseStatCallsDoNotGrowWithEntries(t *testing.T) {
	for _, old := range []bool{true, false} {
		var counts []int64
		for _, n := range []int{100, 1000} {
			counts = append(counts, preToolUseStats(t, n, old))
		}
		if counts[0] != counts[1] || counts[1] > 10 {
			t.Fatalf("entries written long ago %v: stat calls of a served pre-tool-use at 100 and 1,000 entries: %v, want the same few", old, counts)
		}
		t.Logf("entries written long ago %v: stat calls per served pre-tool-use at 100 and 1,000 entries: %v", old, counts)
	}
}

// preToolUseStats starts a session on a project of n entries and counts
// the stamps its second served tool call takes.
func preToolUseStats(t *testing.T, n int, old bool) int64 {
	root := statRoot(t, n, old)
	env := Env{Dir: root, Now: time.Now}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	dir := filepath.Join(root, ".memory", "knowledge", "entries")
	time.Sleep(stamp.Window(stamp.Of(dir)) + 20*time.Millisecond)
	var out bytes.Buffer
	Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, 0)), &out) // the first call of a session
	before := stamp.Taken()
	out.Reset()
	Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, 1)), &out)
	got := stamp.Taken() - before
	if !bytes.Contains(out.Bytes(), []byte("src/module5/**")) {
		t.Fatalf("%d entries: nothing served: %q", n, out.String())
	}
	return got
}
