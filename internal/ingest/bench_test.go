package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"
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
