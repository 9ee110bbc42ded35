package observe

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonpos"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Sighting is one observation as an extractor or a person reports it: the
// items of `devlearn observe`'s input, {"observations":[...]}.
type Sighting struct {
	ID        string   `json:"id,omitempty"`
	Type      string   `json:"type"`
	Pattern   string   `json:"pattern"`
	Details   string   `json:"details,omitempty"`
	Evidence  []string `json:"evidence,omitempty"`
	QualityOK *bool    `json:"quality_ok,omitempty"`
	// Record and Extractor name where a sighting came from inside a session
	// (the transcript record uuid and the extractor), so that ingesting the
	// same transcript twice yields the same event ids (the events rule, docs/architecture.md).
	Record    string `json:"record,omitempty"`
	Extractor string `json:"extractor,omitempty"`
}

// Rejected is an input item that was not recorded, and why.
type Rejected struct {
	Index  int    `json:"index"` // 1-based position in the input list
	Reason string `json:"reason"`
}

// Limits on what a sighting may hold; longer text is cut, not rejected,
// except the pattern, which is the observation's identity.
const (
	MaxPatternRunes  = 300
	MaxDetailsRunes  = 4000
	MaxEvidenceRunes = 300
)

// DecodeSightings reads {"observations":[...]}. An item that does not decode
// is rejected on its own; only input that is not that shape at all is an
// error.
func DecodeSightings(r io.Reader) ([]Sighting, []Rejected, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	var in struct {
		Observations *[]json.RawMessage `json:"observations"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, fmt.Errorf("input is empty: want {\"observations\": [{\"type\", \"pattern\", ...}]} on stdin")
	}
	if err := json.Unmarshal(data, &in); err != nil {
		if line, col, ok := jsonpos.Of(data, err); ok {
			return nil, nil, fmt.Errorf("input:%d:%d: not JSON: %v", line, col, err)
		}
		return nil, nil, fmt.Errorf("input: want {\"observations\": [...]}: %s", jsonMsg(err))
	}
	if in.Observations == nil {
		return nil, nil, fmt.Errorf("input: no \"observations\" list (want {\"observations\": [{\"type\", \"pattern\", ...}]})")
	}
	var ok []Sighting
	var rejected []Rejected
	for i, raw := range *in.Observations {
		var s Sighting
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&s); err != nil {
			rejected = append(rejected, Rejected{Index: i + 1, Reason: jsonMsg(err)})
			continue
		}
		ok = append(ok, s)
	}
	return ok, rejected, nil
}

// Clean redacts, trims and checks a sighting against the log and sets its
// id. redact may be nil.
func (s *Sighting) Clean(log *Log, redact func(string) string) error {
	if redact == nil {
		redact = func(x string) string { return x }
	}
	if !ValidType(s.Type) {
		return fmt.Errorf("type %q is not one of %s", s.Type, strings.Join(lesson.Names(), ", "))
	}
	// An id the caller computed from the pattern as written follows the
	// pattern as cleaned: what cleaning drops (a secret, a control
	// character) must not make the sighting a stranger to its own id.
	if s.ID != "" && s.ID == ID(s.Type, s.Pattern) {
		s.ID = ""
	}
	s.Pattern = oneLine(redact(s.Pattern))
	if s.Pattern == "" {
		return fmt.Errorf("pattern is empty")
	}
	if textkey.Normalize(s.Pattern) == "" {
		return fmt.Errorf("pattern %q has no words", s.Pattern)
	}
	if n := utf8.RuneCountInString(s.Pattern); n > MaxPatternRunes {
		return fmt.Errorf("pattern is %d characters; at most %d (put the rest in details)", n, MaxPatternRunes)
	}
	s.Details = cut(strings.TrimSpace(stripControl(redact(s.Details), true)), MaxDetailsRunes)
	var ev []string
	for _, e := range s.Evidence {
		if e = cut(oneLine(redact(e)), MaxEvidenceRunes); e != "" {
			ev = append(ev, e)
		}
	}
	if len(ev) > MaxEvidence {
		ev = ev[len(ev)-MaxEvidence:]
	}
	s.Evidence = ev
	s.Record = oneLine(s.Record)
	s.Extractor = oneLine(s.Extractor)
	computed := ID(s.Type, s.Pattern)
	if s.ID == "" {
		s.ID = computed
	}
	if !ValidID(s.ID) {
		return fmt.Errorf("id %q is not an observation id (obs_ and 6 to 40 lower-case letters or digits; omit it to let devlearn compute it)", s.ID)
	}
	if log != nil {
		if t := log.TypeOf(s.ID); t != "" && t != s.Type {
			return fmt.Errorf("id %s is a %s in the log, not a %s", s.ID, t, s.Type)
		}
		if s.ID != computed && !log.Has(s.ID) {
			return fmt.Errorf("id %s is neither in the log nor the id of this pattern (%s); omit it to let devlearn compute it", s.ID, computed)
		}
	}
	return nil
}

// ObserveEvent turns a cleaned sighting from src into its log event.
func ObserveEvent(s Sighting, src string, at time.Time) *Event {
	return &Event{
		Op:        OpObserve,
		EID:       eventID(src, s.Record, s.Extractor, s.ID),
		At:        FormatTime(at),
		Src:       src,
		ID:        s.ID,
		Type:      s.Type,
		Pattern:   s.Pattern,
		Details:   s.Details,
		Evidence:  evidences(s.Evidence),
		QualityOK: s.QualityOK,
	}
}

// ManualSource names a sighting that comes from no session: every manual
// `observe` call is its own source (the events rule, docs/architecture.md).
func ManualSource() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "manual:" + hex.EncodeToString(b[:])
}

// NewEvent builds a non-observe event (intent, created, penalize, ...)
// with an id derived from its content and time.
func NewEvent(op, id string, at time.Time, src string, fill func(*Event)) *Event {
	e := &Event{Op: op, ID: id, At: FormatTime(at), Src: src}
	if fill != nil {
		fill(e)
	}
	b, _ := marshalEvent(e)
	e.EID = eventID(string(b))
	return e
}

func evidences(list []string) Evidences {
	if len(list) == 0 {
		return nil
	}
	out := make(Evidences, len(list))
	for i, s := range list {
		out[i] = Evidence{Text: s}
	}
	return out
}

// oneLine collapses white space (newlines included) and drops control
// characters, so learned text can never smuggle a line break into a
// heading, a front matter value or a log line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(stripControl(s, false)), " ")
}

func stripControl(s string, keepNewlines bool) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' && keepNewlines {
			return r
		}
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		if unicode.IsControl(r) || r == utf8.RuneError || isFormat(r) {
			return -1
		}
		return r
	}, s)
}

// isFormat reports an invisible formatting character: bidirectional
// overrides and isolates, which make text read other than it is
// ("Trojan Source"), zero-width spaces and marks. The zero-width joiner
// stays: emoji sequences are made of it.
func isFormat(r rune) bool {
	return r != '\u200d' && unicode.Is(unicode.Cf, r)
}

func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(redact.WholePlaceholders(string(r[:max-1]))) + "…"
}
