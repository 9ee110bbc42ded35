package migrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/project"
)

const decisions = `<!-- TL;DR: 3 decisions. Key: ADR-001, ADR-002, ADR-003 -->
# Architectural Decisions

## ADR-001: Use Go for the CLI

- **Date**: 2026-01-01
- **Status**: Accepted
- **Context**: written by hand

## ADR-002: Use mkdir-based locks

- **Date**: 2026-03-03
- **Status**: Accepted
- **Decision**: mkdir
- **Source**: ` + "`/implement #99`" + `

## ADR-003: Keep config in JSON

- **Date**: 2026-04-01
- **Status**: Accepted
- **Source**: self-learning:obs_dcf334774def

## ADR-004: Prefer small packages

- **Status**: Accepted
- **Source**: ` + "`/code-review feat/x`" + `
`

const pitfalls = `# Known Pitfalls

## PF-001: Orphaned teams variants silently skipped

- **Area**: src/cli/installer
- **Issue**: skipped
- **Source**: ` + "`/code-review feat/agent-teams`" + `

## PF-003: Someone's own pitfall at a legacy number

- **Area**: db/
- **Issue**: hand-written
`

const patterns = `# DevFlow Patterns

## Testing Patterns

- **Pure function re-export**: re-exported for tests (discovered: 2026-03-01).

- **Idempotence test coverage**: tested twice (discovered: 2026-03-01).
`

const devflowManifest = `{"schemaVersion":1,"entries":[{"observationId":"obs_a1b2c3","type":"workflow","path":"/Users/someone/src/app/.claude/commands/self-learning/release.md","contentHash":"1a2b3c4d","renderedAt":"2026-04-01T00:00:00Z"}]}`

const devflowSettings = `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "/Users/someone/.devflow/scripts/hooks/run-hook stop-update-learning", "timeout": 10}]},
      {"hooks": [{"type": "command", "command": "/Users/someone/.devflow/scripts/hooks/run-hook stop-update-memory", "timeout": 10}]}
    ]
  }
}
`

func devflowRepo(t *testing.T) *project.Project {
	t.Helper()
	dir := t.TempDir()
	for path, body := range map[string]string{
		".git/HEAD":                   "ref: refs/heads/main\n",
		project.DecisionsFile:         decisions,
		project.PitfallsFile:          pitfalls,
		ProjectPatternsFile:           patterns,
		project.ManifestFile:          devflowManifest,
		project.SettingsFile:          devflowSettings,
		".memory/learning-log.jsonl":  "",
		".claude/commands/x/keep.txt": "",
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

func runner(p *project.Project, home string, dry bool) *Runner {
	return &Runner{
		Ctx:        Context{Proj: p, Home: home, Now: now},
		Migrations: All(),
		Writer:     evolve.New(p, now, evolve.Trigger{Command: "init"}),
		DryRun:     dry,
	}
}

func read(t *testing.T, p *project.Project, rel string) string {
	t.Helper()
	b, err := os.ReadFile(p.Path(rel))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func byID(res []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range res {
		m[r.ID] = r
	}
	return m
}

func TestDevflowInstallationIsMigratedWithNothingOfTheUsersLost(t *testing.T) {
	p := devflowRepo(t)
	home := filepath.Join(t.TempDir(), "home")
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(home, "trust.json"), []byte(`{"version":1,"trusted":[]}`), 0o644)

	// A dry run plans everything and writes nothing.
	before := read(t, p, project.DecisionsFile)
	res, err := runner(p, home, true).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Status != Pending {
			t.Errorf("dry run: %s is %s", r.ID, r.Status)
		}
	}
	if read(t, p, project.DecisionsFile) != before || read(t, p, project.MigrationsFile) != "<open "+p.Path(project.MigrationsFile)+": no such file or directory>" {
		t.Fatal("the dry run wrote something")
	}

	res, err = runner(p, home, false).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)
	for _, r := range res {
		if r.Status != Applied {
			t.Fatalf("%s: %s %s", r.ID, r.Status, r.Error)
		}
	}
	dec := read(t, p, project.DecisionsFile)
	for _, want := range []string{"## ADR-001: Use Go for the CLI", "## ADR-003: Keep config in JSON", "<!-- TL;DR: 2 decisions. Key: ADR-001, ADR-003 -->"} {
		if !strings.Contains(dec, want) {
			t.Errorf("decisions.md lacks %q:\n%s", want, dec)
		}
	}
	if strings.Contains(dec, "ADR-002") || strings.Contains(dec, "ADR-004") {
		t.Errorf("devflow's v1 entries are still there:\n%s", dec)
	}
	pf := read(t, p, project.PitfallsFile)
	if strings.Contains(pf, "PF-001") || !strings.Contains(pf, "## PF-003: Someone's own pitfall at a legacy number") {
		t.Errorf("pitfalls.md:\n%s", pf)
	}
	if _, err := os.Stat(p.Path(ProjectPatternsFile)); !os.IsNotExist(err) {
		t.Error("PROJECT-PATTERNS.md was kept")
	}
	if m := read(t, p, project.ManifestFile); !strings.Contains(m, `"path": ".claude/commands/self-learning/release.md"`) || !strings.Contains(m, `"contentHash": "1a2b3c4d"`) {
		t.Errorf("manifest:\n%s", m)
	}
	s := read(t, p, project.SettingsFile)
	if strings.Contains(s, "stop-update-learning") || !strings.Contains(s, "stop-update-memory") {
		t.Errorf("settings:\n%s", s)
	}
	v2 := got["purge-legacy-knowledge-v2"]
	if strings.Join(v2.Kept, "\n") != `PF-003 "Someone's own pitfall at a legacy number" in .memory/knowledge/pitfalls.md: no Source line, so it is yours` {
		t.Errorf("v2 kept: %q", v2.Kept)
	}
	if v2.Audit == "" || len(v2.Did) != 3 {
		t.Errorf("v2: %+v", v2)
	}
	v3 := got["purge-legacy-knowledge-v3"]
	if len(v3.Did) != 1 || !strings.Contains(v3.Did[0], "ADR-004") || len(v3.Kept) != 2 {
		t.Errorf("v3: %+v", v3)
	}
	// Every removal is backed up: the audit entry kept what was replaced.
	w := evolve.New(p, now, evolve.Trigger{})
	entries, _, _ := evolve.ReadLog(p)
	backed := 0
	for _, e := range entries {
		for _, f := range e.Files {
			if f.Before != "" {
				if _, err := os.Stat(w.ObjectPath(f.Before)); err != nil {
					t.Errorf("%s: no backup of %s", e.ID, f.Path)
				}
				backed++
			}
		}
	}
	if backed == 0 {
		t.Error("nothing backed up")
	}
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Errorf("home mode %v", fi.Mode().Perm())
	}
	if m := read(t, p, project.MigrationsFile); !strings.Contains(m, `"purge-legacy-knowledge-v3"`) {
		t.Errorf("migrations.json:\n%s", m)
	}

	// Idempotent: a second run has nothing to do and writes nothing.
	snap := map[string]string{}
	for _, f := range []string{project.DecisionsFile, project.PitfallsFile, project.ManifestFile, project.SettingsFile, project.MigrationsFile, evolve.LogPath} {
		snap[f] = read(t, p, f)
	}
	res, _ = runner(p, home, false).Run(context.Background())
	for _, r := range res {
		if r.Status != Already {
			t.Errorf("second run: %s is %s", r.ID, r.Status)
		}
	}
	for f, body := range snap {
		if read(t, p, f) != body {
			t.Errorf("second run changed %s", f)
		}
	}
}

