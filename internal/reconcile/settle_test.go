package reconcile

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
)

// A batch's last renames are synced only by the next batch, so a crash of
// the system can lose them: the artifact keeps its old bytes while the
// manifest names the new ones. Reconcile settles such a batch before it
// judges, or it would take devlearn's own lost write for a person's edit.
func TestReconcileSettlesABatchACrashLeft(t *testing.T) {
	p := benchProjectT(t, 8)
	rel := project.CommandsDir + "/lesson-0.md"
	old, err := os.ReadFile(p.Path(rel))
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := manifest.LoadProject(p)
	if err != nil {
		t.Fatal(err)
	}
	data := append(append([]byte{}, old...), "\nRun it twice.\n"...)
	e := m.Get("obs_00000000")
	if e == nil || e.Path != rel {
		t.Fatalf("no manifest entry for %s", rel)
	}
	e.ContentHash = contenthash.Hash(data)
	w := evolve.New(p, benchNow, evolve.Trigger{Command: "render"})
	if _, err := w.Apply(context.Background(), evolve.Reason{Text: "render"},
		evolve.Change{Path: rel, Data: data}, evolve.Change{Path: project.ManifestFile, Data: m.Bytes()}); err != nil {
		t.Fatal(err)
	}
	// What a crash of the system may leave: the done marker from the boot
	// before, the artifact's rename lost (its temporary file there, the
	// old bytes in place), the manifest's rename kept.
	donePath := p.StatePath("pending", p.WorktreeID()+".done.json")
	raw, err := os.ReadFile(donePath)
	if err != nil {
		t.Fatal(err)
	}
	var marker map[string]any
	if err := json.Unmarshal(raw, &marker); err != nil {
		t.Fatal(err)
	}
	temps := marker["temps"].([]any)
	marker["boot"] = "a boot before this one"
	raw, _ = json.Marshal(marker)
	os.WriteFile(donePath, raw, 0o644)
	if err := os.Rename(p.Path(rel), p.Path(temps[0].(string))); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p.Path(rel), old, 0o644)

	res := fullRun(t, p)
	if res.Edits != 0 || res.Deletions != 0 {
		t.Fatalf("a lost rename was judged as a person's doing: %+v", res.Details)
	}
	if got, _ := os.ReadFile(p.Path(rel)); string(got) != string(data) {
		t.Fatalf("%s was not rolled forward: %q", rel, got)
	}
}
