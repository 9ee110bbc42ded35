// readChatMarkdownFile reads a session that an export tool or script wrote
// as markdown, one heading per message naming who speaks: "## 👤 User" and
// "## 🤖 Claude" (claude-conversation-extractor), "### User" and
// "### Assistant" (session exporters that print each message's content
// blocks as JSON), "## user" and "## assistant"; or a bold label
// opening each message ("**User:** …", "**Claude:** …").
//
// What is read (docs/agents.md, "Conversations exported to markdown"):
//
//   - a message opens at a heading (one to four "#") whose words, past a
//     leading emoji, are only a speaker's name: the person (User, Human,
//     You) or the agent (Assistant, Claude, Agent, AI, Model, Codex,
//     Gemini, Copilot, Cursor), a time in parentheses allowed; a heading
//     in a fenced block is text;
//   - its body is text, or the message's content blocks as JSON (text,
//     tool_use, tool_result with is_error);
//   - "🔧 Using tool: Name" followed by "Input: {…}" is a call with its
//     input; such exports show no result;
//   - "Session ID:" and "Date:" lines before the first message, and a
//     "> 12/1/2025, 2:39:24 PM" line opening a message, give the session
//     and the times.
//
// What Claude Code writes into the person's messages (command output,
// task notifications, a compaction's summary) is not the person's words,
// as in its transcripts. Each record's id is "L<n>", the line of its
// heading (of a call: the line that opens it).

package sessions

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/transcript"
)

var (
	chatHeading   = regexp.MustCompile(`^#{1,4}\s+(.*?)\s*$`)
	chatLabel     = regexp.MustCompile(`^\*\*([^*]{1,40}?)(?::\*\*|\*\*\s*:)\s*(.*)$`)
	chatSession   = regexp.MustCompile(`(?i)^[-*\s]*\**session[ _-]?id\**\s*:\s*` + "`?" + `([0-9A-Za-z_-]{6,})`)
	chatDate      = regexp.MustCompile(`(?i)^[-*\s]*\**(?:date|started|first message)\**\s*:\s*(.+)$`)
	chatUsingTool = regexp.MustCompile(`^🔧 Using tool: (\S+)`)
)

// chatPerson and chatAgent are the speakers' names a heading may hold.
var (
	chatPerson = map[string]bool{"user": true, "human": true, "you": true}
	chatAgent  = map[string]bool{"assistant": true, "claude": true, "agent": true, "ai": true, "model": true, "codex": true, "gemini": true, "copilot": true, "cursor": true}
)

// chatRole is the speaker a line names, "" for any other line: a heading
// that holds only a speaker's name, or a bold label ("**User:** text"),
// whose text, when the line goes on, is the message's first.
func chatRole(line string) (role, text string) {
	var name string
	if m := chatHeading.FindStringSubmatch(line); m != nil {
		name = m[1]
	} else if m := chatLabel.FindStringSubmatch(line); m != nil {
		name, text = m[1], m[2]
	} else {
		return "", ""
	}
	rest := strings.TrimLeftFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if i := strings.IndexByte(rest, '('); i > 0 && strings.HasSuffix(rest, ")") {
		rest = rest[:i] // "User (2025-11-20 10:00)"
	}
	switch key := strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), ":"))); {
	case chatPerson[key]:
		return "user", text
	case chatAgent[key]:
		return "agent", text
	}
	return "", ""
}

// chatMarkdownHead reports whether a file that starts with head is a
// conversation exported to markdown: headings of the person and of the
// agent, three at least. strict (a file met in a folder) asks too for a
// first line that titles a conversation or a session ("# Claude
// Conversation Log"): a document may show a dialogue as an example.
func chatMarkdownHead(head []byte, strict bool) bool {
	if strict {
		first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \r\n\ufeff"), []byte("\n"))
		title := strings.ToLower(string(first))
		if !strings.HasPrefix(title, "# ") || !strings.Contains(title, "conversation") && !strings.Contains(title, "session") {
			return false
		}
	}
	person, agent := 0, 0
	fence := ""
	for _, l := range bytes.Split(head, []byte("\n")) {
		line := strings.TrimRight(string(l), "\r")
		if fence, _ = inFence(fence, line); fence != "" {
			continue
		}
		switch role, _ := chatRole(line); role {
		case "user":
			person++
		case "agent":
			agent++
		}
	}
	return person > 0 && agent > 0 && person+agent >= 3
}

// inFence is the fence a line leaves open ("" outside one), and whether
// the line opened or closed one.
func inFence(fence, line string) (string, bool) {
	t := strings.TrimSpace(line)
	if fence != "" {
		if strings.HasPrefix(t, fence) && strings.Trim(t, "`~") == "" {
			return "", true
		}
		return fence, false
	}
	if f := fenceOf(t); f != "" {
		return f, true
	}
	return "", false
}

var readChatMarkdownFile = fromSaved(readChatMarkdown)

// chatMessage is a message being read: its speaker, the line of its
// heading, its body's lines (with their numbers).
type chatMessage struct {
	role  string
	line  int
	lines []string
	nums  []int
}

type chatReader struct {
	b     *builder
	id    string
	at    time.Time
	msg   *chatMessage
	fence string // the fence of the block the line is in, "" outside one
}

