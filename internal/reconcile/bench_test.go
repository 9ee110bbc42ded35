package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/handover"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/stamp"
)

var benchNow = time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC)

// benchProject is a project with n rendered artifacts, a quarter of each
// kind: command files, skill files, ADR sections, PF sections, all in the
// manifest with the right hashes, and their observations created.
func benchProject(b *testing.B, n int) *project.Project { return buildProject(b.TempDir(), n) }

func benchProjectT(t *testing.T, n int) *project.Project { return buildProject(t.TempDir(), n) }

func buildProject(root string, n int) *project.Project {
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, _ := project.Find(root)
	man := &manifest.Manifest{}
	var log bytes.Buffer
	docs := map[string]*knowfile.Doc{
		project.DecisionsFile: knowfile.Parse(knowfile.Decisions, nil),
		project.PitfallsFile:  knowfile.Parse(knowfile.Pitfalls, nil),
	}
	for i := 0; i < n; i++ {
		typ := lesson.Names()[i%4]
		id := fmt.Sprintf("obs_%08x", i)
		e := manifest.Entry{ObservationID: id, Type: typ, RenderedAt: "2026-05-09T09:00:00Z"}
		switch typ {
		case observe.Workflow, observe.Procedural:
			e.Path = fmt.Sprintf("%s/lesson-%d.md", project.CommandsDir, i)
			if typ == observe.Procedural {
				e.Path = fmt.Sprintf("%s/lesson-%d/SKILL.md", project.SkillsDir, i)
			}
			data := []byte(fmt.Sprintf("---\ndescription: Lesson %d\nsource: self-learning:%s\n---\n\n# Lesson %d\n\nRun scripts/x.sh first.\n", i, id, i))
			os.MkdirAll(filepath.Dir(p.Path(e.Path)), 0o755)
			os.WriteFile(p.Path(e.Path), data, 0o644)
			e.ContentHash = contenthash.Hash(data)
		default:
			e.Path = project.DecisionsFile
			if typ == observe.Pitfall {
				e.Path = project.PitfallsFile
			}
			doc := docs[e.Path]
			e.AnchorID = doc.Kind.Anchor(doc.NextNumber())
			s := doc.Append(fmt.Sprintf("## %s: Lesson %d\n\n- **Area**: src/\n- **Status**: Active\n- **Source**: self-learning:%s\n", e.AnchorID, i, id))
			e.ContentHash = s.Hash()
		}
		man.Put(e)
		q, conf := true, 0.95
		line, _ := json.Marshal(observe.Event{ID: id, Type: typ, Pattern: fmt.Sprintf("Lesson %d", i), Details: "area: src/; issue: x",
			Confidence: &conf, Observations: 4, FirstSeen: "2026-04-01T00:00:00Z", LastSeen: "2026-04-09T00:00:00Z",
			Status: "created", ArtifactPath: e.Path, QualityOK: &q})
		log.Write(line)
		log.WriteByte('\n')
	}
	os.MkdirAll(p.Path(".memory/knowledge"), 0o755)
	os.MkdirAll(p.Path("src"), 0o755)
	for path, doc := range docs {
		os.WriteFile(p.Path(path), doc.Bytes(), 0o644)
	}
	os.WriteFile(p.Path(project.ManifestFile), man.Bytes(), 0o644)
	os.WriteFile(p.Path(project.LogFile), log.Bytes(), 0o644)
	return p
}

// BenchmarkReconcile checks every artifact of a project where nothing
// changed: what every session start pays. "full" reads and hashes
// everything (the first run after any change); "handed" is a full run
// right after the render that wrote the files handed them over (it stamps
// them instead); "quiet" is the next run, answered from the stat
// fingerprints.
func BenchmarkReconcile(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		for _, kind := range []string{"full", "handed", "quiet"} {
			b.Run(fmt.Sprintf("entries=%d/%s", n, kind), func(b *testing.B) { benchReconcile(b, n, kind) })
		}
	}
}

func benchReconcile(b *testing.B, n int, kind string) {
	full := kind != "quiet"
	p := benchProject(b, n)
	old := time.Now().Add(-time.Hour)
	filepath.Walk(p.Root, func(path string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(path, old, old)
		}
		return nil
	})
	if kind == "handed" {
		m, _, _ := manifest.LoadProject(p)
		written := map[string]handover.Written{}
		for _, e := range m.Entries {
			if e.AnchorID == "" {
				written[e.Path] = handover.Written{Hash: e.ContentHash, Stamp: stamp.Of(p.Path(e.Path))}
			}
		}
		handover.Write(p, written)
		if handover.Load(p) == nil {
			b.Fatal("nothing handed over")
		}
	}
	r := &Reconciler{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, benchNow, evolve.Trigger{Command: "bench"}),
		Opts:   Options{Now: benchNow, Config: config.Default(), Full: full},
	}
	if _, err := r.Run(context.Background()); err != nil { // the full run a quiet one follows
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := r.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if res.Unchanged != n || res.Deletions+res.Edits+res.Healed+res.Stale != 0 {
			b.Fatalf("%+v", res)
		}
	}
}
