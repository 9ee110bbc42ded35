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
	if err := replace(root, path, perm, content{stream: write}, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// replace writes a temporary file beside path, synced when durable, and
// renames it over path; on failure the temporary file goes.
func replace(root, path string, perm os.FileMode, c content, durable bool) error {
	t := safefile.NewTree(root)
	defer t.Close()
	// A person's link at path would be replaced by a file: refused, like
	// one at a folder, with the file named.
	if err := t.CheckNoLink(path); err != nil {
		return err
	}
	return replaceIn(t, path, perm, c, durable, true)
}

// replaceOver is replace without the check of path itself: a link there
// is replaced (rename(2) never follows it); one at a folder is refused.
func replaceOver(root, path string, perm os.FileMode, c content, durable bool) error {
	t := safefile.NewTree(root)
	defer t.Close()
	return replaceIn(t, path, perm, c, durable, true)
}

// content is what a replacement writes: bytes already in memory, written
// as they are, or a stream through a buffer. A 64 KiB buffer for each of
// the thousand small files of a bulk render (and their kept copies) was a
// tenth of its CPU time, in allocation and clearing.
type content struct {
	data   []byte
	stream func(w *bufio.Writer) error
}

// replaceIn is replaceOver in a Tree. exact gives the file exactly perm,
// whatever the umask (a person's mode kept across a rewrite), at the cost
// of a chmod; otherwise it is created with perm less the umask, as any new
// file is.
func replaceIn(t *safefile.Tree, path string, perm os.FileMode, c content, durable, exact bool) error {
	mode := perm
	if exact {
		mode = 0o600
	}
	tmp, err := t.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*", mode)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			t.Remove(tmp.Name())
		}
	}()
	if c.stream != nil {
		bw := bufio.NewWriterSize(tmp, 64*1024)
		if err := c.stream(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	} else if _, err := tmp.Write(c.data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if exact {
		if err := tmp.Chmod(perm); err != nil {
			return err
		}
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := t.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	return nil
}

// WriteFileAtomic is WriteAtomic for bytes already in memory.
func WriteFileAtomic(root, path string, data []byte, perm os.FileMode) error {
	if err := replace(root, path, perm, content{data: data}, true); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
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
	return replace(root, path, perm, content{data: data}, false)
}

// WriteFileRenameIn is WriteFileRename for a batch that holds t open (the
// one writer keeping copies of what it replaces): no folder is walked
// again, and the file is created with perm less the umask, as any new file
// is, with no chmod after. Like WriteFileOver it does not look at path
// itself: a link there is replaced, never followed; a caller that must
// refuse one (naming it to the person) checks first.
func WriteFileRenameIn(t *safefile.Tree, path string, data []byte, perm os.FileMode) error {
	return replaceIn(t, path, perm, content{data: data}, false, false)
}

// WriteRename is WriteFileRename with the content streamed by write: for a
// cache too big to build in memory first.
func WriteRename(root, path string, perm os.FileMode, write func(w *bufio.Writer) error) error {
	return replace(root, path, perm, content{stream: write}, false)
}

// WriteFileOver is WriteFileRename for a checkout: whatever is at path, a
// symbolic link included, is replaced by the file (a link at a folder on
// the way is still refused).
func WriteFileOver(root, path string, data []byte, perm os.FileMode) error {
	return replaceOver(root, path, perm, content{data: data}, false)
}
