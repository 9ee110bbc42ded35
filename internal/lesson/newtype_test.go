package lesson_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/hud"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/render"
)

// A new lesson type is one row of the table: registered here (a real one
// is a row of lesson.go), it is accepted by observe, becomes ready by its
// own thresholds, is rendered into its own knowledge file with an
// existing template, is counted by the status line and served by the
// knowledge index, with no other change anywhere.
func TestANewTypeFlowsFromObserveToRender(t *testing.T) {
	undo := lesson.Register(lesson.Type{
		Name: "convention", Noun: "convention", Nouns: "conventions",
		Threshold: lesson.Threshold{Required: 2, Promote: 0.65},
		Artifact:  lesson.Section, Template: "adr",
		Central:  lesson.File{Path: ".memory/knowledge/conventions.md", Prefix: "CV", Title: "# Conventions", Noun: "convention", Nouns: "conventions", Active: "Accepted"},
		Priority: "MEDIUM", Rank: 3, Entry: "pattern", Group: "P",
		Describe: "a rule of style this project follows", Brief: "a rule of style followed here",
	})
	defer undo()

	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}

	// observe: two sessions report the same convention.
	var log bytes.Buffer
	day := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for i, session := range []string{"s1", "s2"} {
		q := true
		s := observe.Sighting{Type: "convention", Pattern: "Name test helpers after what they check",
			Details: "context: reviews; decision: helpers say what they check; rationale: failures read as sentences", QualityOK: &q}
		if err := s.Clean(nil, nil); err != nil {
			t.Fatalf("observe refuses the new type: %v", err)
		}
		b, _ := json.Marshal(observe.ObserveEvent(s, session, day.AddDate(0, 0, i)))
		log.Write(append(b, '\n'))
	}
	if err := os.WriteFile(p.Path(project.LogFile), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// promote: the type's own rule makes it ready.
	cfg := config.Default()
	now := day.AddDate(0, 0, 3)
	folded, err := observe.LoadFile(p.Path(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	obs := folded.Observations(now, cfg)
	if len(obs) != 1 || obs[0].Status != observe.Ready {
		t.Fatalf("want one ready convention, got %+v", obs)
	}
	if ready := folded.WithStatus(now, cfg, observe.Ready); len(ready) != 1 {
		t.Fatalf("the status facts disagree with the view: %d ready", len(ready))
	}

	// render: a section of its own file, with the ADR template.
	r := &render.Renderer{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, now, evolve.Trigger{Command: "test"}),
		Opts:   render.Options{Now: now, Config: cfg},
	}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rendered) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("rendered %+v, skipped %+v", res.Rendered, res.Skipped)
	}
	data, err := os.ReadFile(p.Path(".memory/knowledge/conventions.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n# Conventions\n") || !strings.Contains(string(data), "## CV-001: Name test helpers after what they check") {
		t.Fatalf("conventions.md:\n%s", data)
	}

	// The status line counts it; the knowledge index serves it.
	c, err := hud.Compute(p, cfg, "", now)
	if err != nil {
		t.Fatal(err)
	}
	if line := hud.Line(c, nil); line != "Learning: 1 convention" {
		t.Errorf("hud line %q", line)
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: p.Root})
	served := false
	for _, it := range set.Items {
		served = served || (it.ID == "CV-001" && it.Type == "convention" && it.Active)
	}
	if !served {
		t.Errorf("CV-001 is not among the items: %+v", set.Items)
	}
}

// The table names the knowledge files by their paths, which project and
// directives name too: the two must agree.
func TestTableNamesTheKnownFiles(t *testing.T) {
	d, _ := lesson.Get(lesson.Decision)
	p, _ := lesson.Get(lesson.Pitfall)
	if d.Central.Path != project.DecisionsFile || p.Central.Path != project.PitfallsFile {
		t.Errorf("central files %q %q, project names %q %q", d.Central.Path, p.Central.Path, project.DecisionsFile, project.PitfallsFile)
	}
	if d.Directive.Path != directives.InvariantsFile || p.Directive.Path != directives.PitfallsFile {
		t.Errorf("directive files %q %q, directives names %q %q", d.Directive.Path, p.Directive.Path, directives.InvariantsFile, directives.PitfallsFile)
	}
	if got := lesson.Anchors(); got != "ADR|PF" {
		t.Errorf("anchors %q", got)
	}
}
