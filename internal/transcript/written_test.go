package transcript

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/redact"
)

func TestInstructionFile(t *testing.T) {
	for p, want := range map[string]bool{
		"/srv/app/CLAUDE.md":              true,
		`C:\app\AGENTS.md`:                true,
		"GEMINI.md":                       true,
		"/srv/app/.cursor/rules/go.mdc":   true,
		".github/copilot-instructions.md": true,
		"/home/me/.claude/projects/-srv-app/memory/feedback_push.md": true,
		"/home/me/.claude/projects/-srv-app/memory/MEMORY.md":        true,
		"/srv/app/README.md":        false,
		"/srv/app/docs/memory/x.md": false, // a project's own folder named memory
		"/srv/app/main.go":          false,
	} {
		if got := InstructionFile(p); got != want {
			t.Errorf("InstructionFile(%q) = %v", p, got)
		}
	}
}

func TestAdded(t *testing.T) {
	old := "# Rules\n- run make lint\n"
	new := "# Rules\n- run make lint\n- never push to main\n- run make lint\n"
	if got := Added(old, new); got != "- never push to main\n- run make lint\n" {
		t.Errorf("Added = %q", got)
	}
}

func TestPatchAdded(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: AGENTS.md\n@@\n # Rules\n-- old rule\n+- Always answer in Japanese.\n*** Update File: src/app.ts\n@@\n+const x = 1\n*** Add File: docs/AGENTS.md\n+# Notes\n+Use pnpm, not npm.\n*** Update File: notes.md\n*** Move to: CLAUDE.md\n+Run make lint first.\n*** End Patch"
	if got := PatchAdded(patch); got != "- Always answer in Japanese.\n# Notes\nUse pnpm, not npm.\nRun make lint first.\n" {
		t.Errorf("PatchAdded = %q", got)
	}
}

// What an edit writes is kept only for an agent's instructions or
// memory: the lines it adds, not the ones it keeps.
func TestWroteKeepsInstructionsOnly(t *testing.T) {
	ch := read(t,
		assistant("a1", toolUse("t1", "Edit", map[string]any{"file_path": "/srv/app/CLAUDE.md", "old_string": "# Rules\n", "new_string": "# Rules\n- Never push to main yourself.\n- Deploy with ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y.\n"})),
		user("u1", toolResult("t1", "ok", false)),
		assistant("a2", toolUse("t2", "Write", map[string]any{"file_path": "/srv/app/main.go", "content": "package main\n"})),
		user("u2", toolResult("t2", "ok", false)),
		assistant("a3", toolUse("t3", "Write", map[string]any{"file_path": "/home/me/.claude/projects/-srv-app/memory/feedback_x.md", "content": "---\ndescription: Use pnpm\n---\n"})),
		user("u3", toolResult("t3", "ok", false)),
	)
	if len(ch.Tools) != 3 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if got := ch.Tools[0].Wrote; !strings.HasPrefix(got, "- Never push to main yourself.\n- Deploy with [REDACTED") {
		t.Errorf("edit of CLAUDE.md wrote %q", got)
	}
	if got := ch.Tools[1].Wrote; got != "" {
		t.Errorf("a source file's text kept: %q", got)
	}
	if got := ch.Tools[2].Wrote; got != "---\ndescription: Use pnpm\n---\n" {
		t.Errorf("memory written %q", got)
	}
}

// What is kept of a write is redacted before it is compared or cut: a
// key's body added between a header and a footer the edit keeps is a
// key, and a token past the cut is not left in halves.
func TestWriteKeptRedactsFirst(t *testing.T) {
	red := redact.Text
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDh2D4w1Oc3sPpD8kQ0qQh0A3kQ2Jq7l7n2pX6V4m6pAAAAAJgAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
	lines := strings.Split(key, "\n")
	old := lines[0] + "\n" + lines[len(lines)-2] + "\n"
	if got := (Write{Old: old, New: key}).Kept(red); strings.Contains(got, "b3BlbnNzaC1rZXkt") {
		t.Errorf("a key's body kept: %q", got)
	}
	long := strings.Repeat(key, 40) + "deploy with ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y\n"
	got := (Write{Content: long}).Kept(red)
	if len(got) > MaxWrote || strings.Contains(got, "ghp_") || !strings.HasSuffix(got, "\n") {
		t.Errorf("kept %d bytes ending %q", len(got), got[max(0, len(got)-40):])
	}
}
