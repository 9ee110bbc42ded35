package chat

import (
	"os"
	"path/filepath"
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
	path := filepath.Join("testdata", "checkpoint-fix%20tests.json")
	at := time.Date(2025, 7, 4, 12, 0, 0, 0, time.UTC)
	copyPath := filepath.Join(t.TempDir(), "0f3a", filepath.Base(path))
	copyFile(t, path, copyPath)
	if err := os.Chtimes(copyPath, at, at); err != nil {
		t.Fatal(err)
	}
	ch, err := ReadCheckpoint(copyPath, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ch.SessionID, "checkpoint-fix tests-") || len(ch.Problems) != 0 {
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
	ch, err := ReadCheckpoint(filepath.Join("testdata", "checkpoint-wrapped.json"), transcript.Options{})
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
	ch, err := ReadCheckpoint(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Problems) != 1 || ch.Problems[0].Line != 2 || userTexts(ch) != "hello|still here" {
		t.Errorf("problems %v, said %q", ch.Problems, userTexts(ch))
	}
	write(t, path, `{"history": [`)
	if _, err := ReadCheckpoint(path, transcript.Options{}); err == nil {
		t.Error("a torn checkpoint read without error")
	}
}

// The session is the tag, decoded as Gemini CLI encodes it (raw before),
// with the project folder: one tag in two projects is two sessions.
func TestCheckpointSession(t *testing.T) {
	a := CheckpointSession("/h/.gemini/tmp/aaa/checkpoint-fix%20tests.json")
	b := CheckpointSession("/h/.gemini/tmp/bbb/checkpoint-fix%20tests.json")
	if !strings.HasPrefix(a, "checkpoint-fix tests-") || a == b || a != CheckpointSession("/elsewhere/aaa/checkpoint-fix%20tests.json") {
		t.Errorf("sessions %q %q", a, b)
	}
	if got := CheckpointSession("/t/p/checkpoint-100%.json"); !strings.HasPrefix(got, "checkpoint-100%-") {
		t.Errorf("raw tag %q", got)
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
		if got := IsCheckpoint(p); got != tc.want {
			t.Errorf("IsCheckpoint(%s) = %v", name, got)
		}
	}
	if !IsCheckpoint(filepath.Join("testdata", "checkpoint-fix%20tests.json")) || !IsCheckpoint(filepath.Join("testdata", "checkpoint-wrapped.json")) {
		t.Error("fixtures not recognised")
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

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(data))
}
