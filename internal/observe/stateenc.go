package observe

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// The folded state's binary form, for the fold cache (foldcache.go). It is
// a private format of this version of devlearn: the cache names its
// version, and a cache of any other is refolded, never read. Every field of
// State is written; TestStateFieldsEncoded fails when State gains one, so
// that a new field cannot be silently dropped from the cache.
//
// A map or slice is written as its length plus one, 0 standing for nil, so
// that the state read back is the state written, nil-ness included.

type encoder struct {
	b []byte
	// out, when set, takes the bytes every few tens of kilobytes (see
	// spill), so that a cache of any size is written through a small
	// buffer: a buffer the size of the state costs a page fault per page
	// on this kind of machine, a third of the writing. crc follows
	// what was handed to out.
	out io.Writer
	crc uint32
	err error
	// sorted writes maps in key order, so that equal states encode to
	// equal bytes (what the tests compare); the cache itself does not
	// need it, and sorting 10,000 ids was a third of writing it.
	sorted bool
}

func (w *encoder) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *encoder) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *encoder) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *encoder) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *encoder) float(f float64) { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(f)) }

// size writes the length of a map or slice, nil as 0.
func (w *encoder) size(n int, isNil bool) {
	if isNil {
		w.uint(0)
		return
	}
	w.uint(uint64(n) + 1)
}

func (w *encoder) stamp(s stamp) { w.int(int64(s.seq)); w.int(s.at); w.str(s.eid) }

func (w *encoder) mark(m mark) {
	w.stamp(m.stamp)
	w.str(m.reason)
	w.str(m.path)
	w.str(m.anchor)
	w.float(m.factor)
	w.bool(m.on)
	w.bool(m.legacy != nil)
	if m.legacy != nil {
		w.float(*m.legacy)
	}
}

// marks writes a map of marks in key order, so that the same state always
// encodes to the same bytes.
func (w *encoder) marks(ms map[string]mark) {
	w.size(len(ms), ms == nil)
	for _, k := range keys(w, ms) {
		w.str(k)
		w.mark(ms[k])
	}
}

func (w *encoder) times(m map[string]int64) {
	w.size(len(m), m == nil)
	for _, k := range keys(w, m) {
		w.str(k)
		w.int(m[k])
	}
}

// keys lists m's keys, in order when w.sorted; most maps of a state hold
// one key or none, which need neither a sort nor, for none, a slice.
func keys[V any](w *encoder, m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if w.sorted {
		slices.Sort(keys)
	}
	return keys
}

func (w *encoder) state(s *State) {
	w.str(s.ID)
	w.str(s.Type)
	w.str(s.Pattern)
	w.str(s.Details)
	w.stamp(s.text)
	w.stamp(s.details)
	w.stamp(s.quality)
	w.times(s.sources)
	w.size(len(s.weights), s.weights == nil)
	for _, src := range keys(w, s.weights) {
		ws := s.weights[src]
		w.str(src)
		w.size(len(ws), ws == nil)
		weights := make([]int, 0, len(ws))
		for x := range ws {
			weights = append(weights, x)
		}
		if w.sorted {
			slices.Sort(weights)
		}
		for _, x := range weights {
			w.int(int64(x))
			w.int(ws[x])
		}
	}
	w.int(s.legacy.first)
	w.int(s.legacy.last)
	w.int(int64(s.legacyCount))
	w.size(len(s.evidence), s.evidence == nil)
	for _, e := range s.evidence {
		w.str(e.text)
		w.int(e.at)
	}
	w.marks(s.marks)
	w.size(len(s.penalties), s.penalties == nil)
	for _, m := range s.penalties {
		w.mark(m)
	}
	w.marks(s.flags)
	w.size(len(s.counters), s.counters == nil)
	for _, c := range keys(w, s.counters) {
		w.str(c)
		set := s.counters[c]
		w.size(len(set), set == nil)
		for _, eid := range keys(w, set) {
			w.str(eid)
		}
	}
	w.times(s.counted)
	w.int(s.tomb)
}

