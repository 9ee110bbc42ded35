package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
	"github.com/devlearn/devlearn/internal/project"
)

func TestSetStatus(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"## PF-001: x\n\n- **Area**: a\n- **Status**: Active\n- **Source**: self-learning:obs_1\n", "## PF-001: x\n\n- **Area**: a\n- **Status**: Deprecated\n- **Source**: self-learning:obs_1\n"},
		{"## ADR-001: x\n\n- **Date**: d\n- **Source**: s\n", "## ADR-001: x\n\n- **Date**: d\n- **Source**: s\n- **Status**: Deprecated\n"},
		{"## ADR-001: x\n\nfree text\n", "## ADR-001: x\n\nfree text\n\n- **Status**: Deprecated\n"},
	} {
		if got := setStatus(tc.in, "Deprecated"); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

func repo(t *testing.T, files map[string]string) *Reviewer {
	t.Helper()
	dir := t.TempDir()
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &Reviewer{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, now, evolve.Trigger{Command: "test"}),
		Now:    now,
		Config: config.Default(),
	}
}

const section = "## PF-001: Hooks grow\n\n- **Area**: scripts/\n- **Status**: Active\n- **Source**: self-learning:obs_aaaaaaaaaaaa\n"

func TestDecisionsOnAKnowledgeSection(t *testing.T) {
	sec := knowfile.Parse(knowfile.Pitfalls, []byte("# Known Pitfalls\n\n"+section)).Sections[0]
	m := &manifest.Manifest{}
	m.Put(manifest.Entry{ObservationID: "obs_aaaaaaaaaaaa", Type: "pitfall", Path: project.PitfallsFile, AnchorID: "PF-001", ContentHash: sec.Hash()})
	r := repo(t, map[string]string{
		project.LogFile: `{"op":"observe","eid":"a","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_aaaaaaaaaaaa","type":"pitfall","pattern":"Hooks grow","quality_ok":true}
{"op":"observe","eid":"b","at":"2026-05-05T09:00:00Z","src":"s2","id":"obs_aaaaaaaaaaaa","type":"pitfall","pattern":"Hooks grow"}
{"op":"created","eid":"c","at":"2026-05-06T09:00:00Z","src":"render","id":"obs_aaaaaaaaaaaa","seq":1,"path":".memory/knowledge/pitfalls.md","anchor":"PF-001"}
{"op":"flag","eid":"d","at":"2026-05-07T09:00:00Z","src":"reconcile","id":"obs_aaaaaaaaaaaa","seq":2,"flag":"stale","reason":"scripts/ no longer exists"}
`,
		project.PitfallsFile: "# Known Pitfalls\n\n" + section,
		project.ManifestFile: string(m.Bytes()),
	})
	ctx := context.Background()
	items, _, err := r.Items()
	if err != nil || len(items) != 1 || items[0].Reasons[0] != "stale: scripts/ no longer exists" {
		t.Fatalf("%+v %v", items, err)
	}
	o, err := r.Decide(ctx, "deprecate", "obs_aaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(o.Events, ",") != "deprecate,flag review off" || len(o.Files) != 2 {
		t.Fatalf("%+v", o)
	}
	data, _ := os.ReadFile(r.Proj.Path(project.PitfallsFile))
	doc := knowfile.Parse(knowfile.Pitfalls, data)
	man, _, _ := manifest.Load(r.Proj.Path(project.ManifestFile), r.Proj.Root)
	if doc.Sections[0].Status() != "Deprecated" || man.Get("obs_aaaaaaaaaaaa").ContentHash != doc.Sections[0].Hash() {
		t.Fatalf("section or manifest not updated:\n%s", data)
	}
	log, _ := r.Log.Load()
	if ob, _ := log.Observation("obs_aaaaaaaaaaaa", now, r.Config); ob.Status != observe.Deprecated || ob.DeprecatedReason != "review" {
		t.Fatalf("%+v", ob)
	}
	if _, err := r.Decide(ctx, "deprecate", "obs_aaaaaaaaaaaa"); err == nil {
		t.Fatal("deprecated twice")
	}
	if _, err := r.Decide(ctx, "restore", "obs_aaaaaaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(r.Proj.Path(project.PitfallsFile))
	if knowfile.Parse(knowfile.Pitfalls, data).Sections[0].Status() != "Active" {
		t.Fatalf("not restored:\n%s", data)
	}
	if _, err := r.Decide(ctx, "keep", "obs_nothere"); err == nil || !strings.Contains(err.Error(), "not an observation") {
		t.Fatal(err)
	}
}

func TestDeprecatingACommandRemovesItsFile(t *testing.T) {
	cmd := "---\ndescription: x\nsource: self-learning:obs_bbbbbbbbbbbb\n---\n# x\n"
	m := &manifest.Manifest{}
	m.Put(manifest.Entry{ObservationID: "obs_bbbbbbbbbbbb", Type: "workflow", Path: ".claude/commands/self-learning/x.md", ContentHash: contenthash.Hash([]byte(cmd))})
	r := repo(t, map[string]string{
		project.LogFile: `{"op":"observe","eid":"a","at":"2026-05-04T09:00:00Z","src":"s1","id":"obs_bbbbbbbbbbbb","type":"workflow","pattern":"X"}
{"op":"created","eid":"c","at":"2026-05-06T09:00:00Z","src":"render","id":"obs_bbbbbbbbbbbb","seq":1,"path":".claude/commands/self-learning/x.md"}
`,
		".claude/commands/self-learning/x.md": cmd,
		project.ManifestFile:                  string(m.Bytes()),
	})
	o, err := r.Decide(context.Background(), "deprecate", "obs_bbbbbbbbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Proj.Path(".claude/commands/self-learning/x.md")); !os.IsNotExist(err) {
		t.Fatal("the command is still there")
	}
	man, _, _ := manifest.Load(r.Proj.Path(project.ManifestFile), r.Proj.Root)
	if man.Get("obs_bbbbbbbbbbbb") != nil || !strings.Contains(o.Note, "a copy is kept") {
		t.Fatalf("%+v", o)
	}
}

// A lesson turned down before it was ready is no longer served as a
// draft: its file in the observed folder goes with the decision.
func TestDeprecatingALearnedLessonDropsItsDraft(t *testing.T) {
	const id = "obs_cccccccccccc"
	r := repo(t, map[string]string{
		project.LogFile: `{"op":"observe","eid":"a","at":"2026-05-04T09:00:00Z","src":"s1","id":"` + id + `","type":"pitfall","pattern":"Never edit vendor/ by hand.","quality_ok":true}
`,
	})
	log, err := r.Log.Load()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := observed.Sync(r.Proj.Root, log.Observations(now, r.Config)); err != nil || n != 1 {
		t.Fatalf("Sync: %d files, %v", n, err)
	}
	draft := r.Proj.Path(project.ObservedDir + "/" + observed.Key(id) + ".md")
	if _, err := os.Stat(draft); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decide(context.Background(), "deprecate", id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(draft); !os.IsNotExist(err) {
		t.Fatalf("the draft of a deprecated lesson is still there: %v", err)
	}
}
