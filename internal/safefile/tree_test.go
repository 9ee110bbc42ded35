package safefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Every operation of a Tree refuses a link at the file or at a folder on
// the way with the very error the package-level function gives.
func TestTreeRefusesALinkAsTheFunctionsDo(t *testing.T) {
	root, outside := repo(t)
	log := filepath.Join(root, ".memory", "learning-log.jsonl")
	cmd := filepath.Join(root, ".claude", "commands", "x.md")
	const file, folder = ".memory/learning-log.jsonl", ".claude"
	tr := NewTree(root)
	defer tr.Close()
	for _, c := range []struct {
		name, link string
		tree, fn   func() error
	}{
		{"append to a linked file", file, func() error { return closed(tr.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)) },
			func() error { return closed(OpenFile(root, log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)) }},
		{"write a linked file", file, func() error { return tr.WriteFile(log, []byte("x"), 0o644) },
			func() error { return WriteFile(root, log, []byte("x"), 0o644) }},
		{"read a linked file before replacing it", file, func() error { _, err := tr.ReadFile(log); return err },
			func() error { return CheckNoLink(root, log) }},
		{"check a linked file", file, func() error { return tr.CheckNoLink(log) }, func() error { return CheckNoLink(root, log) }},
		{"write under a linked folder", folder, func() error { return tr.WriteFile(cmd, []byte("x"), 0o644) },
			func() error { return WriteFile(root, cmd, []byte("x"), 0o644) }},
		{"read under a linked folder", folder, func() error { _, err := tr.ReadFile(cmd); return err },
			func() error { return CheckNoLink(root, cmd) }},
		{"look under a linked folder", folder, func() error { _, err := tr.Exists(cmd); return err },
			func() error { return CheckNoLink(root, cmd) }},
		{"make a folder under a linked folder", folder, func() error { return tr.MkdirAll(filepath.Dir(cmd), 0o755) },
			func() error { return MkdirAll(root, filepath.Dir(cmd), 0o755) }},
		{"a temporary file under a linked folder", folder, func() error { return closed(tr.CreateTemp(filepath.Dir(cmd), "t-*", 0o644)) },
			func() error { return closed(CreateTemp(root, filepath.Dir(cmd), "t-*")) }},
		{"rename into a linked folder", folder, func() error { return tr.Rename(filepath.Join(root, ".git", "x"), cmd) },
			func() error { return Rename(root, filepath.Join(root, ".git", "x"), cmd) }},
		{"remove under a linked folder", folder, func() error { return tr.Remove(filepath.Join(root, ".claude", ".bashrc")) },
			func() error { return Remove(root, filepath.Join(root, ".claude", ".bashrc")) }},
		{"make a link under a linked folder", folder, func() error { return tr.Symlink("x", cmd) },
			func() error { return Symlink(root, "x", cmd) }},
		{"check under a linked folder", folder, func() error { return tr.CheckNoLink(cmd) }, func() error { return CheckNoLink(root, cmd) }},
		{"set a time under a linked folder", folder, func() error { return tr.Chtimes(cmd, time.Unix(1e9, 0)) }, func() error { return CheckNoLink(root, cmd) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.tree()
			wantLink(t, err, c.link)
			if want := c.fn(); want == nil || err.Error() != want.Error() {
				t.Fatalf("the Tree says\n  %v\nthe function says\n  %v", err, want)
			}
			untouched(t, outside)
		})
	}
}

// Chtimes sets the time prune reads of a copy written through the Tree.
func TestTreeChtimes(t *testing.T) {
	root, _ := repo(t)
	tr := NewTree(root)
	defer tr.Close()
	path := filepath.Join(root, ".git", "devlearn", "objects", "ab", "cdef")
	if err := tr.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := tr.Chtimes(path, at); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || !fi.ModTime().Equal(at) {
		t.Fatalf("%v %v, want %v", fi.ModTime(), err, at)
	}
}

func closed(f *os.File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}

// A folder removed or moved through the Tree is forgotten: the next write
// there makes it again instead of writing into the removed one.
func TestTreeForgetsAFolderItRemovedOrMoved(t *testing.T) {
	root := t.TempDir()
	tr := NewTree(root)
	defer tr.Close()
	c := filepath.Join(root, "a", "c")
	if err := tr.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.Remove(c); err != nil {
		t.Fatal(err)
	}
	if err := tr.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile(filepath.Join(c, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tr.Rename(c, filepath.Join(root, "a", "d")); err != nil {
		t.Fatal(err)
	}
	if err := tr.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteFile(filepath.Join(c, "g"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "a", "d", "f"), filepath.Join(c, "g")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "a", "d", "g")); err == nil {
		t.Error("written into the moved folder")
	}
}
