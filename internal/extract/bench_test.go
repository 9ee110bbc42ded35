package extract

import (
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// BenchmarkSession is the extractors alone (the transcripts read once,
// before): every per-session extractor on the 21 real transcripts of
// testdata/transcripts, then the cross-session one over all of them.
func BenchmarkSession(b *testing.B) {
	files, err := filepath.Glob("../../testdata/transcripts/*/*.jsonl")
	if err != nil || len(files) == 0 {
		b.Fatal(err)
	}
	var chs []*transcript.Channels
	for _, f := range files {
		ch, err := transcript.ReadFiles([]string{f}, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		chs = append(chs, ch)
	}
	b.ReportAllocs()
	for b.Loop() {
		var results []Result
		for _, ch := range chs {
			results = append(results, Session(ch, Options{}))
		}
		Across(results, Options{})
	}
}
