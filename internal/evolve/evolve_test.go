package evolve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
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

func TestApplyRefusesPathsIntoGit(t *testing.T) {
	p := newProject(t)
	os.MkdirAll(p.Path(".git"), 0o755)
	os.WriteFile(p.Path(".git/config"), []byte("[core]\n"), 0o644)
	w := New(p, now, Trigger{Command: "test"})
	for _, c := range []Change{
		{Path: ".git/config", Remove: true},
		{Path: ".git/config", Data: []byte("x")},
		{Path: "sub/.GIT/hooks/pre-commit", Data: []byte("x")},
		{Path: "a/../.git/HEAD", Data: []byte("x")},
	} {
		if _, err := w.Apply(context.Background(), Reason{}, c); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("%q: %v", c.Path, err)
		}
	}
	if b, err := os.ReadFile(p.Path(".git/config")); err != nil || string(b) != "[core]\n" {
		t.Fatalf(".git/config changed: %q %v", b, err)
	}
	// Names that merely begin with .git are ordinary files.
	if _, err := w.Apply(context.Background(), Reason{}, Change{Path: ".gitignore", Data: []byte("x\n")}); err != nil {
		t.Fatal(err)
	}
}

func TestUnchangedFileKeepsNoCopy(t *testing.T) {
	p := newProject(t)
	os.WriteFile(p.Path("a.md"), []byte("same\n"), 0o644)
	w := New(p, now, Trigger{Command: "test"})
	if e, err := w.Apply(context.Background(), Reason{Text: "no-op"}, Change{Path: "a.md", Data: []byte("same\n")}); err != nil || e != nil {
		t.Fatalf("no-op apply: %+v %v", e, err)
	}
	if _, err := os.Stat(w.ObjectPath(BlobHash([]byte("same\n")))); !os.IsNotExist(err) {
		t.Fatalf("an unchanged file left a copy no entry names: %v", err)
	}
}

func TestForgetKeepsNoCopy(t *testing.T) {
	p := newProject(t)
	os.WriteFile(p.Path("a.md"), []byte("secret\n"), 0o644)
	w := New(p, now, Trigger{Command: "redact"})
	e, err := w.Apply(context.Background(), Reason{Text: "scrub"}, Change{Path: "a.md", Data: []byte("[REDACTED:literal]\n"), Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	if e.Files[0].Before != BlobHash([]byte("secret\n")) {
		t.Fatalf("entry %+v", e)
	}
	if _, err := os.Stat(w.ObjectPath(e.Files[0].Before)); !os.IsNotExist(err) {
		t.Fatalf("the scrubbed content was kept: %v", err)
	}
	if got, _ := os.ReadFile(p.Path("a.md")); string(got) != "[REDACTED:literal]\n" {
		t.Fatalf("a.md = %q", got)
	}
}

func TestApplyRefusesTheAuditLog(t *testing.T) {
	p := newProject(t)
	w := New(p, now, Trigger{Command: "test"})
	if _, err := w.Apply(context.Background(), Reason{}, Change{Path: LogPath, Data: []byte("x\n")}); err == nil || !strings.Contains(err.Error(), "RewriteLog") {
		t.Fatalf("got %v", err)
	}
}

func TestRewriteLog(t *testing.T) {
	p := newProject(t)
	w := New(p, now, Trigger{Command: "redact"})
	if e, err := w.RewriteLog(context.Background(), Reason{Text: "nothing yet"}, func(b []byte) ([]byte, error) { return b, nil }); e != nil || err != nil {
		t.Fatalf("no log: %+v %v", e, err)
	}
	if _, err := w.Apply(context.Background(), Reason{Text: "render hunter2-secret"}, Change{Path: "a.md", Data: []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p.Path(LogPath))
	scrub := func(b []byte) ([]byte, error) {
		return []byte(strings.ReplaceAll(string(b), "hunter2-secret", "[REDACTED:literal]")), nil
	}
	e, err := w.RewriteLog(context.Background(), Reason{Text: "redact: scrubbed"}, scrub)
	if err != nil || e == nil {
		t.Fatal(e, err)
	}
	after, _ := os.ReadFile(p.Path(LogPath))
	if strings.Contains(string(after), "hunter2") || !strings.Contains(string(after), "render [REDACTED:literal]") {
		t.Fatalf("log after:\n%s", after)
	}
	entries, problems, err := ReadLog(p)
	if err != nil || len(problems) > 0 || len(entries) != 2 || entries[1].ID != e.ID {
		t.Fatalf("entries %+v %v %v", entries, problems, err)
	}
	if f := e.Files[0]; f.Path != LogPath || f.Before != BlobHash(before) {
		t.Fatalf("file change %+v", f)
	}
	if _, err := os.Stat(w.ObjectPath(e.Files[0].Before)); !os.IsNotExist(err) {
		t.Fatal("the scrubbed log was kept")
	}
	// Nothing left to scrub: no entry.
	if e, err := w.RewriteLog(context.Background(), Reason{Text: "again"}, scrub); e != nil || err != nil {
		t.Fatalf("second rewrite: %+v %v", e, err)
	}
	// Apply after a rewrite appends to the rewritten log.
	if _, err := w.Apply(context.Background(), Reason{Text: "later"}, Change{Path: "a.md", Data: []byte("b\n")}); err != nil {
		t.Fatal(err)
	}
	if entries, _, _ := ReadLog(p); len(entries) != 3 {
		t.Fatalf("%d entries", len(entries))
	}
}

// A batch walks each folder once, not once per operation of each file (the
// cost of a bulk render, docs/benchmarks.md): counted, not timed. A walk per
// operation opened a dozen folders or more per file (the read, the kept
// copies' temporary files and renames, the temporary file, the rename
// into place). A folder found missing is looked for once, not once per
// file below it, and a bulk batch's copies go in one pack, not in up to
// 256 fan-out folders: the count does not grow with the files.
func TestApplyOpensEachFolderOnce(t *testing.T) {
	p := newProject(t)
	const n = 200
	batch := func(v int) []Change {
		changes := make([]Change, n)
		for i := range changes {
			changes[i] = Change{Path: fmt.Sprintf(".claude/commands/self-learning/f%d.md", i), Data: []byte(fmt.Sprintf("version %d of %d\n", v, i))}
		}
		return changes
	}
	for v := 0; v < 2; v++ {
		before := safefile.FoldersOpened()
		e, err := New(p, now, Trigger{Command: "test"}).Apply(context.Background(), Reason{Text: "bulk"}, batch(v)...)
		if err != nil || len(e.Files) != n {
			t.Fatal(e, err)
		}
		opened := safefile.FoldersOpened() - before
		t.Logf("batch %d: %d folders opened for %d files", v, opened, n)
		if opened > 40 {
			t.Fatalf("batch %d: %d folders opened for %d files; a batch opens each folder once", v, opened, n)
		}
	}
}

// A change at the path of a folder an earlier read of the batch found
// missing is read as any other (the folder's own path is not below it).
func TestApplyReadsAFileAtAMissingFolderPath(t *testing.T) {
	p := newProject(t)
	_, err := New(p, now, Trigger{Command: "test"}).Apply(context.Background(), Reason{Text: "t"},
		Change{Path: "notes/a.md", Data: []byte("a\n")}, Change{Path: "notes", Data: []byte("b\n")})
	if err == nil {
		t.Fatal("wrote a file and a folder at the same path")
	}
}
