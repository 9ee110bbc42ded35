package knowledge

import (
	"cmp"
	"encoding/binary"
	"errors"
	"github.com/devlearn/devlearn/internal/jsonl"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/stamp"
)

// The cache file:
//
//	"DLKC" version
//	section meta      root, global folder, when the build started, stamps
//	section problems  problems of the knowledge files
//	section records   per entry folder: each file's name, size, time,
//	                  inode, and its item (an index) or its problem
//	section items     the item count, a table of fixed-width offsets,
//	                  then each item: CRC-32, then its fields
//	section visible   the items of the set, in order (a project entry
//	                  hides a global one with the same key)
//	section index     keys (a file name, a file name's ending, a keyword's
//	                  first word) sorted, each with the items it may serve,
//	                  plus the items that must always be scored
//
// Each section is its length (4 bytes), its CRC-32 (4 bytes) and its
// bytes; the items section is checked item by item instead, so that a hook
// checks and decodes only the few items the index names.

const (
	cacheMagic   = "DLKC"
	cacheVersion = 19 // 19: what a fix ran first is read past its wrappers, on the thing acted on; 18: what a fix ran first names of the failing call; 17: a failure refused a path outside the project; 16: a learned failure's named files at a request only, its arguments less the fix's; 15: what a learned failure's call passed; 14: a pitfall's refused flag; 13: an entry's updated_at; 12: a route group in a path; 11: a learned draft takes no program it only names; 10: a command trigger's flag; 9: a moment names the command right after it, a remedy added is no trigger; 8: a learned draft whose area is a file takes no command from its text; 7: an entry's process block and its file's stamp; 6: written command triggers, git actions named in prose; 5: the build's start, racy entries smudged; 4: held lessons and the clone of a draft; 3: triggers derived from the lesson's text
)

// errCorrupt is binfield's: a field that does not decode and a section
// that does not check are one error, told apart from none.
var errCorrupt = binfield.ErrCorrupt

// Sections, in file order.
const (
	secMeta = iota
	secProblems
	secRecords
	secItems
	secVisible
	secIndex
	numSections
)

func encodeCache(c *cacheData) []byte {
	set := c.set()
	// Every item the records hold (hidden ones too: a rebuild reuses
	// them), then the positions of the visible ones.
	var all []*Item
	pos := map[*Item]int{}
	add := func(it *Item) {
		if _, ok := pos[it]; !ok {
			pos[it] = len(all)
			all = append(all, it)
		}
	}
	for _, it := range c.sections {
		add(it)
	}
	for _, recs := range c.dirs {
		for _, r := range recs {
			if r.item != nil {
				add(r.item)
			}
		}
	}

	var sec [numSections]enc
	m := &sec[secMeta]
	m.Str(c.root)
	m.Str(c.global)
	m.Int(c.start)
	m.Uint(uint64(len(c.stamps)))
	for _, st := range c.stamps {
		m.Bool(st.Exists)
		m.Int(st.Size)
		m.Int(st.Mtime)
		m.Uint(st.Ino)
	}
	p := &sec[secProblems]
	p.Uint(uint64(len(c.sectionProblems)))
	for _, pr := range c.sectionProblems {
		p.problem(pr)
	}
	r := &sec[secRecords]
	r.Uint(uint64(len(c.dirs)))
	for _, recs := range c.dirs {
		r.Uint(uint64(len(recs)))
		for _, rec := range recs {
			r.Str(rec.name)
			r.Int(rec.size)
			r.Int(rec.mtime)
			r.Uint(rec.ino)
			switch {
			case rec.item != nil:
				r.Uint(1)
				r.Uint(uint64(pos[rec.item]))
			case rec.problem != nil:
				r.Uint(2)
				r.problem(rec.problem)
			default:
				r.Uint(0)
			}
		}
	}
	it := &sec[secItems]
	it.B = make([]byte, 0, 4+300*len(all)) // an item takes 200-300 bytes
	it.Fixed32(uint32(len(all)))
	table := len(it.B)
	it.B = append(it.B, make([]byte, 4*len(all))...)
	data := len(it.B)
	for i, item := range all {
		// Each item is encoded in place after room for its CRC: no buffer
		// of its own, no copy.
		start := len(it.B)
		binary.LittleEndian.PutUint32(it.B[table+4*i:], uint32(start-data))
		it.B = append(it.B, 0, 0, 0, 0)
		it.item(item)
		binary.LittleEndian.PutUint32(it.B[start:], crc32.ChecksumIEEE(it.B[start+4:]))
	}
	v := &sec[secVisible]
	v.Uint(uint64(len(set.Items)))
	for _, item := range set.Items {
		v.Uint(uint64(pos[item]))
	}
	sec[secIndex].index(set.Items, pos)

	total := len(cacheMagic) + 1
	for i := range sec {
		total += 8 + len(sec[i].B)
	}
	out := make([]byte, 0, total)
	out = append(append(out, cacheMagic...), cacheVersion)
	for i := range sec {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(sec[i].B)))
		out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(sec[i].B))
		out = append(out, sec[i].B...)
	}
	return out
}

