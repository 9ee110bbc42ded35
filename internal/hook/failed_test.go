package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An entry that asks the person before its call is still given at a
// failure, but asks nothing there: the call has run, and Claude Code takes
// no permission decision after it.
func TestFailureAsksNothing(t *testing.T) {
	root := t.TempDir()
	entry := "---\nsummary: '`curl` fails with \"curl: (7) Failed to connect to localhost port 8080 after 1 ms\": use `https://api.example.com` instead of `http://localhost:8080`.'\nkind: warning\npriority: HIGH\nask: true\ntriggers:\n  commands: [curl]\n---\nThe API is not served locally; call https://api.example.com.\n"
	for rel, data := range map[string]string{
		".git/HEAD":             "ref: refs/heads/main\n",
		".memory/learning.json": "{}",
		".memory/knowledge/entries/curl-local.md": entry,
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": root, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "t1",
		"tool_input": map[string]any{"command": `curl -s "$API/health"`},
		"error":      "Exit code 7\ncurl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server", "is_interrupt": false,
	})
	out := runHook(t, PostToolUseFailure, root, in)
	if !strings.Contains(out, `"hookEventName":"PostToolUseFailure"`) || !strings.Contains(out, "curl-local") {
		t.Fatalf("the failure's entry was not given:\n%s", out)
	}
	if strings.Contains(out, "permissionDecision") {
		t.Errorf("a permission decision after the call:\n%s", out)
	}
}
