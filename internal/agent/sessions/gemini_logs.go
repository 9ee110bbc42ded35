package sessions

import (
	"fmt"
	"path/filepath"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// geminiPromptLogName is the file Gemini CLI logs every prompt of a project to.
const geminiPromptLogName = "logs.json"

// entry is a LogEntry of Gemini CLI's logger.
type entry struct {
	SessionID string         `json:"sessionId"`
	MessageID jsontext.Value `json:"messageId"`
	Timestamp string         `json:"timestamp"`
	Type      string         `json:"type"`
	Message   string         `json:"message"`
}

type prompt struct {
	uuid, at, text string
	line           int
}

// geminiPromptLog is a logs.json read: the person's prompts of every session of
// one project, by session. It holds no replies and no tool calls.
type geminiPromptLog struct {
	name     string
	cwd      string
	sessions []string // those with a prompt left to read, in the order of their first
	prompts  map[string][]prompt
}

// loadGeminiPrompts reads the logs.json at path. Left out: entries not in the
// logger's shape (Gemini CLI drops them too), slash commands (Gemini
// CLI's, not words to the model), and every prompt that a chat recording
// or a checkpoint beside the file holds: those files have the replies and
// the tool calls too, and a prompt read from both would count twice. The
// cwd is the project's root when the folder names it (.project_root).
func loadGeminiPrompts(path string) (*geminiPromptLog, error) {
	data, err := safefile.ReadRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read prompt log: %w", err)
	}
	var raw []jsontext.Value
	if err := jsonv2.Unmarshal(data, &raw, lenient); err != nil {
		return nil, fmt.Errorf("read prompt log %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	held := heldBeside(dir)
	l := &geminiPromptLog{name: path, prompts: map[string][]prompt{}}
	if root, err := safefile.ReadRegular(filepath.Join(dir, ".project_root")); err == nil {
		l.cwd = strings.TrimSpace(string(root))
	}
	for i, v := range raw {
		var e entry
		if jsonv2.Unmarshal(v, &e, lenient) != nil || e.SessionID == "" || e.Type != "user" {
			continue
		}
		text := strings.TrimSpace(e.Message)
		if text == "" || isSlashCommand(text) || held[normal(text)] {
			continue
		}
		if _, ok := l.prompts[e.SessionID]; !ok {
			l.sessions = append(l.sessions, e.SessionID)
		}
		id := strings.TrimSpace(string(e.MessageID))
		if id == "" {
			id = fmt.Sprintf("#%d", i)
		}
		l.prompts[e.SessionID] = append(l.prompts[e.SessionID], prompt{uuid: e.SessionID + ":" + id, at: e.Timestamp, text: text, line: i + 1})
	}
	return l, nil
}

// read is one session's prompts, in the order they were typed.
func (l *geminiPromptLog) read(session string, opt transcript.Options) *transcript.Channels {
	return readPrompts(l.name, session, l.cwd, l.prompts[session], false, opt)
}

// isSlashCommand is Gemini CLI's own test (packages/cli/src/ui/utils/
// commandUtils.ts): a leading "/", but not a "//" or "/*" comment.
func isSlashCommand(s string) bool {
	return strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "/*")
}

func normal(s string) string { return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD")) }

// asWritten reads the person's words as written, to compare them.
var asWritten = transcript.Options{Redact: func(s string) string { return s }, MaxText: 1 << 30}

// heldBeside is what the person said in the chat recordings and the
// checkpoints of the project folder dir.
func heldBeside(dir string) map[string]bool {
	held := map[string]bool{}
	checkpoints, _ := filepath.Glob(filepath.Join(dir, "checkpoint-*.json"))
	for _, f := range checkpoints {
		if isGeminiCheckpoint(f) {
			ch, err := readGeminiCheckpoint(f, asWritten)
			hold(held, ch, err)
		}
	}
	recordedIn(dir, held)
	return held
}

// recordedIn adds what the person said in the chat recordings of the
// project folder dir to held.
func recordedIn(dir string, held map[string]bool) {
	chats, _ := filepath.Glob(filepath.Join(dir, "chats", "session-*.json*"))
	for _, f := range chats {
		if isGeminiChat(f) {
			ch, err := readGeminiChatFile(f, asWritten)
			hold(held, ch, err)
		}
	}
}

func hold(held map[string]bool, ch *transcript.Channels, err error) {
	if err != nil {
		return
	}
	for _, u := range ch.UserSignals {
		held[normal(u.Text)] = true
	}
}

// isGeminiPromptLog reports whether the file at path is Gemini CLI's prompt
// log: named logs.json, an array, empty (as Gemini CLI first writes it)
// or starting with an entry that names its session. Only the start of
// the file is read.
func isGeminiPromptLog(path string) bool {
	if filepath.Base(path) != geminiPromptLogName {
		return false
	}
	return startsAs(path, func(dec *jsontext.Decoder) bool {
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
			return false
		}
		if dec.PeekKind() == ']' {
			return true
		}
		first, err := dec.ReadValue()
		if err != nil {
			return false
		}
		var e entry
		return jsonv2.Unmarshal(first, &e, lenient) == nil && e.SessionID != "" && e.Type != ""
	})
}
