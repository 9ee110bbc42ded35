package cleanup

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/devlearn/devlearn/internal/project"
)

func TestArtifactsAreOnlyWhatDevlearnMade(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		".git/devlearn/locks/x.lock":                "",
		".git/devlearn/cache/hud.json":              "{}",
		".git/devlearn/objects/ab/cd":               "x",
		".git/devlearn/objects/pack/ef.pack":        "x",
		".claude/commands/self-learning/made.md":    "---\nsource: self-learning:obs_1\n---\n",
		".claude/commands/self-learning/mine.md":    "---\ndescription: mine\n---\n",
		".claude/skills/made/SKILL.md":              "---\nname: made\nsource: self-learning:obs_2\n---\n",
		".claude/skills/self-learning:old/SKILL.md": "---\nname: old\nsource: self-learning:obs_3\n---\n",
		".claude/skills/mine/SKILL.md":              "---\nname: mine\n---\n",
		project.DecisionsFile:                       "# Architectural Decisions\n\n## ADR-001: Mine\n\n- **Status**: Accepted\n\n## ADR-002: Made\n\n- **Source**: self-learning:obs_4\n",
		project.PitfallsFile:                        "# Known Pitfalls\n\n## PF-001: Made\n\n- **Source**: self-learning:obs_5\n",
		project.EntriesDir + "/learned.md":          "---\nkey: learned\nsummary: learned from a transcript\nsource: transcript\n---\n",
		project.EntriesDir + "/manual.md":           "---\nkey: manual\nsummary: written by a person\nsource: manual\n---\n",
		project.ManifestFile:                        `{"schemaVersion":2,"entries":[]}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	p, _ := project.Find(dir)
	plan, err := Artifacts(p)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(plan.Removed)
	slices.Sort(plan.Kept)
	wantRemoved := []string{".claude/commands/self-learning/made.md", ".claude/skills/made/SKILL.md", ".claude/skills/self-learning:old/SKILL.md", ".memory/.learning-manifest.json", ".memory/knowledge/decisions.md ADR-002", ".memory/knowledge/entries/learned.md", ".memory/knowledge/pitfalls.md PF-001"}
	wantKept := []string{".claude/commands/self-learning/mine.md", ".claude/skills/mine/SKILL.md", ".memory/knowledge/decisions.md ADR-001", ".memory/knowledge/entries/manual.md"}
	if !slices.Equal(plan.Removed, wantRemoved) || !slices.Equal(plan.Kept, wantKept) {
		t.Fatalf("removed %q\nkept %q", plan.Removed, plan.Kept)
	}
	changed := map[string]bool{}
	for _, c := range plan.Changes {
		changed[c.Path] = c.Remove
	}
	if rm, ok := changed[project.PitfallsFile]; !ok || !rm {
		t.Error("pitfalls.md, left with no entry, is not removed")
	}
	if rm, ok := changed[project.DecisionsFile]; !ok || rm {
		t.Error("decisions.md, with the user's ADR-001, must be rewritten, not removed")
	}
	gone, err := ClearState(p)
	if err != nil || !slices.Equal(gone, []string{"cache"}) {
		t.Fatal(gone, err)
	}
	// The copies, loose and packed, make the cleanup revertible.
	for _, keep := range []string{"locks", "objects/ab/cd", "objects/pack/ef.pack"} {
		if _, err := os.Stat(p.StatePath(keep)); err != nil {
			t.Errorf("%s removed", keep)
		}
	}
}
