package observe

import "time"

// Sighted reports whether a sighting of id by src at the given time would
// change nothing the log counts: src has already sighted id at that time
// or later, or a tombstone has forgotten everything up to it. Re-ingesting
// a transcript asks this before appending, so that the same session read
// twice adds no line, even after compaction has folded its events away.
func (l *Log) Sighted(id, src string, at time.Time) bool {
	s, ok := l.get(id)
	if !ok {
		return false
	}
	t := at.Unix()
	if t <= s.tomb {
		return true
	}
	last, ok := s.sources[src]
	return ok && last >= t
}

// Counted reports whether the counter of subject already holds the event
// eid (the entries and counters rule of docs/architecture.md: counters are sets of event ids, so one that derives its
// id from what it counts counts once).
func (l *Log) Counted(subject, counter, eid string) bool {
	s, ok := l.get(subject)
	if !ok {
		return false
	}
	if s.counts == nil {
		return false
	}
	_, ok = s.counts.sets[counter][eid]
	return ok
}

// SightedBy reports whether src sighted the observation id at all, and
// that sighting is not forgotten.
func (l *Log) SightedBy(id, src string) bool {
	s, ok := l.get(id)
	if !ok {
		return false
	}
	last, ok := s.sources[src]
	return ok && last > s.tomb
}
