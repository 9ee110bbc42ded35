//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A folder a Tree opened stays the folder it checked: a link someone swaps
// in for it (or for a folder above it) afterwards is never followed, by
// any operation; a new walk refuses the link.
func TestTreeNeverFollowsALinkSwappedInForAnOpenFolder(t *testing.T) {
	for _, swap := range []string{"a", filepath.Join("a", "b")} {
		t.Run(swap, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
			os.MkdirAll(filepath.Join(outside, "b"), 0o755)
			tr := NewTree(root)
			defer tr.Close()
			os.MkdirAll(root, 0o755)
			dir := filepath.Join(root, "a", "b")
			if err := tr.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tr.WriteFile(filepath.Join(dir, "one"), []byte("1"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The swap: the real folder moved aside, a link in its place.
			if err := os.Rename(filepath.Join(root, swap), filepath.Join(root, swap+"-moved")); err != nil {
				t.Fatal(err)
			}
			target := outside
			if swap != "a" {
				target = filepath.Join(outside, "b")
			}
			if err := os.Symlink(target, filepath.Join(root, swap)); err != nil {
				t.Skip(err)
			}
			writes := []func() error{
				func() error { return tr.WriteFile(filepath.Join(dir, "two"), []byte("2"), 0o644) },
				func() error { return closed(tr.OpenFile(filepath.Join(dir, "three"), os.O_WRONLY|os.O_CREATE, 0o644)) },
				func() error { return tr.MkdirAll(filepath.Join(dir, "sub"), 0o755) },
				func() error {
					f, err := tr.CreateTemp(dir, ".t-*", 0o644)
					if err != nil {
						return err
					}
					f.Close()
					return tr.Rename(f.Name(), filepath.Join(dir, "four"))
				},
				func() error { return tr.Rename(filepath.Join(dir, "one"), filepath.Join(dir, "five")) },
				func() error { return tr.Symlink("x", filepath.Join(dir, "six")) },
			}
			for i, w := range writes {
				if err := w(); err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			if ents, _ := os.ReadDir(filepath.Join(outside, "b")); len(ents) != 0 {
				t.Fatalf("written through the swapped-in link: %v", ents)
			}
			moved := filepath.Join(root, "a-moved", "b")
			if swap != "a" {
				moved = filepath.Join(root, "a", "b-moved")
			}
			for _, name := range []string{"two", "three", "sub", "four", "five", "six"} {
				if _, err := os.Lstat(filepath.Join(moved, name)); err != nil {
					t.Errorf("%s is not in the folder the Tree opened: %v", name, err)
				}
			}
			if b, err := tr.ReadFile(filepath.Join(dir, "two")); err != nil || string(b) != "2" {
				t.Fatalf("read through the open folder: %q %v", b, err)
			}
			// A new walk meets the link and refuses it.
			fresh := NewTree(root)
			defer fresh.Close()
			wantLink(t, fresh.WriteFile(filepath.Join(dir, "seven"), nil, 0o644), filepath.ToSlash(swap))
		})
	}
}

func TestTreeReadsLooksAndKeepsNothingOpen(t *testing.T) {
	root := t.TempDir()
	tr := NewTree(root)
	p := filepath.Join(root, "x", "f")
	if _, err := tr.ReadFile(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing folder: %v", err)
	}
	if there, err := tr.Exists(p); there || err != nil {
		t.Fatal(there, err)
	}
	if err := tr.CheckNoLink(p); err != nil {
		t.Fatal(err)
	}
	if there, err := tr.Exists(root); !there || err != nil {
		t.Fatal("the root", there, err)
	}
	fds := openFiles(t)
	// More folders than a Tree keeps open: each gets its file.
	for i := 0; i < 3*maxOpen(); i++ {
		f := filepath.Join(root, "d", string(rune('a'+i%26))+string(rune('a'+i/26)), "f")
		if err := tr.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := tr.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if n := openFiles(t); n > fds+maxOpen()+1 {
			t.Fatalf("%d files open, %d before", n, fds)
		}
	}
	if _, err := tr.ReadFile(filepath.Join(root, "d", "aa", "f")); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if n := openFiles(t); n > fds {
		t.Fatalf("%d files still open after Close, %d before", n, fds)
	}
}

func openFiles(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// WriteFileStat's stat is the file's as os.Lstat reads it, field by field,
// the inode a stamp keeps included; a link at the path is refused, not
// written through; a file there is replaced.
func TestWriteFileStatIsTheFilesStat(t *testing.T) {
	root := t.TempDir()
	tr := NewTree(root)
	defer tr.Close()
	path := filepath.Join(root, "a", "file.md")
	if err := tr.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data string
		perm os.FileMode
	}{{"first\n", 0o640}, {"", 0o644}, {string(make([]byte, 1<<20)), 0o644}} {
		fi, err := tr.WriteFileStat(path, []byte(tc.data), tc.perm)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Name() != want.Name() || fi.Size() != want.Size() || fi.Size() != int64(len(tc.data)) || fi.Mode() != want.Mode() ||
			!fi.ModTime().Equal(want.ModTime()) || fi.IsDir() != want.IsDir() {
			t.Fatalf("stat %v %d %v %v, os.Lstat %v %d %v %v", fi.Name(), fi.Size(), fi.Mode(), fi.ModTime(), want.Name(), want.Size(), want.Mode(), want.ModTime())
		}
		if got, want := fi.Sys().(*syscall.Stat_t).Ino, want.Sys().(*syscall.Stat_t).Ino; got != want {
			t.Fatalf("inode %d, os.Lstat %d", got, want)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.data {
			t.Fatalf("the file holds %d bytes, want %d", len(b), len(tc.data))
		}
	}
	outside := filepath.Join(t.TempDir(), "target")
	os.WriteFile(outside, []byte("theirs"), 0o644)
	link := filepath.Join(root, "a", "link.md")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var le *LinkError
	if _, err := tr.WriteFileStat(link, []byte("ours"), 0o644); !errors.As(err, &le) {
		t.Fatalf("writing at a link: %v, want a LinkError", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "theirs" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if _, err := tr.WriteFileStat(filepath.Join(root, "missing", "x.md"), nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing folder: %v", err)
	}
}
