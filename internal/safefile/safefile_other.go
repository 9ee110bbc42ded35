//go:build !unix

package safefile

import (
	"os"
	"path/filepath"
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
