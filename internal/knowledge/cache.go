package knowledge

import (
	"os"
	"path/filepath"
	"time"

	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/stamp"
)

// The cache keeps the parsed items of a working tree in the per-clone
// state, so that a hook does not parse thousands of YAML files on every
// tool call. It is trusted only while the folders and files it was built
// from are unchanged (their size, time and inode), and whatever it leads a
// hook to serve is read again from its file first (Sources.Current), so it
// can never serve a deleted or archived entry. A cache that cannot be read
// is rebuilt; a cache that cannot be written is done without.
//
// Writers replace the file by renaming a complete temporary file over it,
// so concurrent hooks need no lock: each reads a whole cache, old or new.

// Mode says how much of the cache Load checks before trusting it.
type Mode int

const (
	// Quick trusts the cache while the entry folders and the two knowledge
	// files are unchanged: a few stat calls. An entry edited in place
	// (same folder, no rename) is seen at the next Full load or the next
	// change to its folder; what is served is read again anyway.
	Quick Mode = iota
	// Full also checks every entry file: for session start and commands.
	Full
)

// CachePath is the cache file of a working tree in the per-clone state.
func CachePath(p *project.Project) string {
	return p.StatePath("cache", "knowledge-"+p.WorktreeID()+".bin")
}

// Load returns the items of src, from the cache at cachePath when it is
// still good, else from the files (reusing every unchanged entry of the
// cache) and then saves the cache. cachePath "" reads the files.
// The error is only about the cache; the set is complete either way.
func Load(src Sources, cachePath string, mode Mode) (*Set, error) {
	if cachePath == "" {
		return ReadAll(src), nil
	}
	stamps := src.stamps()
	old, cacheTime := readCache(cachePath)
	return load(src, cachePath, mode, stamps, old, cacheTime)
}

// load is Load with the stamps of src and the cache (nil if unreadable)
// already read.
func load(src Sources, cachePath string, mode Mode, stamps []stamp.Stamp, old *cacheData, cacheTime time.Time) (*Set, error) {
	moved := old != nil && old.global != src.GlobalDir
	old = old.alignedTo(src)
	if old != nil && len(old.stamps) != len(stamps) {
		old = nil
	}
	fresh := func(i int) bool {
		return old != nil && old.stamps[i] == stamps[i] && !stamps[i].Racy(cacheTime)
	}
	dirs := src.entryDirs()
	if old != nil && mode == Quick && !moved {
		all := true
		for i := range stamps {
			all = all && fresh(i)
		}
		if all {
			return old.set(), nil
		}
	}

	c := &cacheData{root: src.Root, global: src.GlobalDir, stamps: stamps}
	now := time.Now()
	var unreadable []*ParseError // folders that could not be listed
	// changed: the cache must be written. A Full check that finds every
	// file as it was, with nothing racy, leaves the file alone.
	changed := old == nil || moved
	for i := range stamps {
		changed = changed || old.stamps[i] != stamps[i] || (!fresh(i) && curable(stamps[i], now))
	}
	if old != nil && fresh(len(dirs)) && fresh(len(dirs)+1) {
		c.sections, c.sectionProblems = old.sections, old.sectionProblems
	} else {
		s := &Set{}
		readSections(src, s)
		c.sections, c.sectionProblems = s.Items, s.Problems
	}
	for i, d := range dirs {
		var prev map[string]*record
		if old != nil {
			prev = map[string]*record{}
			for _, r := range old.dirs[i] {
				prev[r.name] = r
			}
			if mode == Quick && fresh(i) {
				c.dirs = append(c.dirs, old.dirs[i])
				continue
			}
		}
		recs, problem := scanEntryDir(d, prev)
		if problem != nil {
			unreadable = append(unreadable, problem)
		}
		changed = changed || len(recs) != len(prev)
		for _, r := range recs {
			changed = changed || (r.item != nil && r.item != prev[r.name].itemOrNil()) || (r.problem != nil && r.problem != prev[r.name].problemOrNil())
		}
		c.dirs = append(c.dirs, recs)
	}
	var err error
	if changed {
		err = writeCache(src.cacheRoot(), cachePath, c)
	}
	set := c.set()
	set.Problems = append(set.Problems, unreadable...)
	set.Rebuilt = true
	return set, err
}

// Candidates returns the items that may be served for a call: from the
// cache's index when the cache is still good, a superset of what Rank can
// pick, decoded in full; else, after rebuilding the cache, every item. The
// error is only about the cache.
func Candidates(src Sources, cachePath string, c *Call) (*Set, error) {
	if cachePath == "" {
		return ReadAll(src), nil
	}
	stamps := src.stamps()
	set, old, cacheTime := candidates(src, cachePath, c, stamps)
	if set != nil {
		return set, nil
	}
	return load(src, cachePath, Quick, stamps, old, cacheTime)
}

