package evolve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

func newProject(t *testing.T) *project.Project {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var now = time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC)

func TestApplyWritesRecordsAndKeepsWhatItReplaces(t *testing.T) {
	p := newProject(t)
	os.WriteFile(p.Path("a.md"), []byte("old\n"), 0o644)
	w := New(p, now, Trigger{Command: "test", Session: "s1"})
	e, err := w.Apply(context.Background(), Reason{Text: "because", Observations: []string{"obs_1"}},
		Change{Path: "a.md", Data: []byte("new\n")},
		Change{Path: "dir/b.md", Data: []byte("b\n")},
	)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p.Path("a.md")); string(got) != "new\n" {
		t.Fatalf("a.md = %q", got)
	}
	if len(e.Files) != 2 || e.Files[0].Before != BlobHash([]byte("old\n")) || e.Files[1].Before != "" || e.Files[1].After != BlobHash([]byte("b\n")) {
		t.Fatalf("entry %+v", e)
	}
	// git agrees on the blob hash of "old\n" (git hash-object).
	if e.Files[0].Before != "3367afdbbf91e638efe983616377c60477cc6612" {
		t.Fatalf("blob hash %s", e.Files[0].Before)
	}
	if kept, err := os.ReadFile(w.ObjectPath(e.Files[0].Before)); err != nil || string(kept) != "old\n" {
		t.Fatalf("the replaced content was not kept: %q %v", kept, err)
	}
	entries, _, err := ReadLog(p)
	if err != nil || len(entries) != 1 || entries[0].ID != e.ID || entries[0].Trigger.Session != "s1" || entries[0].Reason.Observations[0] != "obs_1" {
		t.Fatalf("log %+v %v", entries, err)
	}
	// Writing the same content again is no change and records nothing.
	if e, err := w.Apply(context.Background(), Reason{Text: "again"}, Change{Path: "a.md", Data: []byte("new\n")}); err != nil || e != nil {
		t.Fatalf("no-op apply: %+v %v", e, err)
	}
	// Removal.
	e, err = w.Apply(context.Background(), Reason{Text: "remove"}, Change{Path: "dir/b.md", Remove: true})
	if err != nil || e.Files[0].After != "" {
		t.Fatal(e, err)
	}
	if _, err := os.Stat(p.Path("dir/b.md")); !os.IsNotExist(err) {
		t.Fatal("dir/b.md still there")
	}
}

func TestApplyRefusesPathsThatLeaveTheProject(t *testing.T) {
	p := newProject(t)
	outside := t.TempDir()
	os.Symlink(outside, p.Path("link"))
	os.Symlink(filepath.Join(outside, "f"), p.Path("filelink"))
	w := New(p, now, Trigger{Command: "test"})
	for _, rel := range []string{"../x", "/etc/passwd", "a/../../x", "link/x.md", "a\x00b", "", "filelink"} {
		if _, err := w.Apply(context.Background(), Reason{}, Change{Path: rel, Data: []byte("x")}); err == nil {
			t.Errorf("%q was accepted", rel)
		} else if !strings.Contains(err.Error(), "refusing") {
			t.Errorf("%q: %v", rel, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was written outside: %v", entries)
	}
}
