package scrub

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
)

// A pitfall rendered into an area's .directives/PITFALLS.md and a
// session's state in .memory/.local/ are scrubbed like the central files
// and the per-clone state; the manifest's hash follows the scrubbed
// section, so reconcile does not take the scrub for a person's edit.
func TestScrubsDirectivesAndLocalState(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	const rel = "pkg/.directives/PITFALLS.md"
	kind, _ := directives.LearnedKind(rel)
	sec := knowfile.Parse(kind, []byte(pf)).BySource("obs_bbbbbbbbbbbb")
	man := &manifest.Manifest{SchemaVersion: manifest.SchemaVersion}
	man.Put(manifest.Entry{ObservationID: "obs_bbbbbbbbbbbb", Type: "pitfall", Path: rel, AnchorID: "PF-001", ContentHash: sec.Hash(), RenderedAt: "2026-05-01T00:00:00Z"})
	for name, body := range map[string]string{
		rel:                  pf,
		project.ManifestFile: string(man.Bytes()),
		directives.SessionsDir + "/s1/directives.jsonl": `{"op":"touched","dir":"` + secret + `"}` + "\n",
	} {
		path := p.Path(name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := evolve.New(p, now, evolve.Trigger{Command: "redact"})
	if _, err := Run(context.Background(), Options{Proj: p, Match: literal(t, secret), Writer: w}); err != nil {
		t.Fatal(err)
	}
	if h := holders(t, p.Root); len(h) != 0 {
		t.Fatalf("still holding the secret: %v", h)
	}
	data, _ := os.ReadFile(p.Path(project.ManifestFile))
	m, _, _ := manifest.Parse(data, root)
	after, _ := os.ReadFile(p.Path(rel))
	if got := m.Get("obs_bbbbbbbbbbbb").ContentHash; got != knowfile.Parse(kind, after).BySource("obs_bbbbbbbbbbbb").Hash() {
		t.Fatalf("manifest hash not brought up to date: %s", got)
	}
}
