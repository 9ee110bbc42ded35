package observe

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/lesson"
)

// The folded state's binary form, for the fold cache (foldcache.go). It is
// a private format of this version of devlearn: the cache names its
// version, and a cache of any other is refolded, never read. Every field of
// State is written; TestStateFieldsEncoded fails when State gains one, so
// that a new field cannot be silently dropped from the cache.
//
// A map or slice is written as its length plus one, 0 standing for nil, so
// that the state read back is the state written, nil-ness included.

// encoder writes binfield's fields, and the state's structures of them.
type encoder struct {
	binfield.Encoder
	// out, when set, takes the bytes every few tens of kilobytes (see
	// spill), so that a cache of any size is written through a small
	// buffer: a buffer the size of the state costs a page fault per page
	// on this kind of machine, a third of the writing. crc follows
	// what was handed to out.
	out io.Writer
	crc uint32
	n   int64 // bytes handed to out
	err error
	// skip leaves what is handed to out meanwhile out of crc (the
	// states' records, which carry CRCs of their own).
	skip bool
	// sorted writes maps in key order, so that equal states encode to
	// equal bytes (what the tests compare); the cache itself does not
	// need it, and sorting 10,000 ids was a third of writing it.
	sorted bool
}

// size writes the length of a map or slice, nil as 0.
func (w *encoder) size(n int, isNil bool) {
	if isNil {
		w.Uint(0)
		return
	}
	w.Uint(uint64(n) + 1)
}

func (w *encoder) stamp(s stamp) { w.Int(int64(s.seq)); w.Int(s.at); w.Str(s.eid) }

func (w *encoder) mark(m *mark) {
	w.stamp(m.stamp)
	w.Str(m.reason)
	w.Str(m.path)
	w.Str(m.anchor)
	w.Float(m.factor)
	w.Bool(m.on)
	w.Bool(m.legacy != nil)
	if m.legacy != nil {
		w.Float(*m.legacy)
	}
}

// marks writes the marks or the flags of a set (in the order of their
// names, as a map of them was written in sorted order).
func (w *encoder) marks(ms markSet) {
	w.size(len(ms), len(ms) == 0)
	for i := range ms {
		w.Str(ms[i].name)
		w.mark(&ms[i].mark)
	}
}

func (w *encoder) times(m map[string]int64) {
	w.size(len(m), m == nil)
	each(w, m, func(k string, at int64) {
		w.Str(k)
		w.Int(at)
	})
}

