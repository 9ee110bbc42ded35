package observe

import (
	"errors"
	"hash/crc32"
	"io"
	"slices"

	"github.com/devlearn/devlearn/internal/binfield"
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
	err error
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

func (w *encoder) mark(m mark) {
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

// marks writes a map of marks in key order, so that the same state always
// encodes to the same bytes.
func (w *encoder) marks(ms map[string]mark) {
	w.size(len(ms), ms == nil)
	for _, k := range keys(w, ms) {
		w.Str(k)
		w.mark(ms[k])
	}
}

func (w *encoder) times(m map[string]int64) {
	w.size(len(m), m == nil)
	for _, k := range keys(w, m) {
		w.Str(k)
		w.Int(m[k])
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
	w.Str(s.ID)
	w.Str(s.Type)
	w.Str(s.Pattern)
	w.Str(s.Details)
	w.stamp(s.text)
	w.stamp(s.details)
	w.stamp(s.quality)
	w.times(s.sources)
	w.size(len(s.weights), s.weights == nil)
	for _, src := range keys(w, s.weights) {
		ws := s.weights[src]
		w.Str(src)
		w.size(len(ws), ws == nil)
		weights := make([]int, 0, len(ws))
		for x := range ws {
			weights = append(weights, x)
		}
		if w.sorted {
			slices.Sort(weights)
		}
		for _, x := range weights {
			w.Int(int64(x))
			w.Int(ws[x])
		}
	}
	w.Int(s.legacy.first)
	w.Int(s.legacy.last)
	w.Int(int64(s.legacyCount))
	w.size(len(s.evidence), s.evidence == nil)
	for _, e := range s.evidence {
		w.Str(e.text)
		w.Int(e.at)
	}
	w.marks(s.marks)
	w.size(len(s.penalties), s.penalties == nil)
	for _, m := range s.penalties {
		w.mark(m)
	}
	w.marks(s.flags)
	w.size(len(s.counters), s.counters == nil)
	for _, c := range keys(w, s.counters) {
		w.Str(c)
		set := s.counters[c]
		w.size(len(set), set == nil)
		for _, eid := range keys(w, set) {
			w.Str(eid)
		}
	}
	w.times(s.counted)
	w.Int(s.tomb)
}

// spill hands what was encoded so far to out, once there is enough of it.
func (w *encoder) spill(force bool) {
	if w.out == nil || (!force && len(w.B) < 32<<10) {
		return
	}
	w.crc = crc32.Update(w.crc, castagnoli(), w.B)
	if _, err := w.out.Write(w.B); err != nil && w.err == nil {
		w.err = err
	}
	w.B = w.B[:0]
}

// log writes what a fold of the log's lines made: the states, the kept
// lines and the problems, and the count of lines read.
func (w *encoder) log(l *Log) {
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
	w.Uint(uint64(len(l.states)))
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
		f := carve(&r.floats, 1)[:1]
		f[0] = r.Float()
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
	for i := 0; i < n && r.Err == nil; i++ {
		k := r.Str()
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
	for i := 0; i < n && r.Err == nil; i++ {
		k := r.Str()
		m[k] = r.Int()
	}
	return m
}

func (r *decoderBin) state() *State {
	s := &carve(&r.states, 1)[:1][0]
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
		s.evidence = carve(&r.evidence, n)
		for i := 0; i < n && r.Err == nil; i++ {
			s.evidence = append(s.evidence, timedText{r.Str(), r.Int()})
		}
	}
	s.marks = r.marks()
	if n, isNil := r.size(); !isNil {
		s.penalties = carve(&r.penalties, n)
		for i := 0; i < n && r.Err == nil; i++ {
			s.penalties = append(s.penalties, r.mark())
		}
	}
	s.flags = r.marks()
	if n, isNil := r.size(); !isNil {
		s.counters = make(map[string]map[string]struct{}, n)
		for i := 0; i < n && r.Err == nil; i++ {
			c := r.Str()
			var set map[string]struct{}
			if m, isNil := r.size(); !isNil {
				set = make(map[string]struct{}, m)
				for j := 0; j < m && r.Err == nil; j++ {
					set[r.Str()] = struct{}{}
				}
			}
			s.counters[c] = set
		}
	}
	s.counted = r.times()
	s.tomb = r.Int()
	return s
}

// log reads what encoder.log wrote into a new Log.
func (r *decoderBin) log() (*Log, error) {
	l := NewLog()
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
	n := r.Uint()
	if n > uint64(len(r.S)) {
		r.Fail()
	}
	if r.Err == nil {
		l.states = make(map[string]*State, n)
		r.states = make([]State, n)
	}
	for i := uint64(0); i < n && r.Err == nil; i++ {
		s := r.state()
		l.states[s.ID] = s
	}
	if r.Err == nil && len(r.S) != 0 {
		r.Fail() // bytes after the end: not what was written
	}
	if r.Err != nil {
		return nil, r.Err
	}
	return l, nil
}
