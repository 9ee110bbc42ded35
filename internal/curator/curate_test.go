package curator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

var now = time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC)

// setup makes a project whose log holds created observations (pattern ->
// type), with their counters.
func setup(t *testing.T, lessons map[string]string, counters map[string]map[string]int) (*project.Project, observe.Store) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	st := observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)}
	var events []*observe.Event
	i := 0
	for pattern, typ := range lessons {
		i++
		id := observe.ID(typ, pattern)
		at := now.Add(-time.Duration(i) * time.Hour)
		q := true
		events = append(events,
			observe.ObserveEvent(observe.Sighting{ID: id, Type: typ, Pattern: pattern, QualityOK: &q}, "s1", at),
			observe.NewEvent(observe.OpCreated, id, at, "render", func(e *observe.Event) { e.Path, e.Seq = "x.md", 1 }))
		for c, n := range counters[pattern] {
			for k := 0; k < n; k++ {
				events = append(events, observe.NewEvent(observe.OpCount, id, at, "sess"+string(rune('a'+k)), func(e *observe.Event) { e.Counter = c }))
			}
		}
	}
	if err := st.Append(context.Background(), events...); err != nil {
		t.Fatal(err)
	}
	return p, st
}

func curate(t *testing.T, p *project.Project, st observe.Store, cfg *config.Config) *Result {
	t.Helper()
	c := &Curator{Proj: p, Log: st, Now: now, Config: cfg, Writer: evolve.New(p, now, evolve.Trigger{Command: "curate"})}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCapKeepsTheMostUseful(t *testing.T) {
	p, st := setup(t, map[string]string{
		"Keep configuration in plain JSON files": "decision",
		"Keep database migrations reversible":    "decision",
		"Name branches after their issue":        "decision",
	}, map[string]map[string]int{
		"Keep database migrations reversible": {"applied": 4, "helpful": 2},
		"Name branches after their issue":     {"applied": 3, "harmful": 2},
	})
	cfg := config.Default()
	cfg.Curator.Files = []string{"AGENTS.md"}
	cfg.Curator.MaxPromptBullets = 1
	curate(t, p, st, cfg)
	data, _ := os.ReadFile(p.Path("AGENTS.md"))
	s := string(data)
	if strings.Count(s, "- **[") != 1 || !strings.Contains(s, "(applied: 4, helpful: 2, stale: 0) Keep database migrations reversible.") {
		t.Fatalf("cap 1 kept:\n%s", s)
	}
	// A person's own bullet counts toward the cap but never gives way.
	s = strings.Replace(s, "### Prompt Insights\n", "### Prompt Insights\n\n- **[P900]** Mine: write tests first.\n", 1)
	os.WriteFile(p.Path("AGENTS.md"), []byte(s), 0o644)
	res := curate(t, p, st, cfg)
	data, _ = os.ReadFile(p.Path("AGENTS.md"))
	if !strings.Contains(string(data), "- **[P900]** Mine: write tests first.") || strings.Contains(string(data), "migrations") {
		t.Fatalf("with a person's bullet:\n%s\n%+v", data, res.Decisions)
	}
}

func TestMarkersOutOfOrderAreRefusedWithTheLine(t *testing.T) {
	p, st := setup(t, map[string]string{"Keep configuration in plain JSON files": "decision"}, nil)
	cfg := config.Default()
	cfg.Curator.Files = []string{"CLAUDE.md"}
	bad := "# Notes\n" + EndMarker + "\n" + BeginMarker + "\n"
	os.WriteFile(p.Path("CLAUDE.md"), []byte(bad), 0o644)
	res := curate(t, p, st, cfg)
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "CLAUDE.md:2:") {
		t.Fatalf("%+v", res.Problems)
	}
	if data, _ := os.ReadFile(p.Path("CLAUDE.md")); string(data) != bad {
		t.Fatal("a file with broken markers was written")
	}
}

func TestPersonTextInsideTheSectionIsKept(t *testing.T) {
	p, st := setup(t, map[string]string{"Keep configuration in plain JSON files": "decision"}, nil)
	cfg := config.Default()
	cfg.Curator.Files = []string{"CLAUDE.md"}
	in := "intro\n\n" + BeginMarker + "\nA note of mine, kept.\n" + EndMarker + "\nafter\n"
	os.WriteFile(p.Path("CLAUDE.md"), []byte(in), 0o644)
	curate(t, p, st, cfg)
	data, _ := os.ReadFile(p.Path("CLAUDE.md"))
	s := string(data)
	if !strings.HasPrefix(s, "intro\n\n"+BeginMarker+"\n") || !strings.HasSuffix(s, EndMarker+"\nafter\n") ||
		!strings.Contains(s, "A note of mine, kept.") || !strings.Contains(s, "[P001]") {
		t.Fatalf("got:\n%s", s)
	}
}
