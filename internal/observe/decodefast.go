package observe

import (
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonscan"
)

// fast decodes the common line in one pass over its bytes: one object whose
// values are strings, numbers, true, false, null, or (for evidence) a list
// of strings, each of them certainly valid JSON. Anything else (a nested
// object, a value of an unexpected type, text that is not UTF-8, bytes
// after the object) it leaves to the tokenizing decoder, which decides
// and words the error: fast either decodes a line exactly as decode would
// or reports that it did not (FuzzFastDecode holds it to that). It is
// most of what makes folding run at disk speed.
func (d *decoder) fast(line []byte, e *Event) bool {
	s := scanner{jsonscan.Scanner{B: line}}
	s.Space()
	if !s.Eat('{') {
		return false
	}
	s.Space()
	if s.Eat('}') {
		return s.End()
	}
	for {
		key, ok := s.str()
		if !ok {
			return false
		}
		s.Space()
		if !s.Eat(':') {
			return false
		}
		s.Space()
		if !d.fastField(&s, key, e) {
			return false
		}
		s.Space()
		if s.Eat('}') {
			return s.End()
		}
		if !s.Eat(',') {
			return false
		}
		s.Space()
	}
}

// fastField reads the value of key into e as field would, or reports
// that it cannot.
func (d *decoder) fastField(s *scanner, key rawString, e *Event) bool {
	k := key.b
	if key.escaped {
		var err error
		if d.buf, err = jsontext.AppendUnquote(d.buf[:0], k); err != nil {
			return false
		}
		k = d.buf
	}
	var sp *string
	switch string(k) {
	case "op":
		sp = &e.Op
	case "eid":
		sp = &e.EID
	case "at":
		sp = &e.At
	case "src":
		sp = &e.Src
	case "id":
		sp = &e.ID
	case "type":
		sp = &e.Type
	case "pattern":
		sp = &e.Pattern
	case "details":
		sp = &e.Details
	case "path":
		sp = &e.Path
	case "anchor":
		sp = &e.Anchor
	case "reason":
		sp = &e.Reason
	case "flag":
		sp = &e.Flag
	case "counter":
		sp = &e.Counter
	case "forgotten":
		sp = &e.Forgotten
	case "first_seen":
		sp = &e.FirstSeen
	case "last_seen":
		sp = &e.LastSeen
	case "status":
		sp = &e.Status
	case "artifact_path":
		sp = &e.ArtifactPath
	case "staleReason":
		sp = &e.StaleReason
	case "deprecated_at":
		sp = &e.DeprecatedAt
	case "seq":
		return s.intValue(&e.Seq)
	case "observations":
		return s.intValue(&e.Observations)
	case "legacy_count":
		return s.intValue(&e.LegacyCount)
	case "weight":
		return s.intValue(&e.Weight)
	case "factor":
		if s.null() {
			e.Factor = 0
			return true
		}
		f, ok := s.number()
		e.Factor = f
		return ok
	case "confidence":
		if s.null() {
			return true // as field: a null leaves it as it was
		}
		f, ok := s.number()
		e.Confidence = &f
		return ok
	case "quality_ok":
		return s.boolPtr(&e.QualityOK)
	case "on":
		return s.boolPtr(&e.On)
	case "mayBeStale":
		return s.flag(&e.MayBeStale)
	case "needsReview":
		return s.flag(&e.NeedsReview)
	case "softCapExceeded":
		return s.flag(&e.SoftCapExceeded)
	case "evidence":
		return d.fastEvidence(s, e)
	case "sources", "weights", "text", "marks", "flags", "penalties", "counters", "counted":
		return false // nested objects: the tokenizing decoder's
	default:
		return s.skip()
	}
	if s.null() {
		*sp = ""
		return true
	}
	v, ok := s.str()
	if !ok {
		return false
	}
	str, ok := d.fastString(v)
	*sp = str
	return ok
}

// fastString is the string a raw string holds: a view of the line when
// the decoder makes views and the string has no escapes.
func (d *decoder) fastString(v rawString) (string, bool) {
	if !v.escaped {
		if d.views && len(v.b) > 0 {
			return unsafe.String(unsafe.SliceData(v.b), len(v.b)), true
		}
		return string(v.b), true
	}
	var err error
	if d.buf, err = jsontext.AppendUnquote(d.buf[:0], v.quoted); err != nil {
		return "", false
	}
	return string(d.buf), true
}

