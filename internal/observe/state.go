package observe

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// stamp orders facts: by sequence, then time, then event id, so that two
// facts never tie and every machine picks the same winner. The sequence is
// a Lamport clock of the decisions about one observation: an event made
// after seeing decision n carries n+1, so a deletion found after a render
// wins over it even in the same second or on a machine whose clock is
// behind. Facts without one (sightings) are ordered by time.
type stamp struct {
	seq int
	at  int64
	eid string
}

func (a stamp) after(b stamp) bool {
	if a.seq != b.seq {
		return a.seq > b.seq
	}
	if a.at != b.at {
		return a.at > b.at
	}
	return a.eid > b.eid
}

func (a stamp) set() bool { return a.eid != "" }

// mark is a stamped fact: the latest one of its kind wins.
type mark struct {
	stamp
	reason, path, anchor string
	factor               float64
	on                   bool
	legacy               *float64 // devflow's stored confidence
}

type span struct{ first, last int64 }

// The marks whose latest instance decides the status.
const (
	markCreated    = "created"
	markDeprecated = "deprecated"
	markRestored   = "restored"
	markPromoted   = "promoted"
	markIntent     = "intent"
)

// MaxEvidence is how many pieces of evidence an observation keeps: the
// most recent ones, as devflow did.
const MaxEvidence = 10

// State is the join of every line about one observation (or, for ids like
// "entry:<key>", one counter subject). Each field is a join-semilattice:
// sets union, times take min or max, stamped facts keep the latest.
type State struct {
	ID      string
	Type    string
	Pattern string
	Details string

	text, details stamp
	quality       stamp                    // the latest sighting that confirmed quality
	sources       map[string]int64         // source -> its latest sighting
	weights       map[string]map[int]int64 // source -> weight -> its latest sighting at that weight
	legacy        span                     // devflow lines: first and last seen
	legacyCount   int
	evidence      []timedText // at most MaxEvidence, each text with its last sighting
	marks         markSet     // the latest mark of each kind, then of each flag
	penalties     []mark      // by penaltyKey, one each
	counts        *counts     // of a counter subject ("entry:<key>"), nil for any other
	tomb          int64
}

// counts are a counter subject's counters: few states have any, so they
// are one pointer in State.
type counts struct {
	sets map[string]map[string]struct{} // counter -> event ids
	at   map[string]int64               // counter -> time of its latest event
}

func newState(id string) *State { return &State{ID: id} }

// join folds o into s. Joining is commutative, associative and idempotent.
func (s *State) join(o *State) {
	if o.text.set() && (!s.text.set() || o.text.after(s.text)) {
		s.text, s.Pattern, s.Type = o.text, o.Pattern, o.Type
	}
	if s.Type == "" {
		s.Type = o.Type
	}
	if o.details.set() && (!s.details.set() || o.details.after(s.details)) {
		s.details, s.Details = o.details, o.Details
	}
	if o.quality.after(s.quality) {
		s.quality = o.quality
	}
	for src, at := range o.sources {
		s.addSource(src, at)
	}
	for src, ws := range o.weights {
		for w, at := range ws {
			s.addWeight(src, w, at)
		}
	}
	if o.legacyCount > s.legacyCount {
		s.legacyCount = o.legacyCount
	}
	s.legacy = joinSpan(s.legacy, o.legacy)
	for _, ev := range o.evidence {
		s.addEvidence(ev.text, ev.at)
	}
	for i := range o.marks {
		m := &o.marks[i]
		s.marks.set(m.flag, m.name, m.mark)
	}
	for _, m := range o.penalties {
		s.addPenalty(m)
	}
	if o.counts != nil {
		for c, eids := range o.counts.sets {
			for eid := range eids {
				s.count(c, eid)
			}
		}
		for c, at := range o.counts.at {
			s.countedAt(c, at)
		}
	}
	if o.tomb > s.tomb {
		s.tomb = o.tomb
	}
}

// latest is the time of the most recent thing the state knows.
func (s *State) latest() int64 {
	t := max(s.text.at, s.details.at, s.quality.at, s.legacy.last, s.tomb)
	for _, at := range s.sources {
		t = max(t, at)
	}
	for _, e := range s.evidence {
		t = max(t, e.at)
	}
	for _, m := range s.marks {
		t = max(t, m.at)
	}
	for _, m := range s.penalties {
		t = max(t, m.at)
	}
	return t
}

