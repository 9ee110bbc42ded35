package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
)

type session struct {
	t  *testing.T
	cs *sdk.ClientSession
}

func connect(t *testing.T, o Options) *session {
	t.Helper()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &session{t, cs}
}

func (s *session) tools() []string {
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// call returns the tool's text and whether it was an error.
func (s *session) call(name string, args map[string]any) (string, bool, map[string]any) {
	s.t.Helper()
	res, err := s.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &structured)
	}
	return b.String(), res.IsError, structured
}

func setup(t *testing.T, role string, cfg *config.Config) (Options, *project.Project) {
	t.Helper()
	root, home := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory", "knowledge", "entries"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		cfg = config.Default()
	}
	return Options{Proj: p, Home: home, Cfg: cfg, Role: role,
		Now:    func() time.Time { return time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC) },
		Redact: func(s string) string { return strings.ReplaceAll(s, "ghp_secret", "[REDACTED:github-pat]") }}, p
}

// ClawFlow's roles: a workshop session has every tool, a pipeline
// agent reads and proposes.
func TestToolsPerRole(t *testing.T) {
	o, _ := setup(t, RoleWorkshop, nil)
	if got := strings.Join(connect(t, o).tools(), ","); got != "edit_skill,fetch_knowledge,fetch_skill_detail,list_knowledge,save_knowledge,update_knowledge,view_skill" {
		t.Fatal(got)
	}
	o.Role = RolePipeline
	if got := strings.Join(connect(t, o).tools(), ","); got != "fetch_knowledge,fetch_skill_detail,save_knowledge" {
		t.Fatal(got)
	}
	cfg := config.Default()
	cfg.MCP.Tools.Pipeline = []string{"fetch_knowledge"}
	o.Cfg = cfg
	if got := strings.Join(connect(t, o).tools(), ","); got != "fetch_knowledge" {
		t.Fatal(got)
	}
	o.Role = "admin"
	if _, err := New(o); err == nil {
		t.Fatal("unknown role")
	}
}

func TestKnowledgeTools(t *testing.T) {
	o, p := setup(t, RoleWorkshop, nil)
	s := connect(t, o)
	msg, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{
		"key": "api-date-format", "summary": "API returns epoch timestamps, not ISO-8601",
		"content": "Seconds since 1970. Token ghp_secret was in the example.", "category": "api_quirk", "tags": []string{"api", "dates"},
	})
	if isErr || !strings.Contains(msg, "Saved api-date-format as candidate") {
		t.Fatal(msg)
	}
	e, err := knowledge.ReadEntry(p.Path(".memory/knowledge/entries/api-date-format.md"), "api-date-format.md")
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != "candidate" || e.Source != "workshop" || e.Category != "api_quirk" || strings.Contains(e.Body, "ghp_secret") || e.CreatedAt != "2026-05-10T09:00:00Z" {
		t.Fatalf("%+v", e)
	}
	// Through the audited writer.
	audit, _ := os.ReadFile(p.Path(".memory/evolution/log.jsonl"))
	if !strings.Contains(string(audit), `"command":"mcp save_knowledge"`) {
		t.Fatal(string(audit))
	}
	// A second save of the key is refused; a bad category too.
	if msg, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{"key": "api-date-format", "summary": "x", "content": "y", "category": "api_quirk"}); !isErr || !strings.Contains(msg, "exists already") {
		t.Fatal(msg)
	}
	if msg, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{"key": "k", "summary": "x", "content": "y", "category": "gossip"}); !isErr || !strings.Contains(msg, "not one of") {
		t.Fatal(msg)
	}
	if _, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{"key": "../../etc/passwd", "summary": "x", "content": "y", "category": "api_quirk"}); !isErr {
		t.Fatal("a path as a key")
	}
	msg, isErr, st := s.call(ToolFetchKnowledge, map[string]any{"key_or_id": "api-date-format"})
	if isErr || !strings.Contains(msg, "[api-date-format] API returns epoch timestamps") || !strings.Contains(msg, "[REDACTED:github-pat]") || st["category"] != "api_quirk" {
		t.Fatal(msg, st)
	}
	if msg, isErr, _ := s.call(ToolFetchKnowledge, map[string]any{"key_or_id": "nope"}); !isErr || !strings.Contains(msg, "no knowledge entry") {
		t.Fatal(msg)
	}
	msg, _, st = s.call(ToolListKnowledge, map[string]any{"category": "api_quirk"})
	if !strings.Contains(msg, "- [api-date-format] API returns epoch timestamps, not ISO-8601 (candidate, project, api_quirk)") {
		t.Fatal(msg)
	}
	if msg, _, _ := s.call(ToolListKnowledge, map[string]any{"category": "convention"}); msg != "No entries.\n" {
		t.Fatal(msg)
	}
	msg, isErr, _ = s.call(ToolUpdateKnowledge, map[string]any{"id": "api-date-format", "summary": "API returns epoch seconds", "tags": []string{"api"}})
	if isErr || !strings.Contains(msg, "Updated api-date-format (candidate") {
		t.Fatal(msg)
	}
	e, _ = knowledge.ReadEntry(p.Path(".memory/knowledge/entries/api-date-format.md"), "api-date-format.md")
	if e.Summary != "API returns epoch seconds" || strings.Join(e.Tags, ",") != "api" || e.Status != "candidate" {
		t.Fatalf("%+v", e)
	}
}

