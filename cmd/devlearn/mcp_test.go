package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP session driven by the official client library over stdio against
// the built binary, as Claude Code would start it from .mcp.json: list the
// tools, save an entry, fetch it, list it; a pipeline session gets only
// the read-and-propose tools.
func TestMCPSessionOverStdio(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	home := filepath.Join(dir, ".home")
	env := []string{
		"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"DEVLEARN_NOW=2026-05-10T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"PATH=" + os.Getenv("PATH"),
	}
	for _, args := range [][]string{{"git", "init", "-q"}, {bin, "init"}} {
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = dir, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func(args ...string) *sdk.ClientSession {
		cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
		cmd.Dir, cmd.Env = dir, env
		client := sdk.NewClient(&sdk.Implementation{Name: "devlearn-test", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	call := func(cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), res.IsError
	}
	tools := func(cs *sdk.ClientSession) []string {
		var names []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		return names
	}

	cs := connect()
	if got := strings.Join(tools(cs), ","); got != "edit_skill,fetch_knowledge,fetch_skill_detail,list_knowledge,save_knowledge,update_knowledge,view_skill" {
		t.Fatalf("workshop tools: %s", got)
	}
	msg, isErr := call(cs, "save_knowledge", map[string]any{
		"key": "api-date-format", "summary": "API returns epoch timestamps, not ISO-8601",
		"content": "The billing API sends seconds since 1970; the key ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y was in the sample.", "category": "api_quirk", "tags": []string{"api", "dates"},
	})
	if isErr || !strings.Contains(msg, "Saved api-date-format as candidate (.memory/knowledge/entries/api-date-format.md)") {
		t.Fatal(msg)
	}
	msg, isErr = call(cs, "fetch_knowledge", map[string]any{"key_or_id": "api-date-format"})
	if isErr || !strings.Contains(msg, "[api-date-format] API returns epoch timestamps, not ISO-8601") || !strings.Contains(msg, "seconds since 1970") || strings.Contains(msg, "ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y") {
		t.Fatalf("fetch: %s", msg)
	}
	msg, isErr = call(cs, "list_knowledge", map[string]any{})
	if isErr || !strings.Contains(msg, "- [api-date-format] API returns epoch timestamps, not ISO-8601 (candidate, project, api_quirk)") {
		t.Fatalf("list: %s", msg)
	}
	msg, isErr = call(cs, "fetch_skill_detail", map[string]any{"skill_name": "verification"})
	if isErr || !strings.HasPrefix(msg, "# Verification: extended guidance") {
		t.Fatalf("skill: %s", msg)
	}
	cs.Close()

	// The entry is a file in the project, audited like any other write.
	data, err := os.ReadFile(filepath.Join(dir, ".memory/knowledge/entries/api-date-format.md"))
	if err != nil || !strings.Contains(string(data), "status: candidate") || !strings.Contains(string(data), "source: workshop") {
		t.Fatalf("%s %v", data, err)
	}
	audit, _ := os.ReadFile(filepath.Join(dir, ".memory/evolution/log.jsonl"))
	if !strings.Contains(string(audit), `"command":"mcp save_knowledge"`) {
		t.Fatal("the save is not in the audit log")
	}

	ps := connect("--role", "pipeline")
	defer ps.Close()
	if got := strings.Join(tools(ps), ","); got != "fetch_knowledge,fetch_skill_detail,save_knowledge" {
		t.Fatalf("pipeline tools: %s", got)
	}
	if _, err := ps.CallTool(ctx, &sdk.CallToolParams{Name: "update_knowledge", Arguments: map[string]any{"id": "api-date-format", "summary": "x"}}); err == nil {
		t.Fatal("a pipeline agent updated an entry")
	}
}
