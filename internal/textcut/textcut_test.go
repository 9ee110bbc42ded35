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

// FuzzBytes and FuzzTail: the cut is a start (an end) of s, within max,
// valid UTF-8 when s is, and as long as it can be (it gives up less than
// a character).
func FuzzBytes(f *testing.F) {
	f.Add("héllo wörld 日本語 😀", 7)
	f.Add(strings.Repeat("é", 10), 5)
	f.Add("\xff\x80abc", 2)
	f.Fuzz(func(t *testing.T, s string, max int) { checkCut(t, "Bytes", Bytes, strings.HasPrefix, s, max) })
}

func FuzzTail(f *testing.F) {
	f.Add("héllo wörld 日本語 😀", 7)
	f.Add("abc\x80\xff", 2)
	f.Fuzz(func(t *testing.T, s string, max int) { checkCut(t, "Tail", Tail, strings.HasSuffix, s, max) })
}

func checkCut(t *testing.T, name string, cut func(string, int) string, part func(s, got string) bool, s string, max int) {
	got := cut(s, max)
	if !part(s, got) {
		t.Fatalf("%s(%q, %d) = %q: not a part of s where it should be", name, s, max, got)
	}
	if max <= 0 {
		if got != "" {
			t.Fatalf("%s(%q, %d) = %q, want empty", name, s, max, got)
		}
		return
	}
	if len(got) > max {
		t.Fatalf("%s(%q, %d) = %q: longer than max", name, s, max, got)
	}
	if len(s) <= max && got != s {
		t.Fatalf("%s(%q, %d) = %q: cut a string that fits", name, s, max, got)
	}
	if utf8.ValidString(s) {
		if !utf8.ValidString(got) {
			t.Fatalf("%s(%q, %d) = %q: splits a character", name, s, max, got)
		}
		if len(s) > max && len(got) <= max-utf8.UTFMax {
			t.Fatalf("%s(%q, %d) = %q: shorter than it need be", name, s, max, got)
		}
	}
}