// ClawFlow's third capture trigger: a supervised workshop session saves an active
// entry; a pipeline agent never does.
func TestSupervisedSavesAreActive(t *testing.T) {
	cfg := config.Default()
	cfg.MCP.Supervised = true
	for role, want := range map[string]string{RoleWorkshop: "active", RolePipeline: "candidate"} {
		o, p := setup(t, role, cfg)
		s := connect(t, o)
		if msg, isErr, _ := s.call(ToolSaveKnowledge, map[string]any{"key": "k", "summary": "A rule", "content": "x", "category": "convention"}); isErr {
			t.Fatal(msg)
		}
		e, _ := knowledge.ReadEntry(p.Path(".memory/knowledge/entries/k.md"), "k.md")
		if e.Status != want || e.Source != role {
			t.Errorf("%s: %+v", role, e)
		}
	}
}

func TestSkillTools(t *testing.T) {
	o, _ := setup(t, RoleWorkshop, nil)
	s := connect(t, o)
	msg, isErr, _ := s.call(ToolFetchSkill, map[string]any{"skill_name": "test-driven-development"})
	if isErr || !strings.HasPrefix(msg, "# Test-driven development: extended guidance") {
		t.Fatal(msg)
	}
	msg, _, _ = s.call(ToolViewSkill, map[string]any{"skill_name": "completion"})
	if !strings.Contains(msg, "Do NOT ask about merging") {
		t.Fatal(msg)
	}
	if msg, isErr, _ := s.call(ToolEditSkill, map[string]any{"skill_name": "completion", "tier": "core", "content": "no front matter"}); !isErr || !strings.Contains(msg, "front matter") {
		t.Fatal(msg)
	}
	if msg, isErr, _ := s.call(ToolEditSkill, map[string]any{"skill_name": "completion", "tier": "extended", "content": "More detail, token ghp_secret.\n"}); isErr {
		t.Fatal(msg)
	}
	msg, _, _ = s.call(ToolViewSkill, map[string]any{"skill_name": "completion", "tier": "extended"})
	if msg != "More detail, token [REDACTED:github-pat].\n" {
		t.Fatal(msg)
	}
	if msg, isErr, _ := s.call(ToolViewSkill, map[string]any{"skill_name": "../../x"}); !isErr {
		t.Fatal(msg)
	}
}

// An unsupervised session changes only candidates and drafts: an entry a
// person reviewed is theirs, as save_knowledge makes only candidates. And
// only the project's entries: the global store is in no project's history.
func TestUpdateLeavesAPersonsEntriesAlone(t *testing.T) {
	o, p := setup(t, RoleWorkshop, nil)
	active := "---\nsummary: Releases need a signed tag\nstatus: active\nsource: manual\ntriggers:\n  tools: [Bash]\n---\nSign tags.\n"
	os.WriteFile(p.Path(".memory/knowledge/entries/release-rule.md"), []byte(active), 0o644)
	os.MkdirAll(filepath.Join(o.Home, "knowledge", "entries"), 0o755)
	global := strings.Replace(active, "release-rule", "global-rule", 1)
	os.WriteFile(filepath.Join(o.Home, "knowledge", "entries", "global-rule.md"), []byte(global), 0o644)
	s := connect(t, o)
	if msg, isErr, _ := s.call(ToolUpdateKnowledge, map[string]any{"id": "release-rule", "content": "Never sign tags."}); !isErr || !strings.Contains(msg, "release-rule is active") {
		t.Fatalf("active entry changed: %q", msg)
	}
	if data, _ := os.ReadFile(p.Path(".memory/knowledge/entries/release-rule.md")); string(data) != active {
		t.Fatalf("file changed:\n%s", data)
	}
	if msg, isErr, _ := s.call(ToolUpdateKnowledge, map[string]any{"id": "global-rule", "content": "changed"}); !isErr || !strings.Contains(msg, "no entry") {
		t.Fatalf("global entry: %q", msg)
	}
	if data, _ := os.ReadFile(filepath.Join(o.Home, "knowledge", "entries", "global-rule.md")); string(data) != global {
		t.Fatalf("global file changed:\n%s", data)
	}
	// A candidate is the agent's to change; supervised, any entry is.
	s.call(ToolSaveKnowledge, map[string]any{"key": "api-dates", "summary": "API dates are epoch", "content": "seconds", "category": "api_quirk"})
	if msg, isErr, _ := s.call(ToolUpdateKnowledge, map[string]any{"id": "api-dates", "content": "seconds since 1970"}); isErr {
		t.Fatalf("candidate: %q", msg)
	}
	o.Cfg.MCP.Supervised = true
	if msg, isErr, _ := connect(t, o).call(ToolUpdateKnowledge, map[string]any{"id": "release-rule", "content": "Sign every tag."}); isErr {
		t.Fatalf("supervised: %q", msg)
	}
}
