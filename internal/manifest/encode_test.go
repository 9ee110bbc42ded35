package manifest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// Bytes writes what json.MarshalIndent writes, byte for byte: the
// manifest is committed, and devflow and older devlearn read and diff it.
// Every optional field present or not, every kind of escape, and the
// empty manifest.
func TestBytesIsMarshalIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	texts := []string{"", "obs_1", "a<b>&c", "quote\"back\\slash", "line\nbreak\t", "é\u2028\xff", ".claude/commands/x.md"}
	pick := func() string { return texts[r.IntN(len(texts))] }
	for i := range 2000 {
		m := &Manifest{}
		for range r.IntN(4) {
			m.Entries = append(m.Entries, Entry{ObservationID: pick(), Type: pick(), Path: pick(), ContentHash: pick(),
				RenderedAt: pick(), AnchorID: pick(), Sources: pick()})
		}
		got := m.Bytes()
		// What Bytes wrote before it wrote by hand.
		out := Manifest{SchemaVersion: SchemaVersion, Entries: m.Entries}
		if out.Entries == nil {
			out.Entries = []Entry{}
		}
		sortEntries(out.Entries)
		want, _ := json.MarshalIndent(out, "", "  ")
		want = append(want, '\n')
		if !bytes.Equal(got, want) {
			t.Fatalf("manifest %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
