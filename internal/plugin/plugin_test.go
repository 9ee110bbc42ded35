package plugin

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"

	"github.com/devlearn/devlearn/internal/settings"
)

var update = flag.Bool("update", false, "rewrite the plugin's files from Files (make plugin)")

// root is devlearn's repository, where the plugin and the marketplace are
// committed.
const root = "../.."

// The committed plugin is exactly what Files builds: its hooks are init's
// hooks. 'make plugin' (go test ./internal/plugin -update) rewrites it.
func TestCommittedFilesAreCurrent(t *testing.T) {
	for rel, want := range Files() {
		path := filepath.Join(root, rel)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run 'make plugin')", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what devlearn builds: run 'make plugin' and commit it", rel)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// exists fails the test when a path the plugin names is not there.
func exists(t *testing.T, from, rel, what string) string {
	t.Helper()
	if !strings.HasPrefix(rel, "./") || strings.Contains(rel, "..") {
		t.Errorf("%s %q: plugin paths start with ./ and never leave the plugin", what, rel)
	}
	p := filepath.Join(from, rel)
	if _, err := os.Stat(p); err != nil {
		t.Errorf("%s %q: %v", what, rel, err)
	}
	return p
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Every path the marketplace and the plugin name exists, from the
// marketplace's plugin source down to each command, skill, hook and MCP
// server in their default places.
func TestEveryPathNamedExists(t *testing.T) {
	var m struct {
		Name  string `json:"name"`
		Owner struct {
			Name string `json:"name"`
		} `json:"owner"`
		Plugins []struct {
			Name, Source string
		} `json:"plugins"`
	}
	readJSON(t, filepath.Join(root, Marketplace), &m)
	if !kebab.MatchString(m.Name) || m.Owner.Name == "" || len(m.Plugins) == 0 {
		t.Fatalf("marketplace: name %q, owner %q, %d plugins: a kebab-case name, an owner and a plugin are required", m.Name, m.Owner.Name, len(m.Plugins))
	}
	for _, p := range m.Plugins {
		dir := exists(t, root, p.Source, "marketplace source")
		var man struct {
			Name, Version string
			Hooks         any `json:"hooks"`
		}
		readJSON(t, exists(t, dir, "./.claude-plugin/plugin.json", "manifest"), &man)
		if man.Hooks != nil {
			t.Errorf("the manifest names hooks (%v): Claude Code loads hooks/hooks.json by itself and fails on a second load of it", man.Hooks)
		}
		if man.Name != p.Name || !kebab.MatchString(man.Name) {
			t.Errorf("plugin name %q, marketplace lists %q", man.Name, p.Name)
		}
		if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(man.Version) {
			t.Errorf("version %q is not semver", man.Version)
		}
		cmds := exists(t, dir, "./commands", "commands")
		mds, _ := filepath.Glob(filepath.Join(cmds, "*.md"))
		if len(mds) == 0 {
			t.Errorf("no command in %s", cmds)
		}
		for _, md := range mds {
			checkFrontMatter(t, md, "description")
		}
		sk := exists(t, dir, "./skills", "skills")
		skillFiles, _ := filepath.Glob(filepath.Join(sk, "*", "SKILL.md"))
		if len(skillFiles) == 0 {
			t.Errorf("no skill in %s", sk)
		}
		for _, s := range skillFiles {
			fm := checkFrontMatter(t, s, "name", "description")
			if fm["name"] != filepath.Base(filepath.Dir(s)) {
				t.Errorf("%s: name %q is not its folder's", s, fm["name"])
			}
		}
		var hooks struct {
			Hooks map[string][]struct {
				Matcher *string
				Hooks   []struct{ Type, Command string }
			}
		}
		readJSON(t, exists(t, dir, "./hooks/hooks.json", "hooks"), &hooks)
		n := 0
		for ev, groups := range hooks.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					n++
					if h.Type != "command" || !settings.IsDevlearn(h.Command) || !strings.HasPrefix(h.Command, "command -v ") || !strings.HasSuffix(h.Command, " || true") {
						t.Errorf("%s: %q is not devlearn's guarded command", ev, h.Command)
					}
					for _, ref := range regexp.MustCompile(`\$\{CLAUDE_PLUGIN_ROOT\}/(\S+)`).FindAllStringSubmatch(h.Command, -1) {
						exists(t, dir, "./"+ref[1], ev+" hook")
					}
				}
			}
		}
		var mcp struct {
			MCPServers map[string]struct{ Command string }
		}
		readJSON(t, exists(t, dir, "./.mcp.json", "MCP servers"), &mcp)
		if mcp.MCPServers[settings.MCPServerName].Command != "devlearn" {
			t.Errorf("MCP servers: %+v, want devlearn's", mcp)
		}
		if n != len(settings.Hooks) {
			t.Errorf("%d hooks in the plugin, init registers %d", n, len(settings.Hooks))
		}
	}
}

func checkFrontMatter(t *testing.T, path string, keys ...string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm := map[string]any{}
	if _, err := frontmatter.MustParse(f, &fm); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	for _, k := range keys {
		if s, _ := fm[k].(string); s == "" {
			t.Errorf("%s: no %s in the front matter", path, k)
		}
	}
	return fm
}