func joinSpan(a, b span) span {
	if b.first != 0 && (a.first == 0 || b.first < a.first) {
		a.first = b.first
	}
	if b.last > a.last {
		a.last = b.last
	}
	return a
}

// addSource keeps one time per source, its latest sighting. One time (not a
// first and a last) is what lets a tombstone cut cleanly: a source is live
// when its latest sighting is after the tombstone, and nothing else about
// it needs remembering. Sessions are short, so spread measured between
// sources' latest sightings is the spread that matters.
func (s *State) addSource(src string, at int64) {
	if s.sources == nil {
		s.sources = map[string]int64{}
	}
	if at > s.sources[src] {
		s.sources[src] = at
	}
}

// addWeight records that src sighted at a weight above 1 (a bug or
// feedback session counts as more than one toward the thresholds). Each
// weight keeps its latest time, so a tombstone cuts weights as it cuts
// sightings, and compaction keeps exactly what counts.
func (s *State) addWeight(src string, w int, at int64) {
	if w <= 1 {
		return
	}
	if s.weights == nil {
		s.weights = map[string]map[int]int64{}
	}
	if s.weights[src] == nil {
		s.weights[src] = map[int]int64{}
	}
	if at > s.weights[src][w] {
		s.weights[src][w] = at
	}
}

// weightOf is what src counts toward the thresholds: its highest weight
// sighted after the tombstone, else 1.
func (s *State) weightOf(src string) int {
	w := 1
	for x, at := range s.weights[src] {
		if at > s.tomb && x > w {
			w = x
		}
	}
	return w
}

// addEvidence keeps the latest time of each text and only the most recent
// MaxEvidence texts. Keeping the latest time (not the earliest) is what
// makes the cut safe to apply at every join: a text cut from one side was
// older than everything kept there, so it could not have been kept in the
// join of all sides either. A slice, not a map: there are never more than
// eleven, and a fold builds one per line.
func (s *State) addEvidence(text string, at int64) { s.addEvidenceOwned(text, at, strings.Clone) }

// addEvidenceOwned is addEvidence with text made the state's own by own,
// when it is added.
func (s *State) addEvidenceOwned(text string, at int64, own func(string) string) {
	for i := range s.evidence {
		if s.evidence[i].text == text {
			if at > s.evidence[i].at {
				s.evidence[i].at = at
			}
			return
		}
	}
	s.evidence = append(s.evidence, timedText{own(text), at})
	if len(s.evidence) > MaxEvidence {
		oldest := 0
		for i := range s.evidence {
			if olderText(s.evidence[i], s.evidence[oldest]) {
				oldest = i
			}
		}
		s.evidence = slices.Delete(s.evidence, oldest, oldest+1)
	}
}

type timedText struct {
	text string
	at   int64
}

func olderText(a, b timedText) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.text < b.text
}

// evidenceByAge lists the evidence oldest first (ties by text).
func (s *State) evidenceByAge() []timedText {
	out := slices.Clone(s.evidence)
	slices.SortFunc(out, func(a, b timedText) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return strings.Compare(a.text, b.text)
	})
	return out
}

// legacyPenalty is the key of the penalty read from devflow's stored
// confidence: one per observation, the latest devflow line's, however many
// devflow lines a merge left.
const legacyPenalty = "devflow"

func penaltyKey(m mark) string {
	if m.legacy != nil {
		return legacyPenalty
	}
	return m.eid
}

// addPenalty keeps one penalty per key, the latest.
func (s *State) addPenalty(m mark) {
	k := penaltyKey(m)
	for i := range s.penalties {
		if penaltyKey(s.penalties[i]) == k {
			if m.after(s.penalties[i].stamp) {
				s.penalties[i] = m
			}
			return
		}
	}
	s.penalties = append(s.penalties, m)
}

func (s *State) setMark(k string, m mark) { s.marks.set(false, k, m) }

// mark is the latest mark of kind k.
func (s *State) mark(k string) (mark, bool) { return s.marks.get(false, k) }

