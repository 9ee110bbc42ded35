package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"", 0, ""},
		{"", 5, ""},
		{"abc", -1, ""},
		{"abc", 0, ""},
		{"abc", 2, "ab"},
		{"abc", 3, "abc"},
		{"abc", 10, "abc"},
		{"héllo", 2, "h"}, // é is two bytes: not split
		{"héllo", 3, "hé"},
		{"日本", 1, ""},
		{"日本", 5, "日"},
		{"日本", 6, "日本"},
		{"a😀b", 4, "a"},
		{"a😀b", 5, "a😀"},
		{"\x80\x80\x80", 2, ""}, // only continuation bytes: nothing is a start
	} {
		if got := Bytes(tc.s, tc.max); got != tc.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// FuzzBytes: the cut is a start of s, within max, valid UTF-8 when s is,
// and as long as it can be (it gives up less than a character).
func FuzzBytes(f *testing.F) {
	f.Add("héllo wörld 日本語 😀", 7)
	f.Add(strings.Repeat("é", 10), 5)
	f.Add("\xff\x80abc", 2)
	f.Fuzz(func(t *testing.T, s string, max int) {
		got := Bytes(s, max)
		if !strings.HasPrefix(s, got) {
			t.Fatalf("Bytes(%q, %d) = %q: not a start of s", s, max, got)
		}
		if max <= 0 {
			if got != "" {
				t.Fatalf("Bytes(%q, %d) = %q, want empty", s, max, got)
			}
			return
		}
		if len(got) > max {
			t.Fatalf("Bytes(%q, %d) = %q: longer than max", s, max, got)
		}
		if len(s) <= max && got != s {
			t.Fatalf("Bytes(%q, %d) = %q: cut a string that fits", s, max, got)
		}
		if utf8.ValidString(s) {
			if !utf8.ValidString(got) {
				t.Fatalf("Bytes(%q, %d) = %q: splits a character", s, max, got)
			}
			if len(s) > max && len(got) <= max-utf8.UTFMax {
				t.Fatalf("Bytes(%q, %d) = %q: shorter than it need be", s, max, got)
			}
		}
	})
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"", 5, ""},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"abc", 2, "bc"},
		{"abc", 3, "abc"},
		{"héllo", 4, "llo"}, // é is two bytes: not split
		{"héllo", 5, "éllo"},
		{"日本", 5, "本"},
		{"a😀b", 4, "b"},
		{"a😀b", 5, "😀b"},
		{"\x80\x80\x80", 2, ""},
	} {
		if got := Tail(tc.s, tc.max); got != tc.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// FuzzTail: the cut is an end of s, within max, valid UTF-8 when s is,
// and as long as it can be.
func FuzzTail(f *testing.F) {
	f.Add("héllo wörld 日本語 😀", 7)
	f.Add("abc\x80\xff", 2)
	f.Fuzz(func(t *testing.T, s string, max int) {
		got := Tail(s, max)
		if !strings.HasSuffix(s, got) {
			t.Fatalf("Tail(%q, %d) = %q: not an end of s", s, max, got)
		}
		if max <= 0 {
			if got != "" {
				t.Fatalf("Tail(%q, %d) = %q, want empty", s, max, got)
			}
			return
		}
		if len(got) > max {
			t.Fatalf("Tail(%q, %d) = %q: longer than max", s, max, got)
		}
		if len(s) <= max && got != s {
			t.Fatalf("Tail(%q, %d) = %q: cut a string that fits", s, max, got)
		}
		if utf8.ValidString(s) {
			if !utf8.ValidString(got) {
				t.Fatalf("Tail(%q, %d) = %q: splits a character", s, max, got)
			}
			if len(s) > max && len(got) <= max-utf8.UTFMax {
				t.Fatalf("Tail(%q, %d) = %q: shorter than it need be", s, max, got)
			}
		}
	})
}