func readChatMarkdown(r io.Reader, name, id string, at time.Time, opt transcript.Options) (*transcript.Channels, error) {
	cr := &chatReader{b: newBuilder(name, opt), id: id, at: at}
	cr.b.claude = true
	if err := eachLine(r, cr.b, name, cr.read); err != nil {
		return nil, err
	}
	cr.end()
	cr.b.session(id)
	return cr.b.done(), nil
}

// read reads one line: a heading opens a message; before the first, the
// export's header; else a line of the message.
func (cr *chatReader) read(n int, line string) {
	var toggled bool
	cr.fence, toggled = inFence(cr.fence, line)
	if cr.fence == "" && !toggled {
		if role, text := chatRole(line); role != "" {
			cr.end()
			cr.msg = &chatMessage{role: role, line: n}
			if text != "" {
				cr.msg.lines, cr.msg.nums = []string{text}, []int{n}
			}
			return
		}
	}
	if cr.msg == nil {
		if m := chatSession.FindStringSubmatch(line); m != nil {
			cr.b.session(m[1])
		} else if m := chatDate.FindStringSubmatch(line); m != nil {
			if t, ok := specTimeOf(m[1]); ok {
				cr.at = t
			}
		}
		return
	}
	cr.msg.lines = append(cr.msg.lines, line)
	cr.msg.nums = append(cr.msg.nums, n)
}

// chatBlock is a content block of a message printed as JSON.
type chatBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
}

// end hands the message read to the builder.
func (cr *chatReader) end() {
	msg := cr.msg
	cr.msg = nil
	if msg == nil {
		return
	}
	cr.b.session(cr.id)
	lines, nums := msg.lines, msg.nums
	// "> 12/1/2025, 2:39:24 PM": the message's time.
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines, nums = lines[1:], nums[1:]
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "> ") {
		if t, ok := specTimeOf(lines[0]); ok {
			cr.at = t
			lines, nums = lines[1:], nums[1:]
		}
	}
	// The separator the export puts after each message.
	for len(lines) > 0 && (strings.TrimSpace(lines[len(lines)-1]) == "" || strings.TrimSpace(lines[len(lines)-1]) == "---") {
		lines, nums = lines[:len(lines)-1], nums[:len(nums)-1]
	}
	m := transcript.Meta{UUID: fmt.Sprintf("L%d", msg.line), Timestamp: cr.at.Format(time.RFC3339), Line: msg.line}
	body := strings.TrimSpace(strings.Join(lines, "\n"))
	var blocks []chatBlock
	if strings.HasPrefix(body, "[") && jsonv2.Unmarshal([]byte(body), &blocks) == nil {
		cr.blocks(msg, m, blocks)
		return
	}
	if msg.role == "user" {
		cr.b.user(m, body, "")
		return
	}
	// The agent's words, and its calls as "🔧 Using tool: Name" with an
	// "Input: {…}" that runs until it parses.
	var text []string
	for i := 0; i < len(lines); i++ {
		t := lines[i]
		tm := chatUsingTool.FindStringSubmatch(strings.TrimSpace(t))
		if tm == nil {
			text = append(text, t)
			continue
		}
		call := m
		call.Line, call.UUID = nums[i], fmt.Sprintf("L%d", nums[i])
		var input []string
		if i+1 < len(lines) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "Input:"); ok {
				input = append(input, rest)
				i++
				for !jsontext.Value(strings.Join(input, "\n")).IsValid() && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "---" {
					i++
					input = append(input, lines[i])
				}
			}
		}
		cr.tool(call, call.UUID, tm[1], jsontext.Value(strings.TrimSpace(strings.Join(input, "\n"))))
	}
	if s := strings.TrimSpace(strings.Join(text, "\n")); s != "" {
		cr.b.assistant(m, s)
	}
}

// blocks hands a message printed as its content blocks to the builder.
func (cr *chatReader) blocks(msg *chatMessage, m transcript.Meta, blocks []chatBlock) {
	for _, bl := range blocks {
		switch {
		case bl.Type == "text" && msg.role == "user":
			cr.b.user(m, bl.Text, "")
		case bl.Type == "text":
			cr.b.assistant(m, bl.Text)
		case bl.Type == "tool_use" && msg.role == "agent":
			cr.tool(m, cmpOr(bl.ID, m.UUID), bl.Name, bl.Input)
		case bl.Type == "tool_result":
			out := jsonString(bl.Content)
			if out == "" {
				var parts []chatBlock
				jsonv2.Unmarshal(bl.Content, &parts)
				for _, p := range parts {
					out += p.Text
				}
			}
			cr.b.result(m, bl.ToolUseID, bl.IsError, out)
		}
	}
}

// tool is a call of name with its input, as Claude Code's tools take it.
func (cr *chatReader) tool(m transcript.Meta, id, name string, input jsontext.Value) {
	var args struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
	}
	jsonv2.Unmarshal(input, &args)
	var paths []string
	if p := cmpOr(args.FilePath, args.Path); p != "" {
		paths = []string{p}
	}
	if args.Command == "" && paths == nil {
		return
	}
	cr.b.tool(m, id, name, args.Command, paths, "")
}