func (d *decoder) fastEvidence(s *scanner, e *Event) bool {
	if s.null() {
		e.Evidence = nil
		return true
	}
	if !s.Eat('[') {
		return false
	}
	out := e.Evidence[:0]
	s.Space()
	if !s.Eat(']') {
		for {
			v, ok := s.str()
			if !ok {
				return false // an object of {text, at}, or not a string
			}
			text, ok := d.fastString(v)
			if !ok {
				return false
			}
			out = append(out, Evidence{Text: text})
			s.Space()
			if s.Eat(']') {
				break
			}
			if !s.Eat(',') {
				return false
			}
			s.Space()
		}
	}
	if out == nil {
		out = Evidences{}
	}
	e.Evidence = out
	return true
}

// scanner walks one line.
type scanner struct{ jsonscan.Scanner }

// rawString is a string token: its content between the quotes, and the
// whole token with them.
type rawString struct {
	b, quoted []byte
	escaped   bool
}

// str reads a string token. Control characters and text that is not UTF-8
// are left to the tokenizer, which rejects them.
func (s *scanner) str() (rawString, bool) {
	start, end, escaped, ok := s.Str()
	if !ok {
		return rawString{}, false
	}
	return rawString{b: s.B[start:end], quoted: s.B[start-1 : end+1], escaped: escaped}, true
}

func (s *scanner) null() bool {
	if len(s.B)-s.I >= 4 && string(s.B[s.I:s.I+4]) == "null" {
		s.I += 4
		return true
	}
	return false
}

// literal reads true or false.
func (s *scanner) literal() (v, ok bool) {
	switch {
	case len(s.B)-s.I >= 4 && string(s.B[s.I:s.I+4]) == "true":
		s.I += 4
		return true, true
	case len(s.B)-s.I >= 5 && string(s.B[s.I:s.I+5]) == "false":
		s.I += 5
		return false, true
	}
	return false, false
}

func (s *scanner) boolPtr(p **bool) bool {
	if s.null() {
		*p = nil
		return true
	}
	v, ok := s.literal()
	if ok {
		*p = &v
	}
	return ok
}

func (s *scanner) flag(p *bool) bool {
	if s.null() {
		*p = false
		return true
	}
	v, ok := s.literal()
	*p = v
	return ok
}

// number reads a JSON number, as strictly as the grammar says.
func (s *scanner) number() (float64, bool) {
	start := s.I
	s.Eat('-')
	switch {
	case s.Eat('0'):
	case s.I < len(s.B) && s.B[s.I] >= '1' && s.B[s.I] <= '9':
		s.digits()
	default:
		return 0, false
	}
	if s.Eat('.') && !s.digits() {
		return 0, false
	}
	if s.Eat('e') || s.Eat('E') {
		if !s.Eat('+') {
			s.Eat('-')
		}
		if !s.digits() {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(s.B[start:s.I]), 64)
	return f, err == nil
}

func (s *scanner) digits() bool {
	start := s.I
	for s.I < len(s.B) && s.B[s.I] >= '0' && s.B[s.I] <= '9' {
		s.I++
	}
	return s.I > start
}

// intValue reads a whole number (null is 0), as field's int does.
func (s *scanner) intValue(p *int) bool {
	if s.null() {
		*p = 0
		return true
	}
	f, ok := s.number()
	if !ok || f != float64(int(f)) {
		return false
	}
	*p = int(f)
	return true
}

// skip passes over a value of a key nobody reads: a string, a number or a
// literal (a list or an object is the tokenizer's).
func (s *scanner) skip() bool {
	if s.I >= len(s.B) {
		return false
	}
	switch c := s.B[s.I]; {
	case c == '"':
		v, ok := s.str()
		if ok && v.escaped {
			_, err := jsontext.AppendUnquote(nil, v.quoted) // its escapes must be valid
			ok = err == nil
		}
		return ok
	case c == 'n':
		return s.null()
	case c == 't' || c == 'f':
		_, ok := s.literal()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		_, ok := s.number()
		return ok
	}
	return false
}
