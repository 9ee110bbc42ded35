package gitx

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// overlay holds the objects a merge creates in memory until the merge is
// known to succeed, reading through to the repository for everything else.
// A conflict or a dry run therefore leaves the object store untouched, and
// only a merge that is about to be published writes its objects (flush).
type overlay struct {
	storer.EncodedObjectStorer
	objs  map[plumbing.Hash]plumbing.EncodedObject
	order []plumbing.Hash
}

func newOverlay(s storer.EncodedObjectStorer) *overlay {
	return &overlay{EncodedObjectStorer: s, objs: map[plumbing.Hash]plumbing.EncodedObject{}}
}

func (o *overlay) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (o *overlay) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if _, ok := o.objs[h]; ok {
		return h, nil
	}
	if o.EncodedObjectStorer.HasEncodedObject(h) == nil {
		return h, nil
	}
	o.objs[h] = obj
	o.order = append(o.order, h)
	return h, nil
}

func (o *overlay) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := o.objs[h]; ok {
		if t != plumbing.AnyObject && obj.Type() != t {
			return nil, plumbing.ErrObjectNotFound
		}
		return obj, nil
	}
	return o.EncodedObjectStorer.EncodedObject(t, h)
}

func (o *overlay) HasEncodedObject(h plumbing.Hash) error {
	if _, ok := o.objs[h]; ok {
		return nil
	}
	return o.EncodedObjectStorer.HasEncodedObject(h)
}

func (o *overlay) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	if obj, ok := o.objs[h]; ok {
		return obj.Size(), nil
	}
	return o.EncodedObjectStorer.EncodedObjectSize(h)
}

// flush writes the objects created so far to the repository, blobs and
// trees before the commits that name them.
func (o *overlay) flush() error {
	for _, h := range o.order {
		if _, err := o.EncodedObjectStorer.SetEncodedObject(o.objs[h]); err != nil {
			return fmt.Errorf("write object %s: %w", h, err)
		}
	}
	o.objs, o.order = map[plumbing.Hash]plumbing.EncodedObject{}, nil
	return nil
}

// entry is a path's state in a tree: absent when Hash is zero.
type entry struct {
	Hash plumbing.Hash
	Mode filemode.FileMode
}

func (e entry) absent() bool { return e.Hash.IsZero() }

func (e entry) same(f entry) bool { return e.Hash == f.Hash && e.Mode == f.Mode }

func putBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

func readBlob(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// blobHash is the object id git gives data as a blob.
func blobHash(data []byte) plumbing.Hash { return plumbing.ComputeHash(plumbing.BlobObject, data) }

// edit is one change to apply to a tree: set path to e, or delete it when
// e is absent.
type edit struct {
	path string
	e    entry
}

// dfConflict is a path that would have to be a file and a folder at once.
type dfConflict struct{ path string }

func (d *dfConflict) Error() string {
	return fmt.Sprintf("%s: a file on one side and a folder on the other", d.path)
}

// editTree applies edits to the tree root (zero for an empty tree) and
// returns the new root. Only the folders on the edited paths are rewritten;
// every other subtree keeps its hash, so the cost follows the size of the
// change, not of the repository. A path that would be both a file and a
// folder is returned as a *dfConflict.
func editTree(s storer.EncodedObjectStorer, root plumbing.Hash, edits []edit) (plumbing.Hash, error) {
	sorted := append([]edit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].path < sorted[j].path })
	h, _, err := editDir(s, root, "", sorted)
	return h, err
}

// editDir rewrites the tree at dir (prefix of the edits' paths) and reports
// whether it ended up empty.
func editDir(s storer.EncodedObjectStorer, h plumbing.Hash, dir string, edits []edit) (plumbing.Hash, bool, error) {
	var entries []object.TreeEntry
	if !h.IsZero() {
		t, err := object.GetTree(s, h)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s: %w", h, err)
		}
		entries = append(entries, t.Entries...)
	}
	byName := make(map[string]int, len(entries))
	for i, e := range entries {
		byName[e.Name] = i
	}
	removed := map[string]bool{}

	// Group the edits by their first path component below dir.
	for len(edits) > 0 {
		name, _, _ := strings.Cut(edits[0].path[len(dir):], "/")
		var leaf *edit
		var deeper []edit
		n := 0
		for ; n < len(edits); n++ {
			rest := edits[n].path[len(dir):]
			first, sub, isDeeper := strings.Cut(rest, "/")
			if first != name {
				break
			}
			if !isDeeper || sub == "" {
				leaf = &edits[n]
			} else {
				deeper = append(deeper, edits[n])
			}
		}
		edits = edits[n:]
		full := dir + name

		i, exists := byName[name]
		var cur *object.TreeEntry
		if exists && !removed[name] {
			cur = &entries[i]
		}
		if len(deeper) > 0 {
			var sub plumbing.Hash
			if cur != nil && cur.Mode == filemode.Dir {
				sub = cur.Hash
			} else if cur != nil && (leaf == nil || !leaf.e.absent()) {
				// A file stands where the edits need a folder.
				return plumbing.ZeroHash, false, &dfConflict{path: full}
			}
			nh, empty, err := editDir(s, sub, full+"/", deeper)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if leaf != nil && !leaf.e.absent() {
				if !empty {
					return plumbing.ZeroHash, false, &dfConflict{path: full}
				}
				set(&entries, byName, removed, name, leaf.e)
				continue
			}
			if empty {
				del(removed, byName, name)
				continue
			}
			set(&entries, byName, removed, name, entry{Hash: nh, Mode: filemode.Dir})
			continue
		}
		switch {
		case leaf.e.absent():
			if cur != nil && cur.Mode == filemode.Dir {
				return plumbing.ZeroHash, false, &dfConflict{path: full}
			}
			del(removed, byName, name)
		default:
			if cur != nil && cur.Mode == filemode.Dir {
				return plumbing.ZeroHash, false, &dfConflict{path: full}
			}
			set(&entries, byName, removed, name, leaf.e)
		}
	}

	out := entries[:0]
	for _, e := range entries {
		if !removed[e.Name] {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	sort.Sort(object.TreeEntrySorter(out))
	t := &object.Tree{Entries: out}
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, err
	}
	nh, err := s.SetEncodedObject(obj)
	return nh, false, err
}

func set(entries *[]object.TreeEntry, byName map[string]int, removed map[string]bool, name string, e entry) {
	delete(removed, name)
	if i, ok := byName[name]; ok {
		(*entries)[i] = object.TreeEntry{Name: name, Mode: e.Mode, Hash: e.Hash}
		return
	}
	byName[name] = len(*entries)
	*entries = append(*entries, object.TreeEntry{Name: name, Mode: e.Mode, Hash: e.Hash})
}

func del(removed map[string]bool, byName map[string]int, name string) {
	if _, ok := byName[name]; ok {
		removed[name] = true
	}
}

// writeCommit stores a commit and returns its hash.
func writeCommit(s storer.EncodedObjectStorer, c *object.Commit) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// emptyTree is a tree with nothing in it, for diffs against a missing side.
var emptyTree = &object.Tree{}

// treeEntryAt returns the entry at p in t, absent if there is none.
func treeEntryAt(t *object.Tree, p string) (entry, error) {
	te, err := t.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return entry{}, nil
	}
	if err != nil {
		return entry{}, err
	}
	return entry{Hash: te.Hash, Mode: te.Mode}, nil
}
