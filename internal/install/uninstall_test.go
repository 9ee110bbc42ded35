package install

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/settings"
)

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

// installed is a repository where init set devlearn up for Claude Code,
// Codex CLI and Cursor: every file written through the writer, as init
// writes them, except that the person had a server of their own in
// .cursor/mcp.json before.
func installed(t *testing.T) *project.Project {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, ".gitconfig-global"))
	if _, err := register.ExecGit(root, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := `{"mcpServers": {"mine": {"command": "my-server"}}}` + "\n"
	if err := os.WriteFile(filepath.Join(root, ".cursor", "mcp.json"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	var cs Changes
	hooks := func(rel string, prof settings.Profile) {
		f, err := settings.ParseAs(rel, nil, prof)
		if err != nil {
			t.Fatal(err)
		}
		f.Enable()
		cs.Set(rel, f.Bytes(), false)
	}
	mcp := func(rel string) {
		data, _, err := cs.Read(p, rel)
		if err != nil {
			t.Fatal(err)
		}
		out, changed, _, err := EditMCP(rel, data, false)
		if err != nil || !changed {
			t.Fatalf("%s: %v %v", rel, changed, err)
		}
		cs.Set(rel, out, false)
	}
	hooks(project.SettingsFile, settings.Claude)
	for _, name := range []string{"codex", "cursor"} {
		a, ok := agent.Lookup(name)
		if !ok {
			t.Fatal(name)
		}
		hooks(a.HookFile, a.Profile)
		mcp(a.MCPFile)
	}
	f, _ := settings.ParseMCP(settings.MCPFile, nil)
	f.Register()
	cs.Set(settings.MCPFile, f.Bytes(), false)
	attrs, _ := register.WithRoutes(nil)
	cs.Set(register.AttributesFile, attrs, false)
	w := evolve.New(p, now, evolve.Trigger{Command: "init"})
	if _, err := w.Apply(t.Context(), evolve.Reason{Text: "init"}, cs...); err != nil {
		t.Fatal(err)
	}
	if _, err := register.Register(register.ExecGit, root); err != nil {
		t.Fatal(err)
	}
	return p
}

// files lists every file below root (git's config among them, where the
// merge driver is registered), with its contents.
func files(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stepLines(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "%s %s: %s\n", s.Action, s.Path, s.Note)
	}
	return b.String()
}

// The plan for a repository with two agents installed names each of
// their files, what init created going whole and the person's server
// kept; a dry run of it changes nothing, and carrying it out does what it
// said.
func TestUninstallPlanWithTwoAgents(t *testing.T) {
	p := installed(t)
	want := `removed .claude/settings.json: init created it for devlearn's hooks alone
removed .codex/config.toml: Codex CLI: init created it for devlearn alone
updated .cursor/mcp.json: Cursor: removed devlearn's MCP server; everything else kept
removed .codex/hooks.json: Codex CLI: init created it for devlearn's hooks alone
removed .cursor/hooks.json: Cursor: init created it for devlearn's hooks alone
removed .mcp.json: init created it for devlearn's server alone
removed .gitattributes: it held only devlearn's lines
removed git config merge.devlearn: merge driver unregistered in this clone
`
	before := files(t, p.Root)

	dry, err := PlanUninstall(p, UninstallOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepLines(dry.Steps); got != want {
		t.Errorf("the dry run's plan:\n%s\nwant:\n%s", got, want)
	}
	if err := dry.Apply(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	after := files(t, p.Root)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a dry run changed files:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
	if dry.Audit != "" || len(dry.Problems) > 0 {
		t.Errorf("a dry run recorded %q, problems %v", dry.Audit, dry.Problems)
	}

	u, err := PlanUninstall(p, UninstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(t.Context(), now); err != nil {
		t.Fatal(err)
	}
	if got := stepLines(u.Steps); got != want {
		t.Errorf("the steps carried out:\n%s\nwant:\n%s", got, want)
	}
	if u.Audit == "" || len(u.Problems) > 0 {
		t.Errorf("audit %q, problems %v", u.Audit, u.Problems)
	}
	left := files(t, p.Root)
	for _, rel := range []string{project.SettingsFile, ".codex/config.toml", ".codex/hooks.json", ".cursor/hooks.json", settings.MCPFile, register.AttributesFile} {
		if _, ok := left[rel]; ok {
			t.Errorf("%s is still there", rel)
		}
	}
	if got := left[".cursor/mcp.json"]; !strings.Contains(got, "my-server") || strings.Contains(got, "devlearn") {
		t.Errorf(".cursor/mcp.json left as:\n%s", got)
	}
	if s, _ := register.Settings(register.ExecGit, p.Root); register.Registered(s) {
		t.Errorf("the merge driver is still registered: %v", s)
	}

	again, err := PlanUninstall(p, UninstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stepLines(again.Steps), "unchanged .claude/settings.json: no devlearn hooks\nunchanged git config merge.devlearn: no merge driver registered\n"; got != want {
		t.Errorf("uninstalled twice:\n%s\nwant:\n%s", got, want)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
