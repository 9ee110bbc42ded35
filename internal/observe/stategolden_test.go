package observe

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
)

// goldenLog holds every field the fold cache writes, at the edges of their
// encodings: nil and empty maps and slices, long strings (a length of more
// than one byte), negative and extreme integers, floats, bools both ways.
func goldenLog() *Log {
	legacy := 0.75
	long := strings.Repeat("évidence ", 30)
	l := NewLog()
	l.Lines = 1 << 20
	l.Kept = []KeptLine{{N: 3, Raw: []byte(`{"op":"future"}`)}, {N: 1 << 30, Raw: []byte{0xff, 0}, Corrupt: true}}
	l.Problems = []jsonl.Problem{{Line: 9, Torn: true, Err: errors.New("unexpected end"), Text: `{"op":`}, {Line: 10, Text: long}}
	l.states["obs_full"] = &State{
		ID: "obs_full", Type: "pattern", Pattern: long, Details: "",
		text: stamp{seq: 2, at: 1_700_000_000_123, eid: "e1"}, details: stamp{seq: -1, at: math.MinInt64}, quality: stamp{at: math.MaxInt64, eid: "q"},
		sources:     map[string]int64{"claude": 5, "codex": -5},
		weights:     map[string]map[int]int64{"claude": {1: 10, -2: 20}, "codex": nil, "gemini": {}},
		legacy:      span{-7, 1 << 40},
		legacyCount: 3,
		evidence:    []timedText{{"saw it", 1}, {long, -1}},
		marks: markSet{
			{name: markCreated, mark: mark{stamp: stamp{seq: 1, at: 2, eid: "c"}, reason: "r", path: "p", anchor: "a", factor: 1.5, on: true}},
			{name: markPromoted, mark: mark{factor: math.Inf(-1), legacy: &legacy}},
		},
		penalties: []mark{{stamp: stamp{at: 3}, reason: "contradicted", factor: -0.25}, {factor: math.NaN()}},
		counts: &counts{
			sets: map[string]map[string]struct{}{"hits": {"e1": {}, "e2": {}}, "none": nil, "empty": {}},
			at:   map[string]int64{"hits": 99},
		},
		tomb: -1,
	}
	l.states["obs_bare"] = &State{ID: "obs_bare", sources: map[string]int64{}}
	return l
}

// goldenOne is a log of one state whose maps hold a key at most: what
// writeCache writes of it does not depend on the order of a map.
func goldenOne() *Log {
	l := NewLog()
	l.Lines = 2
	l.states["obs_one"] = &State{ID: "obs_one", Type: "t", text: stamp{seq: 1, at: 2, eid: "e"},
		sources: map[string]int64{"s": 1}, weights: map[string]map[int]int64{"s": {3: 4}},
		marks: markSet{{name: markCreated, mark: mark{on: true, factor: 2}}}, counts: &counts{sets: map[string]map[string]struct{}{"c": {"e": {}}}}}
	return l
}

// The fold cache's bytes are pinned (testdata/foldstate.golden), and they
// decode to what encodes to them again. The states' records are those the
// encoder wrote before the field encoding moved to binfield; format 2
// moved their count to the trailer and added the index and the facts;
// format 3 put the states first and the directory after them, the facts
// at a fixed width, a CRC per state, and left the states out of the
// file's CRC; format 4 checks them with IEEE's CRC-32, not CRC-32C;
// format 5 names a line without an event id by its xxHash, which
// TestLineIDPinned holds.
// DEVLEARN_UPDATE_GOLDEN=1 rewrites it.
func TestFoldCacheBytesGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/foldstate.golden")
	if err != nil {
		t.Fatal(err)
	}
	w := &encoder{sorted: true}
	w.log(goldenLog())
	var file bytes.Buffer
	h := cacheHeader{program: "devlearn@v1", size: 1 << 33, lines: 70000, crc: 0xdeadbeef}
	h.tail[0], h.tail[31] = 1, 0xff
	if err := writeCache(&file, h, goldenOne()); err != nil {
		t.Fatal(err)
	}
	got := append(append(w.B, "\n--\n"...), file.Bytes()...)
	if os.Getenv("DEVLEARN_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile("testdata/foldstate.golden", got, 0o644); err != nil {
			t.Fatal(err)
		}
		want = got
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the fold cache's bytes changed:\n got %q\nwant %q", got, want)
	}

	r := &decoderBin{Decoder: binfield.Decoder{S: string(w.B)}}
	l, err := r.log()
	if err != nil {
		t.Fatal(err)
	}
	again := &encoder{sorted: true}
	again.log(l)
	if !bytes.Equal(again.B, w.B) {
		t.Fatalf("decoded and encoded again:\n got %q\nwant %q", again.B, w.B)
	}
	hd, r, err := decodeHeader(file.String())
	if err != nil || hd != h {
		t.Fatalf("header %+v, %v", hd, err)
	}
	if l, err := r.log(); err != nil || canonical(l) != canonical(goldenOne()) {
		t.Fatalf("decoded %v", err)
	}
}

// FuzzDecodeFoldCache: whatever the bytes of a cache, reading it fails
// or gives a log that encodes to what reads back as the same log; it never
// panics.
func FuzzDecodeFoldCache(f *testing.F) {
	w := &encoder{sorted: true}
	w.log(goldenLog())
	f.Add(w.B)
	f.Add(w.B[:len(w.B)/2])
	f.Add([]byte{})
	var file bytes.Buffer
	if err := writeCache(&file, cacheHeader{program: "p", size: 10}, goldenOne()); err != nil {
		f.Fatal(err)
	}
	f.Add(file.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, r, err := decodeHeader(string(data)); err == nil {
			r.log()
		}
		r := &decoderBin{Decoder: binfield.Decoder{S: string(data)}}
		l, err := r.log()
		if err != nil {
			return
		}
		// The states not decoded yet: by their facts, by id, then all.
		l.WithStatus(t0, config.Default(), Observing, Ready, Created, Deprecated)
		l.Has("obs_full")
		l.Observations(t0, config.Default())
		w := &encoder{sorted: true}
		w.log(l)
		r = &decoderBin{Decoder: binfield.Decoder{S: string(w.B)}}
		again, err := r.log()
		if err != nil || canonical(again) != canonical(l) {
			t.Fatalf("read back %v", err)
		}
	})
}

// A line without an event id is named by its hash, and the fold cache
// keeps those names: the hash may change only with cacheFormat.
func TestLineIDPinned(t *testing.T) {
	got := lineID([]byte(`{"id":"obs-1","type":"procedural"}`))
	if want := "line_cbd50845e2ad0d2a"; got != want {
		t.Fatalf("lineID = %s, want %s: a new hash needs a new cacheFormat", got, want)
	}
	if lineID([]byte(`{"id":"obs-2"}`)) == got {
		t.Fatal("two lines, one id")
	}
}
