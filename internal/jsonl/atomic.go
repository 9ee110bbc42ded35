package jsonl

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// WriteAtomic replaces the file at path with what write produces: into a
// temporary file beside it, synced, renamed over path, and the folder
// synced, so that a crash leaves either the old file or the new one, whole.
func WriteAtomic(path string, perm os.FileMode, write func(w *bufio.Writer) error) error {
	if err := replace(path, perm, write, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// replace writes a temporary file beside path, synced when durable, and
// renames it over path; on failure the temporary file goes.
func replace(path string, perm os.FileMode, write func(w *bufio.Writer) error, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
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
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// WriteFileAtomic is WriteAtomic for bytes already in memory.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return WriteAtomic(path, perm, writeBytes(data))
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
func WriteFileRename(path string, data []byte, perm os.FileMode) error {
	return replace(path, perm, writeBytes(data), false)
}

func writeBytes(data []byte) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	}
}
