package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// snapshot writes s as one op "snapshot" line holding its state, so that
// folding the line gives back the same observation: nothing derived
// (confidence, status, penalty or decay applied) is stored. Facts hidden by
// a tombstone are left out: a tombstone's time only grows, so they can
// never matter again.
func (s *State) snapshot() *Event {
	e := &Event{Op: OpSnapshot, ID: s.ID, Type: s.Type}
	live := func(st stamp) bool { return st.set() && st.at > s.tomb }
	latest := s.tomb
	bump := func(at int64) {
		if at > latest {
			latest = at
		}
	}
	putMark := func(k string, m *Mark) {
		if e.Marks == nil {
			e.Marks = map[string]*Mark{}
		}
		e.Marks[k] = m
	}
	if s.text.set() {
		e.Pattern = s.Pattern
		e.Text = &Mark{At: formatTime(s.text.at), EID: s.text.eid}
		bump(s.text.at)
	}
	if live(s.details) {
		e.Details = s.Details
		putMark("details", &Mark{At: formatTime(s.details.at), EID: s.details.eid})
	}
	if live(s.quality) {
		putMark("quality", &Mark{At: formatTime(s.quality.at), EID: s.quality.eid})
	}
	for src, at := range s.sources {
		if at <= s.tomb {
			continue
		}
		if e.Sources == nil {
			e.Sources = map[string]string{}
		}
		e.Sources[src] = formatTime(at)
		bump(at)
	}
	for src, ws := range s.weights {
		for w, at := range ws {
			if at <= s.tomb {
				continue
			}
			if e.Weights == nil {
				e.Weights = map[string]map[string]string{}
			}
			if e.Weights[src] == nil {
				e.Weights[src] = map[string]string{}
			}
			e.Weights[src][strconv.Itoa(w)] = formatTime(at)
		}
	}
	// The legacy span is kept even when a tombstone hides it: it is one span
	// whatever its size, and cutting it would make the fold depend on which
	// side of a merge compacted.
	if s.legacyCount > 0 {
		e.LegacyCount = s.legacyCount
		e.FirstSeen, e.LastSeen = formatTime(s.legacy.first), formatTime(s.legacy.last)
		bump(s.legacy.last)
	}
	for _, ev := range s.evidenceByAge() {
		if ev.at > s.tomb {
			e.Evidence = append(e.Evidence, Evidence{Text: ev.text, At: formatTime(ev.at)})
		}
	}
	for _, m := range s.marks.marks() {
		if live(m.stamp) {
			putMark(m.name, m.encode())
			bump(m.at)
		}
	}
	penalties := slices.Clone(s.penalties)
	slices.SortFunc(penalties, func(a, b mark) int { return strings.Compare(penaltyKey(a)+a.eid, penaltyKey(b)+b.eid) })
	for _, m := range penalties {
		if live(m.stamp) {
			e.Penalties = append(e.Penalties, *m.encode())
			bump(m.at)
		}
	}
	for _, m := range s.marks.flags() {
		if !live(m.stamp) {
			continue
		}
		if e.Flags == nil {
			e.Flags = map[string]*Mark{}
		}
		e.Flags[m.name] = m.encode()
		bump(m.at)
	}
	var counts counts
	if s.counts != nil {
		counts = *s.counts
	}
	for c, set := range counts.sets {
		if e.Counters == nil {
			e.Counters = map[string][]string{}
		}
		list := make([]string, 0, len(set))
		for eid := range set {
			list = append(list, eid)
		}
		sort.Strings(list)
		e.Counters[c] = list
	}
	for c, at := range counts.at {
		if e.Counted == nil {
			e.Counted = map[string]string{}
		}
		e.Counted[c] = formatTime(at)
	}
	e.Forgotten = formatTime(s.tomb)
	e.At = formatTime(latest)
	// The event id is the hash of the content, so compacting twice writes the
	// same line and two branches that compacted alike merge to one line.
	b, _ := json.Marshal(e)
	sum := sha256.Sum256(b)
	e.EID = "snap_" + hex.EncodeToString(sum[:8])
	return e
}

func (m mark) encode() *Mark {
	out := &Mark{Seq: m.seq, At: formatTime(m.at), EID: m.eid, Reason: m.reason, Path: m.path, Anchor: m.anchor, Factor: m.factor, Legacy: m.legacy}
	if m.on {
		t := true
		out.On = &t
	}
	return out
}

func decodeMark(m *Mark) (mark, error) {
	at, err := parseTime(m.At)
	if err != nil {
		return mark{}, err
	}
	return mark{stamp: stamp{m.Seq, at, m.EID}, reason: m.Reason, path: m.Path, anchor: m.Anchor, factor: m.Factor, on: m.On != nil && *m.On, legacy: m.Legacy}, nil
}

func fromSnapshot(e *Event, lineEID string) (*State, error) {
	s := newState(e.ID)
	s.Type, s.Pattern, s.Details = e.Type, e.Pattern, e.Details
	switch {
	case e.Text != nil:
		m, err := decodeMark(e.Text)
		if err != nil {
			return nil, err
		}
		s.text = m.stamp
	case e.Pattern != "":
		// A snapshot written by hand or by another tool: its text is as old
		// as the line says.
		at, err := parseTime(e.At)
		if err != nil {
			return nil, err
		}
		s.text = stamp{0, at, lineEID}
	}
	for src, t := range e.Sources {
		at, err := parseTime(t)
		if err != nil {
			return nil, err
		}
		s.addSource(src, at)
	}
	for src, ws := range e.Weights {
		for wt, t := range ws {
			w, err := strconv.Atoi(wt)
			if err != nil {
				return nil, fmt.Errorf("weights: %q is not a whole number", wt)
			}
			at, err := parseTime(t)
			if err != nil {
				return nil, err
			}
			s.addWeight(src, w, at)
		}
	}
	if e.LegacyCount > 0 {
		first, err := parseTime(e.FirstSeen)
		if err != nil {
			return nil, err
		}
		last, err := parseTime(e.LastSeen)
		if err != nil {
			return nil, err
		}
		s.legacyCount, s.legacy = e.LegacyCount, span{first, last}
	}
	for _, ev := range e.Evidence {
		at, err := parseTime(ev.At)
		if err != nil {
			return nil, err
		}
		s.addEvidence(ev.Text, at)
	}
	for k, m := range e.Marks {
		// "marks":{"k":null} decodes to a nil entry, as encoding/json
		// reads it; a null records nothing, so it is skipped.
		if m == nil {
			continue
		}
		dm, err := decodeMark(m)
		if err != nil {
			return nil, err
		}
		switch k {
		case "details":
			s.details = dm.stamp
			continue
		case "quality":
			s.quality = dm.stamp
			continue
		}
		s.setMark(k, dm)
	}
	for i := range e.Penalties {
		dm, err := decodeMark(&e.Penalties[i])
		if err != nil {
			return nil, err
		}
		s.addPenalty(dm)
	}
	for k, m := range e.Flags {
		if m == nil {
			continue
		}
		dm, err := decodeMark(m)
		if err != nil {
			return nil, err
		}
		s.marks.set(true, k, dm)
	}
	for c, eids := range e.Counters {
		for _, eid := range eids {
			s.count(c, eid)
		}
	}
	for c, t := range e.Counted {
		at, err := parseTime(t)
		if err != nil {
			return nil, err
		}
		s.countedAt(c, at)
	}
	tomb, err := parseTime(e.Forgotten)
	if err != nil {
		return nil, err
	}
	s.tomb = tomb
	return s, nil
}