// index writes the key table of the items that can be served.
func (e *enc) index(items []*Item, pos map[*Item]int) {
	postings := map[string][]int{}
	var always []int
	for _, it := range items {
		if !it.Active || it.Match.Empty() {
			continue
		}
		i := pos[it]
		for _, k := range itemKeys(it) {
			if k == "" {
				always = append(always, i)
				break
			}
			if l := postings[k]; len(l) == 0 || l[len(l)-1] != i {
				postings[k] = append(l, i)
			}
		}
	}
	e.ints(always)
	keys := make([]string, 0, len(postings))
	for k := range postings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.Fixed32(uint32(len(keys)))
	table := len(e.B)
	e.B = append(e.B, make([]byte, 4*len(keys))...)
	data := len(e.B)
	for i, k := range keys {
		binary.LittleEndian.PutUint32(e.B[table+4*i:], uint32(len(e.B)-data))
		e.Str(k)
		e.ints(postings[k])
	}
}

func (e *enc) ints(l []int) {
	e.Uint(uint64(len(l)))
	for _, i := range l {
		e.Uint(uint64(i))
	}
}

// file is an open cache file. Sections are read when first asked for;
// a hook reads the small ones and the few items the index names, not the
// whole file.
type file struct {
	ra     io.ReaderAt
	base   [numSections]int64
	size   [numSections]uint32
	crc    [numSections]uint32
	loaded [numSections]*string
	table  *string // the items section's count and offsets
}

// openFile reads the section headers of a cache of total bytes.
func openFile(ra io.ReaderAt, total int64) (*file, error) {
	head := make([]byte, 8)
	if _, err := ra.ReadAt(head[:5], 0); err != nil || string(head[:4]) != cacheMagic || head[4] != cacheVersion {
		return nil, errors.New("not a cache of this version")
	}
	f := &file{ra: ra}
	off := int64(5)
	for i := range f.base {
		if _, err := ra.ReadAt(head, off); err != nil {
			return nil, errCorrupt
		}
		f.size[i] = binary.LittleEndian.Uint32(head)
		f.crc[i] = binary.LittleEndian.Uint32(head[4:])
		f.base[i] = off + 8
		off = f.base[i] + int64(f.size[i])
		if off > total {
			return nil, errCorrupt
		}
	}
	if off != total {
		return nil, errCorrupt
	}
	return f, nil
}

// memFile is a cache already in memory: sections are sliced, not copied.
type memFile string

func (m memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *file) read(off int64, n int) (string, error) {
	if m, ok := f.ra.(memFile); ok {
		if off < 0 || off+int64(n) > int64(len(m)) {
			return "", errCorrupt
		}
		return string(m[off : off+int64(n)]), nil
	}
	buf := make([]byte, n)
	if _, err := f.ra.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", errCorrupt
	}
	// The buffer is never written again: decoded strings point into it.
	return unsafe.String(unsafe.SliceData(buf), n), nil
}

// section returns a section, read and checked against its CRC.
func (f *file) section(i int) (*dec, error) {
	if f.loaded[i] == nil {
		s, err := f.read(f.base[i], int(f.size[i]))
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE([]byte(s)) != f.crc[i] {
			return nil, errCorrupt
		}
		f.loaded[i] = &s
	}
	return &dec{Decoder: binfield.Decoder{S: *f.loaded[i]}}, nil
}

// meta decodes the first section.
func (f *file) meta() (*cacheData, error) {
	d, err := f.section(secMeta)
	if err != nil {
		return nil, err
	}
	c := &cacheData{root: d.Str(), global: d.Str(), start: d.Int()}
	ns := d.Count(16)
	for i := 0; i < ns && d.Err == nil; i++ {
		c.stamps = append(c.stamps, stamp.Stamp{Exists: d.Bool(), Size: d.Int(), Mtime: d.Int(), Ino: d.Uint()})
	}
	return c, d.Done()
}

