package gitx

import (
	"fmt"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
)

// BenchmarkMergeKnowledge merges a decisions.md of 300 entries (the soft
// cap is far below) where each side added 20, ten of them under numbers
// the other side used too.
func BenchmarkMergeKnowledge(b *testing.B) {
	var base []string
	for i := 1; i <= 300; i++ {
		base = append(base, adr(i, fmt.Sprintf("Decision %d", i), fmt.Sprintf("obs_%012d", i), "2026-04-01"))
	}
	ours, theirs := append([]string(nil), base...), append([]string(nil), base...)
	for i := 0; i < 20; i++ {
		ours = append(ours, adr(301+i, fmt.Sprintf("Ours %d", i), fmt.Sprintf("obs_o%011d", i), "2026-05-02"))
		theirs = append(theirs, adr(301+i+10*(i/10), fmt.Sprintf("Theirs %d", i), fmt.Sprintf("obs_t%011d", i), "2026-05-03"))
	}
	bb, ob, tb := decisions(base...), decisions(ours...), decisions(theirs...)
	b.SetBytes(int64(len(ob) + len(tb)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ren, err := MergeKnowledge(knowfile.Decisions, bb, ob, tb); err != nil || len(ren) != 10 {
			b.Fatal(err, len(ren))
		}
	}
}

// BenchmarkMergeManifest merges a manifest of 1,000 entries with 50 new
// ones on each side.
func BenchmarkMergeManifest(b *testing.B) {
	entry := func(id string, i int) manifest.Entry {
		return manifest.Entry{ObservationID: id, Type: "workflow", Path: fmt.Sprintf(".claude/commands/self-learning/c%d.md", i), ContentHash: fmt.Sprintf("%064d", i), RenderedAt: "2026-04-01T09:00:00Z"}
	}
	var base []manifest.Entry
	for i := 0; i < 1000; i++ {
		base = append(base, entry(fmt.Sprintf("obs_%012d", i), i))
	}
	ours, theirs := append([]manifest.Entry(nil), base...), append([]manifest.Entry(nil), base...)
	for i := 0; i < 50; i++ {
		ours = append(ours, entry(fmt.Sprintf("obs_o%011d", i), 2000+i))
		theirs = append(theirs, entry(fmt.Sprintf("obs_t%011d", i), 3000+i))
	}
	bb, ob, tb := entryJSON(base...), entryJSON(ours...), entryJSON(theirs...)
	b.SetBytes(int64(len(ob) + len(tb)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := MergeManifest(bb, ob, tb); err != nil {
			b.Fatal(err)
		}
	}
}
