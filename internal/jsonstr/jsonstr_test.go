package jsonstr

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// Pieces of text that encoding/json writes in every way it has: plain,
// escaped for JSON, for HTML, for JavaScript, and invalid UTF-8.
var pieces = []string{"a", "Lesson", " ", "\"", "\\", "/", "<", ">", "&", "\x00", "\x01", "\x1f", "\x7f", "\b", "\f", "\n", "\r", "\t",
	"é", "日本", "\u2028", "\u2029", "\u202f", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\U0001F600", "e_0123456789abcdef"}

func TestAppendIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	for range 200000 {
		var sb strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		want, _ := json.Marshal(s)
		if got := Append(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
