package transcript

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
)

var synthCache sync.Map // size -> []byte

func cachedSynth(size int) []byte {
	if v, ok := synthCache.Load(size); ok {
		return v.([]byte)
	}
	data := synthTranscript(size)
	synthCache.Store(size, data)
	return data
}

// Two sizes, so that B/op and allocs/op show what grows with the file and
// what does not: the reader's own memory must not.
var benchSizes = []int{8 << 20, 64 << 20}

// BenchmarkRecords measures the record reader alone: lines, the lazy JSON
// walk, the message and its content blocks.
func BenchmarkRecords(b *testing.B) {
	for _, size := range benchSizes {
		data := cachedSynth(size)
		b.Run(fmt.Sprintf("size=%dMB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				blocks := 0
				_, err := Records(bytes.NewReader(data), func(r *Record) error {
					if r.Content != nil {
						return ParseBlocksInto(&blocksScratch, r.Content, func(*Block) error { blocks++; return nil })
					}
					return nil
				})
				if err != nil || blocks == 0 {
					b.Fatal(err, blocks)
				}
			}
		})
	}
}

var blocksScratch skipper

// ParseBlocksInto is ParseBlocks with a caller-held skipper (benchmarks
// only, to measure the reader and not a stack's first allocation).
func ParseBlocksInto(s *skipper, content []byte, fn func(*Block) error) error {
	return s.blocks(content, fn)
}

// BenchmarkWalk measures the whole path ingest takes: records, noise
// filter, the three channels, with a sink that keeps nothing. Its
// allocations are the items handed to the sink (their strings), so they
// grow with the number of tool calls and messages, not with the bytes
// skipped; TestWalkMemoryFlat checks that the memory held stays flat.
func BenchmarkWalk(b *testing.B) {
	for _, size := range benchSizes {
		data := cachedSynth(size)
		b.Run(fmt.Sprintf("size=%dMB", size>>20), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var n int
				sink := Sink{
					UserSignal: func(UserSignal) error { n++; return nil },
					DialogPair: func(DialogPair) error { n++; return nil },
					ToolCall:   func(ToolCall) error { n++; return nil },
				}
				_, problems, err := Walk(bytes.NewReader(data), Options{}, sink)
				if err != nil || len(problems) > 0 || n == 0 {
					b.Fatal(err, problems, n)
				}
			}
		})
	}
}

// BenchmarkWalkVerbatim is BenchmarkWalk without redaction: the reader's
// own cost, beside what redacting every text where it enters adds.
func BenchmarkWalkVerbatim(b *testing.B) {
	data := cachedSynth(benchSizes[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	sink := Sink{
		UserSignal: func(UserSignal) error { return nil },
		DialogPair: func(DialogPair) error { return nil },
		ToolCall:   func(ToolCall) error { return nil },
	}
	for b.Loop() {
		if _, _, err := Walk(bytes.NewReader(data), Options{Redact: Verbatim}, sink); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWalkMemoryFlat streams transcripts of two sizes through Walk and
// checks that the live heap peaks at the same level: the reader keeps the
// longest line and a few buffers, never the file. It samples what a full
// collection finds reachable, not the heap with its garbage: redacting
// every text makes garbage (far more under the race detector, which slows
// regexp fiftyfold), and how much of it a sample catches, or a concurrent
// collection marks live while the walk allocates, says nothing about what
// the walk keeps.
func TestWalkMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	chunk := synthTranscript(4 << 20)
	// One walk first, so that what lives for the whole process (the
	// redactor's rules, compiled on first use) is in the baseline: the
	// test is about what a walk keeps, not about what the first one builds.
	if _, _, err := Walk(&repeatReader{chunk: chunk, n: 1}, Options{}, Sink{}); err != nil {
		t.Fatal(err)
	}
	peak := func(repeats int) (uint64, int64) {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		reachable := func() uint64 {
			runtime.GC() // a full collection, the walk stopped in its sink
			metrics.Read(sample)
			return sample[0].Value.Uint64()
		}
		base := reachable()
		var most uint64
		calls := 0
		sink := Sink{ToolCall: func(ToolCall) error {
			calls++
			if calls%500 == 0 {
				most = max(most, reachable())
			}
			return nil
		}}
		st, problems, err := Walk(&repeatReader{chunk: chunk, n: repeats}, Options{}, sink)
		if err != nil || len(problems) > 0 {
			t.Fatal(err, problems)
		}
		if most < base {
			return 0, st.Bytes
		}
		return most - base, st.Bytes
	}
	small, smallBytes := peak(5)
	large, largeBytes := peak(50)
	t.Logf("heap above baseline: %d KB after %d MB, %d KB after %d MB", small>>10, smallBytes>>20, large>>10, largeBytes>>20)
	// What must not happen is growth with the input: 10x the input may at
	// most double it (and stay far below the input's size).
	if large > 2*small+(8<<20) || large > uint64(largeBytes)/8 {
		t.Fatalf("heap grows with the input: %d KB for %d MB, %d KB for %d MB", small>>10, smallBytes>>20, large>>10, largeBytes>>20)
	}
}

// BenchmarkWalkReal walks the 21 real transcripts one after another (4.4
// MB, the malformed fixture included), for a figure on real content next
// to the synthetic one.
func BenchmarkWalkReal(b *testing.B) {
	var files [][]byte
	var size int64
	for _, f := range realFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
		size += int64(len(data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	sink := Sink{
		UserSignal: func(UserSignal) error { return nil },
		DialogPair: func(DialogPair) error { return nil },
		ToolCall:   func(ToolCall) error { return nil },
	}
	for b.Loop() {
		for _, data := range files {
			if _, _, err := Walk(bytes.NewReader(data), Options{}, sink); err != nil {
				b.Fatal(err)
			}
		}
	}
}
