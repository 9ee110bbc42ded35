package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two layouts export tools write: headings with emoji and "🔧 Using
// tool:" calls, and headings whose messages are their content blocks as
// JSON.
const chatExtractor = `# Claude Conversation Log

Session ID: 6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b
Date: 2025-11-20 00:18:21

---

## 👤 User

the build fails on the ppc box, keep the sources in ~/tmp so they survive a reboot

---

## 🤖 Claude

I'll look.

---

## 🤖 Claude


🔧 Using tool: Bash
Input: {
  "command": "make -C ~/tmp/tcc",
  "description": "Build"
}


---

## 👤 User

<task-notification>
<task-id>b1</task-id>
</task-notification>

---

## 👤 User

` + "```md" + `
## User
not a turn
` + "```" + `
thanks

---
`

const chatBlocks = `# Claude Session Export

- **Session ID**: ` + "`1a28ea9b-c093-40c1-b7f2-654823846c41`" + `

## Conversation

### User
> 12/1/2025, 2:39:24 PM

[[ ]] does not create links in siyuan

---

### Assistant
> 12/1/2025, 2:39:29 PM

[
  {
    "type": "tool_use",
    "id": "toolu_1",
    "name": "Bash",
    "input": {"command": "siyuan-cli export"}
  }
]

---

### User
> 12/1/2025, 2:39:31 PM

[
  {
    "tool_use_id": "toolu_1",
    "type": "tool_result",
    "content": "siyuan-cli: command not found",
    "is_error": true
  }
]

---
`

func TestChatMarkdownExtractor(t *testing.T) {
	ch := readLog(t, "claude-code", "claude-conversation-2025-11-20-6a1f0c2e.md", chatExtractor)
	if ch.SessionID != "6a1f0c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b" {
		t.Errorf("session %q", ch.SessionID)
	}
	var said []string
	for _, u := range ch.UserSignals {
		said = append(said, u.UUID+" "+u.Timestamp+" "+u.Text)
	}
	want := []string{
		"L8 2025-11-20T00:18:21Z the build fails on the ppc box, keep the sources in ~/tmp so they survive a reboot",
		"L40 2025-11-20T00:18:21Z ```md\n## User\nnot a turn\n```\nthanks",
	}
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("the person's turns:\n%q\nwant\n%q (a task's notification is not theirs; a heading in a block is text)", said, want)
	}
	if len(ch.Tools) != 1 || ch.Tools[0].Command != "make -C ~/tmp/tcc" || ch.Tools[0].ID != "L23" {
		t.Errorf("calls %+v", ch.Tools)
	}
}

func TestChatMarkdownBlocks(t *testing.T) {
	ch := readLog(t, "claude-code", "export.md", chatBlocks)
	if ch.SessionID != "1a28ea9b-c093-40c1-b7f2-654823846c41" || len(ch.UserSignals) != 1 || ch.UserSignals[0].Timestamp != "2025-12-01T14:39:24Z" {
		t.Fatalf("%q %+v", ch.SessionID, ch.UserSignals)
	}
	if len(ch.Tools) != 1 || !ch.Tools[0].IsError || ch.Tools[0].Command != "siyuan-cli export" || ch.Tools[0].Error != "siyuan-cli: command not found" {
		t.Errorf("calls %+v", ch.Tools)
	}
	if len(ch.UserSignals) != 1 {
		t.Errorf("a tool's result taken for the person's words: %+v", ch.UserSignals)
	}
}

// A document with a heading that names a speaker is no conversation; one
// that shows a dialogue is read when named alone, not met in a folder.
func TestChatMarkdownNotOthers(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "roles.md")
	os.WriteFile(doc, []byte("# Roles\n\n## User\n\nA person.\n\n## User Guide\n\nRead it.\n"), 0o644)
	if _, ok := Open(doc); ok {
		t.Error("a document of roles read as a conversation")
	}
	example := filepath.Join(dir, "prompting.md")
	os.WriteFile(example, []byte("# Prompting\n\n### Human\n\nhi\n\n### Assistant\n\nhello\n\n### Human\n\nbye\n"), 0o644)
	if IsFolderLog(example) {
		t.Error("an example dialogue taken up from a folder")
	}
	if _, ok := Open(example); !ok {
		t.Error("a dialogue named alone is not read")
	}
}

// Bold labels open messages too, their text on the same line.
func TestChatMarkdownLabels(t *testing.T) {
	text := "# Session\n\n**User:** never push to main\n\n**Claude:** Understood.\n\n**User**: and run the linter first\n"
	ch := readLog(t, "claude-code", "labels.md", text)
	var said []string
	for _, u := range ch.UserSignals {
		said = append(said, u.UUID+" "+u.Text)
	}
	if want := "L3 never push to main|L7 and run the linter first"; strings.Join(said, "|") != want {
		t.Errorf("turns %q, want %q", said, want)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Assistant != "Understood." {
		t.Errorf("dialog %+v", ch.DialogPairs)
	}
}
