package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Gemini CLI's shell tool reports success whenever the command ran: the
// exit code is in its output, in the older layout (Stdout/Stderr/Error)
// and the newer one (Output).
func TestShellFailure(t *testing.T) {
	for _, tt := range []struct {
		name, output, err string
		failed            bool
	}{
		{"older layout, exited 127", "Command: pip install UnityPy\nDirectory: (root)\nStdout: (empty)\nStderr: bash: line 1: pip: command not found\n\nError: (none)\nExit Code: 127\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 60302", "bash: line 1: pip: command not found", true},
		{"older layout, exited 0", "Command: mkdir -p x\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)", "", false},
		{"newer layout", "Output: error: remote origin already exists.\nExit Code: 3\nProcess Group PGID: 4229", "error: remote origin already exists.", true},
		{"newer layout, no exit code: it passed", "Output: On branch main\nProcess Group PGID: 4229", "", false},
		{"nothing printed", "Command: false\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 1", "Exit Code: 1", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err, failed := shellFailure(tt.output)
			if failed != tt.failed || err != tt.err {
				t.Errorf("got %v %q, want %v %q", failed, err, tt.failed, tt.err)
			}
		})
	}
}

func TestChatShellExitCode(t *testing.T) {
	in := `{"sessionId":"s1","projectHash":"h","startTime":"2026-05-08T10:00:00.000Z"}
{"id":"m1","timestamp":"t1","type":"user","content":[{"text":"push it"}]}
{"id":"m2","timestamp":"t2","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"git remote add origin x"},"status":"success","result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: error: remote origin already exists.\nExit Code: 3\nProcess Group PGID: 4229"}}}]},{"id":"c2","name":"run_shell_command","args":{"command":"git status"},"status":"success","result":[{"functionResponse":{"id":"c2","name":"run_shell_command","response":{"output":"Output: On branch main\nProcess Group PGID: 4230"}}}]}]}
`
	ch, err := readGeminiChat(strings.NewReader(in), "c.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Tools) != 2 || !ch.Tools[0].Failed() || ch.Tools[0].Error != "error: remote origin already exists." || ch.Tools[1].Failed() || !ch.Tools[1].HasResult {
		t.Errorf("tools %+v", ch.Tools)
	}
}

func TestCheckpointShellExitCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint-x.json")
	data := `[{"role":"user","parts":[{"text":"install UnityPy"}]},
{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"pip install UnityPy"}}}]},
{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"run_shell_command","response":{"output":"Command: pip install UnityPy\nDirectory: (root)\nStdout: (empty)\nStderr: bash: line 1: pip: command not found\n\nError: (none)\nExit Code: 127\nSignal: (none)"}}}]},
{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"python -m venv venv"}}}]},
{"role":"user","parts":[{"functionResponse":{"id":"r2","name":"run_shell_command","response":{"output":"Command: python -m venv venv\nDirectory: (root)\nStdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)"}}}]}]`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := readGeminiCheckpoint(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Tools) != 2 || !ch.Tools[0].Failed() || ch.Tools[0].Error != "bash: line 1: pip: command not found" || ch.Tools[1].Failed() || !ch.Tools[1].HasResult {
		t.Errorf("tools %+v", ch.Tools)
	}
	// The response names the call: that is its id.
	if ch.Tools[0].ID != "r1" || ch.Tools[1].ID != "r2" {
		t.Errorf("ids %q %q, want the responses' r1 r2", ch.Tools[0].ID, ch.Tools[1].ID)
	}
}
