package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// pathUpdate is one path a checkout moves from old to next.
type pathUpdate struct {
	path      string
	old, next entry
}

// treeUpdates lists the paths that differ between two trees, deletions
// first so that a file can give way to a folder of the same name.
func treeUpdates(ctx context.Context, from, to *object.Tree) ([]pathUpdate, error) {
	changes, err := object.DiffTreeContext(ctx, from, to)
	if err != nil {
		return nil, err
	}
	ups := make([]pathUpdate, 0, len(changes))
	for _, c := range changes {
		u := pathUpdate{
			old:  entry{Hash: c.From.TreeEntry.Hash, Mode: c.From.TreeEntry.Mode},
			next: entry{Hash: c.To.TreeEntry.Hash, Mode: c.To.TreeEntry.Mode},
		}
		u.path = c.To.Name
		if u.path == "" {
			u.path = c.From.Name
		}
		ups = append(ups, u)
	}
	sort.SliceStable(ups, func(i, j int) bool {
		di, dj := ups[i].next.absent(), ups[j].next.absent()
		if di != dj {
			return di
		}
		return ups[i].path < ups[j].path
	})
	return ups, nil
}

// checkout is a worktree whose index is locked with git's own lock file
// (index.lock, created exclusively), so that no git command changes the
// index or, by convention, the files while devlearn updates them. The lock
// holds the merge journal's nonce (lockMarker): a lock a crashed merge
// left is known for what it is.
type checkout struct {
	w      *Worktree
	s      storer.EncodedObjectStorer
	idx    *index.Index
	byNm   map[string]*index.Entry
	lock   string
	marker []byte
	common string
	nonce  string
	done   bool
	// recovering is a checkout finished after a crash: the temporary
	// files the crashed writer left beside a path are its own.
	recovering bool
}

// lockCheckout locks w's index for the merge whose journal has nonce. With
// adopt, a lock that nonce's merge took and left (it crashed; the caller
// holds the base's merge lock, so it is not running) is taken over.
func lockCheckout(common string, w *Worktree, s storer.EncodedObjectStorer, nonce string, adopt bool) (*checkout, error) {
	if op, marker := (&project.Project{Root: w.Root, GitDir: w.GitDir}).Operation(); op != "" {
		return nil, refusef("finish or abort it there first", nil, "%s is in the middle of %s (%s exists)", w.Root, op, marker)
	}
	lock := filepath.Join(w.GitDir, "index.lock")
	marker := lockMarker(nonce)
	err := createLock(common, w.GitDir, lock, marker, nonce)
	if errors.Is(err, fs.ErrExist) && adopt && ownLock(lock, marker) {
		err = nil
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, refusef("wait for the other git command to finish; if none is running, remove "+lock, nil, "%s: another git process holds the index lock", w.Root)
	}
	if err != nil {
		return nil, err
	}
	c := &checkout{w: w, s: s, lock: lock, marker: marker, common: common, nonce: nonce}
	if err := c.readIndex(); err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

// readCheckout reads w's index without locking it: for a dry run, which
// writes nothing.
func readCheckout(w *Worktree, s storer.EncodedObjectStorer) (*checkout, error) {
	c := &checkout{w: w, s: s, done: true}
	return c, c.readIndex()
}

func (c *checkout) readIndex() error {
	c.idx = &index.Index{Version: 2}
	b, err := os.ReadFile(filepath.Join(c.w.GitDir, "index"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if err := index.NewDecoder(bytes.NewReader(b)).Decode(c.idx); err != nil {
			return refusef("merge this task with git itself", nil, "go-git cannot read the index of %s: %v", c.w.Root, err)
		}
	}
	c.byNm = make(map[string]*index.Entry, len(c.idx.Entries))
	var unmerged []string
	for _, e := range c.idx.Entries {
		if e.Stage != 0 {
			unmerged = append(unmerged, e.Name)
			continue
		}
		if e.SkipWorktree {
			return refusef("merge this task with git itself", []string{e.Name}, "%s has skip-worktree entries (a sparse checkout)", c.w.Root)
		}
		c.byNm[e.Name] = e
	}
	if len(unmerged) > 0 {
		return refusef("resolve them there first", unmerged, "%s has unmerged paths", c.w.Root)
	}
	return nil
}

// release drops the lock without writing the index.
func (c *checkout) release() {
	if !c.done {
		dropLock(c.common, c.w.GitDir, c.lock, c.marker, c.nonce)
		c.done = true
	}
}

// commit writes the index into a file of its own, synced, renames it into
// place (a reader sees the old index or the new one), then drops the lock:
// the lock's content stays the marker to the end, so a crash at any
// moment leaves a lock that says it is devlearn's.
func (c *checkout) commit() error {
	if c.done {
		return errors.New("index lock already released")
	}
	entries := make([]*index.Entry, 0, len(c.byNm))
	for _, e := range c.byNm {
		entries = append(entries, e)
	}
	c.idx.Entries = entries
	// The cached trees describe the old entries; git rebuilds them.
	c.idx.Cache = nil
	c.idx.ResolveUndo = nil
	c.idx.EndOfIndexEntry = nil
	if c.idx.Version < 2 || c.idx.Version > 4 {
		c.idx.Version = 2
	}
	err := jsonl.WriteAtomic(c.w.GitDir, filepath.Join(c.w.GitDir, "index"), 0o644, func(w *bufio.Writer) error {
		return index.NewEncoder(w).Encode(c.idx)
	})
	if err != nil {
		return err
	}
	crashpoint.Hit("merge:index-written")
	c.release()
	crashpoint.Hit("merge:index-unlocked")
	return nil
}

// dirty returns the paths among ups whose index entry or file is not what
// the old tree says: local changes a checkout would overwrite.
func (c *checkout) dirty(ups []pathUpdate) ([]string, error) {
	var out []string
	for _, u := range ups {
		if err := safePath(c.w.Root, u.path); err != nil {
			return nil, err
		}
		ok, err := c.matches(u.path, u.old)
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, u.path)
		}
	}
	return out, nil
}