// itemCount returns the number of items, reading the items section's
// table of offsets.
func (f *file) itemCount() int {
	if f.table == nil {
		t := ""
		if f.size[secItems] >= 4 {
			head, err := f.read(f.base[secItems], 4)
			if err != nil {
				return 0
			}
			n := int64(le32(head))
			if 4+4*n <= int64(f.size[secItems]) {
				t, _ = f.read(f.base[secItems], int(4+4*n))
			}
		}
		f.table = &t
	}
	if len(*f.table) < 4 {
		return 0
	}
	return (len(*f.table) - 4) / 4
}

// itemAt decodes item i, checking its own CRC, from the items section if
// it was read whole, else by reading just that item.
func (f *file) itemAt(i int, d *dec) (*Item, error) {
	n := f.itemCount()
	if i < 0 || i >= n {
		return nil, errCorrupt
	}
	t := *f.table
	dataOff := int64(4 + 4*n)
	start := int64(le32(t[4+4*i:]))
	end := int64(f.size[secItems]) - dataOff
	if i+1 < n {
		end = int64(le32(t[4+4*(i+1):]))
	}
	if start < 0 || start+4 > end || dataOff+end > int64(f.size[secItems]) {
		return nil, errCorrupt
	}
	var raw string
	if all := f.loaded[secItems]; all != nil {
		raw = (*all)[dataOff+start : dataOff+end]
	} else {
		var err error
		if raw, err = f.read(f.base[secItems]+dataOff+start, int(end-start)); err != nil {
			return nil, err
		}
	}
	body := raw[4:]
	if crc32.ChecksumIEEE([]byte(body)) != le32(raw) {
		return nil, errCorrupt
	}
	d.S, d.Err = body, nil
	it := d.item()
	return it, d.Done()
}

