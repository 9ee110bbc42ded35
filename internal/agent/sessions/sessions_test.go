package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Open: a logs.json is one Log per session, each reading its own; a
// checkpoint is one session, none once a chat recording beside it holds
// its prompts; a file that is no agent's is not opened; a
// logs.json that cannot be read is one Log that says why when read.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs.json")
	write(t, logs, `[{"sessionId":"a","messageId":0,"type":"user","message":"first","timestamp":"t"},
{"sessionId":"b","messageId":0,"type":"user","message":"second","timestamp":"t"},
{"sessionId":"a","messageId":1,"type":"user","message":"third","timestamp":"t"}]`)
	got, ok := Open(logs)
	if !ok || len(got) != 2 || got[0].Session != "a" || got[1].Session != "b" || got[0].Agent != "gemini" || got[0].Path != logs {
		t.Fatalf("logs.json: %+v, %v", got, ok)
	}
	for i, want := range []int{2, 1} {
		ch, err := got[i].Read(got[i].Path, transcript.Options{})
		if err != nil || ch.SessionID != got[i].Session || len(ch.UserSignals) != want {
			t.Errorf("session %s: %+v, %v", got[i].Session, ch, err)
		}
	}

	ckpt := filepath.Join(dir, "checkpoint-t.json")
	write(t, ckpt, `[{"role":"user","parts":[{"text":"hello"}]}]`)
	if got, ok := Open(ckpt); !ok || len(got) != 1 || got[0].Session != "" || got[0].Agent != "gemini" {
		t.Errorf("checkpoint: %+v, %v", got, ok)
	}
	write(t, filepath.Join(dir, "chats", "session-2026-01-02T10-00-s1.jsonl"), `{"sessionId":"s1","projectHash":"h"}
{"id":"m1","timestamp":"2026-01-02T10:00:00.000Z","type":"user","content":"hello"}
`)
	if got, ok := Open(ckpt); !ok || len(got) != 0 {
		t.Errorf("checkpoint of a recorded chat: %+v, %v; want no session", got, ok)
	}
	if ReaderFor(ckpt) == nil || ReaderFor(logs) != nil {
		t.Error("ReaderFor: a checkpoint is one session, a logs.json is not")
	}

	other := filepath.Join(dir, "notes.json")
	write(t, other, `[]`)
	if got, ok := Open(other); ok || got != nil {
		t.Errorf("not an agent's: %+v, %v", got, ok)
	}

	torn := filepath.Join(t.TempDir(), "logs.json")
	write(t, torn, `[{"sessionId":"a","messageId":0,"type":"user","message":"first","timestamp":"t"}, {`)
	got, ok = Open(torn)
	if !ok || len(got) != 1 {
		t.Fatalf("torn logs.json: %+v, %v", got, ok)
	}
	if _, err := got[0].Read(torn, transcript.Options{}); err == nil {
		t.Error("a torn logs.json read without error")
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
