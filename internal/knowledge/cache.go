package knowledge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/devlearn/devlearn/internal/project"
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

// racyWindow: a folder changed this close to the time the cache was
// written may have changed again within the same timestamp, so the cache
// is not trusted for it (git's "racy" rule).
const racyWindow = 2 * time.Second

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
	if old != nil && (old.root != src.Root || old.global != src.GlobalDir || len(old.stamps) != len(stamps)) {
		old = nil
	}
	fresh := func(i int) bool {
		return old != nil && old.stamps[i] == stamps[i] && !stamps[i].racy(cacheTime)
	}
	dirs := src.entryDirs()
	if old != nil && mode == Quick {
		all := true
		for i := range stamps {
			all = all && fresh(i)
		}
		if all {
			return old.set(), nil
		}
	}

	c := &cacheData{root: src.Root, global: src.GlobalDir, stamps: stamps}
	var unreadable []*ParseError // folders that could not be listed
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
		c.dirs = append(c.dirs, recs)
	}
	err := writeCache(cachePath, c)
	set := c.set()
	set.Problems = append(set.Problems, unreadable...)
	set.Rebuilt = true
	return set, err
}

// stamp is what identifies a version of a folder or file without reading
// it.
type stamp struct {
	exists bool
	size   int64
	mtime  int64
	ino    uint64
}

func stampOf(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi)}
}

func (s stamp) racy(cacheTime time.Time) bool {
	return s.exists && time.Unix(0, s.mtime).After(cacheTime.Add(-racyWindow))
}

// stamps are the entry folders, then decisions.md and pitfalls.md.
func (src Sources) stamps() []stamp {
	var out []stamp
	for _, d := range src.entryDirs() {
		out = append(out, stampOf(d.abs))
	}
	for _, rel := range []string{project.DecisionsFile, project.PitfallsFile} {
		if src.Root == "" {
			out = append(out, stamp{})
			continue
		}
		out = append(out, stampOf(filepath.Join(src.Root, filepath.FromSlash(rel))))
	}
	return out
}

type cacheData struct {
	root, global    string
	stamps          []stamp
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
		s.Entries += len(recs)
		more := false
		for _, later := range c.dirs[i+1:] {
			more = more || len(later) > 0
		}
		seen = addEntries(s, recs, seen, more)
	}
	return s
}

const (
	cacheMagic   = "DLKC"
	cacheVersion = 1
)

func readCache(path string) (*cacheData, time.Time) {
	f, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > 1<<30 {
		return nil, time.Time{}
	}
	buf := make([]byte, fi.Size())
	if _, err := readFull(f, buf); err != nil {
		return nil, time.Time{}
	}
	c, err := decodeCache(buf)
	if err != nil {
		return nil, time.Time{}
	}
	return c, fi.ModTime()
}

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func writeCache(path string, c *cacheData) error {
	data := encodeCache(c)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".knowledge-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// The encoding: magic, version, CRC-32 of the rest, then uvarint-length
// strings and varints. The decoder slices the file's bytes as one string
// and takes items and lists from arrays shared by many, so decoding
// allocates a few dozen times for ten thousand entries.

type enc struct{ b []byte }

func (e *enc) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) s(v string) { e.u(uint64(len(v))); e.b = append(e.b, v...) }
func (e *enc) bool(v bool) {
	if v {
		e.u(1)
	} else {
		e.u(0)
	}
}
func (e *enc) ss(v []string) {
	e.u(uint64(len(v)))
	for _, s := range v {
		e.s(s)
	}
}

func encodeCache(c *cacheData) []byte {
	e := &enc{b: make([]byte, 0, 4096)}
	e.s(c.root)
	e.s(c.global)
	e.u(uint64(len(c.stamps)))
	for _, s := range c.stamps {
		e.bool(s.exists)
		e.i(s.size)
		e.i(s.mtime)
		e.u(s.ino)
	}
	e.u(uint64(len(c.sections)))
	for _, it := range c.sections {
		e.item(it)
	}
	e.u(uint64(len(c.sectionProblems)))
	for _, p := range c.sectionProblems {
		e.problem(p)
	}
	e.u(uint64(len(c.dirs)))
	for _, recs := range c.dirs {
		e.u(uint64(len(recs)))
		for _, r := range recs {
			e.s(r.name)
			e.i(r.size)
			e.i(r.mtime)
			e.u(r.ino)
			switch {
			case r.item != nil:
				e.u(1)
				e.item(r.item)
			case r.problem != nil:
				e.u(2)
				e.problem(r.problem)
			default:
				e.u(0)
			}
		}
	}
	out := make([]byte, 0, len(e.b)+9)
	out = append(out, cacheMagic...)
	out = append(out, cacheVersion)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(e.b))
	return append(out, e.b...)
}

func (e *enc) item(it *Item) {
	e.s(it.ID)
	e.s(it.Type)
	e.s(it.Kind)
	e.s(it.Scope)
	e.s(it.Title)
	e.s(it.Status)
	e.s(it.Priority)
	e.s(it.Area)
	e.s(it.Observation)
	e.bool(it.Ask)
	e.bool(it.Active)
	e.s(it.Path)
	e.s(it.Text)
	e.u(uint64(it.TextRunes))
	e.i(it.Size)
	e.i(it.MTime)
	e.u(it.Inode)
	e.ss(it.Match.Tools)
	e.u(uint64(len(it.Match.Files)))
	for _, g := range it.Match.Files {
		e.s(g.Pattern)
		e.s(g.Literal)
	}
	e.ss(it.Match.Actions)
	e.ss(it.Match.Context)
}