// matches reports whether both the index and the file at p hold e (or
// neither has anything, for an absent e).
func (c *checkout) matches(p string, e entry) (bool, error) {
	ie := c.byNm[p]
	if e.absent() != (ie == nil) || ie != nil && (ie.Hash != e.Hash || ie.Mode != e.Mode) {
		return false, nil
	}
	return fileMatches(c.s, filepath.Join(c.w.Root, filepath.FromSlash(p)), e, ie)
}

// fileMatches reports whether the file at abs holds e. A file whose size
// and modification time match its index entry is taken as the entry's
// content, like git does; any other is read and hashed.
func fileMatches(s storer.EncodedObjectStorer, abs string, e entry, ie *index.Entry) (bool, error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		return e.absent(), nil
	}
	if err != nil {
		return false, err
	}
	if e.absent() {
		return false, nil
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if e.Mode != filemode.Symlink {
			return false, nil
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return false, err
		}
		return blobHash([]byte(target)) == e.Hash, nil
	case fi.Mode().IsRegular():
		exec := fi.Mode()&0o111 != 0
		if e.Mode == filemode.Symlink || e.Mode == filemode.Submodule || exec != (e.Mode == filemode.Executable) {
			return false, nil
		}
		if ie != nil && ie.Hash == e.Hash && int64(ie.Size) == fi.Size() && ie.ModifiedAt.Equal(fi.ModTime()) {
			return true, nil
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return false, err
		}
		return blobHash(data) == e.Hash, nil
	}
	return false, nil
}

// apply moves each path from old to next, re-checking it just before
// writing: a path already at next is only recorded (a merge finished after
// a crash finds its own work done), one still at old is written, and one
// someone changed since the check is left alone and returned in skipped.
// devlearn's own logs are checked and written under the lock their
// appenders take, and lines appended to one since (a hook, the worker, a
// command run while the merge ran or after it crashed) are merged in, as
// the merge driver merges two sides, never left alone: leaving the file
// as it was would drop the merged lines from the checkout. The index
// entries follow the files.
func (c *checkout) apply(ctx context.Context, ups []pathUpdate) (written, skipped []string, err error) {
	for _, u := range ups {
		if err := safePath(c.w.Root, u.path); err != nil {
			return written, skipped, err
		}
		done, err := c.applyOne(ctx, u)
		if err != nil {
			return written, skipped, err
		}
		if done {
			written = append(written, u.path)
		} else {
			skipped = append(skipped, u.path)
		}
	}
	return written, skipped, nil
}

