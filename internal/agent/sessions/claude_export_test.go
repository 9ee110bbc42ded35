package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

// An export as Claude Code's /export writes it: the welcome box, prompts,
// messages, calls (one wrapped, one with a right-hand column), results,
// an interruption.
const claudeExport = `╭───────────────────────────────────────────────────╮
│ ✻ Welcome to Claude Code!                         │
│                                                   │
│   /help for help, /status for your current setup  │
│                                                   │
│   cwd: /home/dev/shop                             │
╰───────────────────────────────────────────────────╯

> the tests fail, fix them
  and never push to main yourself

⏺ I'll run them.

⏺ Bash(cd /home/dev/shop && python -m pytest tests/test_cart.py
      -q)
  ⎿  Waiting…

  ⎿  Error: Exit code 1
     ModuleNotFoundError: No module named 'pytz'

⏺ Bash(uv run pytest -q)                  timeout: 1m 0s
  ⎿  12 passed in 0.4s

⏺ Read(src/cart.py)
  ⎿  Error: File does not exist.

⏺ Update Todos
  ⎿  ☐ Fix the cart

⏺ Update(src/shop/cart.py)
  ⎿  Updated src/shop/cart.py with 1 addition
  ⎿  Interrupted by user

> use uv for everything here
✻ Worked for 31s

● Done.
`

