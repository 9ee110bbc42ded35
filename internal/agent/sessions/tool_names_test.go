package sessions

import (
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

// The extractors know calls by Claude Code's names (Read, Edit, Bash):
// each reader maps its agent's tool names onto them, and a call whose
// name is left as the agent wrote it is one no rule about reading or
// editing files ever sees.
func TestToolsNamedAsInClaudeCode(t *testing.T) {
	copilot := `{"type":"session.start","id":"e1","timestamp":"2026-05-08T10:00:00.000Z","data":{"sessionId":"s1","context":{"cwd":"/r"}}}
{"type":"tool.execution_start","id":"e2","timestamp":"2026-05-08T10:00:01.000Z","data":{"toolCallId":"t1","toolName":"view","arguments":{"path":"/r/a.go"}}}
{"type":"tool.execution_start","id":"e3","timestamp":"2026-05-08T10:00:02.000Z","data":{"toolCallId":"t2","toolName":"str_replace","arguments":{"path":"/r/a.go"}}}
{"type":"tool.execution_start","id":"e4","timestamp":"2026-05-08T10:00:03.000Z","data":{"toolCallId":"t3","toolName":"bash","arguments":{"command":"go test ./..."}}}
`
	ch, err := readCopilot(strings.NewReader(copilot), "events.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(ch); got != "Read /r/a.go, Edit /r/a.go, Bash go test ./..." {
		t.Errorf("Copilot CLI: %s", got)
	}

	cursor := `{"role":"assistant","message":{"content":[{"type":"tool_use","name":"read_file","input":{"target_file":"a.go"}},{"type":"tool_use","name":"search_replace","input":{"file_path":"a.go"}},{"type":"tool_use","name":"run_terminal_cmd","input":{"command":"go vet ./..."}}]}}
`
	ch, err = readCursor(strings.NewReader(cursor), "c.jsonl", "c", time.Unix(0, 0), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(ch); got != "Read a.go, Edit a.go, Bash go vet ./..." {
		t.Errorf("Cursor: %s", got)
	}
}

func toolNames(ch *transcript.Channels) string {
	var out []string
	for _, c := range ch.Tools {
		out = append(out, strings.TrimSpace(c.Name+" "+strings.Join(c.Paths, " ")+c.Command))
	}
	return strings.Join(out, ", ")
}
