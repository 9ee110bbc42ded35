package observe

import (
	"encoding/json"
	"strconv"

	"github.com/devlearn/devlearn/internal/jsonstr"
)

// marshalEvent is json.Marshal(e), byte for byte. The events devlearn
// records one per artifact and per sighting (intent, created, flag,
// observe, ...) set only strings, small numbers and flags: those are
// written by hand, since a bulk render records two thousand of them, and
// each twice (once for its id). An event with any other field set is left
// to encoding/json.
func marshalEvent(e *Event) ([]byte, error) {
	if b, ok := appendEvent(make([]byte, 0, 256), e); ok {
		return b, nil
	}
	return json.Marshal(e)
}

// appendEvent appends e as encoding/json writes it, in the order of
// Event's fields, or reports false for an event it does not cover.
func appendEvent(b []byte, e *Event) ([]byte, bool) {
	if e.Factor != 0 || e.Sources != nil || e.Weights != nil || e.LegacyCount != 0 || e.Text != nil ||
		e.Marks != nil || e.Penalties != nil || e.Flags != nil || e.Counters != nil || e.Counted != nil ||
		e.Forgotten != "" || e.Confidence != nil || e.Observations != 0 || e.FirstSeen != "" || e.LastSeen != "" ||
		e.Status != "" || e.ArtifactPath != "" || e.MayBeStale || e.StaleReason != "" || e.NeedsReview ||
		e.SoftCapExceeded || e.DeprecatedAt != "" {
		return b, false
	}
	for _, ev := range e.Evidence {
		if ev.At != "" {
			return b, false // the stamped form
		}
	}
	b = append(b, '{')
	str := func(key, v string) {
		if v != "" {
			b = appendKey(b, key)
			b = jsonstr.Append(b, v)
		}
	}
	num := func(key string, v int) {
		if v != 0 {
			b = appendKey(b, key)
			b = strconv.AppendInt(b, int64(v), 10)
		}
	}
	flag := func(key string, v *bool) {
		if v != nil {
			b = appendKey(b, key)
			b = strconv.AppendBool(b, *v)
		}
	}
	str("op", e.Op)
	str("eid", e.EID)
	str("at", e.At)
	str("src", e.Src)
	b = appendKey(b, "id") // not omitempty
	b = jsonstr.Append(b, e.ID)
	num("seq", e.Seq)
	str("type", e.Type)
	str("pattern", e.Pattern)
	str("details", e.Details)
	if len(e.Evidence) > 0 {
		b = appendKey(b, "evidence")
		b = append(b, '[')
		for i, ev := range e.Evidence {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, ev.Text)
		}
		b = append(b, ']')
	}
	flag("quality_ok", e.QualityOK)
	num("weight", e.Weight)
	str("path", e.Path)
	str("anchor", e.Anchor)
	str("reason", e.Reason)
	str("flag", e.Flag)
	flag("on", e.On)
	str("counter", e.Counter)
	return append(b, '}'), true
}

// appendKey appends a field's key, after a comma unless it is the first.
func appendKey(b []byte, key string) []byte {
	if b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}
