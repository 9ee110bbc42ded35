// Package safefile is the only way devlearn writes a file: it opens,
// creates, renames and removes below a folder the caller trusts (a
// repository's working tree, a clone's git folder, $DEVLEARN_HOME) without
// ever following a symbolic link on the way down, at a folder or at the
// file itself.
//
// A repository can commit a symbolic link where devlearn keeps a file
// (.memory/learning-log.jsonl -> ~/.bashrc, say); writing through it would
// carry learned text into a shell start-up file. The trusted folder itself
// may be a link (a person's checkout under a linked home, say): only what
// lies below it is checked. On Unix each step is an openat(2) with
// O_NOFOLLOW relative to the folder opened before it, so nothing can swap
// a link in between the check and the write.
//
// A test of this package reads the module's source and fails when any other
// package calls os.OpenFile, os.WriteFile, os.Rename and the like itself:
// a new writer cannot forget the check.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrLink is matched (errors.Is) by every refusal of a symbolic link.
var ErrLink = errors.New("symbolic link")

// LinkError says which file devlearn refused to write and why: Link, at
// or above it, is a symbolic link.
type LinkError struct {
	Op     string // "write", "create", "remove", "rename"
	Path   string // the file devlearn was writing
	Link   string // the link found on the way (Path itself, or a folder)
	Target string // where the link points, as stored in it
	Root   string // the trusted folder below which links are refused
}

func (e *LinkError) Error() string {
	what := "a real file"
	if e.Link != e.Path || e.Op == "create" { // a folder on the way, or one being made
		what = "a real folder"
	}
	to := ""
	if e.Target != "" {
		to = " (to " + e.Target + ")"
	}
	return fmt.Sprintf("refusing to %s %s: %s is a symbolic link%s, and devlearn never writes through one (a repository can commit a link to carry writes out of it); replace the link with %s",
		e.Op, e.display(e.Path), e.display(e.Link), to, what)
}

// display names a path relative to the trusted folder when it is a
// repository's (the person knows .memory/..., not /home/...).
func (e *LinkError) display(p string) string {
	if r, err := filepath.Rel(e.Root, p); err == nil && filepath.IsLocal(r) {
		if _, err := os.Lstat(filepath.Join(e.Root, ".git")); err == nil {
			return filepath.ToSlash(r)
		}
		if filepath.Base(e.Root) == ".git" { // a clone's own git folder
			return ".git/" + filepath.ToSlash(r)
		}
	}
	return p
}

func (e *LinkError) Unwrap() error { return ErrLink }

// Where names the link as a person finds it, and where it points:
// ".memory/learning-log.jsonl -> ../../.bashrc".
func (e *LinkError) Where() string {
	if e.Target == "" {
		return e.display(e.Link)
	}
	return e.display(e.Link) + " -> " + e.Target
}

// rel checks that path lies below root and returns its components.
func rel(root, path string) ([]string, error) {
	if root == "" {
		return nil, fmt.Errorf("write %s: no trusted folder given (a devlearn bug: every write names the repository, git folder or home it belongs to)", path)
	}
	if r, ok := cleanBelow(root, path); ok {
		return strings.Split(r, "/"), nil
	}
	r, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(r) {
		return nil, fmt.Errorf("refusing to write %s: it is not inside %s", path, root)
	}
	if r == "." {
		return nil, nil
	}
	return strings.Split(r, string(filepath.Separator)), nil
}

// cleanBelow is path's part below root when both are clean and path is
// below root, the case of nearly every write (a bulk render makes
// thousands): the answer filepath.Rel would give, without its two Cleans
// and its walk of both paths (TestRelAgreesWithRel). Anything else is
// left to filepath.Rel.
func cleanBelow(root, path string) (string, bool) {
	if filepath.Separator != '/' || len(path) <= len(root)+1 || path[len(root)] != '/' || path[:len(root)] != root || filepath.Clean(root) != root {
		return "", false
	}
	r := path[len(root)+1:]
	for len(r) > 0 {
		name, rest, more := strings.Cut(r, "/")
		if name == "" || name == "." || name == ".." || (more && rest == "") {
			return "", false
		}
		r = rest
	}
	return path[len(root)+1:], true
}

// WriteFile writes data to path (created, or truncated), below root.
func WriteFile(root, path string, data []byte, perm os.FileMode) error {
	f, err := OpenFile(root, path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	return writeClose(f, data)
}

// writeStatClose is writeClose that also stats the file as written, before
// it is closed: what git's checkout records in its index, so that a later
// write, even a same-size one, shows in the stamp unless it lands in the
// same clock tick.
func writeStatClose(f *os.File, data []byte) (fs.FileInfo, error) {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	fi, err := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return fi, nil
}

func writeClose(f *os.File, data []byte) error {
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

// CheckNoLink reports a symbolic link at path or at any folder between root
// and it (a *LinkError), without writing anything: init and doctor use it
// to flag a committed link before anything is written through it. A path
// that does not exist yet is fine.
func CheckNoLink(root, path string) error {
	parts, err := rel(root, path)
	if err != nil {
		return err
	}
	cur := root
	for _, p := range parts {
		cur = filepath.Join(cur, p)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			return &LinkError{Op: "write", Path: path, Link: cur, Target: target, Root: root}
		}
	}
	return nil
}

// MkdirRoot makes the trusted folder itself ($DEVLEARN_HOME on a first
// run, say), and any missing folder above it: those are the person's
// choice, and may be links.
func MkdirRoot(root string, perm os.FileMode) error { return os.MkdirAll(root, perm) }

// RemoveAll removes path and everything below it. A link at path, or in
// what lies below, is removed itself, never followed (os.RemoveAll does
// not follow them); a link at a folder between root and path is refused.
func RemoveAll(root, path string) error {
	parts, err := rel(root, path)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return fmt.Errorf("refusing to remove %s: it is the folder everything else is kept in", root)
	}
	if err := CheckNoLink(root, filepath.Dir(path)); err != nil {
		return err
	}
	return os.RemoveAll(path)
}

// MkdirTemp makes a new folder of its own under the system's temporary
// folder (the demo's throwaway repository): a name just made up cannot be
// a link anyone placed, and it becomes the root of what is written in it.
func MkdirTemp(pattern string) (string, error) { return os.MkdirTemp("", pattern) }
