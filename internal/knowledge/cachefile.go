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
	"time"
	"unsafe"

	"github.com/devlearn/devlearn/internal/stamp"
)

// The cache file:
//
//	"DLKC" version
//	section meta      root, global folder, stamps
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
	cacheVersion = 3 // 3: triggers derived from the lesson's text (commands, topics, shown globs)
)

var errCorrupt = errors.New("corrupt cache")

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
	m.s(c.root)
	m.s(c.global)
	m.u(uint64(len(c.stamps)))
	for _, st := range c.stamps {
		m.bool(st.Exists)
		m.i(st.Size)
		m.i(st.Mtime)
		m.u(st.Ino)
	}
	p := &sec[secProblems]
	p.u(uint64(len(c.sectionProblems)))
	for _, pr := range c.sectionProblems {
		p.problem(pr)
	}
	r := &sec[secRecords]
	r.u(uint64(len(c.dirs)))
	for _, recs := range c.dirs {
		r.u(uint64(len(recs)))
		for _, rec := range recs {
			r.s(rec.name)
			r.i(rec.size)
			r.i(rec.mtime)
			r.u(rec.ino)
			switch {
			case rec.item != nil:
				r.u(1)
				r.u(uint64(pos[rec.item]))
			case rec.problem != nil:
				r.u(2)
				r.problem(rec.problem)
			default:
				r.u(0)
			}
		}
	}
	it := &sec[secItems]
	it.b = make([]byte, 0, 4+300*len(all)) // an item takes 200-300 bytes
	it.b = binary.LittleEndian.AppendUint32(it.b, uint32(len(all)))
	table := len(it.b)
	it.b = append(it.b, make([]byte, 4*len(all))...)
	data := len(it.b)
	for i, item := range all {
		// Each item is encoded in place after room for its CRC: no buffer
		// of its own, no copy.
		start := len(it.b)
		binary.LittleEndian.PutUint32(it.b[table+4*i:], uint32(start-data))
		it.b = append(it.b, 0, 0, 0, 0)
		it.item(item)
		binary.LittleEndian.PutUint32(it.b[start:], crc32.ChecksumIEEE(it.b[start+4:]))
	}
	v := &sec[secVisible]
	v.u(uint64(len(set.Items)))
	for _, item := range set.Items {
		v.u(uint64(pos[item]))
	}
	sec[secIndex].index(set.Items, pos)

	total := len(cacheMagic) + 1
	for i := range sec {
		total += 8 + len(sec[i].b)
	}
	out := make([]byte, 0, total)
	out = append(append(out, cacheMagic...), cacheVersion)
	for i := range sec {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(sec[i].b)))
		out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(sec[i].b))
		out = append(out, sec[i].b...)
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
	e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(keys)))
	table := len(e.b)
	e.b = append(e.b, make([]byte, 4*len(keys))...)
	data := len(e.b)
	for i, k := range keys {
		binary.LittleEndian.PutUint32(e.b[table+4*i:], uint32(len(e.b)-data))
		e.s(k)
		e.ints(postings[k])
	}
}

