package hook

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The triads design's switch stops injection only: prompts are still
// recorded for the calls that follow.
func TestDisableExperienceInjection(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	p.env.NoInjection = true
	if out := p.run(PreToolUse, p.write("plugin.json", "s")); out != "" {
		t.Fatalf("pre-tool-use injected: %s", out)
	}
	if out := p.run(SessionStart, map[string]any{"session_id": "s", "cwd": p.root}); out != "" {
		t.Fatalf("session-start injected: %s", out)
	}
	if out := p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": "do the version bump"}); out != "" {
		t.Fatalf("user-prompt-submit injected: %s", out)
	}
	if got := SessionOf(mustFind(t, p.root), "s").Prompts(1); len(got) != 1 || got[0] != "do the version bump" {
		t.Fatalf("the prompt was not recorded: %q", got)
	}
	p.env.NoInjection = false
	if out := p.run(PreToolUse, p.write("plugin.json", "s")); out == "" {
		t.Fatal("not served once the switch is off")
	}
}

// A call over its budget says so in the hooks log and on stderr; one
// within it says nothing.
func TestSlowHookWarns(t *testing.T) {
	p := newProj(t)
	var stderr bytes.Buffer
	p.env.Stderr = &stderr
	tick := now
	p.env.Clock = func() time.Time { tick = tick.Add(60 * time.Millisecond); return tick }
	p.run(PreToolUse, p.write("a.go", "s"))
	if stderr.Len() != 0 || strings.Contains(p.log(), "slow hook") {
		t.Fatalf("a 60 ms call warned: %q / %q", stderr.String(), p.log())
	}
	p.env.Clock = func() time.Time { tick = tick.Add(150 * time.Millisecond); return tick }
	p.run(PreToolUse, p.write("a.go", "s"))
	if !strings.Contains(stderr.String(), "devlearn: slow hook: pre-tool-use took 150 ms (over 100 ms); see ") || !strings.Contains(p.log(), "slow hook: pre-tool-use took 150 ms (over 100 ms)") {
		t.Fatalf("a 150 ms call: stderr %q, log %q", stderr.String(), p.log())
	}
}

// Session start gives the first five CRITICAL items in full, most
// important first, and names the others.
func TestSessionStartCapsCriticalItems(t *testing.T) {
	p := newProj(t)
	for i := 0; i < 8; i++ {
		p.entry(fmt.Sprintf("critical-%d", i), "summary: Critical rule "+fmt.Sprint(i)+"\npriority: CRITICAL\ntriggers:\n  files: [\"x/**\"]", "Body of rule "+fmt.Sprint(i)+".\n")
	}
	sp := decode(t, p.run(SessionStart, map[string]any{"session_id": "s", "cwd": p.root}))
	full := strings.Count(sp.AdditionalContext, "\n## critical-")
	if full != CriticalInFull {
		t.Fatalf("%d CRITICAL items in full:\n%s", full, sp.AdditionalContext)
	}
	if !strings.Contains(sp.AdditionalContext, "Also CRITICAL, served in full when they apply: critical-5, critical-6, critical-7. Read each with `devlearn knowledge show ID`.") {
		t.Fatalf("the others are not named:\n%s", sp.AdditionalContext)
	}
}

// A request is served within its own limits, not a tool call's.
func TestPromptHasItsOwnLimits(t *testing.T) {
	p := newProj(t)
	for i := 0; i < 4; i++ {
		p.entry(fmt.Sprintf("release-%d", i), "summary: Release rule "+fmt.Sprint(i)+"\npriority: HIGH\ntriggers:\n  actions: [release]\n  context: [production]", strings.Repeat("text ", 100)+"\n")
	}
	prompt := map[string]any{"session_id": "s", "cwd": p.root, "prompt": "release to production"}
	sp := decode(t, p.run(UserPromptSubmit, prompt))
	if n := strings.Count(sp.AdditionalContext, "## release-"); n != 3 {
		t.Fatalf("%d served with prompt_max_items 3:\n%s", n, sp.AdditionalContext)
	}
	p.file(".memory/learning.json", `{"serve": {"prompt_max_items": 1, "prompt_budget_chars": 1300}}`)
	prompt["session_id"] = "t"
	out := p.run(UserPromptSubmit, prompt)
	if sp := decode(t, out); strings.Count(sp.AdditionalContext, "## release-") != 1 || len([]rune(out)) > 1300 {
		t.Fatalf("prompt limits not kept (%d characters):\n%s", len([]rune(out)), sp.AdditionalContext)
	}
}

