package knowfile

import (
	"slices"
	"testing"
)

// Every lesson merged into a section finds it by its id, as its first
// lesson does; an Also line that is not devlearn's names none.
func TestSourcesOfAMergedSection(t *testing.T) {
	d := Parse(Decisions, []byte("# Architectural Decisions\n\n## ADR-001: Use pnpm\n\n- **Status**: Accepted\n- **Source**: self-learning:obs_aaaaaaaaaaaa\n- **Also**: self-learning:obs_bbbbbbbbbbbb (2026-05-12): Install with pnpm\n- **Also**: see the wiki\n"))
	s := d.Sections[0]
	if got := s.Sources(); !slices.Equal(got, []string{"obs_aaaaaaaaaaaa", "obs_bbbbbbbbbbbb"}) {
		t.Fatalf("sources %v", got)
	}
	if d.BySource("obs_bbbbbbbbbbbb") != s || s.Source() != "obs_aaaaaaaaaaaa" {
		t.Fatal("a merged lesson does not find its section")
	}
	d.AddLine(s, "- **Also**: self-learning:obs_cccccccccccc (2026-05-13): pnpm only")
	if d.BySource("obs_cccccccccccc") != s || d.Sections[0] != s || s.Anchor != "ADR-001" {
		t.Fatalf("after AddLine: %+v", s)
	}
}
