//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Where there is no openat(2), each write checks the path with Lstat
// first and then writes: the same refusals, without the guarantee that a
// link swapped in between is not followed.

func check(root, path string) error {
	if _, err := rel(root, path); err != nil {
		return err
	}
	return CheckNoLink(root, path)
}

func OpenFile(root, path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := check(root, path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}

func MkdirAll(root, path string, perm os.FileMode) error {
	if err := check(root, path); err != nil {
		return err
	}
	return os.MkdirAll(path, perm)
}

func CreateTemp(root, dir, pattern string) (*os.File, error) {
	if err := MkdirAll(root, dir, 0o755); err != nil {
		return nil, err
	}
	return os.CreateTemp(dir, pattern)
}

func Rename(root, from, to string) error {
	if err := check(root, filepath.Dir(from)); err != nil {
		return err
	}
	if err := check(root, filepath.Dir(to)); err != nil {
		return err
	}
	return os.Rename(from, to)
}

func Remove(root, path string) error {
	if err := check(root, filepath.Dir(path)); err != nil {
		return err
	}
	return os.Remove(path)
}

func Link(root, from, to string) error {
	if err := check(root, filepath.Dir(from)); err != nil {
		return err
	}
	if err := check(root, filepath.Dir(to)); err != nil {
		return err
	}
	return os.Link(from, to)
}

func Symlink(root, target, path string) error {
	if err := check(root, filepath.Dir(path)); err != nil {
		return err
	}
	return os.Symlink(target, path)
}

func Chmod(root, path string, mode os.FileMode) error {
	if err := check(root, path); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// FoldersOpened is 0: no folder is opened on the way to a file here.
func FoldersOpened() int64 { return 0 }

// Tree is a trusted folder for a batch of operations. Here it holds only
// the root: each operation checks its path as the functions above do.
type Tree struct{ root string }

// NewTree returns root for a batch of operations below it.
func NewTree(root string) *Tree { return &Tree{root: root} }

// Root is the trusted folder.
func (t *Tree) Root() string { return t.root }

// Close releases nothing: a Tree holds nothing open here.
func (t *Tree) Close() error { return nil }

func (t *Tree) OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return OpenFile(t.root, path, flag, perm)
}

// ReadFile reads the file at path, refusing a link at it or on the way as
// a write would.
func (t *Tree) ReadFile(path string) ([]byte, error) {
	if err := check(t.root, path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

func (t *Tree) WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFile(t.root, path, data, perm)
}

// WriteFileStat is WriteFile that also returns the file's stat as written.
func (t *Tree) WriteFileStat(path string, data []byte, perm os.FileMode) (fs.FileInfo, error) {
	if err := WriteFile(t.root, path, data, perm); err != nil {
		return nil, err
	}
	return os.Lstat(path)
}

// Exists reports whether anything is at path, a link included.
func (t *Tree) Exists(path string) (bool, error) {
	if err := check(t.root, filepath.Dir(path)); err != nil {
		return false, err
	}
	_, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (t *Tree) CheckNoLink(path string) error { return CheckNoLink(t.root, path) }

func (t *Tree) MkdirAll(path string, perm os.FileMode) error { return MkdirAll(t.root, path, perm) }

// CreateTemp is the package's CreateTemp with the file's mode set to perm.
func (t *Tree) CreateTemp(dir, pattern string, perm os.FileMode) (*os.File, error) {
	f, err := CreateTemp(t.root, dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

func (t *Tree) Rename(from, to string) error { return Rename(t.root, from, to) }

func (t *Tree) Remove(path string) error { return Remove(t.root, path) }

func (t *Tree) Symlink(target, path string) error { return Symlink(t.root, target, path) }

func (t *Tree) Chtimes(path string, mtime time.Time) error {
	if err := check(t.root, path); err != nil {
		return err
	}
	return os.Chtimes(path, mtime, mtime)
}
