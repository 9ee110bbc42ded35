package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// plain8 says a word may be stepped over exactly when no byte of it would
// stop Str's byte loop: every byte value at every position, among bytes
// that would not stop it and among random ones.
func TestPlain8(t *testing.T) {
	stops := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }
	check := func(w [8]byte) {
		want := true
		for _, c := range w {
			want = want && !stops(c)
		}
		if got := plain8(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("% x: plain8 %v, want %v", w, got, want)
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	for pos := range 8 {
		for c := range 256 {
			for range 8 {
				var w [8]byte
				for i := range w {
					w[i] = byte(0x20 + r.IntN(0x60)) // never stops, unless '"' or '\\'
				}
				w[pos] = byte(c)
				check(w)
			}
		}
	}
	for range 1 << 20 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		check(w)
	}
}

// plainSpan is true exactly when no byte is a backslash, a control
// character or part of a multi-byte character, at every length and
// position.
func TestPlainSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for n := range 24 {
		for range 2000 {
			b := make([]byte, n)
			want := true
			for i := range b {
				b[i] = byte(0x20 + r.IntN(0x5f))
				if r.IntN(n+1) == 0 {
					b[i] = byte(r.IntN(256))
				}
				want = want && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '\\'
			}
			if got := plainSpan(b); got != want {
				t.Fatalf("% x: plainSpan %v, want %v", b, got, want)
			}
		}
	}
}

// Str reads every string encoding/json writes, whatever it holds: its
// content is the token's, and escaped says whether it holds a backslash.
// A control character or text that is not UTF-8 is not read.
func TestStrReadsWhatEncodingJSONWrites(t *testing.T) {
	pieces := []string{"a", "Lesson", " ", "\"", "\\", "/", "<", "&", "\x00", "\x1f", "\x7f", "\n", "\t",
		"é", "日本", "\u2028", "\ufffd", "\xff", "\U0001F600", "0123456789abcdef"}
	r := rand.New(rand.NewPCG(10, 10))
	for range 50000 {
		var sb strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		token, _ := json.Marshal(sb.String())
		s := Scanner{B: append(token, ',')}
		start, end, escaped, ok := s.Str()
		if !ok || string(s.B[start:end]) != string(token[1:len(token)-1]) || escaped != bytes.ContainsRune(token, '\\') || s.I != len(token) {
			t.Fatalf("Str on %s: %q %v %v, at %d", token, s.B[start:end], escaped, ok, s.I)
		}
	}
	for _, bad := range []string{"\"tab\tin it\"", "\"line\nbreak\"", "\"\xff\"", `"no end`, `"ends in \"`, `x`} {
		s := Scanner{B: []byte(bad)}
		if _, _, _, ok := s.Str(); ok {
			t.Fatalf("Str read %q", bad)
		}
	}
}