// flag is the latest of flag name.
func (s *State) flag(name string) (mark, bool) { return s.marks.get(true, name) }

// counters are s's counts, made when it has none.
func (s *State) counters() *counts {
	if s.counts == nil {
		s.counts = &counts{}
	}
	return s.counts
}

func (s *State) count(counter, eid string) {
	c := s.counters()
	if c.sets == nil {
		c.sets = map[string]map[string]struct{}{}
	}
	set := c.sets[counter]
	if set == nil {
		set = map[string]struct{}{}
		c.sets[counter] = set
	}
	set[eid] = struct{}{}
}

// countedAt keeps the time of a counter's latest event (a max, so it
// joins like everything else): when an item was last applied.
func (s *State) countedAt(counter string, at int64) {
	if at <= 0 {
		return
	}
	c := s.counters()
	if c.at == nil {
		c.at = map[string]int64{}
	}
	if at > c.at[counter] {
		c.at[counter] = at
	}
}

// check validates an event of a devlearn op (not a devflow line or a
// snapshot) before anything of it is folded: a corrupt line folds nothing.
func (e *Event) check(at int64) error {
	switch e.Op {
	case OpObserve, OpIntent, OpCreated, OpPenalize, OpDeprecate, OpRestore, OpPromote, OpFlag, OpCount, OpTombstone:
	default:
		return errUnknownOp
	}
	if at == 0 {
		return fmt.Errorf("no \"at\" time")
	}
	switch e.Op {
	case OpObserve:
		if e.Src == "" {
			return fmt.Errorf("observe event without src")
		}
	case OpPenalize:
		if e.Factor <= 0 || e.Factor > 1 {
			return fmt.Errorf("penalize factor %v is not in (0, 1]", e.Factor)
		}
	case OpFlag:
		if e.Flag == "" {
			return fmt.Errorf("flag event without flag name")
		}
	case OpCount:
		if e.Counter == "" {
			return fmt.Errorf("count event without counter name")
		}
	}
	return nil
}

// apply joins a checked event, stamped st, into s: the same as joining the
// state the event alone would give, without building it. The event's
// strings may be views of a line about to be dropped: whatever s keeps is
// copied, or taken from names, so that a line about an observation already
// folded costs a copy of what changed (the latest event id) and no more.
func (s *State) apply(e *Event, st stamp, names *names) {
	newer := func(cur stamp) bool { return !cur.set() || st.after(cur) }
	// The event id is copied once, when something keeps it.
	var owned stamp
	own := func() stamp {
		if !owned.set() {
			owned = st.owned()
		}
		return owned
	}
	keep := func(cur, v string) string {
		if cur == v {
			return cur
		}
		return strings.Clone(v)
	}
	switch e.Op {
	case OpObserve:
		if e.Pattern != "" && newer(s.text) {
			s.text, s.Pattern, s.Type = own(), keep(s.Pattern, e.Pattern), names.get(e.Type)
		}
		if s.Type == "" {
			s.Type = names.get(e.Type)
		}
		if e.Details != "" && newer(s.details) {
			s.details, s.Details = own(), keep(s.Details, e.Details)
		}
		if e.QualityOK != nil && *e.QualityOK && st.after(s.quality) {
			s.quality = own()
		}
		if s.sources == nil {
			s.sources = map[string]int64{}
		}
		if cur, ok := s.sources[e.Src]; !ok || st.at > cur {
			s.sources[names.get(e.Src)] = st.at
		}
		if e.Weight > 1 {
			s.addWeight(names.get(e.Src), e.Weight, st.at)
		}
		for _, ev := range e.Evidence {
			s.addEvidence(ev.Text, st.at)
		}
	case OpIntent, OpCreated, OpDeprecate, OpRestore, OpPromote:
		k := markOf(e.Op)
		if cur, ok := s.mark(k); !ok || st.after(cur.stamp) {
			s.setMark(k, mark{stamp: own(), reason: names.get(e.Reason), path: keep(cur.path, e.Path), anchor: names.get(e.Anchor)})
		}
	case OpPenalize:
		s.addPenalty(mark{stamp: own(), factor: e.Factor, reason: names.get(e.Reason)})
	case OpFlag:
		on := e.On == nil || *e.On
		if cur, ok := s.flag(e.Flag); !ok || st.after(cur.stamp) {
			s.marks.set(true, names.get(e.Flag), mark{stamp: own(), on: on, reason: names.get(e.Reason)})
		}
	case OpCount:
		c := names.get(e.Counter)
		s.count(c, strings.Clone(st.eid))
		s.countedAt(c, st.at)
	case OpTombstone:
		s.tomb = max(s.tomb, st.at)
	}
}

