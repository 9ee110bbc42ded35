package redact

import (
	"unicode"
	"unicode/utf8"
)

// Text pasted from a chat, a word processor or a web page can carry
// characters nobody sees inside a token: a zero-width space, a soft
// hyphen, a byte-order mark, a control byte. A rule does not match a token
// split by one, and the stores that take such characters out afterwards
// (an observation's one line, an entry's text) would join the token again,
// whole. So the rules read the text without them, and each finding covers
// the same characters in the text as given.

// hidden reports a character that shows nothing where it stands: a format
// character (Unicode Cf: zero-width spaces and joiners, the soft hyphen,
// bidirectional marks, the byte-order mark, tags), a control character
// other than tab and line ends, or a byte that is not UTF-8.
func hidden(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	case r == utf8.RuneError:
		return true // an invalid byte, or U+FFFD, which stores drop too
	case r < 0xa0:
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// withoutHidden is s without its hidden characters, and for each byte of
// it the offset of that byte in s; nil when s holds none (the common case,
// found without allocating).
func withoutHidden(s string) (string, []int) {
	first := -1
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hidden(r) {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	at := make([]int, 0, len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !hidden(r) {
			for k := range n {
				out = append(out, s[i+k])
				at = append(at, i+k)
			}
		}
		i += n
	}
	return string(out), at
}
