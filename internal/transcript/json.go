package transcript

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small lazy JSON reader. A transcript line is mostly bulk
// the extractors never look at (tool outputs, file snapshots, base64
// images), so instead of decoding every line we walk the structure, find
// the few fields we need, and skip everything else. Skipping a string is a
// memchr for the closing quote, which is what makes a 1 MB image line cost
// about as much as copying it. Values are validated as they are walked, so a
// line cut off mid-write or a broken one is still reported, not half-read.

var (
	errTruncated = errors.New("JSON ends early (the line was cut off)")
	errSyntax    = errors.New("not valid JSON")
	errTooDeep   = errors.New("JSON nested too deeply")
	errNotObject = errors.New("not a JSON object")
)

// maxDepth bounds nesting so that a hostile line cannot make the skipper
// hold an unbounded stack; real records nest fewer than 20 levels.
const maxDepth = 4096

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just after the string that opens at b[i].
func stringEnd(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), errTruncated
		}
		k += j
		n := 0
		for p := k - 1; p >= j && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return k + 1, nil
		}
		j = k + 1
	}
}

// scalarEnd returns the index just after the number or literal at b[i].
func scalarEnd(b []byte, i int) (int, error) {
	switch c := b[i]; {
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return numberEnd(b, i)
	}
	return i, errSyntax
}

func literalEnd(b []byte, i int, lit string) (int, error) {
	rest := b[i:]
	if len(rest) < len(lit) {
		if string(rest) == lit[:len(rest)] {
			return len(b), errTruncated
		}
		return i, errSyntax
	}
	if string(rest[:len(lit)]) != lit {
		return i, errSyntax
	}
	return i + len(lit), nil
}

// numberEnd checks the JSON number grammar. The skipper accepts everything
// encoding/json accepts (the fuzz test holds it to that); it is more lenient
// only inside strings, where it does not look for raw control characters or
// bad escapes, because that would cost a pass over every skipped byte.
func numberEnd(b []byte, i int) (int, error) {
	digits := func(i int) (int, bool) {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i, i > s
	}
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, errTruncated
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i, _ = digits(i)
	default:
		return i, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		var ok bool
		if i, ok = digits(i + 1); !ok {
			return i, truncOr(b, i)
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		var ok bool
		if i, ok = digits(i); !ok {
			return i, truncOr(b, i)
		}
	}
	return i, nil
}

func truncOr(b []byte, i int) error {
	if i >= len(b) {
		return errTruncated
	}
	return errSyntax
}

// skipper walks values; its stack (and the block handed to blocks'
// callback) is kept between calls so that reading allocates nothing once
// warmed up.
type skipper struct {
	stack []byte
	block Block
}

// valueEnd returns the index just after the JSON value starting at b[i]
// (i must point at the value, not at space before it).
func (s *skipper) valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return i, errTruncated
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		return s.containerEnd(b, i)
	}
	return scalarEnd(b, i)
}

func closes(open, c byte) bool { return open == '{' && c == '}' || open == '[' && c == ']' }

func (s *skipper) containerEnd(b []byte, i int) (end int, err error) {
	st := append(s.stack[:0], b[i])
	defer func() { s.stack = st[:0] }()
	i++
	first := true
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errTruncated
		}
		c := b[i]
		if !first || !closes(st[len(st)-1], c) {
			// An element (not the close of an empty container, which goes
			// straight to the closing loop below).
			if st[len(st)-1] == '{' {
				if c != '"' {
					return i, errSyntax
				}
				if i, err = stringEnd(b, i); err != nil {
					return i, err
				}
				if i = skipSpace(b, i); i >= len(b) {
					return i, errTruncated
				}
				if b[i] != ':' {
					return i, errSyntax
				}
				if i = skipSpace(b, i+1); i >= len(b) {
					return i, errTruncated
				}
				c = b[i]
			}
			switch c {
			case '{', '[':
				if len(st) >= maxDepth {
					return i, errTooDeep
				}
				st = append(st, c)
				i++
				first = true
				continue
			case '"':
				i, err = stringEnd(b, i)
			default:
				i, err = scalarEnd(b, i)
			}
			if err != nil {
				return i, err
			}
		}
		first = false
		// After an element (or an empty container's open bracket): a comma,
		// or one or more closing brackets.
		for {
			if i = skipSpace(b, i); i >= len(b) {
				return i, errTruncated
			}
			c = b[i]
			if c == ',' {
				i++
				break
			}
			if !closes(st[len(st)-1], c) {
				return i, errSyntax
			}
			st = st[:len(st)-1]
			i++
			if len(st) == 0 {
				return i, nil
			}
		}
	}
}

// objIter walks the members of one JSON object.
type objIter struct {
	s   *skipper
	b   []byte
	i   int
	n   int
	err error
}

