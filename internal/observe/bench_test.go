package observe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/lesson"
)

// devflowLog is n observations in devflow's format: one snapshot per line.
func devflowLog(n int) []byte {
	var buf bytes.Buffer
	types := lesson.Names()
	for i := 0; i < n; i++ {
		conf := 0.33 + float64(i%60)/100
		status := []string{"observing", "observing", "observing", "ready", "created", "deprecated"}[i%6]
		q := true
		e := Event{ID: fmt.Sprintf("obs_%08x", i), Type: types[i%4], Pattern: fmt.Sprintf("Lesson number %d about the build scripts and their hooks", i),
			Confidence: &conf, Observations: 1 + i%4, FirstSeen: "2026-04-01T00:00:00Z", LastSeen: "2026-04-09T00:00:00Z", Status: status,
			Evidence: Evidences{{Text: "user: you forgot the hook again"}, {Text: "user: split this script"}},
			Details:  "area: scripts/hooks/; issue: one script does everything; impact: untestable; resolution: one job per script", QualityOK: &q}
		if status == "created" {
			e.ArtifactPath = fmt.Sprintf(".claude/commands/self-learning/lesson-%d.md", i)
		}
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// eventLog is n observations as devlearn events: two sightings each from
// different sessions, and a created event for one in ten.
func eventLog(n int) []byte {
	var buf bytes.Buffer
	q := true
	for i := 0; i < n; i++ {
		s := Sighting{Type: lesson.Names()[i%4], Pattern: fmt.Sprintf("Lesson number %d about the build scripts and their hooks", i), QualityOK: &q,
			Details:  "area: scripts/hooks/; issue: one script does everything; impact: untestable; resolution: one job per script",
			Evidence: []string{"user: you forgot the hook again"}}
		s.ID = ID(s.Type, s.Pattern)
		for k := 0; k < 2; k++ {
			b, _ := json.Marshal(ObserveEvent(s, fmt.Sprintf("session-%d", (i+k)%500), day(float64(k))))
			buf.Write(b)
			buf.WriteByte('\n')
		}
		if i%10 == 0 {
			b, _ := json.Marshal(NewEvent(OpCreated, s.ID, day(2), "render", func(e *Event) { e.Path = "x.md" }))
			buf.Write(b)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

// BenchmarkFold folds a whole log (as LoadFile does, on every core) and
// computes every observation's view: what `learn --list` and render-ready
// do first. Cost must grow linearly:
// compare ns/obs between the 10k and 100k cases.
func BenchmarkFold(b *testing.B) {
	cfg := config.Default()
	now := day(10)
	for _, format := range []struct {
		name string
		gen  func(int) []byte
	}{{"devflow", devflowLog}, {"events", eventLog}} {
		for _, n := range []int{10_000, 100_000} {
			data := format.gen(n)
			b.Run(fmt.Sprintf("%s/%dk", format.name, n/1000), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					l := FoldBytes(data)
					if got := len(l.Observations(now, cfg)); got != n {
						b.Fatalf("%d observations, want %d", got, n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/obs")
			})
		}
	}
}

// BenchmarkAppend measures locked appends of one observe event: alone, and
// with every goroutine contending for the lock (each Append opens its own
// lock handle, so they contend as separate processes would).
func BenchmarkAppend(b *testing.B) {
	q := true
	s := Sighting{Type: Pitfall, Pattern: "A shared lesson", QualityOK: &q, Evidence: []string{"user: a quote"}}
	s.ID = ID(s.Type, s.Pattern)
	for _, par := range []int{1, 8} {
		b.Run(fmt.Sprintf("writers=%d", par), func(b *testing.B) {
			dir := b.TempDir()
			st := Store{Root: dir, Path: filepath.Join(dir, "log.jsonl"), LockPath: filepath.Join(dir, "log.lock")}
			b.SetParallelism(par)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					i++
					if err := st.Append(context.Background(), ObserveEvent(s, fmt.Sprint(i), t0)); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "lines/s")
		})
	}
}

// growingLog writes about size bytes of a log as it grows over months of
// use: observe events of 10,000 observations seen in 500 sessions, with
// evidence from a small set of quotes, and one decision (created, flag,
// count) in twenty lines. The observations are the same whatever the size:
// a larger log is more sightings of them, so the fold's memory must not
// grow with it.
func growingLog(w io.Writer, size int64) (lines int, err error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	q := true
	const observations, sessions = 10_000, 500
	var written int64
	for i := 0; written < size; i++ {
		o := i % observations
		typ := lesson.Names()[o%4]
		pattern := fmt.Sprintf("Lesson number %d about the build scripts and their hooks", o)
		id := ID(typ, pattern)
		at := t0.Add(time.Duration(i) * time.Second)
		var e *Event
		switch {
		case i%20 == 7:
			e = NewEvent(OpCreated, id, at, "render", func(e *Event) { e.Path = fmt.Sprintf(".claude/commands/self-learning/lesson-%d.md", o) })
		case i%20 == 13:
			e = NewEvent(OpCount, id, at, "hook", func(e *Event) { e.Counter = "used" })
		case i%20 == 17:
			e = NewEvent(OpFlag, id, at, "reconcile", func(e *Event) { e.Flag = FlagStale; e.Reason = "code reference gone" })
		default:
			s := Sighting{ID: id, Type: typ, Pattern: pattern, QualityOK: &q,
				Details:  "area: scripts/hooks/; issue: one script does everything; impact: untestable; resolution: one job per script",
				Evidence: []string{fmt.Sprintf("user: you forgot the hook again (%d)", i%50), "user: split this script"}}
			e = ObserveEvent(s, fmt.Sprintf("session-%d", (i/7)%sessions), at)
		}
		b, err := json.Marshal(e)
		if err != nil {
			return lines, err
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return lines, err
		}
		written += int64(len(b))
		lines++
	}
	return lines, bw.Flush()
}

// BenchmarkFoldLog reads and folds a log file as every command does
// (LoadFile), at 1 MB and 100 MB, and 1 GB with DEVLEARN_BENCH_1GB=1
// (it takes a minute to write). Throughput must not fall with the size,
// and memory must stay flat: peak-MB is the most heap in use during the
// fold, live-MB what the folded log keeps.
func BenchmarkFoldLog(b *testing.B) {
	sizes := []int64{1 << 20, 100 << 20}
	if os.Getenv("DEVLEARN_BENCH_1GB") != "" {
		sizes = append(sizes, 1<<30)
	}
	// As every command runs (cmd/devlearn, hookcmd.command): collecting
	// four times less often than Go's default, under a memory limit.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	for _, size := range sizes {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "learning-log.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			lines, err := growingLog(f, size)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				b.Fatal(err)
			}
			fi, _ := os.Stat(path)
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			var peak, live uint64
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				stop := samplePeakHeap(&peak)
				before := cpuTime()
				b.StartTimer()
				l, err := LoadFile(path)
				b.StopTimer()
				cpu += cpuTime() - before
				stop()
				if err != nil || l.Lines != lines || len(l.Problems) != 0 {
					b.Fatalf("%d lines of %d, %d problems, %v", l.Lines, lines, len(l.Problems), err)
				}
				runtime.GC()
				live = heapInUse()
				runtime.KeepAlive(l)
				b.StartTimer()
			}
			// Per second of CPU (every core's): what a loaded machine
			// cannot take away, unlike MB/s, which is per second of wall.
			if cpu > 0 {
				b.ReportMetric(float64(fi.Size())*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(live)/(1<<20), "live-MB")
			// The baseline: reading the same file, folding nothing.
			b.StopTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				readAll(b, path)
			}
			b.ReportMetric(float64(fi.Size())*float64(b.N)/time.Since(start).Seconds()/1e6, "read-MB/s")
		})
	}
}