// Hook input written on Windows: backslashes, a drive letter, another
// case than the root's; the file is still the project's file.
func TestWindowsPathsInToolCalls(t *testing.T) {
	c := ToolCall(`C:\Users\carol\shop`, `C:\Users\carol`, Input{ToolName: "Edit", Cwd: `C:\Users\carol\shop`, Tool: ToolArgsOf(map[string]string{"file_path": `c:\users\CAROL\shop\Web\src\CartButton.tsx`})}, nil)
	if len(c.Paths) != 1 || c.Paths[0] != "Web/src/CartButton.tsx" || !c.FileScoped {
		t.Fatalf("%+v", c)
	}
	c = ToolCall(`C:\Users\carol\shop`, `C:\Users\carol`, Input{ToolName: "Bash", Cwd: `C:\Users\carol\shop`, Tool: ToolArgsOf(map[string]string{"command": `cd web && npm install date-fns`})}, nil)
	if len(c.Commands) != 2 || c.Commands[1].Verb != "npm" {
		t.Fatalf("%+v", c.Commands)
	}
}

// A command names a path outside the project when it leaves it: a
// parent, a home folder, a root, another absolute path; not a folder of
// the project, however it is written, a device or a pattern.
func TestToolCallOutsideTheProject(t *testing.T) {
	const root = "/srv/shop"
	for _, tc := range []struct {
		cwd, cmd string
		want     bool // the first segment's
	}{
		{root, "cd web/src && ls", false},
		{root, "cd /srv/shop/web && npm test", false},
		{root, "git add ../CLAUDE.md", true},
		{root, "cd ~/Library/CloudStorage && ls", true},
		{root + "/web", "cd ~/Library/X", true},
		{root, "cd ~", true},
		{root, "cd", true},
		{root, "cd $HOME/other", true},
		{root, "cd /tmp && ls", true},
		{root, "cd /", true},
		{root, `cd D:\`, true},
		{root, "cat /etc/hosts", true},
		{root, "node x.js > /dev/null 2>&1 &", false},
		{root, `grep -v "//.*console" a.ts`, false},
		{root + "/web", "cd ../api", false}, // still in the project
	} {
		c := ToolCall(root, "/home/dev", Input{ToolName: "Bash", Cwd: tc.cwd, Tool: ToolArgsOf(map[string]string{"command": tc.cmd})}, nil)
		if got := len(c.Commands) > 0 && c.Commands[0].Outside; got != tc.want {
			t.Errorf("%q from %s: outside %v, want %v", tc.cmd, tc.cwd, got, tc.want)
		}
	}
	// A home folder that holds the project is not outside it.
	for _, tc := range []struct{ home, cmd string }{{"/srv", "cd ~/shop/web"}, {"/srv", "cd ~/shop"}, {root, "cd"}} {
		if c := ToolCall(root, tc.home, Input{ToolName: "Bash", Cwd: root, Tool: ToolArgsOf(map[string]string{"command": tc.cmd})}, nil); c.Commands[0].Outside {
			t.Errorf("%q with the home folder at %s stays in the project", tc.cmd, tc.home)
		}
	}
	if c := ToolCall(root, "/srv", Input{ToolName: "Bash", Cwd: root, Tool: ToolArgsOf(map[string]string{"command": "cd"})}, nil); !c.Commands[0].Outside {
		t.Errorf("cd alone goes to /srv, the project's parent")
	}
}

// A request is served what the person asks, not what an editor wrapped
// around it: a file among the open tabs is not named by the request.
func TestPromptServesTheRequestNotItsWrapping(t *testing.T) {
	p := newProj(t)
	p.entry("migrations-by-hand", "summary: Never edit db/migrations/0002_items.sql by hand\npriority: HIGH\ntriggers:\n  files: [\"db/migrations/**\"]", "Change the schema and generate.\n")
	wrapped := "# Context from my IDE setup:\n\n## Active file: db/migrations/0002_items.sql\n\n## Open tabs:\n- 0002_items.sql: db/migrations/0002_items.sql\n\n## My request for Codex:\n"
	if out := p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": wrapped + "write the spec of the search page"}); strings.Contains(out, "migrations-by-hand") {
		t.Fatalf("served on the editor's open tabs:\n%s", out)
	}
	sp := decode(t, p.run(UserPromptSubmit, map[string]any{"session_id": "t", "cwd": p.root, "prompt": wrapped + "add a column to db/migrations/0002_items.sql"}))
	if !strings.Contains(sp.AdditionalContext, "## migrations-by-hand") {
		t.Fatalf("not served when the request names the file:\n%s", sp.AdditionalContext)
	}
}

// A huge command is read as far as a command is: its words and the paths
// it names within the first promptMatchBytes, so a call's cost stays
// bounded (a 30 MB command took 8 to 13 seconds, past the hook's budget).
func TestToolCallReadsAHugeCommandToABound(t *testing.T) {
	head := "sed -i s/a/b/ early.go "
	cmd := head + strings.Repeat("w ", promptMatchBytes) + "late.go lateword"
	c := ToolCall("/srv/app", "", Input{ToolName: "Bash", Cwd: "/srv/app", Tool: ToolArgsOf(map[string]string{"command": cmd})}, nil)
	if !slices.Contains(c.Paths, "early.go") || slices.Contains(c.Paths, "late.go") {
		t.Errorf("paths: %q", c.Paths)
	}
	if !c.Words.Has("early") || c.Words.Has("lateword") {
		t.Errorf("words read past the bound")
	}
}