// applyOne moves one path (apply); done is false when it was left alone.
func (c *checkout) applyOne(ctx context.Context, u pathUpdate) (done bool, err error) {
	abs := filepath.Join(c.w.Root, filepath.FromSlash(u.path))
	if c.recovering {
		removeStaleTemps(c.w.Root, abs)
	}
	if lock := c.appendLock(u.path); lock != "" {
		unlock, err := jsonl.Lock(ctx, lock)
		if err != nil {
			return false, err
		}
		defer unlock()
	}
	// Still at old (the usual case, told by the index entry's stat
	// data without reading the file): written below.
	ok, err := fileMatches(c.s, abs, u.old, c.byNm[u.path])
	if err != nil {
		return false, err
	}
	if !ok {
		atNext, err := fileMatches(c.s, abs, u.next, c.byNm[u.path])
		if err != nil {
			return false, err
		}
		switch {
		case atNext && u.next.absent():
			delete(c.byNm, u.path)
			return true, nil
		case atNext:
			c.byNm[u.path], err = indexEntry(u.path, abs, u.next)
			return err == nil, err
		}
		if merged, err := c.mergeAppended(abs, u); err != nil || merged {
			return merged, err
		}
		if u.next.absent() {
			delete(c.byNm, u.path)
		} else {
			c.byNm[u.path] = &index.Entry{Name: u.path, Hash: u.next.Hash, Mode: u.next.Mode}
		}
		return false, nil
	}
	if u.next.absent() {
		if err := safefile.Remove(c.w.Root, abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		removeEmptyParents(c.w.Root, filepath.Dir(abs))
		delete(c.byNm, u.path)
		crashpoint.Hit("merge:file-written")
		return true, nil
	}
	if err := c.writeFile(abs, u.next); err != nil {
		return false, fmt.Errorf("write %s: %w", abs, err)
	}
	ie, err := indexEntry(u.path, abs, u.next)
	if err != nil {
		return false, err
	}
	c.byNm[u.path] = ie
	crashpoint.Hit("merge:file-written")
	return true, nil
}

// appendLock is the lock the appenders of the project file rel take, ""
// for a file no devlearn process appends to.
func (c *checkout) appendLock(rel string) string {
	p := &project.Project{Root: c.w.Root, GitDir: c.w.GitDir, CommonDir: c.common}
	if rel == project.EvolutionLog {
		return p.LockPath(path.Dir(project.EvolutionLog)) // the one writer's lock
	}
	return p.AppendLock(rel)
}

// mergeAppended brings one of devlearn's logs that someone appended to
// since the merge looked (the file holds old's lines and more) to next
// with those lines kept, merged as the driver merges two sides; merged is
// false for any other file, or a change that is not appended lines.
func (c *checkout) mergeAppended(abs string, u pathUpdate) (merged bool, err error) {
	if c.appendLock(u.path) == "" || u.next.absent() || u.next.Mode != filemode.Regular {
		return false, nil
	}
	disk, err := os.ReadFile(abs)
	if err != nil {
		return false, nil // gone or unreadable: left alone, as any other
	}
	var old []byte
	if !u.old.absent() {
		if old, err = readBlob(c.s, u.old.Hash); err != nil {
			return false, err
		}
	}
	if !bytes.HasPrefix(disk, old) {
		return false, nil // rewritten, not appended to: a person's to settle
	}
	next, err := readBlob(c.s, u.next.Hash)
	if err != nil {
		return false, err
	}
	out := MergeFile(u.path, old, disk, next)
	if !out.Clean {
		return false, nil
	}
	if err := jsonl.WriteFileOver(c.w.Root, abs, out.Data, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", abs, err)
	}
	// The index holds next: the appended lines show as the change they
	// are, to be committed with the rest of the log's.
	c.byNm[u.path] = &index.Entry{Name: u.path, Hash: u.next.Hash, Mode: u.next.Mode}
	crashpoint.Hit("merge:file-written")
	return true, nil
}

// removeStaleTemps removes the temporary files a crashed checkout left
// beside abs (the ones WriteFileOver and writeFile make, named after it).
func removeStaleTemps(root, abs string) {
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".tmp-*"))
	for _, t := range tmps {
		safefile.Remove(root, t)
	}
	safefile.Remove(root, filepath.Join(dir, ".devlearn-merge-"+base))
}

func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

func (c *checkout) writeFile(abs string, e entry) error {
	if e.Mode == filemode.Submodule {
		return safefile.MkdirAll(c.w.Root, abs, 0o755)
	}
	data, err := readBlob(c.s, e.Hash)
	if err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	if err := safefile.MkdirAll(c.w.Root, dir, 0o755); err != nil {
		return err
	}
	if e.Mode == filemode.Symlink {
		// A committed link is checked out as a link, as git does; it is
		// made, never written through.
		tmp := filepath.Join(dir, ".devlearn-merge-"+filepath.Base(abs))
		safefile.Remove(c.w.Root, tmp)
		if err := safefile.Symlink(c.w.Root, string(data), tmp); err != nil {
			return err
		}
		return safefile.Rename(c.w.Root, tmp, abs)
	}
	perm := os.FileMode(0o644)
	if e.Mode == filemode.Executable {
		perm = 0o755
	}
	// Like git's checkout it does not sync each file: a merge of a
	// thousand files would otherwise spend its time in fsync. The index,
	// written last, is synced.
	return jsonl.WriteFileOver(c.w.Root, abs, data, perm)
}

// indexEntry describes the file just written at abs as an index entry,
// with the stat data git compares to tell that it is unchanged.
func indexEntry(name, abs string, e entry) (*index.Entry, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, err
	}
	ie := &index.Entry{Name: name, Hash: e.Hash, Mode: e.Mode, ModifiedAt: fi.ModTime(), Size: uint32(fi.Size())}
	fillStat(ie, fi)
	return ie, nil
}

// removeEmptyParents removes dir and its parents up to root while empty,
// as git does when it deletes the last file of a folder.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if err := safefile.Remove(root, dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// safePath refuses a path that would write outside the worktree or into
// its git folder: an empty, "." or ".." component, a .git component, or a
// folder on the way that is a symlink (git refuses those too, since a
// symlink would carry the write elsewhere).
func safePath(root, p string) error {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return refusef("merge this task with git itself", []string{p}, "refusing to write a path outside the worktree or into .git")
		}
		if i == len(parts)-1 {
			break
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(strings.Join(parts[:i+1], "/"))))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return refusef("replace the symlink with a folder, or merge with git itself", []string{p}, "a folder on the way to this path is a symlink")
		}
	}
	return nil
}
