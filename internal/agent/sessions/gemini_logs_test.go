package sessions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// A logs.json (testdata/README.md) is one session per sessionId, in the
// order of each one's first prompt, each with its prompts in order and
// their times; slash commands are Gemini CLI's and left out (a session of
// nothing else is none), a "//" comment is not one; entries not in the
// logger's shape are skipped; the folder's .project_root is the cwd.
func TestLoadPrompts(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "gemini", "logs.json"), filepath.Join(dir, "logs.json"))
	write(t, filepath.Join(dir, ".project_root"), "/home/dev/shop\n")
	l, err := loadGeminiPrompts(filepath.Join(dir, "logs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.sessions, " "); got != "s-one s-two" {
		t.Fatalf("sessions %q", got)
	}
	one := l.read("s-one", transcript.Options{})
	if one.SessionID != "s-one" || userTexts(one) != "add a /health endpoint|you forgot the tests again" || len(one.Tools) != 0 || len(one.DialogPairs) != 0 {
		t.Errorf("s-one %+v", one)
	}
	if u := one.UserSignals[1]; u.Timestamp != "2025-07-02T10:06:00.000Z" || u.UUID != "s-one:2" || u.Cwd != "/home/dev/shop" {
		t.Errorf("prompt %+v", u)
	}
	two := l.read("s-two", transcript.Options{})
	if got := userTexts(two); got != "// not a command: a comment|always run gofmt before committing" {
		t.Errorf("s-two %q", got)
	}
}

// A prompt that a checkpoint or a chat recording beside logs.json holds is
// read there, with its replies, not a second time from logs.json.
func TestLoadPromptsHeldBeside(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "gemini", "logs.json"), filepath.Join(dir, "logs.json"))
	write(t, filepath.Join(dir, "checkpoint-health.json"), `[{"role":"user","parts":[{"text":"add a /health endpoint"}]},{"role":"model","parts":[{"text":"Added."}]}]`)
	write(t, filepath.Join(dir, "chats", "session-2025-07-03T09-00-s-two.jsonl"), `{"sessionId":"s-two","projectHash":"h","startTime":"2025-07-03T09:00:00.000Z"}
{"id":"m1","timestamp":"2025-07-03T09:04:00.000Z","type":"user","content":[{"text":"always run gofmt before committing"}]}
`)
	l, err := loadGeminiPrompts(filepath.Join(dir, "logs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.sessions, " "); got != "s-one s-two" {
		t.Fatalf("sessions %q", got)
	}
	if got := userTexts(l.read("s-one", transcript.Options{})); got != "you forgot the tests again" {
		t.Errorf("s-one %q", got)
	}
	if got := userTexts(l.read("s-two", transcript.Options{})); got != "// not a command: a comment" {
		t.Errorf("s-two %q", got)
	}
}

func TestLoadPromptsNotJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "logs.json")
	write(t, p, `[{"sessionId":`)
	if _, err := loadGeminiPrompts(p); err == nil {
		t.Error("a torn logs.json read without error")
	}
}

func TestIsPromptLog(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]bool{
		`[]`: true, // as Gemini CLI first writes it
		`[{"sessionId":"s","messageId":0,"type":"user","message":"x","timestamp":"t"}]`: true,
		`[{"role":"user","parts":[]}]`: false,
		`{"sessionId":"s"}`:            false,
	} {
		p := filepath.Join(dir, "logs.json")
		write(t, p, body)
		if got := isGeminiPromptLog(p); got != want {
			t.Errorf("isGeminiPromptLog(%s) = %v", body, got)
		}
	}
	p := filepath.Join(dir, "other.json")
	write(t, p, `[]`)
	if isGeminiPromptLog(p) {
		t.Error("a file not named logs.json recognised")
	}
}
