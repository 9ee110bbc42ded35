package evolve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
)

// The read side of the audit log: what `devlearn history` lists and shows.
// Contents are found by their blob hash, among the kept copies first and
// then in the file itself, so a change can be shown with its diff for as
// long as both sides are somewhere.

// ChangedError is a guarded change whose file is no longer what the caller
// saw: someone wrote it in between.
type ChangedError struct {
	Path     string
	Expected string // blob hash the caller saw ("" = absent)
	Current  string // blob hash found under the lock
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s changed while devlearn was writing it (now %s, expected %s): nothing was written; run the command again", e.Path, short(e.Current), short(e.Expected))
}

func short(h string) string {
	if h == "" {
		return "absent"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Query selects entries of the audit log.
type Query struct {
	Since time.Time // entries at or after it; zero: all
	File  string    // entries touching this project-relative path; "": all
}

// History returns the entries of p's audit log that match q, oldest first,
// and the lines it could not read.
func History(p *project.Project, q Query) ([]Entry, []jsonl.Problem, error) {
	all, problems, err := ReadLog(p)
	if err != nil {
		return nil, problems, err
	}
	var out []Entry
	for _, e := range all {
		if q.Matches(e) {
			out = append(out, e)
		}
	}
	return out, problems, nil
}

// Matches reports whether e is selected by q.
func (q Query) Matches(e Entry) bool {
	if !q.Since.IsZero() {
		t, err := time.Parse(time.RFC3339, e.Time)
		if err != nil || t.Before(q.Since) {
			return false
		}
	}
	if q.File != "" {
		return slices.ContainsFunc(e.Files, func(f FileChange) bool { return f.Path == q.File })
	}
	return true
}

// ErrNoEntry is an id that names no entry of the audit log.
var ErrNoEntry = errors.New("no such entry in the audit log")

// Find returns the entry whose id is id, or the one entry whose id starts
// with it (as git takes a short hash); the prefix "ev_" may be left out.
func Find(entries []Entry, id string) (*Entry, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("an empty id: %w", ErrNoEntry)
	}
	if !strings.HasPrefix(id, "ev_") {
		id = "ev_" + id
	}
	var found []int
	for i := range entries {
		if entries[i].ID == id {
			return &entries[i], nil
		}
		if strings.HasPrefix(entries[i].ID, id) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%s: %w", id, ErrNoEntry)
	case 1:
		return &entries[found[0]], nil
	}
	var ids []string
	for _, i := range found {
		ids = append(ids, entries[i].ID)
	}
	return nil, fmt.Errorf("%s is the start of %d entries (%s): give more of it", id, len(ids), strings.Join(ids, ", "))
}

// RevertedBy returns the entry that reverted e, or nil.
func RevertedBy(entries []Entry, e *Entry) *Entry {
	for i := range entries {
		if entries[i].Reason.Reverts == e.ID {
			return &entries[i]
		}
	}
	return nil
}

// Content returns the content with blob hash h of the project file at
// path: its kept copy, or the file itself when it holds that content. ok is
// false when neither does (the copy was pruned or, for what devlearn redact
// scrubbed, never kept). The hash "" is the absent file: empty and ok.
func Content(p *project.Project, path, h string) (data []byte, ok bool, err error) {
	c := newCopies(p)
	defer c.close()
	return content(c, path, h)
}

// content is Content with the kept copies read through c.
func content(c *copies, path, h string) (data []byte, ok bool, err error) {
	if h == "" {
		return nil, true, nil
	}
	if data, ok, err := c.get(h); err != nil || ok {
		return data, ok, err
	}
	p := c.p
	cur, ok, err := Current(p, path)
	if err != nil || !ok {
		return nil, false, err
	}
	if BlobHash(cur) == h {
		return cur, true, nil
	}
	return nil, false, nil
}

// Current reads a project file as it is now; ok is false when it is absent.
func Current(p *project.Project, path string) ([]byte, bool, error) {
	data, err := os.ReadFile(p.Path(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// FileDiff is one file of an entry with its diff.
type FileDiff struct {
	FileChange
	// Diff is the unified diff from Before to After; empty when one of
	// the two is no longer kept (Missing says which).
	Diff    string `json:"diff,omitempty"`
	Missing string `json:"missing,omitempty"`
}

// Diffs returns the files of e with their diffs.
func Diffs(p *project.Project, e *Entry) ([]FileDiff, error) {
	c := newCopies(p)
	defer c.close()
	var out []FileDiff
	for _, fc := range e.Files {
		fd := FileDiff{FileChange: fc}
		before, okB, err := content(c, fc.Path, fc.Before)
		if err != nil {
			return nil, err
		}
		after, okA, err := content(c, fc.Path, fc.After)
		if err != nil {
			return nil, err
		}
		switch {
		case !okB && !okA:
			fd.Missing = "neither the content before nor the content after is kept any more"
		case !okB:
			fd.Missing = "the content before is no longer kept (pruned, or scrubbed by devlearn redact)"
		case !okA:
			fd.Missing = "the content after is kept nowhere: the file was changed since and the copy pruned"
		default:
			fd.Diff = Unified(fc.Path, before, fc.Before == "", after, fc.After == "")
		}
		out = append(out, fd)
	}
	return out, nil
}

// Unified is the unified diff of a file from old to new, with git's
// /dev/null for a side that does not exist.
func Unified(path string, old []byte, oldAbsent bool, new []byte, newAbsent bool) string {
	a, b := "a/"+path, "b/"+path
	if oldAbsent {
		a = "/dev/null"
	}
	if newAbsent {
		b = "/dev/null"
	}
	return string(diff.Diff(a, old, b, new))
}
