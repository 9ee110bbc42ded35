package sessions

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// A subagent's events are not the main conversation, whether the log
// marks them with agentId (older) or data.parentToolCallId (recent; the
// event types of github/copilot-sdk, session-events.ts): only the main
// agent's own calls are read, the task call that started the subagent
// among them.
func TestReadSkipsSubagents(t *testing.T) {
	in := `{"type":"session.start","id":"e1","timestamp":"2026-05-08T10:00:00.000Z","data":{"sessionId":"s1","context":{"cwd":"/r"}}}
{"type":"user.message","id":"e2","timestamp":"2026-05-08T10:00:01.000Z","parentId":"e1","data":{"content":"look into the flaky test"}}
{"type":"assistant.message","id":"e3","timestamp":"2026-05-08T10:00:02.000Z","parentId":"e2","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"t1","name":"task","arguments":{"prompt":"find it"}}]}}
{"type":"assistant.message","id":"e4","timestamp":"2026-05-08T10:00:03.000Z","parentId":"e3","data":{"messageId":"m2","content":"","parentToolCallId":"t1","toolRequests":[{"toolCallId":"t2","name":"bash","arguments":{"command":"go test -run Flaky ./..."}}]}}
{"type":"tool.execution_start","id":"e5","timestamp":"2026-05-08T10:00:03.100Z","parentId":"e4","data":{"toolCallId":"t2","toolName":"bash","arguments":{"command":"go test -run Flaky ./..."},"parentToolCallId":"t1"}}
{"type":"tool.execution_start","id":"e6","timestamp":"2026-05-08T10:00:03.200Z","parentId":"e4","agentId":"sub-1","data":{"toolCallId":"t3","toolName":"view","arguments":{"path":"/r/x_test.go"}}}
{"type":"tool.execution_complete","id":"e7","timestamp":"2026-05-08T10:00:09.000Z","parentId":"e3","data":{"toolCallId":"t1","success":true,"result":{"content":"found it"}}}
`
	ch, err := readCopilot(strings.NewReader(in), "events.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range ch.Tools {
		names = append(names, c.ID)
	}
	if strings.Join(names, ",") != "t1" {
		t.Errorf("calls read %q, want only the main agent's t1", names)
	}
}
