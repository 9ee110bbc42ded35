package sessions

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// A record written again under its id replaces the first; $rewindTo drops
// the message it names and all after; $set and metadata are not
// messages; a failed tool call keeps its error.
func TestReadGeminiChat(t *testing.T) {
	in := `{"sessionId":"s1","projectHash":"h","startTime":"2026-05-08T10:00:00.000Z"}
{"id":"m1","timestamp":"t1","type":"user","content":[{"text":"run the tests"}]}
{"id":"m2","timestamp":"t2","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"go test ./..."},"status":"executing"}]}
{"id":"m2","timestamp":"t2","type":"gemini","content":"They fail.","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"go test ./..."},"status":"error","resultDisplay":"FAIL x_test.go"}]}
{"id":"m2b","timestamp":"t2","type":"gemini","content":"","toolCalls":[{"id":"c2","name":"grep_search","args":{"pattern":"func Serve","dir_path":"/r"},"status":"success","resultDisplay":"1 match"}]}
{"id":"m3","timestamp":"t3","type":"user","content":"scrap that"}
{"id":"m4","timestamp":"t4","type":"gemini","content":"ok"}
{"$rewindTo":"m3"}
{"$set":{"summary":"x"}}
{"id":"m5","timestamp":"t5","type":"user","content":"you forgot go generate"}
not json
`
	ch, err := readGeminiChat(strings.NewReader(in), "c.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.SessionID != "s1" || len(ch.Problems) != 1 {
		t.Fatalf("session %q, problems %v", ch.SessionID, ch.Problems)
	}
	var said []string
	for _, u := range ch.UserSignals {
		said = append(said, u.Text)
	}
	if strings.Join(said, "|") != "run the tests|you forgot go generate" {
		t.Errorf("user signals %q", said)
	}
	if len(ch.Tools) != 2 || ch.Tools[0].Name != "Bash" || ch.Tools[0].Command != "go test ./..." || !ch.Tools[0].Failed() || ch.Tools[0].Error != "FAIL x_test.go" || ch.Tools[1].Name != "Grep" {
		t.Errorf("tools %+v", ch.Tools)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Assistant != "They fail." || ch.DialogPairs[0].Reply.Text != "you forgot go generate" {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
}

// Find lists, for the project folders of the working tree, the chat
// recordings, the checkpoints and the prompt log; not another project's,
// nor files that only look like them.
func TestFindGemini(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(t.TempDir(), "shop")
	ours := filepath.Join(home, "tmp", "shop")
	write(t, filepath.Join(ours, ".project_root"), root)
	write(t, filepath.Join(ours, "chats", "session-2026-05-08T10-00-s1.jsonl"), `{"sessionId":"s1","projectHash":"h"}`+"\n")
	copyFile(t, filepath.Join("testdata", "gemini", "checkpoint-wrapped.json"), filepath.Join(ours, "checkpoint-wrapped.json"))
	write(t, filepath.Join(ours, "checkpoint-notes.json"), `{"notes":[]}`)
	copyFile(t, filepath.Join("testdata", "gemini", "logs.json"), filepath.Join(ours, "logs.json"))
	write(t, filepath.Join(ours, "checkpoints", "2026-05-08T10-00-main.go-replace.json"), `{"history":[]}`)
	theirs := filepath.Join(home, "tmp", "other")
	write(t, filepath.Join(theirs, ".project_root"), "/elsewhere")
	copyFile(t, filepath.Join("testdata", "gemini", "logs.json"), filepath.Join(theirs, "logs.json"))
	got, err := findGemini(home, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(ours, "chats", "session-2026-05-08T10-00-s1.jsonl"),
		filepath.Join(ours, "checkpoint-wrapped.json"),
		filepath.Join(ours, "logs.json"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// In a chat recording too, the files an @path pulled in are cut from the
// prompt, and a summary recorded as a user message is not the person's.
func TestReadGeminiChatLeavesOutGeminisOwn(t *testing.T) {
	in := `{"sessionId":"s1","projectHash":"h"}
{"id":"m1","timestamp":"t1","type":"user","content":[{"text":"@a.go explain"},{"text":"\n--- Content from referenced files ---"},{"text":"package a"},{"text":"\n--- End of content ---"}]}
{"id":"m2","timestamp":"t2","type":"user","content":[{"text":"<state_snapshot>\n<overall_goal>explain</overall_goal>\n</state_snapshot>"}]}
{"id":"m3","timestamp":"t3","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}
`
	ch, err := readGeminiChat(strings.NewReader(in), "c.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := userTexts(ch); got != "@a.go explain" {
		t.Errorf("user signals %q", got)
	}
}

// A replace in GEMINI.md keeps the lines it adds; save_memory's fact,
// the person's own memory, is not kept.
func TestGeminiInstructionsAreKept(t *testing.T) {
	in := `{"sessionId":"s2","projectHash":"h","startTime":"2026-05-08T10:00:00.000Z"}
{"id":"m1","timestamp":"t1","type":"user","content":"remember that I want answers in Portuguese"}
{"id":"m2","timestamp":"t2","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"save_memory","args":{"fact":"The user wants answers in Portuguese."},"status":"success"},{"id":"c2","name":"replace","args":{"file_path":"/r/GEMINI.md","old_string":"# Notes\n","new_string":"# Notes\n- Run npm test before committing.\n"},"status":"success"}]}
`
	ch, err := readGeminiChat(strings.NewReader(in), "c.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Tools) != 2 || ch.Tools[0].Wrote != "" || ch.Tools[1].Wrote != "- Run npm test before committing.\n" {
		t.Errorf("tools %+v", ch.Tools)
	}
}
