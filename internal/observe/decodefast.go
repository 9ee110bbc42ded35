package observe

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
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
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return false
	}
	s.ws()
	if s.eat('}') {
		return s.end()
	}
	for {
		key, ok := s.str()
		if !ok {
			return false
		}
		s.ws()
		if !s.eat(':') {
			return false
		}
		s.ws()
		if !d.fastField(&s, key, e) {
			return false
		}
		s.ws()
		if s.eat('}') {
			return s.end()
		}
		if !s.eat(',') {
			return false
		}
		s.ws()
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
	if !s.eat('[') {
		return false
	}
	out := e.Evidence[:0]
	s.ws()
	if !s.eat(']') {
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
			s.ws()
			if s.eat(']') {
				break
			}
			if !s.eat(',') {
				return false
			}
			s.ws()
		}
	}
	if out == nil {
		out = Evidences{}
	}
	e.Evidence = out
	return true
}

// scanner walks one line.
type scanner struct {
	b []byte
	i int
}

// rawString is a string token: its content between the quotes, and the
// whole token with them.
type rawString struct {
	b, quoted []byte
	escaped   bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end: nothing but white space after the object.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// str reads a string token. Control characters and text that is not UTF-8
// are left to the tokenizer, which rejects them.
func (s *scanner) str() (rawString, bool) {
	if !s.eat('"') {
		return rawString{}, false
	}
	start := s.i
	// Most strings of a log are short ASCII text without escapes: find
	// their end with IndexByte (vector instructions), and check the bytes
	// before it, eight at a time, for what would need the loop below.
	if q := bytes.IndexByte(s.b[start:], '"'); q >= 0 && plainSpan(s.b[start:start+q]) {
		s.i = start + q + 1
		return rawString{b: s.b[start : start+q], quoted: s.b[start-1 : s.i]}, true
	}
	escaped, ascii := false, true
	for s.i < len(s.b) {
		// Eight bytes at a time up to the first that needs a look: most
		// of a log is the text of its strings.
		for s.i+8 <= len(s.b) && plain8(binary.LittleEndian.Uint64(s.b[s.i:])) {
			s.i += 8
		}
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			r := rawString{b: s.b[start:s.i], quoted: s.b[start-1 : s.i+1], escaped: escaped}
			s.i++
			if !ascii && !utf8.Valid(r.b) {
				return rawString{}, false
			}
			return r, true
		case c == '\\':
			escaped = true
			s.i += 2 // the escaped byte cannot end the string
			continue
		case c < 0x20:
			return rawString{}, false
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	return rawString{}, false
}

// plain8 is whether none of the eight bytes of w ends a string, escapes,
// is a control character or belongs to a multi-byte character: whether
// str may step over all eight. Each test is the classic "has a zero byte"
// ((x-0x01..)&^x&0x80..), which is exact about whether there is one.
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q|(b-ones)&^b|(w-ones*0x20)&^w|w)&highs == 0
}

// plainSpan is whether b has no backslash, no control character and no
// byte of a multi-byte character: whether it is a string's text as it is.
func plainSpan(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		e := w ^ (ones * '\\')
		if ((e-ones)&^e|(w-ones*0x20)&^w|w)&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

func (s *scanner) null() bool {
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// literal reads true or false.
func (s *scanner) literal() (v, ok bool) {
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
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
	start := s.i
	s.eat('-')
	switch {
	case s.eat('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return 0, false
	}
	if s.eat('.') && !s.digits() {
		return 0, false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if !s.digits() {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	return f, err == nil
}

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
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
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
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
