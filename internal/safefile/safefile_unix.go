//go:build unix

package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// dir is an open folder below root and the path it was reached by.
type dir struct {
	fd   int
	path string
}

func (d dir) close() { unix.Close(d.fd) }

// openDir walks from root down the folders of parts without following a
// link, creating missing ones with perm when create is set.
func openDir(op, root, path string, parts []string, create bool, perm os.FileMode) (dir, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dir{}, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	d := dir{fd: fd, path: root}
	for _, name := range parts {
		next := filepath.Join(d.path, name)
		nfd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT && create {
			if err = unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err == nil || err == unix.EEXIST {
				nfd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			lerr := linkAt(op, root, path, d, name)
			d.close()
			if lerr != nil {
				return dir{}, lerr
			}
			return dir{}, &fs.PathError{Op: op, Path: next, Err: err}
		}
		d.close()
		d = dir{fd: nfd, path: next}
	}
	return d, nil
}

// linkAt returns a *LinkError when name in d is a symbolic link.
func linkAt(op, root, path string, d dir, name string) error {
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return nil
	}
	buf := make([]byte, 4096)
	target := ""
	if n, err := unix.Readlinkat(d.fd, name, buf); err == nil {
		target = string(buf[:n])
	}
	return &LinkError{Op: op, Path: path, Link: filepath.Join(d.path, name), Target: target, Root: root}
}

// parent opens the folder holding path (which must exist) and returns it
// with path's last name.
func parent(op, root, path string, create bool, perm os.FileMode) (dir, string, error) {
	parts, err := rel(root, path)
	if err != nil {
		return dir{}, "", err
	}
	if len(parts) == 0 {
		return dir{}, "", &fs.PathError{Op: op, Path: path, Err: syscall.EISDIR}
	}
	d, err := openDir(op, root, path, parts[:len(parts)-1], create, perm)
	return d, parts[len(parts)-1], err
}

// OpenFile is os.OpenFile for a path below root: no folder between root
// and path, and not path itself, may be a symbolic link. The folders must
// exist (MkdirAll makes them).
func OpenFile(root, path string, flag int, perm os.FileMode) (*os.File, error) {
	d, name, err := parent("write", root, path, false, 0)
	if err != nil {
		return nil, err
	}
	defer d.close()
	fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if lerr := linkAt("write", root, path, d, name); lerr != nil {
			return nil, lerr
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// MkdirAll makes dir and every missing folder above it, up to root,
// refusing a symbolic link on the way.
func MkdirAll(root, path string, perm os.FileMode) error {
	parts, err := rel(root, path)
	if err != nil {
		return err
	}
	d, err := openDir("create", root, path, parts, true, perm)
	if err != nil {
		return err
	}
	d.close()
	return nil
}

// CreateTemp creates a new file in folder dir (below root, made if
// missing) named pattern with its last "*" replaced by a random string, as
// os.CreateTemp does.
func CreateTemp(root, dirPath, pattern string) (*os.File, error) {
	parts, err := rel(root, dirPath)
	if err != nil {
		return nil, err
	}
	d, err := openDir("create", root, dirPath, parts, true, 0o755)
	if err != nil {
		return nil, err
	}
	defer d.close()
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		var b [6]byte
		rand.Read(b[:])
		name := prefix + hex.EncodeToString(b[:]) + suffix
		fd, err := unix.Openat(d.fd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == unix.EEXIST && try < 100 {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dirPath, pattern), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(dirPath, name)), nil
	}
}

// Rename moves from onto to, both below root. A link at to itself is
// replaced, never followed (rename(2) does not follow it); a link at any
// folder on the way to either is refused.
func Rename(root, from, to string) error {
	fd, fname, err := parent("rename", root, from, false, 0)
	if err != nil {
		return err
	}
	defer fd.close()
	td, tname, err := parent("rename", root, to, false, 0)
	if err != nil {
		return err
	}
	defer td.close()
	if err := unix.Renameat(fd.fd, fname, td.fd, tname); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// Remove removes the file (or empty folder) at path; a link there is
// removed itself, a link at a folder on the way is refused.
func Remove(root, path string) error {
	d, name, err := parent("remove", root, path, false, 0)
	if err != nil {
		return err
	}
	defer d.close()
	err = unix.Unlinkat(d.fd, name, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		// A folder (Linux says EISDIR, macOS EPERM): removed when empty.
		if derr := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); derr != unix.ENOTDIR {
			err = derr
		}
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// Symlink creates a symbolic link at path holding target (a checkout of a
// link that is committed): the link is made, never followed.
func Symlink(root, target, path string) error {
	d, name, err := parent("create", root, path, false, 0)
	if err != nil {
		return err
	}
	defer d.close()
	if err := unix.Symlinkat(target, d.fd, name); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: path, Err: err}
	}
	return nil
}

// Chmod changes the mode of the file at path, or of root itself; a link
// below root is refused.
func Chmod(root, path string, mode os.FileMode) error {
	if filepath.Clean(path) == filepath.Clean(root) {
		return os.Chmod(root, mode)
	}
	f, err := OpenFile(root, path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(mode)
}
