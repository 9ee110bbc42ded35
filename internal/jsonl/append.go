package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/safefile"
)

// Append adds lines to the log at path under the lock at lockPath. root is
// the folder path belongs to (the repository, the clone's git folder,
// $DEVLEARN_HOME): below it no symbolic link is followed (safefile). The lock
// is taken before the file is opened, because compaction replaces the file:
// a writer that opened first could append to the replaced inode and be lost.
// Lines go out whole, with their newlines, in as few write(2) calls as
// fit a 64 KiB buffer, on a file opened with O_APPEND, so lines of
// concurrent writers never interleave.
func Append(ctx context.Context, root, path, lockPath string, lines ...[]byte) error {
	if len(lines) == 0 {
		return nil
	}
	for i, l := range lines {
		if len(l) == 0 || bytes.IndexByte(l, '\n') >= 0 {
			return fmt.Errorf("append %s: line %d is empty or holds a newline", path, i+1)
		}
	}
	unlock, err := Lock(ctx, lockPath)
	if err != nil {
		return err
	}
	defer unlock()
	return appendLocked(root, path, lines)
}

// AppendLocked is Append for a caller that already holds the lock (a
// compaction or purge that appends after rewriting, say).
func AppendLocked(root, path string, lines ...[]byte) error { return appendLocked(root, path, lines) }

func appendLocked(root, path string, lines [][]byte) error {
	if err := safefile.MkdirAll(root, filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := safefile.OpenFile(root, path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := repairTail(f); err != nil {
		f.Close()
		return err
	}
	// Whole lines, as many as fit in one buffer, go out in one write(2):
	// with O_APPEND the kernel puts a write whole at the end of the file,
	// so a concurrent writer's lines land before or after them, never
	// inside, as with a write per line, at a write per batch (a render
	// appends a thousand events at once).
	const flushAt = 64 << 10
	buf := make([]byte, 0, 4096)
	for i, l := range lines {
		buf = append(append(buf, l...), '\n')
		if len(buf) < flushAt && i < len(lines)-1 {
			continue
		}
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return fmt.Errorf("append %s: %w", path, err)
		}
		buf = buf[:0]
	}
	return f.Close()
}

// repairTail ends a torn last line (a writer that crashed mid-write) with a
// newline, so that the torn bytes stay one bad line on their own instead of
// swallowing the next good one.
func repairTail(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	r, err := os.Open(f.Name()) // f is opened to write only
	if err != nil {
		return err
	}
	defer r.Close()
	if !Torn(r, fi.Size()) {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}

// Torn reports whether the size bytes r holds end inside a line: a writer
// stopped before its newline. The next line written must start on a line
// of its own, or a reader takes both for one bad line.
func Torn(r io.ReaderAt, size int64) bool {
	if size == 0 {
		return false
	}
	var last [1]byte
	_, err := r.ReadAt(last[:], size-1)
	return err == nil && last[0] != '\n'
}

// ErrNotExist is returned by readers for a log that was never written.
var ErrNotExist = errors.New("log does not exist")
