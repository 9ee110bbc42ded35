package sessions

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

func userTexts(ch *transcript.Channels) string {
	var out []string
	for _, u := range ch.UserSignals {
		out = append(out, u.Text)
	}
	return strings.Join(out, "|")
}

// A mid-2025 checkpoint (testdata/README.md): the setup context and the
// model's acknowledgement are Gemini CLI's, not the person's or the
// agent's words, and the setup's directory is the cwd; the files an @path
// pulled in, the nudge, thoughts and read_many_files' extra parts are
// left out; calls without ids get their results in order, an error
// response is a failed call with its text, a cancelled one has no
// outcome; the file's time dates every record.
func TestReadCheckpoint(t *testing.T) {
	path := filepath.Join("testdata", "gemini", "checkpoint-fix%20tests.json")
	at := time.Date(2025, 7, 4, 12, 0, 0, 0, time.UTC)
	copyPath := filepath.Join(t.TempDir(), "0f3a", filepath.Base(path))
	copyFile(t, path, copyPath)
	if err := os.Chtimes(copyPath, at, at); err != nil {
		t.Fatal(err)
	}
	ch, err := readGeminiCheckpoint(copyPath, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ch.SessionID, "checkpoint-") || len(ch.Problems) != 0 {
		t.Fatalf("session %q, problems %v", ch.SessionID, ch.Problems)
	}
	if got := userTexts(ch); got != "@notes.md fix the failing tests|never delete the cache, run go mod init first" {
		t.Errorf("user signals %q", got)
	}
	for _, u := range ch.UserSignals {
		if u.Cwd != "/home/dev/shop" || u.Timestamp != "2025-07-04T12:00:00Z" {
			t.Errorf("signal %+v: want the setup's cwd and the file's time", u)
		}
	}
	if len(ch.Tools) != 4 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	test, read, many, rm := ch.Tools[0], ch.Tools[1], ch.Tools[2], ch.Tools[3]
	if test.Name != "Bash" || test.Command != "go test ./..." || !test.Failed() || test.Error != "Command failed: go: cannot find main module" || test.Cwd != "/home/dev/shop" {
		t.Errorf("go test %+v", test)
	}
	if read.Name != "Read" || len(read.Paths) != 1 || read.Paths[0] != "/home/dev/shop/main.go" || !read.HasResult || read.IsError {
		t.Errorf("read %+v", read)
	}
	if many.Name != "Read" || !many.HasResult || many.IsError {
		t.Errorf("read_many_files %+v", many)
	}
	if rm.Command != "rm -rf .cache" || rm.HasResult || rm.IsError {
		t.Errorf("cancelled call %+v: want no outcome", rm)
	}
	var turns []string
	for _, d := range ch.DialogPairs {
		turns = append(turns, d.Assistant)
	}
	if got := strings.Join(turns, "|"); got != "Running the tests.\n\nDeleting the cache.\n\nThe module file is missing." {
		t.Errorf("agent turns %q", got)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Reply == nil || ch.DialogPairs[0].Reply.Text != "never delete the cache, run go mod init first" {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
}

// The later {history, authType} checkpoint: the 2026 setup names its
// first workspace directory; responses find their calls by id, in any
// order; a compression summary and its acknowledgement are Gemini CLI's.
func TestReadCheckpointWrapped(t *testing.T) {
	ch, err := readGeminiCheckpoint(filepath.Join("testdata", "gemini", "checkpoint-wrapped.json"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := userTexts(ch); got != "rename the handler" {
		t.Errorf("user signals %q", got)
	}
	if ch.UserSignals[0].Cwd != "/Users/dev/shop" {
		t.Errorf("cwd %q", ch.UserSignals[0].Cwd)
	}
	if len(ch.Tools) != 2 || !ch.Tools[0].Failed() || ch.Tools[0].Paths[0] != "/Users/dev/shop/main.go" || ch.Tools[0].Error != "Failed to edit, could not find the string to replace." || ch.Tools[1].IsError || !ch.Tools[1].HasResult {
		t.Errorf("tools %+v", ch.Tools)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Assistant != "main.go still has the old name." {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
}

// A Content that is not one is a problem of its own; the rest is read.
func TestReadCheckpointBadTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint-x.json")
	write(t, path, `[{"role":"user","parts":[{"text":"hello"}]},{"role":"model","parts":"oops"},{"role":"user","parts":[{"text":"still here"}]}]`)
	ch, err := readGeminiCheckpoint(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Problems) != 1 || ch.Problems[0].Line != 2 || userTexts(ch) != "hello|still here" {
		t.Errorf("problems %v, said %q", ch.Problems, userTexts(ch))
	}
	write(t, path, `{"history": [`)
	if _, err := readGeminiCheckpoint(path, transcript.Options{}); err == nil {
		t.Error("a torn checkpoint read without error")
	}
}

// A checkpoint's session is its conversation: saved under two tags, or
// again after more turns, it is one session whose records keep their
// ids; another first prompt is another conversation.
func TestCheckpointConversation(t *testing.T) {
	dir := t.TempDir()
	const start = `{"role":"user","parts":[{"text":"This is the Gemini CLI. We are setting up the context for our chat.\nI'm currently working in the directory: /w"}]},{"role":"model","parts":[{"text":"Got it. Thanks for the context!"}]},`
	first := filepath.Join(dir, "a", "checkpoint-sound.json")
	write(t, first, `[`+start+`{"role":"user","parts":[{"text":"rename my speakers"}]},{"role":"model","parts":[{"text":"Done."}]}]`)
	again := filepath.Join(dir, "b", "checkpoint-sound2.json")
	write(t, again, `{"history":[`+start+`{"role":"user","parts":[{"text":"rename my speakers"}]},{"role":"model","parts":[{"text":"Done."}]},{"role":"user","parts":[{"text":"and the microphone"}]}]}`)
	other := filepath.Join(dir, "a", "checkpoint-other.json")
	write(t, other, `[`+start+`{"role":"user","parts":[{"text":"rename my microphone"}]}]`)
	read := func(p string) *transcript.Channels {
		ch, err := readGeminiCheckpoint(p, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	a, b, c := read(first), read(again), read(other)
	if a.SessionID != b.SessionID || a.SessionID == c.SessionID || !strings.HasPrefix(a.SessionID, "checkpoint-") {
		t.Errorf("sessions %q %q %q", a.SessionID, b.SessionID, c.SessionID)
	}
	if a.UserSignals[0].UUID != b.UserSignals[0].UUID || len(b.UserSignals) != 2 {
		t.Errorf("records %+v / %+v", a.UserSignals, b.UserSignals)
	}
}

// A checkpoint whose every prompt a chat recording of its folder holds is
// that chat saved; one with a prompt no recording has is not.
func TestRecorded(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "checkpoint-t.json")
	write(t, ckpt, `[{"role":"user","parts":[{"text":"@a.go explain"},{"text":"\n--- Content from referenced files ---"},{"text":"package a"},{"text":"\n--- End of content ---"}]},{"role":"model","parts":[{"text":"It is empty."}]}]`)
	if geminiRecorded(ckpt) {
		t.Error("recorded with no recording")
	}
	write(t, filepath.Join(dir, "chats", "session-2026-01-02T10-00-s1.jsonl"), `{"sessionId":"s1","projectHash":"h"}
{"id":"m1","timestamp":"2026-01-02T10:00:00.000Z","type":"user","content":[{"text":"@a.go explain"},{"text":"\n--- Content from referenced files ---"},{"text":"package a"},{"text":"\n--- End of content ---"}]}
`)
	if !geminiRecorded(ckpt) {
		t.Error("not recorded")
	}
	write(t, ckpt, `[{"role":"user","parts":[{"text":"@a.go explain"}]},{"role":"user","parts":[{"text":"and b.go"}]}]`)
	if geminiRecorded(ckpt) {
		t.Error("recorded, with a prompt no recording has")
	}
}

func TestIsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		body string
		want bool
	}{
		"checkpoint-a.json": {`[{"role":"user","parts":[{"text":"x"}]}]`, true},
		"checkpoint-b.json": {`{"authType":"x","history":[{"role":"model","parts":[]}]}`, true},
		"checkpoint-c.json": {`{"history":{}}`, false},
		"checkpoint-d.json": {`[{"sessionId":"s"}]`, false},
		"checkpoint-e.json": {`[]`, false},
		"session-f.json":    {`[{"role":"user","parts":[]}]`, false},
		"checkpoint-g.txt":  {`[{"role":"user","parts":[]}]`, false},
	} {
		p := filepath.Join(dir, name)
		write(t, p, tc.body)
		if got := isGeminiCheckpoint(p); got != tc.want {
			t.Errorf("isGeminiCheckpoint(%s) = %v", name, got)
		}
	}
	if !isGeminiCheckpoint(filepath.Join("testdata", "gemini", "checkpoint-fix%20tests.json")) || !isGeminiCheckpoint(filepath.Join("testdata", "gemini", "checkpoint-wrapped.json")) {
		t.Error("fixtures not recognised")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(data))
}

// Older checkpoints give a file tool's refused call its reason as the
// output: the call failed, with that reason; a file's content is not.
func TestReadCheckpointRefusedInOutput(t *testing.T) {
	const refused = `Error: Invalid parameters provided. Reason: Search path ("/mnt/ssd2/export") resolves outside the tool's root directory ("/mnt/ssd2/two").`
	history := `[{"role":"user","parts":[{"text":"find the texts"}]},
{"role":"model","parts":[{"functionCall":{"id":"g1","name":"glob","args":{"path":"/mnt/ssd2/export","pattern":"**/*"}}},{"functionCall":{"id":"r1","name":"read_file","args":{"absolute_path":"/mnt/ssd2/two/notes.txt"}}}]},
{"role":"user","parts":[{"functionResponse":{"id":"g1","name":"glob","response":{"output":` + strconv.Quote(refused) + `}}},{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"Error: none of this is a refusal"}}}]}]`
	path := filepath.Join(t.TempDir(), "checkpoint-texts.json")
	if err := os.WriteFile(path, []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, err := readGeminiCheckpoint(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Tools) != 2 || !ch.Tools[0].Failed() || ch.Tools[0].Error != refused || ch.Tools[1].IsError || !ch.Tools[1].HasResult {
		t.Errorf("tools %+v", ch.Tools)
	}
}
