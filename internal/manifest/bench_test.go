package manifest

import (
	"fmt"
	"testing"

	"github.com/devlearn/devlearn/internal/contenthash"
)

// BenchmarkParse reads a manifest of 1,000 entries, as reconcile does on
// every full check.
func BenchmarkParse(b *testing.B) {
	data := benchManifest().Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := Parse(data, "/r"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBytes writes a manifest of 1,000 entries, as a bulk render does
// once it has written their artifacts.
func BenchmarkBytes(b *testing.B) {
	m := benchManifest()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.Bytes()
	}
}

func benchManifest() *Manifest {
	m := &Manifest{}
	for i := 0; i < 1000; i++ {
		e := Entry{ObservationID: fmt.Sprintf("obs_%08x", i), Type: "workflow", ContentHash: contenthash.Hash([]byte{byte(i)}), RenderedAt: "2026-04-10T00:00:00Z",
			Path: fmt.Sprintf(".claude/commands/self-learning/lesson-number-%d-about-the-build-scripts.md", i)}
		if i%2 == 1 {
			e.Type, e.Path, e.AnchorID = "decision", ".memory/knowledge/decisions.md", fmt.Sprintf("ADR-%03d", i)
		}
		m.Put(e)
	}
	return m
}
