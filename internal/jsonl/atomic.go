package jsonl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/safefile"
)

// WriteAtomic replaces the file at path with what write produces: into a
// temporary file beside it, synced, renamed over path, and the folder
// synced, so that a crash leaves either the old file or the new one, whole.
// root is the folder path belongs to: below it, a symbolic link at a
// folder or at path itself is refused (safefile), never replaced.
func WriteAtomic(root, path string, perm os.FileMode, write func(w *bufio.Writer) error) error {
	if err := replace(root, path, perm, write, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// replace writes a temporary file beside path, synced when durable, and
// renames it over path; on failure the temporary file goes.
func replace(root, path string, perm os.FileMode, write func(w *bufio.Writer) error, durable bool) error {
	// A person's link at path would be replaced by a file: refused, like
	// one at a folder, with the file named.
	if err := safefile.CheckNoLink(root, path); err != nil {
		return err
	}
	return replaceOver(root, path, perm, write, durable)
}

// replaceOver is replace without the check of path itself: a link there
// is replaced (rename(2) never follows it); one at a folder is refused.
func replaceOver(root, path string, perm os.FileMode, write func(w *bufio.Writer) error, durable bool) error {
	dir := filepath.Dir(path)
	tmp, err := safefile.CreateTemp(root, dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			safefile.Remove(root, tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 64*1024)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := safefile.Rename(root, tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// WriteFileAtomic is WriteAtomic for bytes already in memory.
func WriteFileAtomic(root, path string, data []byte, perm os.FileMode) error {
	return WriteAtomic(root, path, perm, writeBytes(data))
}

// SyncDir makes a rename in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// WriteFileRename replaces the file at path through a temporary file beside
// it and a rename, so that a reader sees the old file or the new one, never
// a part. Unlike WriteFileAtomic it does not sync: it is for what can be
// rebuilt or lost (caches, copies), where an fsync per file costs more than
// a crash could.
func WriteFileRename(root, path string, data []byte, perm os.FileMode) error {
	return replace(root, path, perm, writeBytes(data), false)
}

// WriteRename is WriteFileRename with the content streamed by write: for a
// cache too big to build in memory first.
func WriteRename(root, path string, perm os.FileMode, write func(w *bufio.Writer) error) error {
	return replace(root, path, perm, write, false)
}

// WriteFileOver is WriteFileRename for a checkout: whatever is at path, a
// symbolic link included, is replaced by the file (a link at a folder on
// the way is still refused).
func WriteFileOver(root, path string, data []byte, perm os.FileMode) error {
	return replaceOver(root, path, perm, writeBytes(data), false)
}

func writeBytes(data []byte) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