func le32(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// decode reads the whole cache: what a rebuild and the commands need.
func (f *file) decode() (*cacheData, error) {
	c, err := f.meta()
	if err != nil {
		return nil, err
	}
	// Every section is checked, the index too: a damaged one must be
	// rebuilt, not tripped over by every hook.
	for i := range f.size {
		if _, err := f.section(i); err != nil {
			return nil, err
		}
	}
	d := &dec{batch: f.itemCount()}
	items := make([]*Item, f.itemCount())
	for i := range items {
		if items[i], err = f.itemAt(i, d); err != nil {
			return nil, err
		}
	}
	item := func(i int) *Item {
		if i < 0 || i >= len(items) {
			return nil
		}
		return items[i]
	}
	p, err := f.section(secProblems)
	if err != nil {
		return nil, err
	}
	np := p.Count(len(p.S))
	for i := 0; i < np && p.Err == nil; i++ {
		c.sectionProblems = append(c.sectionProblems, p.problem())
	}
	if err := p.Done(); err != nil {
		return nil, err
	}
	r, err := f.section(secRecords)
	if err != nil {
		return nil, err
	}
	inDirs := map[*Item]bool{}
	nd := r.Count(4)
	for i := 0; i < nd && r.Err == nil; i++ {
		nr := r.Count(len(r.S) / 5) // a record takes five bytes at least
		recs := make([]*record, 0, nr)
		backing := make([]record, nr)
		for j := 0; j < nr && r.Err == nil; j++ {
			rec := &backing[j]
			*rec = record{name: r.Str(), size: r.Int(), mtime: r.Int(), ino: r.Uint()}
			switch r.Uint() {
			case 1:
				if rec.item = item(r.Count(len(items))); rec.item == nil {
					r.Fail()
				}
				inDirs[rec.item] = true
			case 2:
				rec.problem = r.problem()
			}
			recs = append(recs, rec)
		}
		c.dirs = append(c.dirs, recs)
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	for _, it := range items {
		if !inDirs[it] {
			c.sections = append(c.sections, it)
		}
	}
	return c, nil
}

// candidates returns the items the index names for a call, decoded in
// full and copied out of the file's memory.
func (f *file) candidates(c *Call) ([]*Item, error) {
	x, err := f.section(secIndex)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, i := range x.intList() {
		seen[i] = true
	}
	nk := int(x.Fixed32())
	if x.Err != nil || nk > len(x.S)/4 {
		return nil, errCorrupt
	}
	table, data := x.S[:4*nk], x.S[4*nk:]
	keyAt := func(m int) (string, *dec) {
		off := int(le32(table[4*m:]))
		if off > len(data) {
			return "", &dec{Decoder: binfield.Decoder{Err: errCorrupt}}
		}
		d := &dec{Decoder: binfield.Decoder{S: data[off:]}}
		return d.Str(), d
	}
	lookup := func(key string) {
		lo, hi := 0, nk
		for lo < hi {
			m := (lo + hi) / 2
			k, d := keyAt(m)
			if d.Err != nil {
				x.Err = d.Err
				return
			}
			switch strings.Compare(k, key) {
			case 0:
				for _, i := range d.intList() {
					seen[i] = true
				}
				return
			case -1:
				lo = m + 1
			default:
				hi = m
			}
		}
	}
	callKeys(c, lookup)
	if x.Err != nil {
		return nil, x.Err
	}
	idx := make([]int, 0, len(seen))
	for i := range seen {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	out := make([]*Item, 0, len(idx))
	d := &dec{batch: len(idx)}
	for _, i := range idx {
		it, err := f.itemAt(i, d)
		if err != nil {
			return nil, err
		}
		out = append(out, it.clone())
	}
	return out, nil
}

// clone copies an item out of the cache file's memory.
func (it *Item) clone() *Item {
	c := &Item{ID: strings.Clone(it.ID), Priority: strings.Clone(it.Priority), Active: it.Active}
	cl := func(l []string) []string {
		if l == nil {
			return nil
		}
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = strings.Clone(s)
		}
		return out
	}
	c.Match.Tools, c.Match.Actions, c.Match.Context = cl(it.Match.Tools), cl(it.Match.Actions), cl(it.Match.Context)
	for _, g := range it.Match.Files {
		c.Match.Files = append(c.Match.Files, Glob{Pattern: strings.Clone(g.Pattern), Literal: strings.Clone(g.Literal), Shown: strings.Clone(g.Shown), Derived: g.Derived, AtRequest: g.AtRequest})
	}
	cloneDerived(&c.Match, &it.Match, cl)
	if it.Detail != nil {
		d := *it.Detail
		for _, p := range []*string{&d.Type, &d.Kind, &d.Scope, &d.Title, &d.Status, &d.Area, &d.Observation, &d.Path, &d.Text, &d.Held, &d.Clone, &d.Process, &d.Updated} {
			*p = strings.Clone(*p)
		}
		c.Detail = &d
	}
	return c
}

// readCache reads the whole cache (the commands' path, and a rebuild's).
func readCache(path string) *cacheData {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil
	}
	return readCacheFrom(fh, fi)
}

// readCacheFrom decodes the whole of an open cache file, fi being its
// own stat.
func readCacheFrom(fh *os.File, fi os.FileInfo) *cacheData {
	data := make([]byte, fi.Size())
	if _, err := fh.ReadAt(data, 0); err != nil {
		return nil
	}
	// The bytes are never written again: decoded strings point into them.
	f, err := openFile(memFile(unsafe.String(unsafe.SliceData(data), len(data))), int64(len(data)))
	if err != nil {
		return nil
	}
	c, err := f.decode()
	if err != nil {
		return nil
	}
	return c
}

func writeCache(root, path string, c *cacheData) error {
	return jsonl.WriteFileRename(root, path, encodeCache(c), 0o600)
}

// The field encoding is binfield's; enc and dec add the cache's own
// structures: items, lists, problems, and the arenas items decode into.

type enc struct{ binfield.Encoder }

func (e *enc) ss(v []string) {
	e.Uint(uint64(len(v)))
	for _, s := range v {
		e.Str(s)
	}
}

// item writes what scoring needs, then the Detail as one string, so that
// a hook can skip it.
func (e *enc) item(it *Item) {
	e.Str(it.ID)
	e.Str(it.Priority)
	e.Bool(it.Active)
	e.ss(it.Match.Tools)
	e.Uint(uint64(len(it.Match.Files)))
	for _, g := range it.Match.Files {
		e.Str(g.Pattern)
		e.Str(g.Literal)
	}
	e.ss(it.Match.Actions)
	e.ss(it.Match.Context)
	e.derived(&it.Match)
	d := &enc{}
	d.detail(it.Detail)
	e.Str(string(d.B))
}

func (e *enc) detail(d *Detail) {
	e.Str(d.Type)
	e.Str(d.Kind)
	e.Str(d.Scope)
	e.Str(d.Title)
	e.Str(d.Status)
	e.Str(d.Area)
	e.Str(d.Observation)
	e.Bool(d.Ask)
	e.Str(d.Path)
	e.Str(d.Text)
	e.Uint(uint64(d.TextRunes))
	e.Str(d.Held)
	e.Str(d.Clone)
	e.Str(d.Process)
	e.Str(d.Updated)
	e.Bool(d.File.Exists)
	e.Int(d.File.Size)
	e.Int(d.File.Mtime)
	e.Uint(d.File.Ino)
}

func (e *enc) problem(p *ParseError) {
	e.Str(p.Path)
	e.Uint(uint64(p.Line))
	e.Str(p.Msg)
}

// dec decodes fields from a string that slices the file's bytes, taking
// items and lists from arrays shared by many, so that decoding ten
// thousand items allocates a few dozen times. Whatever the bytes, it
// fails rather than panicking or allocating without bound.
type dec struct {
	binfield.Decoder
	batch     int // items to allocate at a time (default 1024)
	arena     []string
	globArena []Glob
	items     []Item
}

func (d *dec) intList() []int {
	n := d.Count(len(d.S))
	out := make([]int, 0, n)
	for i := 0; i < n && d.Err == nil; i++ {
		out = append(out, d.Count(1<<31))
	}
	return out
}

// strs decodes a list into the decoder's arena.
func (d *dec) strs() []string {
	n := d.Count(len(d.S))
	if n == 0 {
		return nil
	}
	if len(d.arena)+n > cap(d.arena) {
		d.arena = make([]string, 0, max(n, min(8*cmp.Or(d.batch, 1024), 4096)))
	}
	start := len(d.arena)
	for i := 0; i < n; i++ {
		d.arena = append(d.arena, d.Str())
	}
	return d.arena[start:len(d.arena):len(d.arena)]
}

// globs is strs for file triggers.
func (d *dec) globs() []Glob {
	n := d.Count(len(d.S))
	if n == 0 {
		return nil
	}
	if len(d.globArena)+n > cap(d.globArena) {
		d.globArena = make([]Glob, 0, max(n, min(2*cmp.Or(d.batch, 1024), 1024)))
	}
	start := len(d.globArena)
	for i := 0; i < n; i++ {
		d.globArena = append(d.globArena, Glob{Pattern: d.Str(), Literal: d.Str()})
	}
	return d.globArena[start:len(d.globArena):len(d.globArena)]
}

// newItem hands out items from one array per batch.
func (d *dec) newItem() *Item {
	if len(d.items) == cap(d.items) {
		d.items = make([]Item, 0, cmp.Or(d.batch, 1024))
	}
	d.items = d.items[:len(d.items)+1]
	return &d.items[len(d.items)-1]
}

// item decodes an item; its Detail is a string of its own.
func (d *dec) item() *Item {
	it := d.newItem()
	*it = Item{ID: d.Str(), Priority: d.Str(), Active: d.Bool()}
	it.Match.Tools = d.strs()
	it.Match.Files = d.globs()
	it.Match.Actions = d.strs()
	it.Match.Context = d.strs()
	d.derived(&it.Match)
	sub := &dec{Decoder: binfield.Decoder{S: d.Str()}}
	it.Detail = sub.detail()
	if sub.Done() != nil {
		d.Fail()
	}
	return it
}

func (d *dec) detail() *Detail {
	return &Detail{
		Type: d.Str(), Kind: d.Str(), Scope: d.Str(), Title: d.Str(), Status: d.Str(),
		Area: d.Str(), Observation: d.Str(), Ask: d.Bool(), Path: d.Str(), Text: d.Str(),
		TextRunes: d.Count(1 << 30), Held: d.Str(), Clone: d.Str(), Process: d.Str(), Updated: d.Str(),
		File: stamp.Stamp{Exists: d.Bool(), Size: d.Int(), Mtime: d.Int(), Ino: d.Uint()},
	}
}

func (d *dec) problem() *ParseError {
	return &ParseError{Path: d.Str(), Line: d.Count(1 << 30), Msg: d.Str()}
}