// readExport writes text to a file named name and reads it as a folder's
// walk takes it up and as ingest opens it: one Claude Code export.
func readExport(t *testing.T, name, text string) *transcript.Channels {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	os.WriteFile(path, []byte(text), 0o644)
	if !IsFolderLog(path) {
		t.Fatal("an export with its welcome box is not taken up from a folder")
	}
	logs, ok := Open(path)
	if !ok || len(logs) != 1 || logs[0].Agent != "claude-code" {
		t.Fatalf("Open = %+v, %v", logs, ok)
	}
	ch, err := logs[0].Read(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestClaudeExport(t *testing.T) {
	ch := readExport(t, "2025-08-05-the-tests-fail-fix-them.txt", claudeExport)
	var said []string
	for _, u := range ch.UserSignals {
		said = append(said, u.UUID+" "+u.Text+" @"+u.Cwd)
	}
	want := []string{"L9 the tests fail, fix them\nand never push to main yourself @/home/dev/shop", "L34 use uv for everything here @/home/dev/shop"}
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q, want %q", said, want)
	}
	if ch.UserSignals[0].Timestamp != "2025-08-05T00:00:00Z" {
		t.Errorf("time %q, want the date of the file's name", ch.UserSignals[0].Timestamp)
	}
	var got []string
	for _, c := range ch.Tools {
		got = append(got, strings.Join([]string{c.ID, c.Name, c.Command + strings.Join(c.Paths, ","), map[bool]string{true: "failed: " + c.Error, false: "ok"}[c.IsError]}, " "))
	}
	wantTools := []string{
		"L14 Bash cd /home/dev/shop && python -m pytest tests/test_cart.py -q failed: Exit code 1\nModuleNotFoundError: No module named 'pytz'",
		"L21 Bash uv run pytest -q ok",
		"L24 Read src/cart.py failed: File does not exist.",
		"L30 Edit src/shop/cart.py ok",
	}
	if strings.Join(got, "|") != strings.Join(wantTools, "|") {
		t.Errorf("calls:\n%q\nwant\n%q", got, wantTools)
	}
	// What the agent wrote before a call is kept with it, once.
	if ch.Tools[0].Said != "I'll run them." || ch.Tools[1].Said != "" {
		t.Errorf("said before the calls: %q, %q", ch.Tools[0].Said, ch.Tools[1].Said)
	}
	if len(ch.DialogPairs) != 2 || ch.DialogPairs[0].Reply == nil || ch.DialogPairs[0].Assistant != "I'll run them." || ch.DialogPairs[1].Assistant != "Done." {
		t.Errorf("dialog %+v", ch.DialogPairs)
	}
}

// Text that only quotes a conversation is an export when named alone, not
// when a folder is walked; other text is none.
func TestClaudeExportNotOthers(t *testing.T) {
	dir := t.TempDir()
	quoted := filepath.Join(dir, "notes.md")
	os.WriteFile(quoted, []byte("# What happened\n\n> run it\n\n⏺ Bash(make)\n  ⎿  ok\n⏺ Done.\n"), 0o644)
	if IsFolderLog(quoted) {
		t.Error("a file quoting a session taken up from a folder")
	}
	if _, ok := Open(quoted); !ok {
		t.Error("a conversation named alone is not read")
	}
	plain := filepath.Join(dir, "README.md")
	os.WriteFile(plain, []byte("# Shop\n\n> a quote\n\n● a bullet\n"), 0o644)
	if _, ok := Open(plain); ok {
		t.Error("a README taken for an export")
	}
}

// A terminal copied by hand may hold no-break spaces where Claude Code
// wrote spaces, and the command that started it above the welcome box:
// the same export.
func TestClaudeExportCopied(t *testing.T) {
	text := "claude\n" + strings.NewReplacer("  ⎿  ", "  ⎿ \u00a0", "⏺ ", "⏺\u00a0").Replace(claudeExport)
	ch := readExport(t, "LAST_CLAUDE_CODE_CHAT.md", text)
	if len(ch.UserSignals) != 2 || len(ch.Tools) != 4 || !ch.Tools[0].IsError {
		t.Errorf("read %d prompts and %d calls (%+v)", len(ch.UserSignals), len(ch.Tools), ch.Tools)
	}
}

// What opens a copied export: the command that started it, a blank line
// after it or none; Claude Code 2's narrow box, whose top border names it,
// is the box, not a command. A copy without its box, named alone, is
// read by its marks, no-break spaces and all.
func TestClaudeExportHeads(t *testing.T) {
	box := claudeExport[:strings.Index(claudeExport, "\n\n>")]
	narrow := "╭─── Claude Code v2.1.0 ───╮\n│ Welcome back! │\n╰──────────────╯\n"
	for _, c := range []struct {
		name, head string
		strict     bool
	}{
		{"the command, then the box", "claude\n" + box, true},
		{"the command, a blank line, then the box", "$ claude --resume\r\n\r\n" + box, true},
		{"a long prompt before the command", "me@box:~/projects/shop-frontend/packages/web (feature/cart-rework) $ claude --resume\n" + box, true},
		{"Claude Code 2's narrow box", narrow, true},
		{"a copy without its box, named alone", "> fix it\n\n⏺ I'll run them.\n\n⏺ Bash(go test ./...)\n  ⎿ \u00a0ok\n", false},
	} {
		if !claudeExportHead([]byte(c.head), c.strict) {
			t.Errorf("%s: not taken for an export", c.name)
		}
	}
	if claudeExportHead([]byte("claude\nnotes on the model\n"), true) {
		t.Error("a note that names claude taken for an export")
	}
}

// Older exports close a call's line with ")…", fold long ones, and wrap a
// result at the terminal's width keeping the space it broke at.
func TestClaudeExportOlder(t *testing.T) {
	text := "> check the types\n\n" +
		"⏺ Bash(cd /home/dev/dvr && npm run typecheck)…\n" +
		"  ⎿  Error: src/capture.ts(1,8): error TS1192: Module \n" +
		"     '\"aperture\"' has no default export.\n\n" +
		"⏺ Bash(for f in $(ls -1t *.mp4 | head -5); do…\n" +
		"      … (ctrl+r to expand))\n" +
		"  ⎿  (No content)\n"
	ch, err := readClaudeExport(strings.NewReader(text), "x.txt", "x", time.Time{}, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Tools) != 2 {
		t.Fatalf("calls %+v", ch.Tools)
	}
	if c := ch.Tools[0]; c.Command != "cd /home/dev/dvr && npm run typecheck" || c.Error != `src/capture.ts(1,8): error TS1192: Module '"aperture"' has no default export.` {
		t.Errorf("first call: %q, %q", c.Command, c.Error)
	}
	if c := ch.Tools[1]; c.Command != "for f in $(ls -1t *.mp4 | head -5); do" || c.IsError {
		t.Errorf("folded call: %q", c.Command)
	}
}

// Claude Code's errors about how a tool was used are told apart in its
// export as in its transcripts, though the export drops their tags.
func TestClaudeExportProtocol(t *testing.T) {
	text := "> write it\n\n⏺ Write(a.go)\n  ⎿  Error: File has not been read yet. Read it first before writing to it.\n\n" +
		"⏺ Bash(sleep 30 && tail job.log)\n  ⎿  Error: Blocked: sleep 30 followed by: tail job.log. To wait for a command you started, use run_in_background: true.\n\n" +
		"⏺ Bash(go test ./...)\n  ⎿  Error: Exit code 1\n     FAIL x\n"
	ch, err := readClaudeExport(strings.NewReader(text), "x.txt", "x", time.Time{}, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []bool
	for _, c := range ch.Tools {
		got = append(got, c.Protocol)
	}
	if len(got) != 3 || !got[0] || !got[1] || got[2] {
		t.Errorf("protocol errors %v, want [true true false]", got)
	}
}

// A name that gives no date is one a person may save each new session
// over: each session saved there is its own, by its first message, and a
// later save of the same session, grown, is the same one. A dated name
// stays the session's id.
func TestSavedLogSessionIDs(t *testing.T) {
	idOf := func(name, text string) string {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		os.WriteFile(path, []byte(text), 0o644)
		logs, ok := Open(path)
		if !ok || len(logs) != 1 {
			t.Fatalf("Open(%s) = %+v, %v", name, logs, ok)
		}
		ch, err := logs[0].Read(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range ch.UserSignals {
			if u.SessionID != ch.SessionID {
				t.Fatalf("%s: a record of session %q in session %q", name, u.SessionID, ch.SessionID)
			}
		}
		return ch.SessionID
	}
	other := strings.Replace(claudeExport, "> the tests fail, fix them", "> add the settings page", 1)
	grown := claudeExport + "\n> now commit it\n\n● Committed.\n"
	first := idOf("contexto.txt", claudeExport)
	if !strings.HasPrefix(first, "contexto-") || len(first) != len("contexto-")+8 {
		t.Errorf("id %q, want the name and a hash of the first message", first)
	}
	if second := idOf("contexto.txt", other); second == first {
		t.Errorf("two sessions saved under one name share the id %q", first)
	}
	if again := idOf("contexto.txt", grown); again != first {
		t.Errorf("the same session saved again, grown: %q, then %q", first, again)
	}
	if dated := idOf("2025-08-05-the-tests-fail-fix-them.txt", claudeExport); dated != "2025-08-05-the-tests-fail-fix-them" {
		t.Errorf("a dated name: id %q", dated)
	}
}
