// Package stamp identifies a version of a file or folder without reading
// it, as git's index does: its size, modification time and inode, or that
// it is not there. A cache keeps the stamps of what it was built from and
// is trusted while they are unchanged and none is racy.
package stamp

import (
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Stamp is a file's size, modification time (Unix nanoseconds) and inode
// (0 where the system has none), or the zero Stamp for a file that is not
// there.
type Stamp struct {
	Exists bool
	Size   int64
	Mtime  int64
	Ino    uint64
}

// taken counts the stamps this process asked the system for: a check that
// is meant to cost the same whatever the number of files is held to it by
// a test that counts (Taken), not by a timing.
var taken atomic.Int64

// Taken is how many files and folders this process has stamped (a stat
// call each) through this package.
func Taken() int64 { return taken.Load() }

// Of stamps path, following a symbolic link.
func Of(path string) Stamp {
	taken.Add(1)
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	return Info(fi)
}

// OfLink stamps path itself, a symbolic link rather than its target.
func OfLink(path string) Stamp {
	taken.Add(1)
	fi, err := os.Lstat(path)
	if err != nil {
		return Stamp{}
	}
	return Info(fi)
}

// Info stamps a file already stat'ed.
func Info(fi fs.FileInfo) Stamp {
	return Stamp{Exists: true, Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ino: inode(fi)}
}

// RacyWindow is how close to the time a cache is written a file's mtime
// may be before its stamp is not trusted: a change within the same clock
// tick, with the same size, would otherwise go unseen (git's "racy"
// entries).
const RacyWindow = 2 * time.Second

// Racy reports whether s is too recent, compared with written (when the
// cache holding it was written), to prove that the file did not change
// since.
func (s Stamp) Racy(written time.Time) bool {
	return s.Exists && time.Unix(0, s.Mtime).After(written.Add(-RacyWindow))
}