// readAll reads the file at path as the fold does, in parts of the same
// size, and drops them.
func readAll(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, partSize)
	for {
		if _, err := io.ReadFull(f, buf); err != nil {
			return
		}
	}
}

// samplePeakHeap records into peak the most heap in use until stop is
// called (sampled every millisecond).
func samplePeakHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if h := heapInUse(); h > *peak {
				*peak = h
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkFoldDevflow folds what a bulk render-ready folds first: devflow
// lines, each a new observation, in one part (8,000 lines, 3.7 MB, as the
// benchtable's 3.9 MB log is one part). The logs of BenchmarkFoldLog are
// mostly lines about observations already folded, which allocate little
// and fold faster per byte.
func BenchmarkFoldDevflow(b *testing.B) {
	data := devflowLog(8_000)
	if len(data) >= partSize {
		b.Fatalf("%d bytes: more than one part", len(data))
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	before := cpuTime()
	for range b.N {
		if l := FoldBytes(data); l.Lines != 8_000 || len(l.Problems) != 0 {
			b.Fatalf("%d lines, %d problems", l.Lines, len(l.Problems))
		}
	}
	// The CPU of every core, the collector's included: what the bulk
	// render's target counts, beside the wall time (ns/op).
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// BenchmarkFastDecode decodes devflow lines in one pass (decoder.fast)
// without folding them: the part of a fold spent reading JSON.
func BenchmarkFastDecode(b *testing.B) {
	lines := bytes.SplitAfter(devflowLog(1000), []byte{'\n'})
	lines = lines[:len(lines)-1]
	var size int64
	for _, l := range lines {
		size += int64(len(l))
	}
	b.SetBytes(size)
	d := decoder{views: true}
	var e Event
	for range b.N {
		for _, l := range lines {
			e.reset()
			if !d.fast(l, &e) {
				b.Fatalf("%s: not decoded", l)
			}
		}
	}
}
