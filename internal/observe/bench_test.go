package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

// devflowLog is n observations in devflow's format: one snapshot per line.
func devflowLog(n int) []byte {
	var buf bytes.Buffer
	types := Types
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
		s := Sighting{Type: Types[i%4], Pattern: fmt.Sprintf("Lesson number %d about the build scripts and their hooks", i), QualityOK: &q,
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
