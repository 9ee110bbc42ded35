package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
)

func TestScanUses(t *testing.T) {
	s := newSession("f0000000-0000-4000-8000-000000000001", "/repo", now)
	s.user("<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>")                                                        // 2.0.x
	s.record("user", map[string]any{"role": "user", "content": []map[string]any{text("<command-name>clear</command-name>\n<command-message>clear</command-message>")}}, nil) // 1.0.x
	s.user("<command-name>/Self-Learning:Release-Checks</command-name><command-args>now</command-args>")
	s.assistant(toolUse("s1", "Skill", map[string]any{"skill": "ms-office-suite:pdf"}), toolUse("s2", "Skill", map[string]any{"command": "review"}), toolUse("s3", "Bash", map[string]any{"command": "echo <command-name>/x</command-name>"}))
	s.assistant(text("See ADR-007 and PF-0012; not XADR-1 nor ADR-x."), map[string]any{"type": "thinking", "thinking": "PF-9"})
	s.user("what about PF-3?")
	got, err := ScanUses([]string{s.write(t, t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range got {
		names = append(names, u.Kind+" "+u.Name)
		if u.SessionID != s.id || u.Record == "" || u.Timestamp == "" {
			t.Fatalf("use without its record: %+v", u)
		}
	}
	want := []string{"command init", "command clear", "command release-checks", "skill pdf", "skill review", "citation ADR-7", "citation PF-12"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("uses:\n got %q\nwant %q", names, want)
	}
}

func TestMatchOncePerSessionAndArtifact(t *testing.T) {
	arts := []Artifact{
		{ID: "obs_cmd", Type: observe.Workflow, Path: ".claude/commands/self-learning/release-checks.md"},
		{ID: "obs_skill", Type: observe.Procedural, Path: ".claude/skills/self-learning:migrations/SKILL.md"}, // devflow's folder name
		{ID: "obs_pf", Type: observe.Pitfall, Path: ".memory/knowledge/pitfalls.md", Anchor: "PF-012"},
		{ID: "obs_adr", Type: observe.Decision, Path: ".memory/knowledge/decisions.md", Anchor: "ADR-001"},
	}
	uses := []Use{
		{Kind: UseCommand, Name: "release-checks", SessionID: "s1"},
		{Kind: UseCommand, Name: "release-checks", SessionID: "s1"},
		{Kind: UseCommand, Name: "migrations", SessionID: "s1"},
		{Kind: UseSkill, Name: "migrations", SessionID: "s2"},
		{Kind: UseSkill, Name: "release-checks", SessionID: "s2"}, // a command is not a skill
		{Kind: UseCitation, Name: "PF-12"},
		{Kind: UseCitation, Name: "ADR-2", SessionID: "s2"},
	}
	var got []string
	for _, u := range Match(uses, arts, "s0") {
		got = append(got, u.SessionID+" "+u.ID+" "+u.How)
	}
	want := []string{"s1 obs_cmd ran /release-checks", "s1 obs_skill ran /migrations", "s2 obs_skill loaded skill migrations", "s0 obs_pf cited PF-12"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %q\nwant %q", got, want)
	}
	if UseEventID("s1", "obs_cmd") == UseEventID("s2", "obs_cmd") || UseEventID("s1", "obs_cmd") != UseEventID("s1", "obs_cmd") {
		t.Fatal("use event ids")
	}
}

func TestProjectSessions(t *testing.T) {
	claude := t.TempDir()
	root := filepath.Join(t.TempDir(), "my.repo_x") // characters Claude Code's folder names replace
	os.MkdirAll(root, 0o755)
	// Folder names that no rule computes from root: found by the cwd inside.
	in := newSession("11111111-0000-4000-8000-000000000001", root, now)
	in.user("hello there claude")
	inDir := filepath.Join(claude, "projects", "whatever-name")
	main := in.write(t, inDir)
	sub := newSession("11111111-0000-4000-8000-000000000001", root, now)
	sub.user("subagent work")
	os.MkdirAll(filepath.Join(inDir, in.id, "subagents"), 0o755)
	os.WriteFile(filepath.Join(inDir, in.id, "subagents", "agent-a1.jsonl"), []byte(sub.lines[0]+"\n"), 0o644)
	nested := newSession("22222222-0000-4000-8000-000000000002", filepath.Join(root, "sub", "dir"), now)
	nested.user("from a subfolder")
	nestedMain := nested.write(t, filepath.Join(claude, "projects", "other-name"))
	for i, cwd := range []string{root + "-other", filepath.Dir(root), "/elsewhere"} {
		s := newSession(fmt.Sprintf("3333333%d-0000-4000-8000-000000000003", i), cwd, now)
		s.user("not this project")
		s.write(t, inDir)
	}
	// A summary record first, the cwd on a later line.
	late := newSession("44444444-0000-4000-8000-000000000004", root, now)
	late.lines = append([]string{`{"type":"summary","summary":"Earlier work","leafUuid":"x"}`}, late.lines...)
	late.user("late cwd")
	lateMain := late.write(t, inDir)

	got, err := ProjectSessions(claude, root)
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, f := range got {
		mains = append(mains, f.Main)
		if f.Main == main && len(f.Subagents) != 1 {
			t.Fatalf("subagents of %s: %v", main, f.Subagents)
		}
	}
	want := []string{nestedMain, main, lateMain} // sorted by path
	if !reflect.DeepEqual(mains, want) {
		t.Fatalf("\n got %q\nwant %q", mains, want)
	}
	if _, err := ProjectSessions(t.TempDir(), root); err == nil {
		t.Fatal("a config folder without projects/ is not an error")
	}
}

func TestHistoryIsBounded(t *testing.T) {
	h := &History{Version: historyVersion}
	reqs := extract.Result{Requests: make([]extract.Request, HistoryMaxRequests+10), Missing: make([]extract.Missing, HistoryMaxMissing+10)}
	for i := 0; i < HistoryMaxSessions+20; i++ {
		at := now.Add(-time.Duration(HistoryMaxSessions+20-i) * time.Minute)
		h.Put(fmt.Sprintf("s%03d", i), at, at, reqs)
	}
	long := now.Add(-HistoryMaxAge - time.Hour)
	h.Put("old", long, long, reqs)
	h.Put("backlog", long, now, reqs) // months old, read today: remembered
	h.MarkExtracted("backlog", "llm")
	h.Put("s005", now, now, extract.Result{Requests: reqs.Requests[:1]}) // ingested again: replaced, and now the newest
	h.Prune(now)
	if len(h.Sessions) != HistoryMaxSessions {
		t.Fatalf("%d sessions kept", len(h.Sessions))
	}
	for _, s := range h.Sessions {
		if s.ID == "old" || s.ID == "s000" || len(s.Requests) > HistoryMaxRequests || len(s.Missing) > HistoryMaxMissing {
			t.Fatalf("kept %s with %d requests", s.ID, len(s.Requests))
		}
	}
	if h.ExtractedAt("backlog", "llm") == "" {
		t.Fatal("a session read today forgot that the model read it")
	}
	if last := h.Sessions[len(h.Sessions)-1]; last.ID != "s005" || len(last.Requests) != 1 {
		t.Fatalf("newest: %s", last.ID)
	}
	path := filepath.Join(t.TempDir(), "h", "history.json")
	if err := h.Save(filepath.Dir(filepath.Dir(path)), path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadHistory(path)
	if err != nil || !reflect.DeepEqual(back.Sessions[0].ID, h.Sessions[0].ID) || len(back.Sessions) != len(h.Sessions) {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("{broken"), 0o600)
	if h, err := LoadHistory(path); err == nil || len(h.Sessions) != 0 {
		t.Fatal("a broken history is not reported, or not replaced")
	}
}
