package gitx

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzSplitMarkers: reading markers never panics, and whatever
// MergeTextMarked writes (from sides without marker-like lines) reads back
// with one region per conflict and the sides' lines inside them.
func FuzzSplitMarkers(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), []byte("a\nβ\nc\n"))
	f.Add([]byte("x"), []byte("o"), []byte(""))
	f.Add([]byte("<<<<<<< a\n=======\n>>>>>>> b\n"), []byte(""), []byte("q\n"))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		for _, d := range [][]byte{base, ours, theirs} {
			SplitMarkers(d) // must not panic
		}
		for _, d := range [][]byte{base, ours, theirs} {
			for _, l := range bytes.Split(d, []byte{'\n'}) {
				if markerRun(l, '<', 0) > 0 || markerRun(l, '|', 0) > 0 || markerRun(l, '>', 0) > 0 || len(l) >= DefaultMarkerSize && bytes.Count(bytes.TrimRight(l, "\r"), []byte{'='}) == len(bytes.TrimRight(l, "\r")) {
					return
				}
			}
		}
		marked, clean := MergeTextMarked(base, ours, theirs, 0)
		s, err := SplitMarkers(marked)
		if err != nil {
			t.Fatalf("cannot read back %q: %v", marked, err)
		}
		if clean != (s.Conflicts == 0) || (!clean && !s.BaseKnown) {
			t.Fatalf("clean=%v but %+v", clean, s)
		}
		if clean && (s.Base != nil || string(marked) != string(mustMerge(t, base, ours, theirs))) {
			t.Fatalf("a clean merge differs from MergeText")
		}
	})
}

func mustMerge(t *testing.T, base, ours, theirs []byte) []byte {
	out, clean := MergeText(base, ours, theirs)
	if !clean {
		t.Fatal("MergeText disagrees about conflicts")
	}
	return out
}

// FuzzMergeManifest: any bytes either merge or fail with a format
// ConflictError; a merge keeps every entry a side added and merging the
// result with itself changes nothing.
func FuzzMergeManifest(f *testing.F) {
	a := `{"observationId":"obs_a","type":"decision","path":".memory/knowledge/decisions.md","contentHash":"h","renderedAt":"2026-05-01T00:00:00Z","anchorId":"ADR-001"}`
	o := `{"observationId":"obs_o","type":"pitfall","path":".memory/knowledge/pitfalls.md","contentHash":"h","renderedAt":"2026-05-02T00:00:00Z","anchorId":"PF-001"}`
	f.Add([]byte(`{"schemaVersion":2,"entries":[`+a+`]}`), []byte(`{"schemaVersion":2,"entries":[`+a+`,`+o+`]}`), []byte(`{"schemaVersion":2,"entries":[]}`))
	f.Add([]byte(``), []byte(`{"schemaVersion":1,"entries":[`+o+`]}`), []byte(`{"entries":[`+a+`]}`))
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		got, err := MergeManifest(base, ours, theirs)
		if err != nil {
			var ce *ConflictError
			if !errors.As(err, &ce) || !ce.Format {
				t.Fatalf("not a format error: %v", err)
			}
			return
		}
		m, err := readManifest("result", got)
		if err != nil {
			t.Fatalf("result unreadable: %v\n%s", err, got)
		}
		b, _ := readManifest("b", base)
		for _, side := range [][]byte{ours, theirs} {
			s, _ := readManifest("s", side)
			for _, e := range s.Entries {
				if old := b.Get(e.ObservationID); (old == nil || *old != e) && m.Get(e.ObservationID) == nil {
					t.Fatalf("%s lost", e.ObservationID)
				}
			}
		}
		for _, again := range [][3][]byte{{base, got, got}, {got, got, got}} {
			if x, err := MergeManifest(again[0], again[1], again[2]); err != nil || string(x) != string(got) {
				t.Fatalf("not idempotent: %v\n%s\nvs\n%s", err, got, x)
			}
		}
	})
}
