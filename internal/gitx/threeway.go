package gitx

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// How a path of a three-way merge was resolved.
const (
	TakenOurs     = "ours"      // changed on the base branch only: already there
	TakenTheirs   = "theirs"    // changed on the task branch only
	TakenBoth     = "identical" // changed the same way on both sides
	MergedLines   = "lines"     // merged line by line (diff3)
	MergedByRule  = "knowledge" // merged by a FileMerger (devlearn's files)
	MergedRenamed = "renamed"   // renamed on one side, its edits on the other follow it
)

// Conflict is a path the merge could not resolve.
type Conflict struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// PathResult is how one changed path was resolved.
type PathResult struct {
	Path string `json:"path"`
	How  string `json:"how"`
}

// change is one side's change to a path relative to the merge base. base
// is the path's content in the merge base, or for the target of a rename
// the source's content there.
type change struct {
	base, next entry
	renamedTo  string // set on the source of a rename
	renamedBy  string // set on the target of a rename: the source path
	carried    bool   // an edit carried to a path the other side renamed to: not in this side's tree
}

type sideChanges map[string]*change

// diffSide lists what one side changed since the merge base, with renames
// detected by go-git (exact and similar content, its default score).
func diffSide(ctx context.Context, base, side *object.Tree) (sideChanges, error) {
	opts := object.DefaultDiffTreeOptions
	changes, err := object.DiffTreeWithOptions(ctx, base, side, opts)
	if err != nil {
		return nil, err
	}
	out := make(sideChanges, len(changes))
	for _, c := range changes {
		from := entry{Hash: c.From.TreeEntry.Hash, Mode: c.From.TreeEntry.Mode}
		to := entry{Hash: c.To.TreeEntry.Hash, Mode: c.To.TreeEntry.Mode}
		switch {
		case c.From.Name == "":
			out[c.To.Name] = &change{next: to}
		case c.To.Name == "":
			out[c.From.Name] = &change{base: from}
		case c.From.Name == c.To.Name:
			out[c.To.Name] = &change{base: from, next: to}
		default:
			out[c.From.Name] = &change{base: from, renamedTo: c.To.Name}
			tgt := &change{base: from, next: to, renamedBy: c.From.Name}
			// The target may also have existed in the base: that content is
			// replaced, which the other side must not have touched.
			out[c.To.Name] = tgt
		}
	}
	return out, nil
}

// threeWay merges theirs into ours against base. It returns the edits that
// turn ours' tree into the merge result, how each path was resolved, and
// the conflicts. Blobs it creates go to s.
type threeWay struct {
	ctx     context.Context
	s       storer.EncodedObjectStorer
	mergers Mergers
	ours    sideChanges
	theirs  sideChanges

	edits     []edit
	results   []PathResult
	conflicts []Conflict
}

