package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// devflowLog is n observations in devflow's format, one in every ready (by
// devflow's thresholds), one in ten already created, the rest observing.
func devflowLog(n, every int) []byte {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		typ := lesson.Names()[i%4]
		status, count := "observing", 1
		if i%every == 0 {
			status, count = "ready", 4
		} else if i%10 == 1 {
			status, count = "created", 4
		}
		conf := observe.BaseConfidence(count, 4)
		q := true
		e := observe.Event{ID: fmt.Sprintf("obs_%08x", i), Type: typ, Pattern: lessonText(i),
			Confidence: &conf, Observations: count, FirstSeen: "2026-04-01T00:00:00Z", LastSeen: "2026-04-09T00:00:00Z", Status: status,
			Evidence: observe.Evidences{{Text: "user: you forgot the hook again"}},
			Details:  fmt.Sprintf("area: scripts/hooks/%d; issue: issue %d; impact: untestable; resolution: one job per script", i, i), QualityOK: &q}
		if status == "created" {
			e.ArtifactPath = fmt.Sprintf(".claude/commands/self-learning/lesson-%d.md", i)
		}
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// newRenderer makes dir a fresh git repository whose observation log is
// log (and whose knowledge files the caller may add before Run), and
// returns its renderer at now under cfg.
func newRenderer(tb testing.TB, dir string, log []byte, now time.Time, cfg *config.Config) *Renderer {
	tb.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		tb.Fatalf("%v %s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".memory"), 0o755)
	os.WriteFile(filepath.Join(dir, ".memory", "learning-log.jsonl"), log, 0o644)
	p, err := project.Find(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return &Renderer{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, now, evolve.Trigger{Command: "test"}),
		Opts:   Options{Now: now, Config: cfg},
	}
}

// BenchmarkRenderReady renders the ready tenth of a devflow-format log into
// a fresh repository each time: fold, plan, intent events, every artifact
// through the audited writer, manifest, created events. The soft cap is
// lifted so that every ready observation is really written.
func BenchmarkRenderReady(b *testing.B) {
	cfg := config.Default()
	cfg.Knowledge.SoftCap = 1 << 30
	for _, n := range []int{10_000, 100_000} {
		log := devflowLog(n, 10)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			base := b.TempDir()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := filepath.Join(base, fmt.Sprint(i))
				r := newRenderer(b, dir, log, goldenNow, cfg)
				b.StartTimer()
				res, err := r.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Rendered) != n/10 {
					b.Fatalf("rendered %d, want %d", len(res.Rendered), n/10)
				}
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/obs")
		})
	}
}

// BenchmarkRenderReadySessionEnd is render-ready as the worker runs it at
// the end of a session: a 10,000-observation devflow-format log of which
// five are newly ready. Most of the log is read to learn that nothing
// else changed.
func BenchmarkRenderReadySessionEnd(b *testing.B) {
	cfg := config.Default()
	log := devflowLog(10_000, 2000)
	base := b.TempDir()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := newRenderer(b, filepath.Join(base, fmt.Sprint(i)), log, goldenNow, cfg)
		b.StartTimer()
		res, err := r.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Rendered) != 5 {
			b.Fatalf("rendered %d, want 5", len(res.Rendered))
		}
	}
}

// lessonText is the i-th synthetic lesson: three words of its own, so that
// no two are near-duplicates (render merges a decision into one in force
// that says the same thing, and lessons differing only by a number do).
func lessonText(i int) string {
	return "Lesson " + word(i) + " about the " + word(i*7919+13) + " and " + word(i*104729+7) + " build scripts"
}

// word spells n in letters: numbers are not words to the similarity test.
func word(n int) string {
	b := []byte{}
	for {
		b = append(b, byte('a'+n%26))
		n /= 26
		if n == 0 {
			return "q" + string(b)
		}
	}
}
