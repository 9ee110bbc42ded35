package knowledge

import (
	"errors"
	"fmt"
	"github.com/devlearn/devlearn/internal/mdfront"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/stamp"
)

// Sources are the places items are read from.
type Sources struct {
	Root      string // the project's working tree; "" for none
	GlobalDir string // the global entries folder ($DEVLEARN_HOME/knowledge/entries); "" for none
	// State is the clone's git folder, which holds the cache: no symbolic
	// link below it is followed when the cache is written. "" when the
	// cache lies inside Root.
	State string
}

// cacheRoot is the folder the cache is written below.
func (s Sources) cacheRoot() string {
	if s.State != "" {
		return s.State
	}
	return s.Root
}

// GlobalEntriesDir is the global entries folder under a devlearn home.
func GlobalEntriesDir(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "knowledge", "entries")
}

// Set is every item of a project and the global store, with the problems
// met while reading them: a broken entry is a problem, never a failure of
// the others.
type Set struct {
	Items    []*Item
	Problems []*ParseError
	// Rebuilt: read from the files (some or all), not from the cache as
	// it was.
	Rebuilt bool
}

// Find returns the item with this id: an ADR or PF anchor, an
// observation id, or an entry key. A project entry hides a global one with
// the same key. scope "" looks in both.
func (s *Set) Find(id, scope string) *Item {
	for _, it := range s.Items {
		if (scope == "" || it.Scope == scope) && (it.ID == id || (it.Observation != "" && it.Observation == id)) {
			return it
		}
	}
	return nil
}

// Count returns how many entries have the given status.
func (s *Set) Count(status string) int {
	n := 0
	for _, it := range s.Items {
		if it.Type == TypeEntry && it.Status == status {
			n++
		}
	}
	return n
}

// ReadAll reads every item from the files, without any cache.
func ReadAll(src Sources) *Set {
	set := &Set{Rebuilt: true}
	readSections(src, set)
	var seen map[string]bool
	dirs := src.entryDirs()
	for i, d := range dirs {
		recs, problem := scanEntryDir(d, nil, time.Now())
		if problem != nil {
			set.Problems = append(set.Problems, problem)
		}
		for _, r := range recs {
			if r.problem != nil {
				set.Problems = append(set.Problems, r.problem)
			}
		}
		seen = addEntries(set, recs, seen, i < len(dirs)-1)
	}
	return set
}

// entryDir is one folder of entries and the scope of what it holds.
type entryDir struct {
	abs   string
	scope string
	rel   string // the folder as the project names it; "" for the global one
}

func (src Sources) entryDirs() []entryDir {
	var out []entryDir
	if src.Root != "" {
		out = append(out, src.projectDir(project.EntriesDir))
		// What the log knows but has not made ready (internal/observed).
		out = append(out, src.projectDir(project.ObservedDir))
	}
	if src.GlobalDir != "" {
		out = append(out, entryDir{abs: src.GlobalDir, scope: ScopeGlobal})
	}
	return out
}

// HoldsEntry reports whether path (absolute, clean) is an entry file of
// one of the folders src reads.
func (src Sources) HoldsEntry(path string) bool {
	if !strings.HasSuffix(path, ".md") {
		return false
	}
	dir := filepath.Dir(path)
	for _, d := range src.entryDirs() {
		if d.abs == dir {
			return true
		}
	}
	return false
}

func (src Sources) projectDir(rel string) entryDir {
	return entryDir{abs: filepath.Join(src.Root, filepath.FromSlash(rel)), scope: ScopeProject, rel: rel}
}

// readSections reads the ADR and pitfall sections of the project.
func readSections(src Sources, set *Set) {
	if src.Root == "" {
		return
	}
	for _, kind := range knowfile.Kinds() {
		data, err := os.ReadFile(filepath.Join(src.Root, filepath.FromSlash(kind.Path)))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				set.Problems = append(set.Problems, &ParseError{Path: kind.Path, Msg: err.Error()})
			}
			continue
		}
		for _, s := range knowfile.Parse(kind, data).Sections {
			if s.Anchor == "" {
				continue
			}
			set.Items = append(set.Items, fromSection(kind, s, kind.Path))
		}
	}
}

// record is an entry file as last read: its identity on disk and what it
// gave, an item or a problem.
type record struct {
	name    string
	size    int64
	mtime   int64
	ino     uint64
	item    *Item
	problem *ParseError
}

// smudged is the size of a record whose stamp proved nothing when it was
// read: no file has it, so the record is never taken as the file's.
const smudged = -1

// stillRacy reports whether r, read again because o was smudged, is
// smudged too with the stamp o had: the cache holding o already makes the
// next scan read the file.
func (r *record) stillRacy(o *record) bool {
	return o != nil && r.size == smudged && o.size == smudged && r.mtime == o.mtime && r.ino == o.ino
}

func (r *record) same(o *record) bool {
	return o != nil && r.name == o.name && r.size == o.size && r.mtime == o.mtime && r.ino == o.ino
}