func mergeTrees(ctx context.Context, s storer.EncodedObjectStorer, base, ours, theirs *object.Tree, mergers Mergers) (*threeWay, error) {
	m := &threeWay{ctx: ctx, s: s, mergers: mergers}
	var err error
	if m.ours, err = diffSide(ctx, base, ours); err != nil {
		return nil, err
	}
	if m.theirs, err = diffSide(ctx, base, theirs); err != nil {
		return nil, err
	}
	m.followRenames(m.ours, m.theirs)
	m.followRenames(m.theirs, m.ours)

	paths := make([]string, 0, len(m.ours)+len(m.theirs))
	for p := range m.ours {
		paths = append(paths, p)
	}
	for p := range m.theirs {
		if _, ok := m.ours[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := m.resolve(p); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// followRenames carries the other side's edits of a renamed file to its new
// path: a file renamed on one side and edited on the other ends up renamed
// and edited. Renames that cannot be reconciled become conflicts.
func (m *threeWay) followRenames(side, other sideChanges) {
	for src, c := range side {
		if c.renamedTo == "" {
			continue
		}
		dst := c.renamedTo
		oc, touched := other[src]
		if !touched {
			continue
		}
		switch {
		case oc.renamedTo == dst:
			// Renamed to the same place on both sides: one rename.
		case oc.renamedTo != "":
			m.conflict(src, fmt.Sprintf("renamed to %s on one side and to %s on the other", dst, oc.renamedTo))
			delete(side, src)
			delete(other, src)
		case oc.next.absent():
			m.conflict(src, fmt.Sprintf("renamed to %s on one side, deleted on the other", dst))
			delete(side, src)
			delete(other, src)
		default:
			if _, clash := other[dst]; clash {
				m.conflict(dst, fmt.Sprintf("%s was renamed here on one side, and the other side also changed %s", src, dst))
				delete(side, src)
				delete(other, src)
				continue
			}
			other[dst] = &change{base: c.base, next: oc.next, renamedBy: src, carried: true}
			delete(other, src)
		}
	}
}

func (m *threeWay) conflict(p, reason string) {
	m.conflicts = append(m.conflicts, Conflict{Path: p, Reason: reason})
}

func (m *threeWay) take(p, how string, e entry) {
	m.edits = append(m.edits, edit{path: p, e: e})
	m.results = append(m.results, PathResult{Path: p, How: how})
}

// keepOurs resolves p to ours' version, which is already in ours' tree
// unless it was carried there from a rename on the other side.
func (m *threeWay) keepOurs(p string, o *change, how string) {
	if o.carried {
		m.take(p, MergedRenamed, o.next)
		return
	}
	m.results = append(m.results, PathResult{Path: p, How: how})
}

func (m *threeWay) resolve(p string) error {
	o, t := m.ours[p], m.theirs[p]
	switch {
	case o == nil && t == nil:
		return nil
	case t == nil:
		m.keepOurs(p, o, TakenOurs)
		return nil
	case o == nil:
		how := TakenTheirs
		if t.renamedBy != "" {
			how = MergedRenamed
		}
		m.take(p, how, t.next)
		return nil
	case o.next.same(t.next):
		m.keepOurs(p, o, TakenBoth)
		return nil
	}
	if o.renamedBy != t.renamedBy {
		src := o.renamedBy + t.renamedBy
		m.conflict(p, fmt.Sprintf("%s was renamed here on one side, and the other side also changed %s", src, p))
		return nil
	}
	base := o.base
	switch {
	case o.next.absent() && !t.next.absent():
		m.conflict(p, "deleted on the base branch, changed on the task branch")
		return nil
	case t.next.absent() && !o.next.absent():
		m.conflict(p, "changed on the base branch, deleted on the task branch")
		return nil
	}
	if kind(o.next.Mode) != kind(t.next.Mode) {
		m.conflict(p, "a different kind of file on each side (file, symlink or submodule)")
		return nil
	}
	if o.next.Mode == filemode.Submodule || o.next.Mode == filemode.Symlink {
		m.conflict(p, "symlink or submodule changed differently on both sides")
		return nil
	}
	mode, ok := mergeMode(base.Mode, o.next.Mode, t.next.Mode)
	if !ok {
		m.conflict(p, "executable bit changed differently on both sides")
		return nil
	}
	switch {
	case o.next.Hash == t.next.Hash:
		m.take(p, TakenBoth, entry{Hash: o.next.Hash, Mode: mode})
		return nil
	case o.next.Hash == base.Hash:
		m.take(p, TakenTheirs, entry{Hash: t.next.Hash, Mode: mode})
		return nil
	case t.next.Hash == base.Hash:
		if mode == o.next.Mode {
			m.keepOurs(p, o, TakenOurs)
			return nil
		}
		m.take(p, TakenOurs, entry{Hash: o.next.Hash, Mode: mode})
		return nil
	}
	return m.mergeContent(p, base, o.next, t.next, mode)
}

func (m *threeWay) mergeContent(p string, base, o, t entry, mode filemode.FileMode) error {
	var baseData []byte
	var err error
	if !base.absent() {
		if baseData, err = readBlob(m.s, base.Hash); err != nil {
			return err
		}
	}
	oursData, err := readBlob(m.s, o.Hash)
	if err != nil {
		return err
	}
	theirsData, err := readBlob(m.s, t.Hash)
	if err != nil {
		return err
	}
	var merged []byte
	var clean bool
	how := MergedLines
	if fm, ok := m.mergers.Lookup(p); ok {
		how = MergedByRule
		merged, clean, err = fm(p, baseData, oursData, theirsData)
		var ce *ConflictError
		if errors.As(err, &ce) {
			m.conflict(p, ce.Reason)
			return nil
		}
		if err != nil {
			return fmt.Errorf("merge %s: %w", p, err)
		}
	} else {
		if isBinary(baseData) || isBinary(oursData) || isBinary(theirsData) {
			m.conflict(p, "binary file changed on both sides")
			return nil
		}
		merged, clean = MergeText(baseData, oursData, theirsData)
	}
	if !clean {
		reason := "both sides changed the same lines"
		if base.absent() {
			reason = "added on both sides with different content"
		}
		m.conflict(p, reason)
		return nil
	}
	h, err := putBlob(m.s, merged)
	if err != nil {
		return err
	}
	m.take(p, how, entry{Hash: h, Mode: mode})
	return nil
}

// kind folds the file modes git distinguishes into file, symlink and
// submodule: regular and executable files merge with each other.
func kind(m filemode.FileMode) int {
	switch m {
	case filemode.Symlink:
		return 1
	case filemode.Submodule:
		return 2
	}
	return 0
}

// mergeMode takes the side that changed the mode; both changing it
// differently is a conflict.
func mergeMode(base, o, t filemode.FileMode) (filemode.FileMode, bool) {
	switch {
	case o == t:
		return o, true
	case o == base || base == 0 && o == filemode.Regular:
		return t, true
	case t == base || base == 0 && t == filemode.Regular:
		return o, true
	}
	return 0, false
}

// applyMerge builds the merged tree from ours' tree and the merge's edits;
// a path that is a file on one side and a folder on the other becomes a
// conflict.
func (m *threeWay) applyMerge(ours plumbing.Hash) (plumbing.Hash, error) {
	h, err := editTree(m.s, ours, m.edits)
	var df *dfConflict
	if errors.As(err, &df) {
		m.conflict(df.path, "a file on one side, a folder on the other")
		return plumbing.ZeroHash, nil
	}
	return h, err
}
