//go:build unix

package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// dir is an open folder below root and the path it was reached by.
type dir struct {
	fd   int
	path string
}

// opened counts the folders opened, for FoldersOpened.
var opened atomic.Int64

// FoldersOpened is how many folders this process has opened on the way to
// a file: a test guards with it that a batch opens each folder once, not
// once per operation.
func FoldersOpened() int64 { return opened.Load() }

// maxOpen bounds the folders a Tree keeps open, past which it closes them
// all and opens again what it needs: enough for a batch that keeps copies
// in all 256 folders of the object store, or writes a skill folder per
// artifact, and a quarter of the files the process may open (two Trees of
// a batch, and what else is open, stay well inside the limit).
var maxOpen = sync.OnceValue(func() int {
	n := 300
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(lim.Cur)/4 < uint64(n) {
		n = max(int(uint64(lim.Cur)/4), 8)
	}
	return n
})

// Tree is a trusted folder opened once for a batch of writes. Each folder
// below the root is reached once, by the same openat(2) O_NOFOLLOW steps a
// single write takes, and kept open; every later operation in it is made
// relative to that open folder (openat, mkdirat, renameat, unlinkat,
// fstatat) instead of walking down from the root again. The guarantee is
// the one of a single write: an open folder is the very folder the
// O_NOFOLLOW steps checked, and a name looked up relative to it never
// passes through its parents again, so a symbolic link swapped in for that
// folder (or one above it) after it was opened is never followed. The file
// at the end is opened with O_NOFOLLOW as well, and a link there refused.
//
// A Tree is for one goroutine and one batch (a writer's lock held, say):
// Close releases its folders. Each package-level function is a Tree of one
// operation.
type Tree struct {
	root string
	dirs map[string]dir // by path relative to root, "" is root itself
}

// NewTree returns root for a batch of operations below it. Nothing is
// opened yet: an error (root missing, say) comes with the first operation,
// as with the package-level functions.
func NewTree(root string) *Tree { return &Tree{root: root, dirs: map[string]dir{}} }

// Root is the trusted folder.
func (t *Tree) Root() string { return t.root }

// Close closes every folder the Tree opened.
func (t *Tree) Close() error {
	t.flush()
	return nil
}

func (t *Tree) flush() {
	for k, d := range t.dirs {
		unix.Close(d.fd)
		delete(t.dirs, k)
	}
}

// begin starts an operation: the folders a previous one left open are
// closed past maxOpen. Only here, so that no folder an operation holds is
// closed under it.
func (t *Tree) begin() {
	if len(t.dirs) >= maxOpen() {
		t.flush()
	}
}

// openDir returns the folder of parts below root without following a link,
// from the deepest one already open, creating missing ones with perm when
// create is set. The folder belongs to t: the caller does not close it.
func (t *Tree) openDir(op, path string, parts []string, create bool, perm os.FileMode) (dir, error) {
	key := strings.Join(parts, string(filepath.Separator))
	if d, ok := t.dirs[key]; ok {
		return d, nil
	}
	// The deepest folder on the way already open.
	i := len(parts) - 1
	for ; i >= 0; i-- {
		if _, ok := t.dirs[strings.Join(parts[:i], string(filepath.Separator))]; ok {
			break
		}
	}
	if i < 0 {
		opened.Add(1)
		fd, err := unix.Open(t.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return dir{}, &fs.PathError{Op: "open", Path: t.root, Err: err}
		}
		t.dirs[""] = dir{fd: fd, path: t.root}
		i = 0
	}
	d := t.dirs[strings.Join(parts[:i], string(filepath.Separator))]
	for j := i; j < len(parts); j++ {
		name := parts[j]
		next := filepath.Join(d.path, name)
		opened.Add(1)
		nfd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT && create {
			if err = unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err == nil || err == unix.EEXIST {
				nfd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			if lerr := linkAt(op, t.root, path, d, name, err); lerr != nil {
				return dir{}, lerr
			}
			return dir{}, &fs.PathError{Op: op, Path: next, Err: err}
		}
		d = dir{fd: nfd, path: next}
		t.dirs[strings.Join(parts[:j+1], string(filepath.Separator))] = d
	}
	return d, nil
}

// linkAt returns a *LinkError when name in d is a symbolic link; err is
// what opening it returned. ENOENT says there is no entry at all (a link,
// even a dangling one, fails an O_NOFOLLOW open with ELOOP or EMLINK), so
// nothing is looked up for it.
func linkAt(op, root, path string, d dir, name string, err error) error {
	var st unix.Stat_t
	if err == unix.ENOENT || unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return nil
	}
	buf := make([]byte, 4096)
	target := ""
	if n, err := unix.Readlinkat(d.fd, name, buf); err == nil {
		target = string(buf[:n])
	}
	return &LinkError{Op: op, Path: path, Link: filepath.Join(d.path, name), Target: target, Root: root}
}

