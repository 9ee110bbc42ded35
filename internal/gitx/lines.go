package gitx

import "bytes"

// MergeLines is the three-way set merge of JSONL logs against their common
// ancestor. A line either side removed (a compaction, say) stays removed; a
// line either side added is kept; every line appears once. The order is
// stable so that both machines of a merge write the same bytes: the base's
// surviving lines in base order, then ours' additions, then theirs'.
//
// Lines compare by their bytes without the line ending, and blank lines are
// dropped, since neither carries an event. A last line without a newline is
// still a line, and the result always ends with one. MergeLines never fails
// and never loses a line that a side kept.
func MergeLines(base, ours, theirs []byte) []byte {
	b, o, t := splitSet(base), splitSet(ours), splitSet(theirs)
	out := make([]byte, 0, len(ours)+len(theirs))
	emitted := make(map[string]struct{}, len(o.order)+len(t.order))
	emit := func(l []byte) {
		if _, ok := emitted[string(l)]; ok {
			return
		}
		emitted[string(l)] = struct{}{}
		out = append(append(out, l...), '\n')
	}
	for _, l := range b.order {
		// A base line survives only where both sides kept it.
		if o.has(l) && t.has(l) {
			emit(l)
		}
	}
	for _, l := range o.order {
		if !b.has(l) {
			emit(l)
		}
	}
	for _, l := range t.order {
		if !b.has(l) {
			emit(l)
		}
	}
	return out
}

// lineSet is the lines of a file in first-seen order, each once.
type lineSet struct {
	order [][]byte
	set   map[string]struct{}
}

func (s *lineSet) has(l []byte) bool {
	_, ok := s.set[string(l)]
	return ok
}

func splitSet(data []byte) *lineSet {
	s := &lineSet{set: make(map[string]struct{}, bytes.Count(data, []byte{'\n'})+1)}
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if _, ok := s.set[string(line)]; ok {
			continue
		}
		s.set[string(line)] = struct{}{}
		s.order = append(s.order, line)
	}
	return s
}
