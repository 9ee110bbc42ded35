package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
)

// BenchmarkIngest is the worker's work on a batch: the 21 real transcripts
// of testdata/transcripts (4 MB), read, extracted, matched against the
// history and the log, nothing stored (a dry run, so every iteration does
// the same work).
func BenchmarkIngest(b *testing.B) {
	p := newProject(b)
	var sources []Source
	for _, f := range testTranscripts(b) {
		sources = append(sources, Source{Files: []string{f}})
	}
	pl := pipeline(p, now)
	pl.DryRun = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := pl.Run(context.Background(), sources); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIngestHistory is a run over a full history: 300 earlier
// sessions whose repeated requests the log already holds, and one new
// session.
func BenchmarkIngestHistory(b *testing.B) {
	p := newProject(b)
	dir := b.TempDir()
	var files []string
	for i := 0; i < HistoryMaxSessions; i++ {
		at := now.Add(-time.Duration(HistoryMaxSessions-i) * time.Hour)
		files = append(files, requestSession(fmt.Sprintf("5e55f00d-0000-4000-8000-%012d", i), p.Root, at).write(b, dir))
	}
	var sources []Source
	for _, f := range files {
		sources = append(sources, Source{Files: []string{f}})
	}
	if _, err := pipeline(p, now).Run(context.Background(), sources); err != nil {
		b.Fatal(err)
	}
	one := []Source{{Files: []string{requestSession("5e55f00d-0000-4000-8000-999999999999", p.Root, now.Add(-time.Minute)).write(b, dir)}}}
	pl := pipeline(p, now)
	pl.DryRun = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := pl.Run(context.Background(), one); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSaidAgain is the join of a session's turns no rule kept to the
// lessons the log holds in the person's words: 300 turns against 2,000
// lessons, every one scanned for each turn (lessonIndex.said). The worker
// pays it once per session, after the rules.
func BenchmarkSaidAgain(b *testing.B) {
	var lessons []observe.Observation
	for i := 0; i < 2000; i++ {
		lessons = append(lessons, observe.Observation{
			ID: fmt.Sprintf("obs_%012d", i), Type: "procedural", QualityOK: true,
			Pattern:  fmt.Sprintf("Keep the module number %d of the billing service free of side effects and log every retry.", i),
			Evidence: []string{extract.PersonQuote + "keep it free of side effects"},
		})
	}
	said := saidLessons(lessons)
	var turns []string
	for i := 0; i < 300; i++ {
		turns = append(turns, fmt.Sprintf("now look at the report number %d and tell me which retries of the billing job failed", i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range turns {
			said.said(t)
		}
	}
}
