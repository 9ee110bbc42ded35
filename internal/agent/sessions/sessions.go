// Package sessions reads the session logs other than Claude Code's
// transcripts, for ingest: it finds and recognises them, and each session
// comes with the reader that turns it into the channels the extractors
// read. Most files are one session; two (Gemini CLI's logs.json, Claude
// Code's history.jsonl) hold many, and are opened into a session each, so
// that whoever ingests them deals in sessions only.
//
// One file per format: claude_history.go (Claude Code's prompt history),
// claude_export.go (its /export text), specstory.go (SpecStory's
// markdown), chat_markdown.go (conversations exported to markdown),
// codex_rollout.go (Codex rollouts), copilot_events.go (Copilot CLI's
// events.jsonl), cursor_transcripts.go
// (Cursor's agent transcripts), gemini_chat.go, gemini_checkpoint.go and
// gemini_logs.go (Gemini CLI's chats, checkpoints and prompt log). Each
// reader feeds a builder (builder.go), which makes the channels. The
// agents' hooks live in internal/agent/<agent>: this package borrows a
// tool name from them, never the other way round. It is not on the hook
// path: it links a zstd decoder for Codex's compressed rollouts.
package sessions

import (
	"path/filepath"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Reader reads one session log into the extractors' channels.
type Reader func(path string, opt transcript.Options) (*transcript.Channels, error)

// Log is one session found in another agent's files.
type Log struct {
	Agent string
	Path  string
	// Session is the session's id when Path holds several (Gemini CLI's
	// logs.json), "" when Path is the session's own log.
	Session string
	// Read reads this session: for a file of several, the one session,
	// whatever path it is given.
	Read Reader
}

// ReaderFor is the reader of the file at path when it is another agent's
// log of one session, nil when it is not (a Claude Code transcript, say,
// or a file of several sessions: see Open).
func ReaderFor(path string) Reader {
	_, read := kind(path)
	return read
}

func kind(path string) (agent string, read Reader) {
	switch {
	case isCodexRollout(path):
		return "codex", readCodexFile
	case isGeminiChat(path):
		return "gemini", readGeminiChatFile
	case isGeminiCheckpoint(path):
		return "gemini", readGeminiCheckpoint
	case isCursorTranscript(path):
		return "cursor", readCursorFile
	case isCopilotLog(path):
		return "copilot", readCopilotFile
	}
	return textFormat(path, false)
}

// IsFolderLog reports whether ingest of a folder takes up the file at
// path as another agent's session log, beyond the .jsonl files it reads
// anyway: a rollout Codex has compressed, a Gemini CLI chat, checkpoint
// or prompt log, a SpecStory export, a Claude Code export that opens with
// its welcome box, a conversation exported to markdown under a title that
// says so (a file that only quotes a conversation is taken up when it is
// named alone).
func IsFolderLog(path string) bool {
	return strings.HasSuffix(filepath.Base(path), ".jsonl"+codexCompressed) || isGeminiChat(path) || isGeminiCheckpoint(path) || isGeminiPromptLog(path) ||
		textLogIn(path)
}

// textLogIn reports a text log that a folder's walk takes up: on the
// strong signs of its format only.
func textLogIn(path string) bool {
	agent, _ := textFormat(path, true)
	return agent != ""
}

// Open lists the sessions in the file at path, ok false when it is no
// other agent's (a Claude Code transcript, say). Most logs are one
// session; Gemini CLI's logs.json holds the prompts of many, and each
// becomes a Log of its own, read from the file as loaded here, once. A
// logs.json that cannot be read is one Log whose Read says why, so that
// ingest reports it with the sessions it could not read. A Gemini CLI
// checkpoint of a chat its project folder has recorded is none: the
// recording is that session.
func Open(path string) (logs []Log, ok bool) {
	if isGeminiPromptLog(path) {
		return promptLog(path), true
	}
	if isClaudeHistory(path) {
		return historyLogs(path), true
	}
	agent, read := kind(path)
	if read == nil {
		return nil, false
	}
	if isGeminiCheckpoint(path) && geminiRecorded(path) {
		return nil, true
	}
	return []Log{{Agent: agent, Path: path, Read: read}}, true
}

func promptLog(path string) []Log {
	l, err := loadGeminiPrompts(path)
	if err != nil {
		return sessionsOf("gemini", path, nil, nil, err)
	}
	return sessionsOf("gemini", path, l.sessions, l.read, nil)
}

// sessionsOf are the Logs of a file that holds several sessions, each
// read by read; or, when the file could not be loaded, one Log whose Read
// says why, so that ingest reports it with the sessions it could not read.
func sessionsOf(agent, path string, ids []string, read func(id string, opt transcript.Options) *transcript.Channels, err error) []Log {
	if err != nil {
		return []Log{{Agent: agent, Path: path, Read: func(string, transcript.Options) (*transcript.Channels, error) { return nil, err }}}
	}
	var out []Log
	for _, id := range ids {
		out = append(out, Log{Agent: agent, Path: path, Session: id, Read: func(_ string, opt transcript.Options) (*transcript.Channels, error) {
			return read(id, opt), nil
		}})
	}
	return out
}

// Find lists the sessions of every agent that ran in the working tree
// root, getenv giving the agents' folders ($CODEX_HOME, $HOME): Codex
// rollouts, Gemini CLI chats, checkpoints and prompt logs (one Log per
// session of a logs.json), Cursor agent transcripts, Copilot CLI session
// logs, and the SpecStory exports kept in the tree (.specstory/history).
func Find(getenv func(string) string, root string) ([]Log, error) {
	var out []Log
	specs, err := filepath.Glob(filepath.Join(root, ".specstory", "history", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, f := range specs {
		if agent, _ := textFormat(f, true); agent == "specstory" {
			out = append(out, Log{Agent: "specstory", Path: f, Read: readSpecStoryFile})
		}
	}
	if home := codexHome(getenv); home != "" {
		files, err := findCodex(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "codex", Path: f, Read: readCodexFile})
		}
	}
	if home := geminiHome(getenv); home != "" {
		files, err := findGemini(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			logs, _ := Open(f)
			out = append(out, logs...)
		}
	}
	if home := cursorHome(getenv); home != "" {
		files, err := findCursor(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "cursor", Path: f, Read: readCursorFile})
		}
	}
	if home := copilotHome(getenv); home != "" {
		files, err := findCopilot(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "copilot", Path: f, Read: readCopilotFile})
		}
	}
	return out, nil
}

// jsonString is a raw value that is a string, or "".
func jsonString(v jsontext.Value) string {
	var s string
	jsonv2.Unmarshal(v, &s)
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inside reports whether the folder p is root (clean) or lies under it.
func inside(p, root string) bool {
	p = filepath.Clean(p)
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