// object starts iterating the object b (a whole JSON value, which may be
// followed by space only when top is set).
func (s *skipper) object(b []byte) objIter {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return objIter{err: errTruncated}
	}
	if b[i] != '{' {
		return objIter{err: errNotObject}
	}
	return objIter{s: s, b: b, i: i + 1}
}

// next returns the next member: the key's raw contents (between the quotes,
// escapes as written) and the raw value. ok is false at the end or on error.
func (it *objIter) next() (key, val []byte, ok bool) {
	if it.err != nil || it.b == nil {
		return nil, nil, false
	}
	b, i := it.b, skipSpace(it.b, it.i)
	if i >= len(b) {
		it.err = errTruncated
		return nil, nil, false
	}
	if it.n > 0 {
		switch b[i] {
		case '}':
			it.end(i + 1)
			return nil, nil, false
		case ',':
			if i = skipSpace(b, i+1); i >= len(b) {
				it.err = errTruncated
				return nil, nil, false
			}
		default:
			it.err = errSyntax
			return nil, nil, false
		}
	} else if b[i] == '}' {
		it.end(i + 1)
		return nil, nil, false
	}
	if b[i] != '"' {
		it.err = errSyntax
		return nil, nil, false
	}
	ke, err := stringEnd(b, i)
	if err != nil {
		it.err = err
		return nil, nil, false
	}
	key = b[i+1 : ke-1]
	if i = skipSpace(b, ke); i >= len(b) {
		it.err = errTruncated
		return nil, nil, false
	}
	if b[i] != ':' {
		it.err = errSyntax
		return nil, nil, false
	}
	if i = skipSpace(b, i+1); i >= len(b) {
		it.err = errTruncated
		return nil, nil, false
	}
	ve, err := it.s.valueEnd(b, i)
	if err != nil {
		it.err = err
		return nil, nil, false
	}
	it.n++
	it.i = ve
	return key, b[i:ve], true
}

// end checks that nothing but space follows the object's closing brace.
func (it *objIter) end(i int) {
	if skipSpace(it.b, i) != len(it.b) {
		it.err = errSyntax
	}
	it.b = nil
}

// arrIter walks the elements of one JSON array.
type arrIter struct {
	s   *skipper
	b   []byte
	i   int
	n   int
	err error
}

func (s *skipper) array(b []byte) arrIter {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return arrIter{err: errSyntax}
	}
	return arrIter{s: s, b: b, i: i + 1}
}

func (it *arrIter) next() (val []byte, ok bool) {
	if it.err != nil || it.b == nil {
		return nil, false
	}
	b, i := it.b, skipSpace(it.b, it.i)
	if i >= len(b) {
		it.err = errTruncated
		return nil, false
	}
	if it.n > 0 {
		switch b[i] {
		case ']':
			it.b = nil
			return nil, false
		case ',':
			if i = skipSpace(b, i+1); i >= len(b) {
				it.err = errTruncated
				return nil, false
			}
		default:
			it.err = errSyntax
			return nil, false
		}
	} else if b[i] == ']' {
		it.b = nil
		return nil, false
	}
	ve, err := it.s.valueEnd(b, i)
	if err != nil {
		it.err = err
		return nil, false
	}
	it.n++
	it.i = ve
	return b[i:ve], true
}

// Str is a JSON string's contents as written in the line, escapes and all.
// It is only valid while the line is: call String to keep it.
type Str []byte

// asStr returns the contents of the JSON string v, or nil when v is not a
// string (null, a number, an object...).
func asStr(v []byte) Str {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	return Str(v[1 : len(v)-1])
}

// String decodes the escapes.
func (s Str) String() string {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	return string(s.Append(nil))
}

// Is reports whether s decodes to lit, without allocating when s has no
// escapes (the usual case for keys and type names).
func (s Str) Is(lit string) bool {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s) == lit
	}
	var buf [64]byte
	return string(s.Append(buf[:0])) == lit
}

// Append appends the decoded string to dst. Invalid escapes and lone
// surrogates become U+FFFD, as encoding/json does.
func (s Str) Append(dst []byte) []byte {
	raw := []byte(s)
	for {
		k := bytes.IndexByte(raw, '\\')
		if k < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:k]...)
		raw = raw[k:]
		if len(raw) < 2 {
			return utf8.AppendRune(dst, utf8.RuneError)
		}
		c := raw[1]
		raw = raw[2:]
		switch c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(raw)
			if !ok {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				continue
			}
			raw = raw[4:]
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if len(raw) >= 6 && raw[0] == '\\' && raw[1] == 'u' {
					r2, ok = hex4(raw[2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					raw = raw[6:]
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// isTrue reports whether the raw value is the literal true.
func isTrue(v []byte) bool { return string(v) == "true" }

// isNull reports whether the raw value is absent or null.
func isNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }
