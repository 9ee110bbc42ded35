package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agentver"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
)

// fresh is a git repository devlearn was never set up in, with a home
// of its own.
func fresh(t *testing.T) *project.Project {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, ".gitconfig-global"))
	if _, err := register.ExecGit(root, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func agents(t *testing.T, names ...string) []*agent.Agent {
	t.Helper()
	var out []*agent.Agent
	for _, n := range names {
		a, ok := agent.Lookup(n)
		if !ok {
			t.Fatal(n)
		}
		out = append(out, a)
	}
	return out
}

func stepsOf(plan *Init) string {
	var b strings.Builder
	for _, s := range plan.Steps {
		b.WriteString(s.Action + " " + s.Path + "\n")
	}
	return b.String()
}

// TestPlanInit: a fresh repository with two agents asked for gets every
// file created and the driver registered; planning writes nothing, not
// even in git's config; applying writes it all, and a second plan (no
// agent asked for: those installed are kept current) finds nothing to do.
func TestPlanInit(t *testing.T) {
	p := fresh(t)
	home := filepath.Join(p.Root, ".devlearn-home")
	read := map[string]int{}
	opts := InitOptions{
		Agents:    agents(t, "codex", "cursor"),
		Home:      home,
		CodexHome: filepath.Join(p.Root, ".codex-home"),
		Version: func(a string) agentver.Found {
			read[a]++
			return agentver.Found{Version: agentver.MustParse("99.0.0"), From: a + " --version"}
		},
	}
	before := files(t, p.Root)
	plan, err := PlanInit(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if after := files(t, p.Root); len(after) != len(before) {
		t.Fatalf("planning wrote files: %d before, %d after", len(before), len(after))
	} else {
		for path, data := range before {
			if after[path] != data {
				t.Fatalf("planning changed %s", path)
			}
		}
	}
	want := `created .memory/learning.json
created .memory/learning.schema.json
created .gitattributes
created .memory/.gitignore
created .claude/settings.json
created .mcp.json
created .codex/hooks.json
created .codex/config.toml
created .cursor/hooks.json
created .cursor/mcp.json
updated git config merge.devlearn
`
	if got := stepsOf(plan); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if len(plan.Problems) != 0 {
		t.Errorf("problems: %q", plan.Problems)
	}
	if !plan.CreatesConfig() {
		t.Error("a fresh repository's plan does not create the config")
	}
	if len(plan.Trust) != 2 || !strings.Contains(plan.Trust[0], "Codex CLI") || !strings.Contains(plan.Trust[1], "Cursor") {
		t.Errorf("what needs trust: %q", plan.Trust)
	}
	var names []string
	for _, v := range plan.Versions {
		names = append(names, v.Agent)
		if v.Level != agentver.Fine || !strings.HasPrefix(v.Detail, "99.0.0 (") {
			t.Errorf("%s: %v %q", v.Agent, v.Level, v.Detail)
		}
	}
	if strings.Join(names, " ") != "claude codex cursor" {
		t.Errorf("versions for %q", names)
	}
	for a, n := range read {
		if n != 1 {
			t.Errorf("%s's version read %d times", a, n)
		}
	}

	if err := plan.Apply(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	if plan.Audit == "" || len(plan.Wrote) < 10 || len(plan.Problems) != 0 {
		t.Fatalf("applied: audit %q, wrote %q, problems %q", plan.Audit, plan.Wrote, plan.Problems)
	}
	for _, s := range plan.Steps[:10] {
		if _, err := os.Stat(p.Path(s.Path)); err != nil {
			t.Errorf("%s not written: %v", s.Path, err)
		}
	}
	cur, err := register.Settings(register.ExecGit, p.Root)
	if err != nil || !register.Registered(cur) {
		t.Errorf("merge driver not registered: %v", err)
	}
	if got := agentver.Cached(p.StateDir(), "codex"); got.String() != "99.0.0" {
		t.Errorf("codex's version not recorded for the hooks: %q", got)
	}

	opts.Agents = nil
	again, err := PlanInit(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range again.Steps {
		if s.Action != "unchanged" {
			t.Errorf("second plan: %s %s (%s)", s.Action, s.Path, s.Note)
		}
	}
	if len(again.changes) != 0 || len(again.Steps) != len(plan.Steps) {
		t.Errorf("second plan: %d changes, %d steps (first %d)", len(again.changes), len(again.Steps), len(plan.Steps))
	}
}

// TestPlanInitKeepsTheirs: a file the person changed is kept, a config of
// theirs is never touched, and the curator's answer goes only into a
// config init creates.
func TestPlanInitKeepsTheirs(t *testing.T) {
	p := fresh(t)
	mkdir(t, p.Path(".memory"))
	write(t, p.Path(project.ConfigFile), `{"enabled": true}`+"\n")
	write(t, p.Path(project.SchemaFile), "{}\n")
	plan, err := PlanInit(p, InitOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepsOf(plan); !strings.HasPrefix(got, "kept .memory/learning.json\nkept .memory/learning.schema.json\n") {
		t.Errorf("steps:\n%s", got)
	}
	if plan.CreatesConfig() {
		t.Error("plans to create a config that is there")
	}
	if err := plan.ChooseCurator([]string{"AGENTS.md"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := plan.changes.Pending(project.ConfigFile); ok {
		t.Error("the curator's answer rewrote the person's config")
	}

	q := fresh(t)
	plan, err = PlanInit(q, InitOptions{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.ChooseCurator([]string{"AGENTS.md"}); err != nil {
		t.Fatal(err)
	}
	data, _ := plan.changes.Pending(project.ConfigFile)
	if !strings.Contains(string(data), `"files": [`) || !strings.HasSuffix(plan.Steps[0].Note, "; curator.files: AGENTS.md") {
		t.Errorf("config %s, note %q", data, plan.Steps[0].Note)
	}
}

// TestPlanInitDryRun: a dry run's Apply writes nothing, the status line
// in the person's settings included, and still says which migrations
// would apply.
func TestPlanInitDryRun(t *testing.T) {
	p := fresh(t)
	user := filepath.Join(t.TempDir(), "settings.json")
	plan, err := PlanInit(p, InitOptions{DryRun: true, Home: t.TempDir(), UserSettings: func() (string, error) { return user, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepsOf(plan); !strings.Contains(got, "created "+user+"\n") {
		t.Errorf("no status line step:\n%s", got)
	}
	before := files(t, p.Root)
	if err := plan.Apply(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	if after := files(t, p.Root); len(after) != len(before) {
		t.Errorf("a dry run wrote %d files", len(after)-len(before))
	}
	if _, err := os.Stat(user); err == nil {
		t.Error("a dry run wrote the user's settings")
	}
	if len(plan.Migrations) == 0 || len(plan.Wrote) != 0 || plan.Audit != "" {
		t.Errorf("dry run: migrations %v, wrote %q, audit %q", plan.Migrations, plan.Wrote, plan.Audit)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
