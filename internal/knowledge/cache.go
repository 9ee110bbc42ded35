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
	start := time.Now()
	stamps := src.stamps()
	return load(src, cachePath, mode, start, stamps, readCache(cachePath))
}

// load is Load with the stamps of src, taken after start, and the cache
// (nil if unreadable) already read.
func load(src Sources, cachePath string, mode Mode, start time.Time, stamps []stamp.Stamp, old *cacheData) (*Set, error) {
	moved := old != nil && old.global != src.GlobalDir
	old = old.alignedTo(src)
	if old != nil && len(old.stamps) != len(stamps) {
		old = nil
	}
	fresh := func(i int) bool {
		return old != nil && old.settled(i, stamps[i])
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

	c := &cacheData{root: src.Root, global: src.GlobalDir, stamps: stamps, start: start.UnixNano()}
	var unreadable []*ParseError // folders that could not be listed
	// changed: the cache must be written. A Full check that finds every
	// file as it was, with nothing racy, leaves the file alone.
	changed := old == nil || moved
	for i := range stamps {
		changed = changed || old.stamps[i] != stamps[i] || (!fresh(i) && curable(stamps[i], start))
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
		recs, problem := scanEntryDir(d, prev, start)
		if problem != nil {
			unreadable = append(unreadable, problem)
		}
		changed = changed || len(recs) != len(prev)
		for _, r := range recs {
			if r.stillRacy(prev[r.name]) {
				continue // written again, it would be read again all the same
			}
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
	start := time.Now()
	stamps := src.stamps()
	set, old := candidates(src, cachePath, c, stamps)
	if set != nil {
		return set, nil
	}
	return load(src, cachePath, Quick, start, stamps, old)
}

// candidates answers from the cache's index when the cache is still good.
// When it is not, it returns the cache decoded in full (nil if it cannot
// be), for load to reuse: a stale cache is read and src stamped once.
// What it checks is a handful of stamps whatever the number of entries:
// the folders' own, and the two knowledge files'.
func candidates(src Sources, cachePath string, c *Call, stamps []stamp.Stamp) (*Set, *cacheData) {
	fh, err := os.Open(cachePath)
	if err != nil {
		return nil, nil
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, nil
	}
	f, err := openFile(fh, fi.Size())
	if err != nil {
		return nil, nil
	}
	meta, err := f.meta()
	if err != nil || meta.root != src.Root {
		return nil, nil // load could reuse nothing of it
	}
	good := meta.global == src.GlobalDir && len(stamps) == len(meta.stamps)
	for i := 0; good && i < len(stamps); i++ {
		good = meta.settled(i, stamps[i])
	}
	if good {
		if items, err := f.candidates(c); err == nil {
			return &Set{Items: items}, nil
		}
	}
	return nil, readCacheFrom(fh, fi)
}

// settled reports whether the i-th stamp of the cache is now's and proves
// that nothing changed since the cache was built: the folder or file was
// last written before the build started, by more than its file system's
// granularity and the clock's tick (stamp.RacyAt), so any later write
// would have given it another stamp. The build's start, not the cache
// file's time, is what counts: a build that takes long, or a file system
// that keeps whole seconds, cannot hide a change made while it ran.
func (c *cacheData) settled(i int, now stamp.Stamp) bool {
	return c.stamps[i] == now && !now.RacyAt(time.Unix(0, c.start))
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

// curable reports whether writing the cache built from start would make a
// stamp that is racy today trusted by the next reader: once the file is
// older than the racy window. Until then a rewrite with nothing changed
// would only be racy again, so it is not done: the hooks of the moments
// that follow a change (a few milliseconds where the file system keeps
// nanoseconds, two seconds where it keeps seconds) check the files (a stat
// each) without writing the cache each time.
func curable(s stamp.Stamp, start time.Time) bool { return !s.RacyAt(start) }

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
	a := &cacheData{root: c.root, global: src.GlobalDir, start: c.start, sections: c.sections, sectionProblems: c.sectionProblems}
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
	root, global string
	stamps       []stamp.Stamp
	// start is when the build began (Unix nanoseconds), before any stamp
	// was taken: what the stamps are judged against.
	start           int64
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