// Each migration planned again on its own result changes nothing, even
// when its record is lost (a merge that dropped migrations.json).
func TestEveryMigrationIsIdempotent(t *testing.T) {
	p := devflowRepo(t)
	home := t.TempDir()
	if _, err := runner(p, home, false).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, m := range All() {
		o, err := m.Plan(&Context{Proj: p, Home: home, Now: now})
		if err != nil {
			t.Fatalf("%s: %v", m.ID, err)
		}
		if len(o.Changes) > 0 || len(o.Did) > 0 {
			t.Errorf("%s would change things again: %v", m.ID, o.Did)
		}
	}
}

func TestAFailedMigrationIsRetriedNextTime(t *testing.T) {
	p := devflowRepo(t)
	conflicted := strings.Replace(pitfalls, "## PF-003", "<<<<<<< ours\n## PF-002: mine\n=======\n>>>>>>> theirs\n\n## PF-003", 1)
	os.WriteFile(p.Path(project.PitfallsFile), []byte(conflicted), 0o644)
	res, err := runner(p, "", false).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := byID(res)
	if r := got["purge-legacy-knowledge-v2"]; r.Status != Failed || !strings.Contains(r.Error, "pitfalls.md has conflict markers: resolve them first") {
		t.Fatalf("v2: %+v", r)
	}
	if r := got["purge-legacy-knowledge-v3"]; r.Status != Pending || r.Error != "waits for purge-legacy-knowledge-v2" {
		t.Fatalf("v3: %+v", r)
	}
	if got["devflow-manifest-relative"].Status != Applied {
		t.Fatal("the migrations before the failure did not apply")
	}
	if _, ok := got["home-private-v1"]; ok {
		t.Fatal("a machine migration ran without a home")
	}
	st, _ := LoadState(p.Path(project.MigrationsFile))
	if strings.Contains(strings.Join(st.Applied, ","), "purge") {
		t.Fatalf("a failed migration was recorded: %v", st.Applied)
	}
	// The decisions file was not half-purged by the failed migration.
	if !strings.Contains(read(t, p, project.DecisionsFile), "ADR-002") {
		t.Fatal("the failed migration changed decisions.md")
	}

	os.WriteFile(p.Path(project.PitfallsFile), []byte(pitfalls), 0o644)
	res, _ = runner(p, "", false).Run(context.Background())
	got = byID(res)
	if got["purge-legacy-knowledge-v2"].Status != Applied || got["purge-legacy-knowledge-v3"].Status != Applied || got["devflow-manifest-relative"].Status != Already {
		t.Fatalf("retry: %+v", res)
	}
	list, _ := runner(p, "", false).List()
	for _, r := range list {
		if r.Status != Already {
			t.Errorf("list: %s %s", r.ID, r.Status)
		}
	}
}

func TestRecognisers(t *testing.T) {
	if DevflowPatterns([]byte("# Mine\n\n- a rule of my own\n- **x**: y (discovered: 2026-03-01).\n")) {
		t.Error("a file with a hand-written bullet taken for devflow's")
	}
	if DevflowPatterns([]byte("# Empty\n")) {
		t.Error("a file without bullets taken for devflow's")
	}
	if !DevflowPatterns([]byte(patterns)) {
		t.Error("devflow's file not recognised")
	}
}
