package safefile

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// WriteFileStat is WriteFile that also returns the file's stat as written,
// taken before it is closed, as git's checkout records it in its index.
// It writes through the descriptor itself: an os.File would ask the
// kernel for the descriptor's flags and register a cleanup, for each of
// the hundreds of files a batch writes.
func (t *Tree) WriteFileStat(path string, data []byte, perm os.FileMode) (fs.FileInfo, error) {
	t.begin()
	d, name, err := t.parent("write", path, false, 0)
	if err != nil {
		return nil, err
	}
	fd, err := t.openFD("write", path, d, name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	fi := &fdInfo{name: name}
	for rest := data; len(rest) > 0 && err == nil; {
		var n int
		switch n, err = unix.Write(fd, rest); {
		case err == unix.EINTR:
			err = nil
		case err == nil && n == 0:
			err = io.ErrShortWrite
		case err == nil:
			rest = rest[n:]
		}
	}
	op := "write"
	if err == nil {
		op, err = "stat", syscall.Fstat(fd, &fi.st)
	}
	if cerr := unix.Close(fd); err == nil {
		op, err = "close", cerr
	}
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: path, Err: err}
	}
	return fi, nil
}

// fdInfo is the fs.FileInfo of a file stat-ed through its descriptor, as
// os.File.Stat gives it for a regular file.
type fdInfo struct {
	name string
	st   syscall.Stat_t
}

func (fi *fdInfo) Name() string       { return fi.name }
func (fi *fdInfo) Size() int64        { return fi.st.Size }
func (fi *fdInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *fdInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fdInfo) Sys() any           { return &fi.st }

func (fi *fdInfo) Mode() fs.FileMode {
	m := fs.FileMode(fi.st.Mode & 0o777)
	switch fi.st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	}
	if fi.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if fi.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if fi.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