// candidates answers from the cache's index when the cache is still good.
// When it is not, it returns the cache decoded in full (nil if it cannot
// be) and the time it was written, for load to reuse: a stale cache is
// read and src stamped once.
func candidates(src Sources, cachePath string, c *Call, stamps []stamp.Stamp) (*Set, *cacheData, time.Time) {
	fh, err := os.Open(cachePath)
	if err != nil {
		return nil, nil, time.Time{}
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, nil, time.Time{}
	}
	f, err := openFile(fh, fi.Size())
	if err != nil {
		return nil, nil, time.Time{}
	}
	meta, err := f.meta()
	if err != nil || meta.root != src.Root {
		return nil, nil, time.Time{} // load could reuse nothing of it
	}
	good := meta.global == src.GlobalDir && len(stamps) == len(meta.stamps)
	for i := 0; good && i < len(stamps); i++ {
		good = stamps[i] == meta.stamps[i] && !stamps[i].Racy(fi.ModTime())
	}
	if good {
		if items, err := f.candidates(c); err == nil {
			return &Set{Items: items}, nil, time.Time{}
		}
	}
	old, cacheTime := readCacheFrom(fh, fi)
	return nil, old, cacheTime
}

// stamps are the entry folders, then decisions.md and pitfalls.md.
func (src Sources) stamps() []stamp.Stamp {
	var out []stamp.Stamp
	for _, d := range src.entryDirs() {
		out = append(out, stamp.Of(d.abs))
	}
	for _, rel := range []string{project.DecisionsFile, project.PitfallsFile} {
		if src.Root == "" {
			out = append(out, stamp.Stamp{})
			continue
		}
		out = append(out, stamp.Of(filepath.Join(src.Root, filepath.FromSlash(rel))))
	}
	return out
}

// curable reports whether writing the cache now would make a stamp that
// is racy today trusted by the next reader: once the file is older than
// the racy window. Until then a rewrite with nothing changed would only
// be racy again, so it is not done: the hooks of the seconds that follow
// a change check the files (a stat each) without writing the cache each
// time.
func curable(s stamp.Stamp, now time.Time) bool { return !s.Racy(now) }

// alignedTo returns the cache as it applies to src: nil for another
// working tree; when the global folder is another one (a new
// DEVLEARN_HOME), the project's records kept and the global folder's
// dropped, so that only the new folder is read.
func (c *cacheData) alignedTo(src Sources) *cacheData {
	if c == nil || c.root != src.Root {
		return nil
	}
	if c.global == src.GlobalDir {
		return c
	}
	oldDirs := Sources{Root: c.root, GlobalDir: c.global}.entryDirs()
	dirs := src.entryDirs()
	if len(c.stamps) != len(oldDirs)+2 || len(c.dirs) != len(oldDirs) {
		return nil
	}
	a := &cacheData{root: c.root, global: src.GlobalDir, sections: c.sections, sectionProblems: c.sectionProblems}
	for _, d := range dirs {
		st, recs := stamp.Stamp{}, []*record(nil)
		for j, o := range oldDirs {
			if o.abs == d.abs && o.scope == d.scope {
				st, recs = c.stamps[j], c.dirs[j]
			}
		}
		a.stamps = append(a.stamps, st)
		a.dirs = append(a.dirs, recs)
	}
	a.stamps = append(a.stamps, c.stamps[len(oldDirs):]...)
	return a
}

type cacheData struct {
	root, global    string
	stamps          []stamp.Stamp
	sections        []*Item
	sectionProblems []*ParseError
	dirs            [][]*record
}

func (c *cacheData) set() *Set {
	n := len(c.sections)
	for _, recs := range c.dirs {
		n += len(recs)
	}
	s := &Set{Items: make([]*Item, 0, n), Problems: append([]*ParseError(nil), c.sectionProblems...)}
	s.Items = append(s.Items, c.sections...)
	var seen map[string]bool
	for i, recs := range c.dirs {
		for _, r := range recs {
			if r.problem != nil {
				s.Problems = append(s.Problems, r.problem)
			}
		}
		more := false
		for _, later := range c.dirs[i+1:] {
			more = more || len(later) > 0
		}
		seen = addEntries(s, recs, seen, more)
	}
	return s
}

func (r *record) itemOrNil() *Item {
	if r == nil {
		return nil
	}
	return r.item
}

func (r *record) problemOrNil() *ParseError {
	if r == nil {
		return nil
	}
	return r.problem
}
