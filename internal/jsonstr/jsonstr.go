// Package jsonstr writes strings and numbers as encoding/json writes them,
// for what devlearn writes by hand in encoding/json's exact form (events
// whose ids derive from their bytes, the committed manifest, what a hook
// prints and appends on every call): writing them by hand is several times
// faster than encoding/json's reflection, which also works out, on its
// first use in a process, how to encode each type; the tests hold them to
// encoding/json byte for byte.
package jsonstr

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes json.Marshal writes as they are; plainText,
// those an Encoder with SetEscapeHTML(false) does.
var plain, plainText = func() (t, u [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		u[c] = c != '"' && c != '\\'
		t[c] = u[c] && c != '<' && c != '>' && c != '&'
	}
	return t, u
}()

// Append appends s quoted as encoding/json quotes it: HTML's <, > and &
// escaped, invalid UTF-8 as U+FFFD, and the line and paragraph separators
// escaped for JavaScript.
func Append(b []byte, s string) []byte { return appendString(b, s, &plain) }

// AppendText is Append with HTML's characters left as they are, as an
// Encoder with SetEscapeHTML(false) writes them: for what an agent reads.
func AppendText(b []byte, s string) []byte { return appendString(b, s, &plainText) }

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, with an exponent only when it is very
// small or very large, and then without a leading zero (1e-7, not 1e-07).
// JSON has no NaN or infinity: ok is false for them, and b unchanged.
func AppendFloat(b []byte, f float64) (_ []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}

func appendString(b []byte, s string, plain *[utf8.RuneSelf]bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
