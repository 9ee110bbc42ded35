package lessons

import (
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
)

func entry(key, summary, status, path, obs string) *knowledge.Item {
	return &knowledge.Item{ID: key, Active: status == knowledge.StatusActive || status == knowledge.StatusDraft,
		Detail: &knowledge.Detail{Type: knowledge.TypeEntry, Kind: "note", Scope: knowledge.ScopeProject, Title: summary, Status: status, Path: path, Observation: obs}}
}

// One lesson in two stores is listed once, in force when either part is;
// the learned draft of an observation is no lesson of its own; a lesson
// about something else is not joined.
func TestJoin(t *testing.T) {
	obs := []observe.Observation{
		{ID: "obs_000000000001", Type: observe.Decision, Pattern: "Not npm: this repo uses pnpm. Use pnpm, never npm.", Status: observe.Observing, Count: 1, QualityOK: true},
		{ID: "obs_000000000002", Type: observe.Pitfall, Pattern: "Bumping the version without a changelog entry", Status: observe.Created, Artifact: ".memory/knowledge/pitfalls.md", Anchor: "PF-001"},
		{ID: "obs_000000000003", Type: observe.Workflow, Pattern: "Run the API tests before changing routes", Status: observe.Deprecated, DeprecatedReason: "deleted"},
	}
	items := []*knowledge.Item{
		entry("use-pnpm", "Use pnpm, never npm.", knowledge.StatusActive, ".memory/knowledge/entries/use-pnpm.md", ""),
		entry("obs-000000000001", "Not npm: this repo uses pnpm.", knowledge.StatusDraft, ".memory/.local/observed/obs-000000000001.md", "obs_000000000001"),
		entry("ship-small", "Ship small pull requests", knowledge.StatusArchived, ".memory/knowledge/entries/ship-small.md", ""),
	}
	list := Join(obs, items, func(*knowledge.Item) string { return "prompt" })
	want := map[string][2]string{
		"use-pnpm":         {InForce, "the person asked to keep it"},
		"obs_000000000002": {InForce, "rendered as PF-001 in .memory/knowledge/pitfalls.md"},
		"obs_000000000003": {Retired, `its artifact was deleted: a "no" that sticks`},
		"ship-small":       {Retired, "archived"},
	}
	if len(list) != len(want) {
		for _, l := range list {
			t.Logf("%s %s %s", l.ID, l.Status, l.Why)
		}
		t.Fatalf("%d lessons, want %d", len(list), len(want))
	}
	for _, l := range list {
		w, ok := want[l.ID]
		if !ok || l.Status != w[0] || l.Why != w[1] {
			t.Errorf("%s: %s (%s), want %v", l.ID, l.Status, l.Why, w)
		}
	}
	for _, id := range []string{"obs_000000000001", "obs-000000000001", "entry:use-pnpm", "use-pnpm"} {
		if l, err := Find(list, id); err != nil || l.ID != "use-pnpm" {
			t.Errorf("Find(%q): %v %v", id, l, err)
		}
	}
	if l, err := Find(list, "pf-001"); err != nil || l.ID != "obs_000000000002" {
		t.Errorf("Find(pf-001): %v %v", l, err)
	}
	if rest := WithoutEntries(obs, items); len(rest) != 2 || rest[0].ID != "obs_000000000002" {
		t.Errorf("WithoutEntries: %v", rest)
	}
	if list[0].Status != InForce || list[len(list)-1].Status != Retired {
		t.Errorf("not in force first, retired last: %s … %s", list[0].Status, list[len(list)-1].Status)
	}
}
