package observe

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
)

// Step is one line of an observation's history: the event as it is in the
// log, and the observation as it stood right after it.
type Step struct {
	Line       int     `json:"line"`
	Event      *Event  `json:"event"`
	Confidence float64 `json:"confidence"`
	Status     string  `json:"status"`
	Count      int     `json:"count"`
}

// History reads every line about id in the log at path and replays them in
// time order (then decision sequence, then event id), giving the
// confidence and status after each: what `learn --show` prints. The log's
// line order does not matter, so a merged log gives the same history on
// every machine.
func History(path, id string, cfg *config.Config) ([]Step, error) {
	var steps []Step
	dec := decoder{}
	_, err := jsonl.ScanFile(path, func(n int, line []byte) error {
		var e Event
		if dec.decode(line, &e) != nil || e.ID != id {
			return nil
		}
		if e.EID == "" {
			e.EID = lineID(line)
		}
		steps = append(steps, Step{Line: n, Event: &e})
		return nil
	})
	if err != nil && !errors.Is(err, jsonl.ErrNotExist) {
		return nil, err
	}
	at := func(e *Event) int64 {
		s := e.At
		if s == "" {
			s = e.LastSeen
		}
		t, _ := parseTime(s)
		return t
	}
	slices.SortStableFunc(steps, func(a, b Step) int {
		if c := cmp.Compare(at(a.Event), at(b.Event)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Event.Seq, b.Event.Seq); c != 0 {
			return c
		}
		return cmp.Compare(a.Event.EID, b.Event.EID)
	})
	l := NewLog()
	for i := range steps {
		if err := l.Apply(steps[i].Event); err != nil {
			continue // a line the fold skips changes nothing
		}
		when := time.Unix(at(steps[i].Event), 0).UTC()
		if o, ok := l.Observation(id, when, cfg); ok {
			steps[i].Confidence, steps[i].Status, steps[i].Count = o.Confidence, o.Status, o.Count
		}
	}
	return steps, nil
}

// MarkInfo is the latest decision of one kind about an observation: a status
// mark (created, deprecated, restored, promoted, intent) or a flag.
type MarkInfo struct {
	Kind   string // "created", ..., or "flag:stale", "flag:review", ...
	At     time.Time
	Seq    int
	Reason string
	On     bool // flags only
}

// Marks lists the latest decision of every kind recorded about id.
func (l *Log) Marks(id string) []MarkInfo {
	s, ok := l.get(id)
	if !ok {
		return nil
	}
	var out []MarkInfo
	for _, m := range s.marks.marks() {
		if m.at > s.tomb {
			out = append(out, MarkInfo{Kind: m.name, At: time.Unix(m.at, 0).UTC(), Seq: m.seq, Reason: m.reason, On: true})
		}
	}
	for _, m := range s.marks.flags() {
		if m.at > s.tomb {
			out = append(out, MarkInfo{Kind: "flag:" + m.name, At: time.Unix(m.at, 0).UTC(), Seq: m.seq, Reason: m.reason, On: m.on})
		}
	}
	slices.SortFunc(out, func(a, b MarkInfo) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
}

// After reports whether mark a was decided after mark b, by the fold's own
// order (sequence, then time).
func (a MarkInfo) After(b MarkInfo) bool {
	if a.Seq != b.Seq {
		return a.Seq > b.Seq
	}
	return a.At.After(b.At)
}