// parent opens the folder holding path and returns it with path's last
// name.
func (t *Tree) parent(op, path string, create bool, perm os.FileMode) (dir, string, error) {
	parts, err := rel(t.root, path)
	if err != nil {
		return dir{}, "", err
	}
	if len(parts) == 0 {
		return dir{}, "", &fs.PathError{Op: op, Path: path, Err: syscall.EISDIR}
	}
	d, err := t.openDir(op, path, parts[:len(parts)-1], create, perm)
	return d, parts[len(parts)-1], err
}

// openAt opens name in d with O_NOFOLLOW, refusing a link there as op.
func (t *Tree) openAt(op, path string, d dir, name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := t.openFD(op, path, d, name, flag, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openFD is openAt's descriptor, for a caller that writes through it.
func (t *Tree) openFD(op, path string, d dir, name string, flag int, perm os.FileMode) (int, error) {
	fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if lerr := linkAt(op, t.root, path, d, name, err); lerr != nil {
			return -1, lerr
		}
		return -1, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// OpenFile is os.OpenFile for a path below root: no folder between root
// and path, and not path itself, may be a symbolic link. The folders must
// exist (MkdirAll makes them).
func (t *Tree) OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	t.begin()
	d, name, err := t.parent("write", path, false, 0)
	if err != nil {
		return nil, err
	}
	return t.openAt("write", path, d, name, flag, perm)
}

// ReadFile reads the file at path as a writer about to replace it does: a
// symbolic link at it or at a folder on the way is refused as a write
// would be, and a missing file or folder is an error that matches
// fs.ErrNotExist.
func (t *Tree) ReadFile(path string) ([]byte, error) {
	t.begin()
	d, name, err := t.parent("write", path, false, 0)
	if err != nil {
		return nil, err
	}
	f, err := t.openAt("write", path, d, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteFile writes data to path (created, or truncated). Its folder must
// exist (MkdirAll makes it).
func (t *Tree) WriteFile(path string, data []byte, perm os.FileMode) error {
	f, err := t.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	return writeClose(f, data)
}

// Exists reports whether anything is at path, a symbolic link included
// (not followed); a link at a folder on the way is refused, a missing
// folder is false.
func (t *Tree) Exists(path string) (bool, error) {
	st, _, err := t.lstat(path)
	return st != nil, err
}

// CheckNoLink is the package's CheckNoLink through the Tree's open
// folders.
func (t *Tree) CheckNoLink(path string) error {
	st, d, err := t.lstat(path)
	if err != nil || st == nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return err
	}
	return linkAt("write", t.root, path, d, filepath.Base(path), unix.ELOOP)
}

// lstat looks at path without following a link there; nil when nothing is
// at it (or a folder on the way is missing). Root itself is a folder.
func (t *Tree) lstat(path string) (*unix.Stat_t, dir, error) {
	t.begin()
	if filepath.Clean(path) == filepath.Clean(t.root) {
		return &unix.Stat_t{Mode: unix.S_IFDIR}, dir{}, nil
	}
	d, name, err := t.parent("write", path, false, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, d, nil
		}
		return nil, d, err
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err {
	case nil:
		return &st, d, nil
	case unix.ENOENT:
		return nil, d, nil
	default:
		return nil, d, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
}

// MkdirAll makes path and every missing folder above it, up to root,
// refusing a symbolic link on the way.
func (t *Tree) MkdirAll(path string, perm os.FileMode) error {
	t.begin()
	parts, err := rel(t.root, path)
	if err != nil {
		return err
	}
	_, err = t.openDir("create", path, parts, true, perm)
	return err
}

// CreateTemp creates a new file in folder dirPath (below root, made if
// missing) named pattern with its last "*" replaced by a random string, as
// os.CreateTemp does, with mode perm (less the umask, as for any new
// file): a file made to be renamed into place needs no chmod after.
func (t *Tree) CreateTemp(dirPath, pattern string, perm os.FileMode) (*os.File, error) {
	t.begin()
	parts, err := rel(t.root, dirPath)
	if err != nil {
		return nil, err
	}
	d, err := t.openDir("create", dirPath, parts, true, 0o755)
	if err != nil {
		return nil, err
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for try := 0; ; try++ {
		var b [6]byte
		rand.Read(b[:])
		name := prefix + hex.EncodeToString(b[:]) + suffix
		fd, err := unix.Openat(d.fd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
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
func (t *Tree) Rename(from, to string) error {
	t.begin()
	fd, fname, err := t.parent("rename", from, false, 0)
	if err != nil {
		return err
	}
	td, tname, err := t.parent("rename", to, false, 0)
	if err != nil {
		return err
	}
	if err := unix.Renameat(fd.fd, fname, td.fd, tname); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	t.forget(from)
	t.forget(to)
	return nil
}

// Link makes a hard link at to of the file at from, both below root: a
// link at from is linked itself, never followed, and a link at a folder
// on the way to either is refused. It fails when to exists, which is what
// makes it an exclusive create of a file written whole.
func (t *Tree) Link(from, to string) error {
	t.begin()
	fd, fname, err := t.parent("link", from, false, 0)
	if err != nil {
		return err
	}
	td, tname, err := t.parent("link", to, false, 0)
	if err != nil {
		return err
	}
	if err := unix.Linkat(fd.fd, fname, td.fd, tname, 0); err != nil {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: err}
	}
	return nil
}

// forget closes the open folders when path, just moved or removed, was one
// of them: its name no longer leads to it. The open folders always include
// every folder above each of them, so path itself is the one to look for.
func (t *Tree) forget(path string) {
	if r, err := filepath.Rel(t.root, path); err == nil {
		if _, ok := t.dirs[r]; ok {
			t.flush()
		}
	}
}

// Remove removes the file (or empty folder) at path; a link there is
// removed itself, a link at a folder on the way is refused.
func (t *Tree) Remove(path string) error {
	t.begin()
	d, name, err := t.parent("remove", path, false, 0)
	if err != nil {
		return err
	}
	err = unix.Unlinkat(d.fd, name, 0)
	if err == unix.EISDIR || err == unix.EPERM {
		// A folder (Linux says EISDIR, macOS EPERM): removed when empty.
		if derr := unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR); derr != unix.ENOTDIR {
			err = derr
		}
		if err == nil {
			t.forget(path)
		}
	}
	if err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// Chtimes sets the modification (and access) time of the file at path,
// not following a link there; a link at a folder on the way is refused.
func (t *Tree) Chtimes(path string, mtime time.Time) error {
	t.begin()
	d, name, err := t.parent("write", path, false, 0)
	if err != nil {
		return err
	}
	ts := unix.NsecToTimespec(mtime.UnixNano())
	if err := unix.UtimesNanoAt(d.fd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "chtimes", Path: path, Err: err}
	}
	return nil
}

// Symlink creates a symbolic link at path holding target (a checkout of a
// link that is committed): the link is made, never followed.
func (t *Tree) Symlink(target, path string) error {
	t.begin()
	d, name, err := t.parent("create", path, false, 0)
	if err != nil {
		return err
	}
	if err := unix.Symlinkat(target, d.fd, name); err != nil {
		return &os.LinkError{Op: "symlink", Old: target, New: path, Err: err}
	}
	return nil
}

// OpenFile is os.OpenFile for a path below root: no folder between root
// and path, and not path itself, may be a symbolic link. The folders must
// exist (MkdirAll makes them).
func OpenFile(root, path string, flag int, perm os.FileMode) (*os.File, error) {
	t := NewTree(root)
	defer t.Close()
	return t.OpenFile(path, flag, perm)
}

// MkdirAll makes dir and every missing folder above it, up to root,
// refusing a symbolic link on the way.
func MkdirAll(root, path string, perm os.FileMode) error {
	t := NewTree(root)
	defer t.Close()
	return t.MkdirAll(path, perm)
}

// CreateTemp creates a new file in folder dir (below root, made if
// missing) named pattern with its last "*" replaced by a random string, as
// os.CreateTemp does (mode 0600).
func CreateTemp(root, dirPath, pattern string) (*os.File, error) {
	t := NewTree(root)
	defer t.Close()
	return t.CreateTemp(dirPath, pattern, 0o600)
}

// Rename moves from onto to, both below root. A link at to itself is
// replaced, never followed (rename(2) does not follow it); a link at any
// folder on the way to either is refused.
func Rename(root, from, to string) error {
	t := NewTree(root)
	defer t.Close()
	return t.Rename(from, to)
}

// Remove removes the file (or empty folder) at path; a link there is
// removed itself, a link at a folder on the way is refused.
func Remove(root, path string) error {
	t := NewTree(root)
	defer t.Close()
	return t.Remove(path)
}

// Link makes a hard link at to of the file at from, both below root; it
// fails when to exists (see Tree.Link).
func Link(root, from, to string) error {
	t := NewTree(root)
	defer t.Close()
	return t.Link(from, to)
}

// Symlink creates a symbolic link at path holding target (a checkout of a
// link that is committed): the link is made, never followed.
func Symlink(root, target, path string) error {
	t := NewTree(root)
	defer t.Close()
	return t.Symlink(target, path)
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