func (e *enc) ints(l []int) {
	e.u(uint64(len(l)))
	for _, i := range l {
		e.u(uint64(i))
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
	return &dec{s: *f.loaded[i]}, nil
}

// meta decodes the first section.
func (f *file) meta() (*cacheData, error) {
	d, err := f.section(secMeta)
	if err != nil {
		return nil, err
	}
	c := &cacheData{root: d.str(), global: d.str()}
	ns := d.n(16)
	for i := 0; i < ns && d.err == nil; i++ {
		c.stamps = append(c.stamps, stamp.Stamp{Exists: d.bool(), Size: d.i(), Mtime: d.i(), Ino: d.u()})
	}
	return c, d.done()
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
	d.s, d.err = body, nil
	it := d.item()
	return it, d.done()
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
	np := p.n(len(p.s))
	for i := 0; i < np && p.err == nil; i++ {
		c.sectionProblems = append(c.sectionProblems, p.problem())
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	r, err := f.section(secRecords)
	if err != nil {
		return nil, err
	}
	inDirs := map[*Item]bool{}
	nd := r.n(4)
	for i := 0; i < nd && r.err == nil; i++ {
		nr := r.n(len(r.s) / 5) // a record takes five bytes at least
		recs := make([]*record, 0, nr)
		backing := make([]record, nr)
		for j := 0; j < nr && r.err == nil; j++ {
			rec := &backing[j]
			*rec = record{name: r.str(), size: r.i(), mtime: r.i(), ino: r.u()}
			switch r.u() {
			case 1:
				if rec.item = item(r.n(len(items))); rec.item == nil {
					r.fail()
				}
				inDirs[rec.item] = true
			case 2:
				rec.problem = r.problem()
			}
			recs = append(recs, rec)
		}
		c.dirs = append(c.dirs, recs)
	}
	if err := r.done(); err != nil {
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
	nk := int(x.fixed32())
	if x.err != nil || nk > len(x.s)/4 {
		return nil, errCorrupt
	}
	table, data := x.s[:4*nk], x.s[4*nk:]
	keyAt := func(m int) (string, *dec) {
		off := int(le32(table[4*m:]))
		if off > len(data) {
			return "", &dec{err: errCorrupt}
		}
		d := &dec{s: data[off:]}
		return d.str(), d
	}
	lookup := func(key string) {
		lo, hi := 0, nk
		for lo < hi {
			m := (lo + hi) / 2
			k, d := keyAt(m)
			if d.err != nil {
				x.err = d.err
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
	if x.err != nil {
		return nil, x.err
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
		c.Match.Files = append(c.Match.Files, Glob{Pattern: strings.Clone(g.Pattern), Literal: strings.Clone(g.Literal), Shown: strings.Clone(g.Shown), Derived: g.Derived})
	}
	cloneDerived(&c.Match, &it.Match, cl)
	if it.Detail != nil {
		d := *it.Detail
		for _, p := range []*string{&d.Type, &d.Kind, &d.Scope, &d.Title, &d.Status, &d.Area, &d.Observation, &d.Path, &d.Text} {
			*p = strings.Clone(*p)
		}
		c.Detail = &d
	}
	return c
}

// readCache reads the whole cache (the commands' path, and a rebuild's).
func readCache(path string) (*cacheData, time.Time) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, time.Time{}
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, time.Time{}
	}
	return readCacheFrom(fh, fi)
}

// readCacheFrom decodes the whole of an open cache file, fi being its
// own stat: the time returned is the one of the bytes decoded.
func readCacheFrom(fh *os.File, fi os.FileInfo) (*cacheData, time.Time) {
	data := make([]byte, fi.Size())
	if _, err := fh.ReadAt(data, 0); err != nil {
		return nil, time.Time{}
	}
	// The bytes are never written again: decoded strings point into them.
	f, err := openFile(memFile(unsafe.String(unsafe.SliceData(data), len(data))), int64(len(data)))
	if err != nil {
		return nil, time.Time{}
	}
	c, err := f.decode()
	if err != nil {
		return nil, time.Time{}
	}
	return c, fi.ModTime()
}

func writeCache(root, path string, c *cacheData) error {
	return jsonl.WriteFileRename(root, path, encodeCache(c), 0o600)
}

// The field encoding: uvarint-length strings and varints.

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

// item writes what scoring needs, then the Detail as one string, so that
// a hook can skip it.
func (e *enc) item(it *Item) {
	e.s(it.ID)
	e.s(it.Priority)
	e.bool(it.Active)
	e.ss(it.Match.Tools)
	e.u(uint64(len(it.Match.Files)))
	for _, g := range it.Match.Files {
		e.s(g.Pattern)
		e.s(g.Literal)
	}
	e.ss(it.Match.Actions)
	e.ss(it.Match.Context)
	e.derived(&it.Match)
	d := &enc{}
	d.detail(it.Detail)
	e.s(string(d.b))
}

func (e *enc) detail(d *Detail) {
	e.s(d.Type)
	e.s(d.Kind)
	e.s(d.Scope)
	e.s(d.Title)
	e.s(d.Status)
	e.s(d.Area)
	e.s(d.Observation)
	e.bool(d.Ask)
	e.s(d.Path)
	e.s(d.Text)
	e.u(uint64(d.TextRunes))
}

func (e *enc) problem(p *ParseError) {
	e.s(p.Path)
	e.u(uint64(p.Line))
	e.s(p.Msg)
}

// dec decodes fields from a string that slices the file's bytes, taking
// items and lists from arrays shared by many, so that decoding ten
// thousand items allocates a few dozen times. Whatever the bytes, it
// fails rather than panicking or allocating without bound.
type dec struct {
	s         string
	err       error
	batch     int // items to allocate at a time (default 1024)
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

func (d *dec) done() error {
	if d.err == nil && d.s != "" {
		d.err = errCorrupt
	}
	return d.err
}

func (d *dec) u() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
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

func (d *dec) fixed32() uint32 {
	if len(d.s) < 4 {
		d.fail()
		return 0
	}
	v := le32(d.s)
	d.s = d.s[4:]
	return v
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

func (d *dec) intList() []int {
	n := d.n(len(d.s))
	out := make([]int, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.n(1<<31))
	}
	return out
}

// strs decodes a list into the decoder's arena.
func (d *dec) strs() []string {
	n := d.n(len(d.s))
	if n == 0 {
		return nil
	}
	if len(d.arena)+n > cap(d.arena) {
		d.arena = make([]string, 0, max(n, min(8*cmp.Or(d.batch, 1024), 4096)))
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
		d.globArena = make([]Glob, 0, max(n, min(2*cmp.Or(d.batch, 1024), 1024)))
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
		d.items = make([]Item, 0, cmp.Or(d.batch, 1024))
	}
	d.items = d.items[:len(d.items)+1]
	return &d.items[len(d.items)-1]
}

// item decodes an item; its Detail is a string of its own.
func (d *dec) item() *Item {
	it := d.newItem()
	*it = Item{ID: d.str(), Priority: d.str(), Active: d.bool()}
	it.Match.Tools = d.strs()
	it.Match.Files = d.globs()
	it.Match.Actions = d.strs()
	it.Match.Context = d.strs()
	d.derived(&it.Match)
	sub := &dec{s: d.str()}
	it.Detail = sub.detail()
	if sub.done() != nil {
		d.fail()
	}
	return it
}

func (d *dec) detail() *Detail {
	return &Detail{
		Type: d.str(), Kind: d.str(), Scope: d.str(), Title: d.str(), Status: d.str(),
		Area: d.str(), Observation: d.str(), Ask: d.bool(), Path: d.str(), Text: d.str(),
		TextRunes: d.n(1 << 30),
	}
}

func (d *dec) problem() *ParseError {
	return &ParseError{Path: d.str(), Line: d.n(1 << 30), Msg: d.str()}
}
