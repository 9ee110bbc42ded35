package knowfile

import (
	"testing"

	"github.com/devlearn/devlearn/internal/manifest"
)

const shared = `# Pitfalls

## PF-002: Releasing without a changelog entry

- **Area**: release
- **Issue**: the changelog entry is missing
- **Source**: self-learning:obs_aaaaaaaaaaaa

## PF-003: Written by hand

- **Area**: docs
- **Issue**: stale links
`

// An entry sharing another lesson's section (a duplicate pitfall the
// render adopted) names that section, follows it when a merge renumbers
// it, and loses it only with the section.
func TestSectionOfSharedPitfall(t *testing.T) {
	d := Parse(Pitfalls, []byte(shared))
	m := &manifest.Manifest{Entries: []manifest.Entry{
		{ObservationID: "obs_aaaaaaaaaaaa", Path: "p.md", AnchorID: "PF-001"},
		{ObservationID: "obs_bbbbbbbbbbbb", Path: "p.md", AnchorID: "PF-001"},
		{ObservationID: "obs_cccccccccccc", Path: "p.md", AnchorID: "PF-003"},
	}}
	moved := SettleAnchors(m, map[string]*Doc{"p.md": d})
	if len(moved) != 2 || m.Entries[0].AnchorID != "PF-002" || m.Entries[1].AnchorID != "PF-002" {
		t.Fatalf("the shared entry did not follow its section: %+v %+v", moved, m.Entries)
	}
	if s := SectionOf(d, m.Entries, m.Entries[1]); s == nil || s.Anchor != "PF-002" {
		t.Fatalf("shared entry: %+v", s)
	}
	if s := SectionOf(d, m.Entries, m.Entries[2]); s == nil || s.Anchor != "PF-003" {
		t.Fatalf("an entry adopted into a person's section: %+v", s)
	}
	// PF-002 carries a lesson no entry at that place has: not obs_ddd's.
	other := manifest.Entry{ObservationID: "obs_dddddddddddd", Path: "p.md", AnchorID: "PF-002"}
	if s := SectionOf(d, nil, other); s != nil {
		t.Fatalf("a section carrying a lesson no entry at its place shares: %+v", s)
	}
	if s := SectionOf(Parse(Pitfalls, []byte("# Pitfalls\n")), m.Entries, m.Entries[1]); s != nil {
		t.Fatalf("the section is gone: %+v", s)
	}
}