func (e *enc) problem(p *ParseError) {
	e.s(p.Path)
	e.u(uint64(p.Line))
	e.s(p.Msg)
}

var errCorrupt = errors.New("corrupt cache")

type dec struct {
	s         string
	err       error
	arena     []string
	globArena []Glob
	items     []Item
}

func (d *dec) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.s = ""
}

func (d *dec) u() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < len(d.s); i++ {
		c := d.s[i]
		if i == binary.MaxVarintLen64 {
			break
		}
		if c < 0x80 {
			d.s = d.s[i+1:]
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	d.fail()
	return 0
}

func (d *dec) i() int64 {
	ux := d.u()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (d *dec) n(max int) int {
	v := d.u()
	if v > uint64(max) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *dec) str() string {
	n := d.u()
	if n > uint64(len(d.s)) {
		d.fail()
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

func (d *dec) bool() bool { return d.u() == 1 }

// strs decodes a list into the decoder's arena: lists are small and many,
// so they share a few large arrays instead of one allocation each.
func (d *dec) strs() []string {
	n := d.n(len(d.s))
	if n == 0 {
		return nil
	}
	if len(d.arena)+n > cap(d.arena) {
		d.arena = make([]string, 0, max(n, 4096))
	}
	start := len(d.arena)
	for i := 0; i < n; i++ {
		d.arena = append(d.arena, d.str())
	}
	return d.arena[start:len(d.arena):len(d.arena)]
}

// globs is strs for file triggers.
func (d *dec) globs() []Glob {
	n := d.n(len(d.s))
	if n == 0 {
		return nil
	}
	if len(d.globArena)+n > cap(d.globArena) {
		d.globArena = make([]Glob, 0, max(n, 1024))
	}
	start := len(d.globArena)
	for i := 0; i < n; i++ {
		d.globArena = append(d.globArena, Glob{Pattern: d.str(), Literal: d.str()})
	}
	return d.globArena[start:len(d.globArena):len(d.globArena)]
}

// newItem hands out items from one array per batch.
func (d *dec) newItem() *Item {
	if len(d.items) == cap(d.items) {
		d.items = make([]Item, 0, 1024)
	}
	d.items = d.items[:len(d.items)+1]
	return &d.items[len(d.items)-1]
}

func decodeCache(buf []byte) (*cacheData, error) {
	if len(buf) < 9 || string(buf[:4]) != cacheMagic || buf[4] != cacheVersion {
		return nil, fmt.Errorf("not a cache of this version")
	}
	body := buf[9:]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(buf[5:9]) {
		return nil, errCorrupt
	}
	// The buffer is never written again: the decoded strings can point
	// into it instead of into a copy.
	return decodeBody(unsafe.String(unsafe.SliceData(body), len(body)))
}

// decodeBody decodes what follows the header. Whatever the bytes, it
// returns an error rather than panicking or allocating without bound.
func decodeBody(body string) (*cacheData, error) {
	d := &dec{s: body}
	c := &cacheData{root: d.str(), global: d.str()}
	ns := d.n(16)
	for i := 0; i < ns && d.err == nil; i++ {
		c.stamps = append(c.stamps, stamp{exists: d.bool(), size: d.i(), mtime: d.i(), ino: d.u()})
	}
	ni := d.n(len(d.s))
	for i := 0; i < ni && d.err == nil; i++ {
		c.sections = append(c.sections, d.item())
	}
	np := d.n(len(d.s))
	for i := 0; i < np && d.err == nil; i++ {
		c.sectionProblems = append(c.sectionProblems, d.problem())
	}
	nd := d.n(4)
	for i := 0; i < nd && d.err == nil; i++ {
		nr := d.n(len(d.s) / 5) // a record takes five bytes at least
		recs := make([]*record, 0, nr)
		backing := make([]record, nr)
		for j := 0; j < nr && d.err == nil; j++ {
			r := &backing[j]
			*r = record{name: d.str(), size: d.i(), mtime: d.i(), ino: d.u()}
			switch d.u() {
			case 1:
				r.item = d.item()
			case 2:
				r.problem = d.problem()
			}
			recs = append(recs, r)
		}
		c.dirs = append(c.dirs, recs)
	}
	if d.err != nil || d.s != "" {
		return nil, errCorrupt
	}
	return c, nil
}

func (d *dec) item() *Item {
	it := d.newItem()
	*it = Item{
		ID: d.str(), Type: d.str(), Kind: d.str(), Scope: d.str(), Title: d.str(),
		Status: d.str(), Priority: d.str(), Area: d.str(), Observation: d.str(),
		Ask: d.bool(), Active: d.bool(), Path: d.str(), Text: d.str(),
		TextRunes: d.n(1 << 30), Size: d.i(), MTime: d.i(), Inode: d.u(),
	}
	it.Match.Tools = d.strs()
	it.Match.Files = d.globs()
	it.Match.Actions = d.strs()
	it.Match.Context = d.strs()
	return it
}

func (d *dec) problem() *ParseError {
	return &ParseError{Path: d.str(), Line: d.n(1 << 30), Msg: d.str()}
}
