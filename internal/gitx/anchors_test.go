package gitx

import (
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
)

func TestSettleAnchors(t *testing.T) {
	dec := ".memory/knowledge/decisions.md"
	b2, c2 := adr(2, "B", "obs_b", "2026-05-02"), adr(2, "C", "obs_c", "2026-05-02")
	m := &manifest.Manifest{Entries: []manifest.Entry{
		{ObservationID: "obs_b", Path: dec, AnchorID: "ADR-002", ContentHash: knowfile.HashText(b2)},
		{ObservationID: "obs_c", Path: dec, AnchorID: "ADR-002", ContentHash: knowfile.HashText(c2)},
		{ObservationID: "obs_gone", Path: dec, AnchorID: "ADR-009", ContentHash: "x"},
		{ObservationID: "obs_w", Path: ".claude/commands/self-learning/w.md", ContentHash: "y"},
	}}
	// C was renumbered by a merge and then edited by a person.
	edited := strings.Replace(withAnchor(c2, "ADR-003"), "Accepted", "Superseded", 1)
	docs := map[string]*knowfile.Doc{dec: knowfile.Parse(knowfile.Decisions, decisions(b2, edited))}
	got := SettleAnchors(m, docs)
	want := []Reanchored{{ObservationID: "obs_c", Path: dec, From: "ADR-002", To: "ADR-003"}}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v", got)
	}
	if e := m.Get("obs_c"); e.AnchorID != "ADR-003" || e.ContentHash != knowfile.HashText(c2) {
		t.Fatalf("an edit must stay visible to reconcile: %+v", e)
	}
	if e := m.Get("obs_gone"); e.AnchorID != "ADR-009" {
		t.Fatal("a deleted section is reconcile's business")
	}
	if again := SettleAnchors(m, docs); len(again) != 0 {
		t.Fatalf("not idempotent: %+v", again)
	}
}
