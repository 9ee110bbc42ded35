package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The ops of the log (the events rule, docs/architecture.md). A line without an op is a devflow
// snapshot and folds as a full state.
const (
	OpObserve   = "observe"   // a sighting from a source (session)
	OpSnapshot  = "snapshot"  // devlearn's folded state of one observation (compact)
	OpIntent    = "intent"    // render is about to write an artifact (the sections-by-observation-id rule, docs/architecture.md)
	OpCreated   = "created"   // the artifact is written and in the manifest
	OpPenalize  = "penalize"  // confidence × factor, applied at fold time
	OpDeprecate = "deprecate" // a "no": sticks until a later restore
	OpRestore   = "restore"   // the user's "yes after all": undoes deprecation and penalties
	OpPromote   = "promote"   // made ready by a person, whatever the thresholds
	OpFlag      = "flag"      // sets or clears a named flag (stale, soft_cap, review)
	OpCount     = "count"     // one use of a counter (used, applied, helpful, harmful)
	OpTombstone = "tombstone" // forgets everything recorded up to its time
)

// Flags an observation can carry.
const (
	FlagStale   = "stale"    // code it refers to is gone
	FlagSoftCap = "soft_cap" // its knowledge file is over the soft cap
	FlagReview  = "review"   // a person should look at it
)

// TimeFormat is how every time in the log is written (devflow's format).
const TimeFormat = "2006-01-02T15:04:05Z"

// Event is one line of the log. Only the fields of its op are set. The same
// struct decodes devflow's snapshot lines (no op) and devlearn's own.
type Event struct {
	Op  string `json:"op,omitempty"`
	EID string `json:"eid,omitempty"`
	At  string `json:"at,omitempty"`
	Src string `json:"src,omitempty"`
	ID  string `json:"id"`
	Seq int    `json:"seq,omitempty"` // Lamport clock of the observation's decisions

	Type      string    `json:"type,omitempty"`
	Pattern   string    `json:"pattern,omitempty"`
	Details   string    `json:"details,omitempty"`
	Evidence  Evidences `json:"evidence,omitempty"`
	QualityOK *bool     `json:"quality_ok,omitempty"`
	// Weight is what the sighting's session counts toward the thresholds
	// when above 1 (a bug or feedback session, classify.weight).
	Weight int `json:"weight,omitempty"`

	Path    string  `json:"path,omitempty"`    // intent, created
	Anchor  string  `json:"anchor,omitempty"`  // intent, created: ADR-003, PF-001
	Factor  float64 `json:"factor,omitempty"`  // penalize
	Reason  string  `json:"reason,omitempty"`  // deprecate, penalize, flag
	Flag    string  `json:"flag,omitempty"`    // flag
	On      *bool   `json:"on,omitempty"`      // flag
	Counter string  `json:"counter,omitempty"` // count

	// devlearn snapshot state (op "snapshot").
	Sources     map[string]string            `json:"sources,omitempty"` // source -> latest sighting
	Weights     map[string]map[string]string `json:"weights,omitempty"` // source -> weight -> latest sighting at it
	LegacyCount int                          `json:"legacy_count,omitempty"`
	Text        *Mark                        `json:"text,omitempty"` // stamp of pattern and details
	Marks       map[string]*Mark             `json:"marks,omitempty"`
	Penalties   []Mark                       `json:"penalties,omitempty"`
	Flags       map[string]*Mark             `json:"flags,omitempty"`
	Counters    map[string][]string          `json:"counters,omitempty"`  // counter -> event ids
	Counted     map[string]string            `json:"counted,omitempty"`   // counter -> time of its latest event
	Forgotten   string                       `json:"forgotten,omitempty"` // latest tombstone time

	// devflow snapshot fields (no op).
	Confidence      *float64 `json:"confidence,omitempty"`
	Observations    int      `json:"observations,omitempty"`
	FirstSeen       string   `json:"first_seen,omitempty"`
	LastSeen        string   `json:"last_seen,omitempty"`
	Status          string   `json:"status,omitempty"`
	ArtifactPath    string   `json:"artifact_path,omitempty"`
	MayBeStale      bool     `json:"mayBeStale,omitempty"`
	StaleReason     string   `json:"staleReason,omitempty"`
	NeedsReview     bool     `json:"needsReview,omitempty"`
	SoftCapExceeded bool     `json:"softCapExceeded,omitempty"`
	DeprecatedAt    string   `json:"deprecated_at,omitempty"`
}

// reset empties e for the next line, keeping its evidence list's room.
func (e *Event) reset() { *e = Event{Evidence: e.Evidence[:0]} }

