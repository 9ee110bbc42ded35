package observe

import (
	"hash/crc32"
	"maps"
	"runtime/debug"
	"strings"
	"unsafe"

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
// The directory (the facts, the offsets, the slots) is trusted as the
// cache's CRC and the log prefix's hashes establish (foldcache.go); each
// record is checked against its own CRC when it is decoded, or looked at
// to find an id. A record that fails it (a cache torn or damaged where
// the file's CRC does not reach) makes the log fold its file afresh
// (refold), so that a damaged cache changes nothing but speed; a record
// that does not decode although its CRC matched (only a cache written on
// purpose could) is read as no state, never a panic.
type lazyStates struct {
	states  string // the states' records, one after the other
	offsets string // n × Fixed32: where each record begins in states
	crcs    string // n × Fixed32: each record's CRC-32
	slots   string // the id hash table (encoder.log)
	facts   string // n × factsLen bytes of statusFacts
	decoded []bool // decoded, or dropped as undecodable
	left    int    // how many are not
	dec     decoderBin
	// refold folds the log afresh, as it was when it was read, for a
	// record that fails its CRC; nil where there is no file to fold (a
	// log section decoded on its own), and once it was called.
	refold func() *Log
	bad    bool // a record failed its CRC
}

func fixed32At(s string, i int) uint32 {
	s = s[4*i : 4*i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// record is the bytes of state i; ok is false when the offsets do not
// delimit them, bad when they fail their CRC.
func (z *lazyStates) record(i int) (rec string, ok, bad bool) {
	start, end := int(fixed32At(z.offsets, i)), len(z.states)
	if i+1 < len(z.decoded) {
		end = int(fixed32At(z.offsets, i+1))
	}
	if start >= end || end > len(z.states) {
		return "", false, false
	}
	rec = z.states[start:end]
	if crc32.Update(0, cacheCRC, unsafe.Slice(unsafe.StringData(rec), len(rec))) != fixed32At(z.crcs, i) {
		return "", false, true
	}
	return rec, true, false
}

// find is the index of the state of id, looked up in the hash table and
// confirmed by the id the record begins with; bad when a record it looked
// at fails its CRC (a fault reading one, too).
func (z *lazyStates) find(id string) (i int, ok, bad bool) {
	defer catchDamage(&ok, &bad, debug.SetPanicOnFault(true))
	m := len(z.slots) / 4
	h := fnv32a(id)
	for probe := 0; probe < m; probe++ {
		v := int(fixed32At(z.slots, int((h+uint32(probe))&uint32(m-1))))
		if v == 0 || v > len(z.decoded) {
			return 0, false, false
		}
		rec, ok, bad := z.record(v - 1)
		if bad {
			return 0, false, true
		}
		d := binfield.Decoder{S: rec}
		if ok && d.Str() == id && d.Err == nil {
			return v - 1, true, false
		}
	}
	return 0, false, false
}

// pick lists the states not decoded yet whose facts match, and those
// whose facts are not in the cache (whose match is then decided from the
// state); ok is false when the facts do not decode (the caller then
// decides from the states).
func (z *lazyStates) pick(match func(*statusFacts) bool) (picked []int, ok bool) {
	defer catchFault(&ok, debug.SetPanicOnFault(true))
	var f statusFacts // one for all: match keeps no pointer, but may escape it
	for i, done := range z.decoded {
		if done {
			continue
		}
		var here, ok bool
		if f, here, ok = factsAt(z.facts[factsLen*i:]); !ok {
			return nil, false
		}
		if !here || match(&f) {
			picked = append(picked, i)
		}
	}
	return picked, true
}

// get is the state of id, decoded if it was not.
func (l *Log) get(id string) (*State, bool) {
	if s, ok := l.states[id]; ok {
		return s, true
	}
	z := l.lazy
	if z == nil {
		return nil, false
	}
	i, ok, bad := z.find(id)
	if bad {
		l.damaged(z)
	} else if !ok || z.decoded[i] {
		return nil, false
	} else if s := l.decode(i); s != nil {
		return s, true
	}
	s, ok := l.states[id] // a log folded afresh, when it was
	return s, ok
}

// decode decodes state i into l.states (nil when its record does not
// decode, or holds an id already there).
func (l *Log) decode(i int) *State {
	z := l.lazy
	z.decoded[i] = true
	if z.left--; z.left == 0 {
		l.lazy = nil
	}
	s, ok, bad := z.state(i)
	if bad {
		l.damaged(z)
	}
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
// file cut short in place under its mapping) is a damaged record, as one
// that fails its CRC.
func (z *lazyStates) state(i int) (s *State, ok, bad bool) {
	defer catchDamage(&ok, &bad, debug.SetPanicOnFault(true))
	rec, ok, bad := z.record(i)
	if !ok {
		return nil, false, bad
	}
	z.dec.S, z.dec.Err = rec, nil
	s = z.dec.state()
	return s, z.dec.Done() == nil, false
}

// catchDamage, deferred with the goroutine's previous SetPanicOnFault,
// turns a fault reading a mapped record into a damaged one (ok false,
// bad true); any other panic goes on.
func catchDamage(ok, bad *bool, old bool) {
	debug.SetPanicOnFault(old)
	if e := recover(); e != nil {
		if _, fault := e.(interface{ Addr() uintptr }); !fault {
			panic(e)
		}
		*ok, *bad = false, true
	}
}

// damaged is what a record of z failing its CRC does: the log is folded
// afresh from its file, when it can be (z.refold), and what was applied
// to it since it was read is applied again; otherwise that state is read
// as none, as a record that does not decode.
func (l *Log) damaged(z *lazyStates) {
	z.bad = true
	refold := z.refold
	if refold == nil {
		return
	}
	z.refold = nil
	fresh := refold()
	if fresh == nil {
		return
	}
	applied := l.applied
	l.changed()
	l.states, l.lazy, l.Kept, l.Problems, l.Lines, l.applied = fresh.states, nil, fresh.Kept, fresh.Problems, fresh.Lines, nil
	for _, e := range applied {
		l.Apply(e) // it applied once already
	}
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
			if l.lazy != z {
				break // all decoded, or the log folded afresh
			}
		}
	}
	return l.states
}