// spill hands what was encoded so far to out, once there is enough of it.
func (w *encoder) spill(force bool) {
	if w.out == nil || (!force && len(w.b) < 32<<10) {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli, w.b)
	if _, err := w.out.Write(w.b); err != nil && w.err == nil {
		w.err = err
	}
	w.b = w.b[:0]
}

// log writes what a fold of the log's lines made: the states, the kept
// lines and the problems, and the count of lines read.
func (w *encoder) log(l *Log) {
	w.int(int64(l.Lines))
	w.size(len(l.Kept), l.Kept == nil)
	for _, k := range l.Kept {
		w.int(int64(k.N))
		w.str(string(k.Raw))
		w.bool(k.Corrupt)
	}
	w.size(len(l.Problems), l.Problems == nil)
	for _, p := range l.Problems {
		w.int(int64(p.Line))
		w.bool(p.Torn)
		msg := ""
		if p.Err != nil {
			msg = p.Err.Error()
		}
		w.str(msg)
		w.str(p.Text)
	}
	w.uint(uint64(len(l.states)))
	if w.sorted {
		for _, id := range l.IDs() {
			w.state(l.states[id])
			w.spill(false)
		}
		return
	}
	for _, s := range l.states {
		w.state(s)
		w.spill(false)
	}
}

// errCacheCorrupt is any cache that does not decode: it is refolded.
var errCacheCorrupt = errors.New("fold cache: corrupt")

// decoderBin reads the binary form from one string: the strings of the
// states read back are views of it, not copies (one allocation for all of
// them, kept alive as long as the states are).
type decoderBin struct {
	s   string
	err error
	// Slabs the states are carved from: one allocation each for all the
	// states, their evidence, their penalties and devflow's stored
	// confidences, rather than several per state. Each piece is cut with
	// its capacity at its length, so that an append reallocates rather
	// than runs into the next state's.
	states    []State
	evidence  []timedText
	penalties []mark
	floats    []float64
}

func carve[T any](slab *[]T, n int) []T {
	if len(*slab) < n {
		*slab = make([]T, max(n, 1024))
	}
	out := (*slab)[:0:n]
	*slab = (*slab)[n:]
	return out
}

func (r *decoderBin) fail() { r.err = errCacheCorrupt; r.s = "" }

func (r *decoderBin) uint() uint64 {
	var v uint64
	for i := 0; i < len(r.s) && i < binary.MaxVarintLen64; i++ {
		c := r.s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			r.s = r.s[i+1:]
			return v
		}
	}
	r.fail()
	return 0
}

func (r *decoderBin) int() int64 {
	u := r.uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (r *decoderBin) str() string {
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.fail()
		return ""
	}
	v := r.s[:n]
	r.s = r.s[n:]
	return v
}

func (r *decoderBin) bool() bool {
	if len(r.s) < 1 || r.s[0] > 1 {
		r.fail()
		return false
	}
	v := r.s[0] == 1
	r.s = r.s[1:]
	return v
}

