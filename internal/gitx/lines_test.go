package gitx

import (
	"bytes"
	"strings"
	"testing"
)

func TestMergeLines(t *testing.T) {
	tests := []struct {
		name               string
		base, ours, theirs string
		want               string
	}{
		{"both append", "a\nb\n", "a\nb\nc\n", "a\nb\nd\n", "a\nb\nc\nd\n"},
		{"same line appended on both sides once", "a\n", "a\nx\n", "a\nx\n", "a\nx\n"},
		{"ours compacted, theirs appended", "a\nb\nc\n", "S\n", "a\nb\nc\nd\n", "S\nd\n"},
		{"theirs compacted, ours appended", "a\nb\n", "a\nb\nc\n", "S\n", "c\nS\n"},
		{"both removed different lines", "a\nb\nc\n", "a\nc\n", "a\nb\n", "a\n"},
		{"no base: union in order", "", "x\ny\n", "y\nz\n", "x\ny\nz\n"},
		{"torn last line kept, newline added", "a\n", "a\nb", "a\n", "a\nb\n"},
		{"crlf and lf are the same line", "a\r\n", "a\r\nb\r\n", "a\n", "a\nb\n"},
		{"blank lines dropped", "a\n\n", "a\n\n\nb\n", "a\n", "a\nb\n"},
		{"duplicates collapse", "a\n", "a\nb\nb\n", "b\na\n", "a\nb\n"},
		{"all empty", "", "", "", ""},
		{"base order wins for kept lines", "c\nb\na\n", "a\nb\nc\n", "b\nc\na\n", "c\nb\na\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(MergeLines([]byte(tt.base), []byte(tt.ours), []byte(tt.theirs)))
			if got != tt.want {
				t.Errorf("MergeLines(%q, %q, %q) = %q, want %q", tt.base, tt.ours, tt.theirs, got, tt.want)
			}
		})
	}
}

// FuzzMergeLines checks the properties the merge driver relies on: nothing a
// side added is lost, nothing a side removed comes back, no line twice, and
// the result does not depend on which side is called ours for its set of
// lines.
func FuzzMergeLines(f *testing.F) {
	f.Add("a\nb\n", "a\nb\nc\n", "a\nd\n")
	f.Add("", "x", "y\n")
	f.Add("a\r\nb\n", "b\n", "a\n\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		got := MergeLines([]byte(base), []byte(ours), []byte(theirs))
		if len(got) > 0 && got[len(got)-1] != '\n' {
			t.Fatalf("result does not end with a newline: %q", got)
		}
		b, o, th := splitSet([]byte(base)), splitSet([]byte(ours)), splitSet([]byte(theirs))
		res := splitSet(got)
		if n := len(bytes.Split(bytes.TrimSuffix(got, []byte{'\n'}), []byte{'\n'})); len(got) > 0 && n != len(res.order) {
			t.Fatalf("a line appears twice in %q", got)
		}
		for _, side := range []*lineSet{o, th} {
			for _, l := range side.order {
				added := !b.has(l)
				if added && !res.has(l) {
					t.Fatalf("added line %q lost", l)
				}
			}
		}
		for _, l := range b.order {
			removed := !o.has(l) || !th.has(l)
			if removed && res.has(l) {
				t.Fatalf("removed line %q came back", l)
			}
			if !removed && !res.has(l) {
				t.Fatalf("kept line %q lost", l)
			}
		}
		for _, l := range res.order {
			if !b.has(l) && !o.has(l) && !th.has(l) {
				t.Fatalf("line %q came from nowhere", l)
			}
			if bytes.ContainsAny(l, "\n") || strings.TrimSpace(string(l)) == "" {
				t.Fatalf("bad line %q", l)
			}
		}
		swapped := splitSet(MergeLines([]byte(base), []byte(theirs), []byte(ours)))
		if len(swapped.order) != len(res.order) {
			t.Fatalf("swapping sides changed the set: %d vs %d lines", len(swapped.order), len(res.order))
		}
		for _, l := range res.order {
			if !swapped.has(l) {
				t.Fatalf("swapping sides lost %q", l)
			}
		}
	})
}
