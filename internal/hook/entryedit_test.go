package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An entry edited in place by the agent (its folder's stamp unchanged) so
// that it now applies is served at the next tool call, not only after the
// next session start: post-tool-use of the edit checks the cache in full.
func TestEntryEditedInPlaceIsServedAtTheNextCall(t *testing.T) {
	root := statRoot(t, 50, true)
	env := Env{Dir: root, Now: time.Now}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	path := filepath.Join(root, ".memory", "knowledge", "entries", "lesson-00003.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// In place, as an agent's Edit writes: the folder keeps its stamp.
	edited := strings.ReplaceAll(string(data), "src/module13/**", "src/module5/**")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(edited)
	f.Close()
	in, _ := json.Marshal(map[string]any{
		"session_id": "8f6c1d2e-1234-4abc-9def-0123456789ab", "cwd": root, "hook_event_name": "PostToolUse",
		"tool_name": "Edit", "tool_use_id": "toolu_edit",
		"tool_input": map[string]any{"file_path": path, "old_string": "src/module13/**", "new_string": "src/module5/**"},
	})
	Run(context.Background(), PostToolUse, env, bytes.NewReader(in), io.Discard)
	var out bytes.Buffer
	Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, 0)), &out)
	if !strings.Contains(out.String(), "lesson 3.") {
		t.Fatalf("the entry edited to apply to src/module5 was not served: %q", out.String())
	}
}