func (r *decoderBin) float() float64 {
	if len(r.s) < 8 {
		r.fail()
		return 0
	}
	var b [8]byte
	copy(b[:], r.s)
	r.s = r.s[8:]
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

// size reads a length written by encoder.size: n, and whether it was nil.
// A length beyond what is left of the input (every element takes at least
// a byte) is corrupt, so a damaged cache never allocates wildly.
func (r *decoderBin) size() (n int, isNil bool) {
	v := r.uint()
	if v == 0 || r.err != nil {
		return 0, true
	}
	if v-1 > uint64(len(r.s)) {
		r.fail()
		return 0, true
	}
	return int(v - 1), false
}

func (r *decoderBin) stamp() stamp {
	return stamp{seq: int(r.int()), at: r.int(), eid: r.str()}
}

func (r *decoderBin) mark() mark {
	m := mark{stamp: r.stamp()}
	m.reason, m.path, m.anchor = r.str(), r.str(), r.str()
	m.factor = r.float()
	m.on = r.bool()
	if r.bool() {
		f := carve(&r.floats, 1)[:1]
		f[0] = r.float()
		m.legacy = &f[0]
	}
	return m
}

func (r *decoderBin) marks() map[string]mark {
	n, isNil := r.size()
	if isNil {
		return nil
	}
	m := make(map[string]mark, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.str()
		m[k] = r.mark()
	}
	return m
}

func (r *decoderBin) times() map[string]int64 {
	n, isNil := r.size()
	if isNil {
		return nil
	}
	m := make(map[string]int64, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.str()
		m[k] = r.int()
	}
	return m
}

func (r *decoderBin) state() *State {
	s := &carve(&r.states, 1)[:1][0]
	s.ID, s.Type, s.Pattern, s.Details = r.str(), r.str(), r.str(), r.str()
	s.text, s.details, s.quality = r.stamp(), r.stamp(), r.stamp()
	s.sources = r.times()
	if n, isNil := r.size(); !isNil {
		s.weights = make(map[string]map[int]int64, n)
		for i := 0; i < n && r.err == nil; i++ {
			src := r.str()
			var ws map[int]int64
			if m, isNil := r.size(); !isNil {
				ws = make(map[int]int64, m)
				for j := 0; j < m && r.err == nil; j++ {
					x := int(r.int())
					ws[x] = r.int()
				}
			}
			s.weights[src] = ws
		}
	}
	s.legacy = span{r.int(), r.int()}
	s.legacyCount = int(r.int())
	if n, isNil := r.size(); !isNil {
		s.evidence = carve(&r.evidence, n)
		for i := 0; i < n && r.err == nil; i++ {
			s.evidence = append(s.evidence, timedText{r.str(), r.int()})
		}
	}
	s.marks = r.marks()
	if n, isNil := r.size(); !isNil {
		s.penalties = carve(&r.penalties, n)
		for i := 0; i < n && r.err == nil; i++ {
			s.penalties = append(s.penalties, r.mark())
		}
	}
	s.flags = r.marks()
	if n, isNil := r.size(); !isNil {
		s.counters = make(map[string]map[string]struct{}, n)
		for i := 0; i < n && r.err == nil; i++ {
			c := r.str()
			var set map[string]struct{}
			if m, isNil := r.size(); !isNil {
				set = make(map[string]struct{}, m)
				for j := 0; j < m && r.err == nil; j++ {
					set[r.str()] = struct{}{}
				}
			}
			s.counters[c] = set
		}
	}
	s.counted = r.times()
	s.tomb = r.int()
	return s
}

// log reads what encoder.log wrote into a new Log.
func (r *decoderBin) log() (*Log, error) {
	l := NewLog()
	l.Lines = int(r.int())
	if n, isNil := r.size(); !isNil {
		l.Kept = make([]KeptLine, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			k := KeptLine{N: int(r.int())}
			k.Raw = []byte(r.str())
			k.Corrupt = r.bool()
			l.Kept = append(l.Kept, k)
		}
	}
	if n, isNil := r.size(); !isNil {
		l.Problems = make([]jsonl.Problem, 0, n)
		for i := 0; i < n && r.err == nil; i++ {
			p := jsonl.Problem{Line: int(r.int()), Torn: r.bool()}
			if msg := r.str(); msg != "" {
				p.Err = errors.New(msg)
			}
			p.Text = r.str()
			l.Problems = append(l.Problems, p)
		}
	}
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.fail()
	}
	if r.err == nil {
		l.states = make(map[string]*State, n)
		r.states = make([]State, n)
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		s := r.state()
		l.states[s.ID] = s
	}
	if r.err == nil && len(r.s) != 0 {
		r.fail() // bytes after the end: not what was written
	}
	if r.err != nil {
		return nil, r.err
	}
	return l, nil
}