// scanEntryDir reads the entry files of a folder. Files whose name, size,
// time and inode match a record of prev are not read again. Each file
// gives a record holding its item or its problem; a folder that cannot be
// read gives a problem of its own. start is when the scan's build began:
// a file written since, or too close before it for its stamp to show a
// later write (stamp.RacyAt), is read but its record smudged, as git does
// with racy index entries, so that the next scan reads it again rather
// than trust a stamp that a same-size edit in the same tick would keep.
func scanEntryDir(d entryDir, prev map[string]*record, start time.Time) ([]*record, *ParseError) {
	ents, err := os.ReadDir(d.abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &ParseError{Path: d.abs, Msg: err.Error()}
	}
	folder, err := stamp.OpenFolder(d.abs)
	if err != nil {
		return nil, &ParseError{Path: d.abs, Msg: err.Error()}
	}
	defer folder.Close()
	recs := make([]*record, 0, len(ents))
	for _, de := range ents {
		name := de.Name()
		if !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".") {
			continue
		}
		st, kind, err := folder.Lstat(name)
		if err != nil {
			continue // gone since the listing
		}
		path := filepath.Join(d.abs, name)
		r := &record{name: name, size: st.Size, mtime: st.Mtime, ino: st.Ino}
		switch {
		case kind == stamp.Symlink:
			// A link could get a file from outside the store served.
			r.problem = &ParseError{Path: displayPath(d, name), Msg: "is a symbolic link; entries are plain files (skipped)"}
		case kind != stamp.Regular:
			continue
		case r.same(prev[name]):
			r.item, r.problem = prev[name].item, prev[name].problem
		default:
			r.item, r.problem = readEntryItem(d, name, path, r)
			switch {
			case st.RacyAt(start):
				r.size = smudged
			case r.item != nil:
				r.item.File = st
			}
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func readEntryItem(d entryDir, name, path string, r *record) (*Item, *ParseError) {
	shown := displayPath(d, name)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ParseError{Path: shown, Msg: err.Error()}
	}
	e, err := ParseEntry(shown, data)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			return nil, pe
		}
		return nil, &ParseError{Path: shown, Msg: err.Error()}
	}
	return FromEntry(e, d.scope, shown), nil
}

// displayPath names an entry file the way the user finds it: relative to
// the project for project entries, absolute for global ones.
func displayPath(d entryDir, name string) string {
	if d.rel != "" {
		return d.rel + "/" + name
	}
	return filepath.Join(d.abs, name)
}

// addEntries appends the items of one folder in file name order, leaving
// out keys an earlier folder (the project's) already has. more says a
// later folder follows, which needs to know the keys seen so far.
func addEntries(set *Set, recs []*record, seen map[string]bool, more bool) map[string]bool {
	for _, r := range recs {
		if r.item == nil || seen[r.item.ID] {
			continue
		}
		set.Items = append(set.Items, r.item)
		if more {
			if seen == nil {
				seen = make(map[string]bool, len(recs))
			}
			seen[r.item.ID] = true
		}
	}
	return seen
}

// Shown is what a hook shows of an item: an entry's summary, process
// block and body.
type Shown struct {
	Summary, Process, Body string
	// Entry is the entry as read, when its file was parsed (nil when the
	// file's stamp proved the item current, or for a section).
	Entry *Entry
}

// Shown returns the item as its file says now, with what a hook shows of
// it, as Current does. While an entry's file has the stamp the item was
// read with, the item is the file's: only its body is read, and its YAML
// is not parsed again (what a served call would otherwise spend most of
// its own work on).
func (src Sources) Shown(it *Item) (*Item, Shown, error) {
	if it.Type == TypeEntry && it.File.Exists {
		abs := src.AbsPath(it)
		if stamp.OfLink(abs) == it.File {
			if data, err := os.ReadFile(abs); err == nil {
				if _, rest, _, ok := mdfront.Split(data); ok {
					return it, Shown{Summary: it.Title, Process: it.Process, Body: normalizeBody(string(rest))}, nil
				}
			}
		}
	}
	fresh, e, err := src.Current(it)
	if err != nil {
		return nil, Shown{}, err
	}
	if e == nil {
		return fresh, Shown{}, nil
	}
	return fresh, Shown{Summary: e.Summary, Process: e.Process.Text(), Body: e.Body, Entry: e}, nil
}

// ReadEntry reads and parses one entry file.
func ReadEntry(path, shown string) (*Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseEntry(shown, data)
}

// AbsPath is where an item's file is on disk.
func (src Sources) AbsPath(it *Item) string {
	if filepath.IsAbs(it.Path) {
		return it.Path
	}
	return filepath.Join(src.Root, filepath.FromSlash(it.Path))
}

// Current reads an entry item's file again and returns the item as the
// file says now, with its body: what is shown or injected is never older
// than the file, and a deleted, archived or broken entry is never served.
func (src Sources) Current(it *Item) (*Item, *Entry, error) {
	if it.Type != TypeEntry {
		return it, nil, nil
	}
	e, err := ReadEntry(src.AbsPath(it), it.Path)
	if err != nil {
		return nil, nil, err
	}
	if e.Key != it.ID {
		return nil, nil, fmt.Errorf("%s: now holds key %q", it.Path, e.Key)
	}
	fresh := FromEntry(e, it.Scope, it.Path)
	return fresh, e, nil
}