// owned is st with an event id of its own, not a view of a line.
func (st stamp) owned() stamp {
	st.eid = strings.Clone(st.eid)
	return st
}

// names holds the strings that recur from line to line (types, sources,
// reasons, flag and counter names), each stored once.
type names map[string]string

func (n *names) get(v string) string {
	if v == "" {
		return ""
	}
	if s, ok := (*n)[v]; ok {
		return s
	}
	if *n == nil {
		*n = names{}
	}
	s := strings.Clone(v)
	(*n)[s] = s
	return s
}

// markOf is the mark an op sets.
func markOf(op string) string {
	switch op {
	case OpIntent:
		return markIntent
	case OpCreated:
		return markCreated
	case OpDeprecate:
		return markDeprecated
	case OpRestore:
		return markRestored
	}
	return markPromoted
}

// fromDevflow reads a devflow snapshot line as it is: its count, times,
// status, evidence and stored confidence (kept as a legacy penalty, so that
// a confidence devflow lowered stays lowered and is not lowered again).
// The event's strings may be views of the line: what the state keeps is
// copied or taken from names.
func fromDevflow(e *Event, eid string, names *names) (*State, error) {
	first, err := parseTime(e.FirstSeen)
	if err != nil {
		return nil, err
	}
	last, err := parseTime(e.LastSeen)
	if err != nil {
		return nil, err
	}
	if last < first {
		last = first
	}
	if e.Type == "" || e.Pattern == "" {
		return nil, fmt.Errorf("devflow line without type or pattern")
	}
	// The strings the line leaves in the state are copied out of it in
	// one allocation, not one each: a bulk render folds ten thousand
	// devflow lines. They live and go together, with the state.
	n := len(e.ID) + len(eid) + len(e.Pattern) + len(e.Details) + len(e.ArtifactPath)
	for _, ev := range e.Evidence {
		n += len(ev.Text)
	}
	buf := make([]byte, 0, n)
	own := func(v string) string {
		if v == "" {
			return ""
		}
		start := len(buf)
		buf = append(buf, v...) // within buf's capacity: never moved
		return unsafe.String(&buf[start], len(v))
	}
	s := newState(own(e.ID))
	st := stamp{0, last, own(eid)}
	s.Type, s.Pattern, s.text = names.get(e.Type), own(e.Pattern), st
	if e.Details != "" {
		s.Details, s.details = own(e.Details), st
	}
	if e.QualityOK != nil && *e.QualityOK {
		s.quality = st
	}
	s.legacyCount = e.Observations
	if s.legacyCount < 1 {
		s.legacyCount = 1
	}
	s.legacy = span{first, last}
	for _, ev := range e.Evidence {
		s.addEvidenceOwned(ev.Text, last, own)
	}
	switch e.Status {
	case "created":
		s.setMark(markCreated, mark{stamp: st, path: own(e.ArtifactPath)})
	case "deprecated":
		dat := last
		if e.DeprecatedAt != "" {
			if d, err := parseTime(e.DeprecatedAt); err == nil {
				dat = d
			}
		}
		s.setMark(markDeprecated, mark{stamp: stamp{0, dat, st.eid}, reason: "devflow"})
	}
	if e.Confidence != nil {
		c := *e.Confidence
		s.addPenalty(mark{stamp: st, legacy: &c, reason: "devflow"})
	}
	flag := func(name string, on bool, reason string) {
		if on {
			s.marks.set(true, name, mark{stamp: st, on: true, reason: reason})
		}
	}
	flag(FlagStale, e.MayBeStale, names.get(e.StaleReason))
	flag(FlagSoftCap, e.SoftCapExceeded, "")
	flag(FlagReview, e.NeedsReview, "")
	return s, nil
}

var errUnknownOp = fmt.Errorf("unknown op")
