package observe

import (
	"maps"
	"runtime/debug"
	"strings"

	"github.com/devlearn/devlearn/internal/binfield"
)

// lazyStates are the states of a log read from the fold cache that have
// not been decoded yet. A state is decoded when something asks for it by
// id (Log.get: an event or a line of the tail joined in, Observation,
// Sighted...), when WithStatus finds from its facts that its status is
// one asked for, or with all the others when a caller wants every state
// (Log.all: Observations, IDs, compaction, writing the cache). At the end
// of a session render-ready decodes the states of the lines appended
// since the cache was written and the ready ones, not the whole log.
//
// What a state holds is trusted as the cache's CRC and the log prefix's
// hashes establish (foldcache.go), as when it was decoded at once: a
// record that does not decode although the cache's CRC matched (only a
// cache written on purpose could) is read as no state, never a panic.
type lazyStates struct {
	states  string // the states' records, one after the other
	offsets string // n × Fixed32: where each record begins in states
	slots   string // the id hash table (encoder.log)
	facts   string // n × statusFacts
	decoded []bool // decoded, or dropped as undecodable
	left    int    // how many are not
	dec     decoderBin
}

func fixed32At(s string, i int) uint32 {
	s = s[4*i : 4*i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// record is the bytes of state i; ok is false when the offsets do not
// delimit them.
func (z *lazyStates) record(i int) (rec string, ok bool) {
	start, end := int(fixed32At(z.offsets, i)), len(z.states)
	if i+1 < len(z.decoded) {
		end = int(fixed32At(z.offsets, i+1))
	}
	if start >= end || end > len(z.states) {
		return "", false
	}
	return z.states[start:end], true
}

// find is the index of the state of id, looked up in the hash table and
// confirmed by the id the record begins with.
func (z *lazyStates) find(id string) (i int, ok bool) {
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	m := len(z.slots) / 4
	h := fnv32a(id)
	for probe := 0; probe < m; probe++ {
		v := int(fixed32At(z.slots, int((h+uint32(probe))&uint32(m-1))))
		if v == 0 || v > len(z.decoded) {
			return 0, false
		}
		rec, ok := z.record(v - 1)
		d := binfield.Decoder{S: rec}
		if ok && d.Str() == id && d.Err == nil {
			return v - 1, true
		}
	}
	return 0, false
}

// pick lists the states not decoded yet whose facts match; ok is false
// when the facts do not decode (the caller then decides from the states).
func (z *lazyStates) pick(match func(*statusFacts) bool) (picked []int, ok bool) {
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	r := &decoderBin{Decoder: binfield.Decoder{S: z.facts}}
	var f statusFacts // one for all: match keeps no pointer, but may escape it
	for i, done := range z.decoded {
		f = r.facts()
		if r.Err != nil {
			return nil, false
		}
		if !done && match(&f) {
			picked = append(picked, i)
		}
	}
	return picked, r.Done() == nil
}

// get is the state of id, decoded if it was not.
func (l *Log) get(id string) (*State, bool) {
	if s, ok := l.states[id]; ok {
		return s, true
	}
	if l.lazy == nil {
		return nil, false
	}
	i, ok := l.lazy.find(id)
	if !ok || l.lazy.decoded[i] {
		return nil, false
	}
	s := l.decode(i)
	return s, s != nil
}

// decode decodes state i into l.states (nil when its record does not
// decode, or holds an id already there).
func (l *Log) decode(i int) *State {
	z := l.lazy
	z.decoded[i] = true
	if z.left--; z.left == 0 {
		l.lazy = nil
	}
	s, ok := z.state(i)
	if !ok {
		return nil
	}
	if _, dup := l.states[s.ID]; dup {
		return nil
	}
	l.states[s.ID] = s
	return s
}

// state decodes the record of state i; a fault reading it (the cache
// file cut short in place under its mapping) is a record that does not
// decode.
func (z *lazyStates) state(i int) (s *State, ok bool) {
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	rec, ok := z.record(i)
	if !ok {
		return nil, false
	}
	z.dec.S, z.dec.Err = rec, nil
	s = z.dec.state()
	return s, z.dec.Done() == nil
}

// all decodes every state not decoded yet, and returns them all.
func (l *Log) all() map[string]*State {
	z := l.lazy
	if z == nil {
		return l.states
	}
	states := make(map[string]*State, len(l.states)+z.left)
	maps.Copy(states, l.states)
	l.states = states
	z.dec.slab, z.dec.states = 0, make([]State, z.left) // slabs for all of them
	if z.dec.clone {
		// One copy of all the records rather than one of each string.
		ok := true
		func() {
			defer catchFault(&ok, debug.SetPanicOnFault(true))
			z.states = strings.Clone(z.states)
		}()
		z.dec.clone = !ok
	}
	for i, done := range z.decoded {
		if !done {
			l.decode(i)
		}
	}
	return l.states
}