// each calls f with every entry of m: in key order when w.sorted, in the
// map's own order otherwise, which needs no list of the keys (most maps
// of a state hold one key or none).
func each[K cmp.Ordered, V any](w *encoder, m map[K]V, f func(K, V)) {
	if !w.sorted {
		for k, v := range m {
			f(k, v)
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f(k, m[k])
	}
}

func (w *encoder) state(s *State) {
	w.Str(s.ID)
	w.Str(s.Type)
	w.Str(s.Pattern)
	w.Str(s.Details)
	w.stamp(s.text)
	w.stamp(s.details)
	w.stamp(s.quality)
	w.times(s.sources)
	w.size(len(s.weights), s.weights == nil)
	each(w, s.weights, func(src string, ws map[int]int64) {
		w.Str(src)
		w.size(len(ws), ws == nil)
		each(w, ws, func(x int, at int64) {
			w.Int(int64(x))
			w.Int(at)
		})
	})
	w.Int(s.legacy.first)
	w.Int(s.legacy.last)
	w.Int(int64(s.legacyCount))
	w.size(len(s.evidence), s.evidence == nil)
	for _, e := range s.evidence {
		w.Str(e.text)
		w.Int(e.at)
	}
	w.marks(s.marks.marks())
	w.size(len(s.penalties), s.penalties == nil)
	for i := range s.penalties {
		w.mark(&s.penalties[i])
	}
	w.marks(s.marks.flags())
	var counts counts
	if s.counts != nil {
		counts = *s.counts
	}
	w.size(len(counts.sets), counts.sets == nil)
	each(w, counts.sets, func(c string, set map[string]struct{}) {
		w.Str(c)
		w.size(len(set), set == nil)
		each(w, set, func(eid string, _ struct{}) { w.Str(eid) })
	})
	w.times(counts.at)
	w.Int(s.tomb)
}

// spill hands what was encoded so far to out, once there is enough of it.
func (w *encoder) spill(force bool) {
	if w.out == nil || (!force && len(w.B) < 32<<10) {
		return
	}
	if !w.skip {
		w.crc = crc32.Update(w.crc, cacheCRC, w.B)
	}
	if _, err := w.out.Write(w.B); err != nil && w.err == nil {
		w.err = err
	}
	w.n += int64(len(w.B))
	w.B = w.B[:0]
}

// pos is how many bytes were encoded so far.
func (w *encoder) pos() int64 { return w.n + int64(len(w.B)) }

// log writes what a fold of the log's lines made: the states, each on
// its own, then the directory a reader decodes at once: the count of
// lines read, the kept lines, the problems, the status facts of every
// state (statusFacts) and the index of the states, so that a reader can
// decode only the states it needs (lazyStates):
//
//	states   n × a state
//	meta     the lines read, the kept lines, the problems
//	facts    n × factsLen bytes: the status facts of each state, in the
//	         order of the states, at fixed offsets (encoder.facts)
//	offsets  n × Fixed32: where each state begins, from the first
//	crcs     n × Fixed32: the CRC-32 of each state's record
//	slots    m × Fixed32: a hash table of the ids (fnv32a, linear
//	         probing, m = slotCount(n)), each a state's index plus one,
//	         0 for none
//	trailer  Fixed32 each: where the states end (the directory begins)
//	         and where the facts begin, from the start of the log; n, m
//
// The states come first and the directory after them so that the cache
// streams out through a small buffer and its file CRC (foldcache.go) can
// cover the directory and leave out the states: a reader checks the
// directory whole and each state's record as it decodes it, and at a
// session's end decodes a handful of 10,000.
func (w *encoder) log(l *Log) {
	z := l.lazy
	states := l.all()
	if z != nil && z.bad && w.err == nil {
		// A record failed its CRC as it was decoded: what l holds is no
		// longer the fold of the bytes the header names (the state read
		// as none, or the log folded afresh as it is now).
		w.err = errCacheDamaged
	}
	order := make([]*State, 0, len(states))
	for _, s := range states {
		order = append(order, s)
	}
	if w.sorted {
		slices.SortFunc(order, func(a, b *State) int { return strings.Compare(a.ID, b.ID) })
	} else {
		byAddress(order)
	}
	base := w.pos()
	w.spill(true)
	w.skip = true // the states are not in the file's CRC: each has its own
	offsets, crcs := make([]uint32, len(order)), make([]uint32, len(order))
	for i, s := range order {
		offsets[i] = uint32(w.pos() - base)
		at := len(w.B)
		w.state(s)
		crcs[i] = crc32.Checksum(w.B[at:], cacheCRC)
		w.spill(false)
	}
	w.spill(true)
	w.skip = false
	statesEnd := w.pos() - base
	w.Int(int64(l.Lines))
	w.size(len(l.Kept), l.Kept == nil)
	for _, k := range l.Kept {
		w.Int(int64(k.N))
		w.Str(string(k.Raw))
		w.Bool(k.Corrupt)
	}
	w.size(len(l.Problems), l.Problems == nil)
	for _, p := range l.Problems {
		w.Int(int64(p.Line))
		w.Bool(p.Torn)
		msg := ""
		if p.Err != nil {
			msg = p.Err.Error()
		}
		w.Str(msg)
		w.Str(p.Text)
	}
	factsStart := w.pos() - base
	memo := &factsMemo{states: order, facts: make([]statusFacts, len(order))}
	for i, s := range order {
		memo.facts[i] = s.facts()
		w.facts(memo.facts[i])
		w.spill(false)
	}
	l.facts = memo
	for _, off := range offsets {
		w.Fixed32(off)
	}
	for _, c := range crcs {
		w.Fixed32(c)
	}
	slots := make([]uint32, slotCount(len(order)))
	mask := uint32(len(slots) - 1)
	for i, s := range order {
		h := fnv32a(s.ID)
		for slots[h&mask] != 0 {
			h++
		}
		slots[h&mask] = uint32(i + 1)
	}
	for _, v := range slots {
		w.Fixed32(v)
		w.spill(false)
	}
	if w.pos()-base+trailerLen > math.MaxUint32 && w.err == nil {
		w.err = errCacheTooLarge // the offsets are 32 bits: no cache rather than a wrong one
	}
	for _, v := range []int64{statesEnd, factsStart, int64(len(order)), int64(len(slots))} {
		w.Fixed32(uint32(v))
	}
}

// byAddress orders states by where they are in memory: about the order
// the fold made them in, line after line, and made their strings, maps
// and slices in. Encoding them, then taking their facts, in that order
// walks forward through memory, which the processor prefetches; in a
// map's order every state and every part of it was a cache miss, twice,
// half of writing the cache (BenchmarkSaveFoldCache). Go's heap does not move what it allocated,
// and the order is only a matter of speed: the cache's index finds a
// state wherever it is.
//
// A radix sort, a byte of the address at a time from the lowest: a
// comparison sort of 10,000 pointers took a tenth of writing the cache.
func byAddress(order []*State) {
	if len(order) < 2 {
		return
	}
	type entry struct {
		at uintptr // from the lowest address
		s  *State
	}
	a, b := make([]entry, len(order)), make([]entry, len(order))
	lo, hi := ^uintptr(0), uintptr(0)
	for _, s := range order {
		at := uintptr(unsafe.Pointer(s))
		lo, hi = min(lo, at), max(hi, at)
	}
	for i, s := range order {
		a[i] = entry{uintptr(unsafe.Pointer(s)) - lo, s}
	}
	for shift := 0; shift < 64 && (hi-lo)>>shift != 0; shift += 8 {
		var at [256]int
		for _, e := range a {
			at[byte(e.at>>shift)]++
		}
		n := 0
		for d, c := range at {
			at[d], n = n, n+c
		}
		for _, e := range a {
			d := byte(e.at >> shift)
			b[at[d]] = e
			at[d]++
		}
		a, b = b, a
	}
	for i, e := range a {
		order[i] = e.s
	}
}

// trailerLen is the size of the trailer of a log's encoding.
const trailerLen = 4 * 4

var errCacheTooLarge = errors.New("fold cache over 4 GiB")

var errCacheDamaged = errors.New("fold cache record damaged")

// slotCount is the size of the id hash table of n states: a power of two
// at least 4/3 of n (so that a probe soon meets an empty slot), 0 for none.
func slotCount(n int) int {
	if n == 0 {
		return 0
	}
	m := 2
	for m < n+n/3+1 {
		m *= 2
	}
	return m
}

// fnv32a hashes an id for the table of slots.
func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// factsLen is the size of a state's status facts in the cache: fixed, so
// that a reader deciding 10,000 statuses reads each where it is rather
// than decoding varints one after the other.
//
//	0      the type (typeCode)
//	1      flags: 1 visible, 2 quality, 4 devflow's stored confidence in
//	       force, 8 the facts are here (else: decode the state to know)
//	2      decided (the decided* values)
//	3      0
//	4:16   count, weighted, legacyCount: int32 each
//	16:32  first, last: int64 each
//	32:48  penalty, legacy: float64 bits each
const factsLen = 48

const (
	factVisible = 1 << iota
	factQuality
	factLegacy
	factHere
)

// facts writes a state's status facts; those of a state no view shows
// are its type alone. A count beyond 32 bits (no log holds one) is not
// written: the reader decodes that state to decide its status.
func (w *encoder) facts(f statusFacts) {
	var b [factsLen]byte
	b[0] = f.typ
	fits := func(v int) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
	if !f.visible {
		b[1] = factHere
	} else if fits(f.count) && fits(f.weighted) && fits(f.legacyCount) {
		b[1] = factVisible | factHere
		if f.quality {
			b[1] |= factQuality
		}
		if f.hasLegacy {
			b[1] |= factLegacy
		}
		b[2] = f.decided
		le := binary.LittleEndian
		le.PutUint32(b[4:], uint32(int32(f.count)))
		le.PutUint32(b[8:], uint32(int32(f.weighted)))
		le.PutUint32(b[12:], uint32(int32(f.legacyCount)))
		le.PutUint64(b[16:], uint64(f.first))
		le.PutUint64(b[24:], uint64(f.last))
		le.PutUint64(b[32:], math.Float64bits(f.penalty))
		if f.hasLegacy {
			le.PutUint64(b[40:], math.Float64bits(f.legacy))
		}
	}
	w.B = append(w.B, b[:]...)
}

// factsAt reads the facts encoder.facts wrote at the start of b (factsLen
// bytes): all of them for a state a view shows, whose latest sighting the
// log's clock needs whatever its status. here is false when they were not
// written, ok false when they do not decode.
func factsAt(b string) (f statusFacts, here, ok bool) {
	f.typ = b[0]
	flags := b[1]
	if int(f.typ) > len(lesson.All()) || flags&^(factVisible|factQuality|factLegacy|factHere) != 0 || b[2] > decidedPromoted || b[3] != 0 {
		return f, false, false
	}
	if flags&factHere == 0 {
		return f, false, flags == 0
	}
	if flags&factVisible == 0 {
		return f, true, flags == factHere && b[2] == 0
	}
	f.visible, f.quality, f.hasLegacy = true, flags&factQuality != 0, flags&factLegacy != 0
	f.decided = b[2]
	u32 := func(i int) int {
		return int(int32(uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24))
	}
	u64 := func(i int) uint64 { return uint64(uint32(u32(i))) | uint64(uint32(u32(i+4)))<<32 }
	f.count, f.weighted, f.legacyCount = u32(4), u32(8), u32(12)
	f.first, f.last = int64(u64(16)), int64(u64(24))
	f.penalty = math.Float64frombits(u64(32))
	if f.hasLegacy {
		f.legacy = math.Float64frombits(u64(40))
	}
	return f, true, true
}

// errCacheCorrupt is any cache that does not decode: it is refolded. It
// is binfield's, the error of a field that does not decode.
var errCacheCorrupt = binfield.ErrCorrupt

// decoderBin reads the binary form from one string: the strings of the
// states read back are views of it, not copies (one allocation for all of
// them, kept alive as long as the states are).
type decoderBin struct {
	binfield.Decoder
	// Slabs the states are carved from: one allocation each for all the
	// states, their evidence, their penalties and devflow's stored
	// confidences, rather than several per state. Each piece is cut with
	// its capacity at its length, so that an append reallocates rather
	// than runs into the next state's.
	states    []State
	evidence  []timedText
	penalties []mark
	markSets  []namedMark
	floats    []float64
	// slab is the least a slab is made for (1,024 when 0): a reader that
	// decodes a few states makes small ones.
	slab int
	// clone copies every string read: the input is a mapped file, which
	// is unmapped once the log no longer reads from it.
	clone bool
}

// Str reads a string: a view of the input, or a copy when r.clone.
func (r *decoderBin) Str() string {
	s := r.Decoder.Str()
	if r.clone {
		s = strings.Clone(s)
	}
	return s
}

func carve[T any](slab *[]T, n, least int) []T {
	if least == 0 {
		least = 1024
	}
	if len(*slab) < n {
		*slab = make([]T, max(n, least))
	}
	out := (*slab)[:0:n]
	*slab = (*slab)[n:]
	return out
}

// size reads a length written by encoder.size: n, and whether it was nil.
// A length beyond what is left of the input (every element takes at least
// a byte) is corrupt, so a damaged cache never allocates wildly.
func (r *decoderBin) size() (n int, isNil bool) {
	v := r.Uint()
	if v == 0 || r.Err != nil {
		return 0, true
	}
	if v-1 > uint64(len(r.S)) {
		r.Fail()
		return 0, true
	}
	return int(v - 1), false
}

func (r *decoderBin) stamp() stamp {
	return stamp{seq: int(r.Int()), at: r.Int(), eid: r.Str()}
}

func (r *decoderBin) mark() mark {
	m := mark{stamp: r.stamp()}
	m.reason, m.path, m.anchor = r.Str(), r.Str(), r.Str()
	m.factor = r.Float()
	m.on = r.Bool()
	if r.Bool() {
		f := carve(&r.floats, 1, r.slab)[:1]
		f[0] = r.Float()
		m.legacy = &f[0]
	}
	return m
}

// marks reads the marks (or the flags) of a state into ms.
func (r *decoderBin) marks(ms markSet, flag bool) markSet {
	n, _ := r.size()
	if n == 0 {
		return ms
	}
	if len(ms) == 0 {
		ms = carve(&r.markSets, n, r.slab)
	} else {
		ms = slices.Grow(ms, n)
	}
	for i := 0; i < n && r.Err == nil; i++ {
		k := r.Str()
		ms.set(flag, k, r.mark())
	}
	return ms
}

func (r *decoderBin) times() map[string]int64 {
	n, isNil := r.size()
	if isNil {
		return nil
	}
	m := make(map[string]int64, n)
	for i := 0; i < n && r.Err == nil; i++ {
		k := r.Str()
		m[k] = r.Int()
	}
	return m
}

func (r *decoderBin) state() *State {
	s := &carve(&r.states, 1, r.slab)[:1][0]
	s.ID, s.Type, s.Pattern, s.Details = r.Str(), r.Str(), r.Str(), r.Str()
	s.text, s.details, s.quality = r.stamp(), r.stamp(), r.stamp()
	s.sources = r.times()
	if n, isNil := r.size(); !isNil {
		s.weights = make(map[string]map[int]int64, n)
		for i := 0; i < n && r.Err == nil; i++ {
			src := r.Str()
			var ws map[int]int64
			if m, isNil := r.size(); !isNil {
				ws = make(map[int]int64, m)
				for j := 0; j < m && r.Err == nil; j++ {
					x := int(r.Int())
					ws[x] = r.Int()
				}
			}
			s.weights[src] = ws
		}
	}
	s.legacy = span{r.Int(), r.Int()}
	s.legacyCount = int(r.Int())
	if n, isNil := r.size(); !isNil {
		s.evidence = carve(&r.evidence, n, r.slab)
		for i := 0; i < n && r.Err == nil; i++ {
			s.evidence = append(s.evidence, timedText{r.Str(), r.Int()})
		}
	}
	s.marks = r.marks(nil, false)
	if n, isNil := r.size(); !isNil {
		s.penalties = carve(&r.penalties, n, r.slab)
		for i := 0; i < n && r.Err == nil; i++ {
			s.penalties = append(s.penalties, r.mark())
		}
	}
	s.marks = r.marks(s.marks, true)
	if n, isNil := r.size(); !isNil {
		s.counters().sets = make(map[string]map[string]struct{}, n)
		for i := 0; i < n && r.Err == nil; i++ {
			c := r.Str()
			var set map[string]struct{}
			if m, isNil := r.size(); !isNil {
				set = make(map[string]struct{}, m)
				for j := 0; j < m && r.Err == nil; j++ {
					set[r.Str()] = struct{}{}
				}
			}
			s.counts.sets[c] = set
		}
	}
	if at := r.times(); at != nil {
		s.counters().at = at
	}
	s.tomb = r.Int()
	return s
}

// log reads what encoder.log wrote, all of r.S, into a new Log: the
// lines read, the kept lines and the problems at once, the states when
// they are asked for (lazyStates). Everything but the states' own records
// is checked here: the layout, the offsets, the slots and the facts.
func (r *decoderBin) log() (*Log, error) {
	data := r.S
	if len(data) < trailerLen {
		r.Fail()
		return nil, r.Err
	}
	statesEnd, factsStart, n, m := logTrailer(data)
	if statesEnd > factsStart || n > statesEnd || m != slotCount(n) || (n == 0 && statesEnd != 0) ||
		factsStart > len(data) || len(data)-trailerLen-factsStart != factsLen*n+4*(2*n+m) {
		r.Fail()
		return nil, r.Err
	}
	l := NewLog()
	r.S = data[statesEnd:factsStart]
	l.Lines = int(r.Int())
	if n, isNil := r.size(); !isNil {
		l.Kept = make([]KeptLine, 0, n)
		for i := 0; i < n && r.Err == nil; i++ {
			k := KeptLine{N: int(r.Int())}
			k.Raw = []byte(r.Str())
			k.Corrupt = r.Bool()
			l.Kept = append(l.Kept, k)
		}
	}
	if n, isNil := r.size(); !isNil {
		l.Problems = make([]jsonl.Problem, 0, n)
		for i := 0; i < n && r.Err == nil; i++ {
			p := jsonl.Problem{Line: int(r.Int()), Torn: r.Bool()}
			if msg := r.Str(); msg != "" {
				p.Err = errors.New(msg)
			}
			p.Text = r.Str()
			l.Problems = append(l.Problems, p)
		}
	}
	if err := r.Done(); err != nil {
		return nil, err
	}
	if n == 0 {
		return l, nil
	}
	// The offsets, the slots and the facts are checked as they are read,
	// each record against its CRC as it is decoded (lazyStates): a read
	// that asks for five states reads no more.
	at := factsStart
	cut := func(size int) string { at += size; return data[at-size : at] }
	z := &lazyStates{
		states:  data[:statesEnd],
		facts:   cut(factsLen * n),
		offsets: cut(4 * n),
		crcs:    cut(4 * n),
		slots:   cut(4 * m),
		decoded: make([]bool, n),
		left:    n,
		dec:     decoderBin{slab: 16, clone: r.clone}, // a few states: small slabs
	}
	l.lazy = z
	return l, nil
}

// logTrailer reads the trailer at the end of a log's encoding (at least
// trailerLen bytes).
func logTrailer(data string) (statesEnd, factsStart, n, m int) {
	tr := data[len(data)-trailerLen:]
	return int(fixed32At(tr, 0)), int(fixed32At(tr, 1)), int(fixed32At(tr, 2)), int(fixed32At(tr, 3))
}