// own replaces every string of e with a copy of its own, for an event
// decoded from a line as views (decoder.views) whose strings are kept.
func (e *Event) own() {
	for _, p := range []*string{&e.Op, &e.EID, &e.At, &e.Src, &e.ID, &e.Type, &e.Pattern, &e.Details, &e.Path, &e.Anchor,
		&e.Reason, &e.Flag, &e.Counter, &e.Forgotten, &e.FirstSeen, &e.LastSeen, &e.Status, &e.ArtifactPath, &e.StaleReason, &e.DeprecatedAt} {
		*p = strings.Clone(*p)
	}
	e.Evidence = slices.Clone(e.Evidence)
	for i := range e.Evidence {
		e.Evidence[i].Text, e.Evidence[i].At = strings.Clone(e.Evidence[i].Text), strings.Clone(e.Evidence[i].At)
	}
	for k, v := range e.Sources {
		e.Sources[k] = strings.Clone(v)
	}
	for _, list := range e.Counters {
		for i := range list {
			list[i] = strings.Clone(list[i])
		}
	}
	e.Text = e.Text.owned()
	for _, ms := range []map[string]*Mark{e.Marks, e.Flags} {
		for k, m := range ms {
			ms[k] = m.owned()
		}
	}
	for i := range e.Penalties {
		e.Penalties[i] = *e.Penalties[i].owned()
	}
}

// owned is a copy of m with strings of its own.
func (m *Mark) owned() *Mark {
	if m == nil {
		return nil
	}
	c := *m
	for _, p := range []*string{&c.At, &c.EID, &c.Reason, &c.Path, &c.Anchor} {
		*p = strings.Clone(*p)
	}
	return &c
}

// Mark is a stamped fact in a snapshot: when, by which event, and its data.
type Mark struct {
	Seq    int     `json:"seq,omitempty"`
	At     string  `json:"at"`
	EID    string  `json:"eid"`
	Reason string  `json:"reason,omitempty"`
	Path   string  `json:"path,omitempty"`
	Anchor string  `json:"anchor,omitempty"`
	Factor float64 `json:"factor,omitempty"`
	On     *bool   `json:"on,omitempty"`
	// Legacy holds devflow's stored confidence for a penalty read from a
	// devflow line; its factor is derived when folding.
	Legacy *float64 `json:"legacy_confidence,omitempty"`
}

// Evidence is one quoted piece of evidence and when it was last seen.
type Evidence struct {
	Text string
	At   string
}

// Evidences decodes both devflow's plain strings and devlearn's stamped
// objects, and encodes plain strings when no stamps are set (observe events)
// so events stay readable.
type Evidences []Evidence

func (es Evidences) MarshalJSON() ([]byte, error) {
	stamped := false
	for _, e := range es {
		stamped = stamped || e.At != ""
	}
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			buf.WriteByte(',')
		}
		var b []byte
		var err error
		if stamped {
			b, err = json.Marshal(struct {
				Text string `json:"text"`
				At   string `json:"at"`
			}{e.Text, e.At})
		} else {
			b, err = json.Marshal(e.Text)
		}
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

func (es *Evidences) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("evidence: want a list")
	}
	out := make(Evidences, 0, len(raw))
	for _, r := range raw {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '"' {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				return err
			}
			out = append(out, Evidence{Text: s})
			continue
		}
		var o struct {
			Text string `json:"text"`
			At   string `json:"at"`
		}
		if err := json.Unmarshal(r, &o); err != nil {
			return fmt.Errorf("evidence: want strings or {text, at} objects")
		}
		out = append(out, Evidence{Text: o.Text, At: o.At})
	}
	*es = out
	return nil
}

// parseTime reads a log time; the empty string is time zero (0). The form
// devlearn and devflow write, "2006-01-02T15:04:05Z", is read directly:
// folding parses two or three times per line.
func parseTime(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if u, ok := parseUTC(s); ok {
		return u, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("time %q is not RFC 3339", s)
	}
	return t.Unix(), nil
}

func formatTime(u int64) string {
	if u == 0 {
		return ""
	}
	return time.Unix(u, 0).UTC().Format(TimeFormat)
}

// FormatTime writes t as the log does.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// parseUTC reads exactly "YYYY-MM-DDTHH:MM:SSZ".
func parseUTC(s string) (int64, bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range s[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	se, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59 {
		return 0, false
	}
	if d > daysIn(y, mo) { // 31 April and the like: let time.Parse say why
		return 0, false
	}
	return daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+se), true
}

// daysIn is the number of days of month mo (1-12) of year y.
func daysIn(y, mo int) int {
	if mo == 2 {
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + (mo+mo/8)%2 // 31 in January, March, May, July, August, October, December
}

// daysFromCivil is the number of days from 1970-01-01 to y-mo-d in the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil): what
// time.Date(...).Unix() works out for a date, without its normalising
// of every field, which was most of the time spent reading a devflow
// line's timestamps (TestParseUTCIsTimeParse).
func daysFromCivil(y, mo, d int) int64 {
	if mo <= 2 {
		y--
	}
	era := y
	if era < 0 { // year 0's January and February
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (mo + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
