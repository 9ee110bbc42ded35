package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Claude Code's prompt history: a session by its id, or, before versions
// wrote one, by project and pause; sessions whose transcript is beside it
// are left to the transcript; commands, shell escapes and pastes are not
// the person's words.
func TestClaudeHistory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "projects", "-work-kept"), 0o755)
	os.WriteFile(filepath.Join(dir, "projects", "-work-kept", "s-kept.jsonl"), []byte("{}\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "projects", "-work-old-kept"), 0o755)
	os.WriteFile(filepath.Join(dir, "projects", "-work-old-kept", "x.jsonl"), []byte("{}\n"), 0o644)
	lines := []string{
		`{"display":"from now on run make lint before you commit","pastedContents":{},"timestamp":1750000000000,"project":"/work/app","sessionId":"s1"}`,
		`{"display":"/model sonnet","pastedContents":{},"timestamp":1750000001000,"project":"/work/app","sessionId":"s1"}`,
		`{"display":"!ls","pastedContents":{},"timestamp":1750000002000,"project":"/work/app","sessionId":"s1"}`,
		`{"display":"why does it fail [Pasted text #1 +20 lines]","pastedContents":{"1":{"id":1,"type":"text","content":"Traceback"}},"timestamp":1750000003000,"project":"/work/app","sessionId":"s1"}`,
		`{"display":"read by its transcript","pastedContents":{},"timestamp":1750000004000,"project":"/work/kept","sessionId":"s-kept"}`,
		`{"display":"old one","pastedContents":{},"timestamp":1700000000000,"project":"/work/old"}`,
		`{"display":"old two, same sitting","pastedContents":{},"timestamp":1700000600000,"project":"/work/old"}`,
		`{"display":"old three, the next day","pastedContents":{},"timestamp":1700090000000,"project":"/work/old"}`,
		`{"display":"old, its project's transcripts are beside","pastedContents":{},"timestamp":1700000000000,"project":"/work/old/kept"}`,
	}
	path := filepath.Join(dir, "history.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	logs, ok := Open(path)
	if !ok {
		t.Fatal("history.jsonl not taken for Claude Code's history")
	}
	var got []string
	for _, l := range logs {
		ch, err := l.Read(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, u := range ch.UserSignals {
			said = append(said, u.Text+" @"+u.Cwd)
		}
		got = append(got, strings.Join(said, " + "))
		if l.Session == "s1" && ch.UserSignals[0].Timestamp != "2025-06-15T15:06:40Z" {
			t.Errorf("time %q", ch.UserSignals[0].Timestamp)
		}
	}
	want := []string{
		"from now on run make lint before you commit @/work/app + why does it fail @/work/app",
		"old one @/work/old + old two, same sitting @/work/old",
		"old three, the next day @/work/old",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sessions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
