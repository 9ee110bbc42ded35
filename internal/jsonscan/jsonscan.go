// Package jsonscan reads the JSON tokens of the files devlearn writes
// itself, in one pass over their bytes: the log's lines (observe's fast
// decoder) and the manifest (manifest's fast path). It reads only what
// those writers write; anything else is "not read here" (ok false), for
// the caller's full decoder to decide and word.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Scanner reads from B, at I.
type Scanner struct {
	B []byte
	I int
}

// Space steps over JSON's white space.
func (s *Scanner) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\r', '\n':
			s.I++
		default:
			return
		}
	}
}

// Eat steps over c when it is next.
func (s *Scanner) Eat(c byte) bool {
	if s.I < len(s.B) && s.B[s.I] == c {
		s.I++
		return true
	}
	return false
}

// End is whether nothing but white space is left.
func (s *Scanner) End() bool {
	s.Space()
	return s.I == len(s.B)
}

// Str reads a string token: its content is B[start:end], between the
// quotes, and escaped says whether it holds a backslash escape (which the
// caller decodes or refuses). A control character or text that is not
// UTF-8 is not read here: JSON forbids the one, and encoding/json would
// replace the other.
func (s *Scanner) Str() (start, end int, escaped, ok bool) {
	if !s.Eat('"') {
		return 0, 0, false, false
	}
	start = s.I
	// Most strings are short ASCII text without escapes: find their end
	// with IndexByte (vector instructions), and check the bytes before
	// it, eight at a time, for what would need the loop below.
	if q := bytes.IndexByte(s.B[start:], '"'); q >= 0 && plainSpan(s.B[start:start+q]) {
		s.I = start + q + 1
		return start, start + q, false, true
	}
	ascii := true
	for s.I < len(s.B) {
		// Eight bytes at a time up to the first that needs a look: most
		// of a log is the text of its strings.
		for s.I+8 <= len(s.B) && plain8(binary.LittleEndian.Uint64(s.B[s.I:])) {
			s.I += 8
		}
		if s.I >= len(s.B) {
			break
		}
		c := s.B[s.I]
		switch {
		case c == '"':
			end = s.I
			s.I++
			if !ascii && !utf8.Valid(s.B[start:end]) {
				return 0, 0, false, false
			}
			return start, end, escaped, true
		case c == '\\':
			escaped = true
			s.I += 2 // the escaped byte cannot end the string
			continue
		case c < 0x20:
			return 0, 0, false, false
		case c >= 0x80:
			ascii = false
		}
		s.I++
	}
	return 0, 0, false, false
}

// plain8 is whether none of the eight bytes of w ends a string, escapes,
// is a control character or belongs to a multi-byte character: whether
// Str may step over all eight. Each test is the classic "has a zero byte"
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
