// Package sessions finds and recognises the session logs of the agents
// other than Claude Code, for ingest: each session comes with the reader
// that turns it into the channels the extractors read. Most files are one
// session; one (Gemini CLI's logs.json) holds many, and is opened into a
// session each, so that whoever ingests them deals in sessions only.
package sessions

import (
	"github.com/devlearn/devlearn/internal/agent/codex/rollout"
	"github.com/devlearn/devlearn/internal/agent/copilot/events"
	"github.com/devlearn/devlearn/internal/agent/cursor/transcripts"
	"github.com/devlearn/devlearn/internal/agent/gemini/chat"
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
	case rollout.IsRollout(path):
		return "codex", rollout.ReadFile
	case chat.IsChat(path):
		return "gemini", chat.ReadFile
	case chat.IsCheckpoint(path):
		return "gemini", chat.ReadCheckpoint
	case transcripts.IsTranscript(path):
		return "cursor", transcripts.ReadFile
	case events.IsLog(path):
		return "copilot", events.ReadFile
	}
	return "", nil
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
	if chat.IsPromptLog(path) {
		return promptLog(path), true
	}
	agent, read := kind(path)
	if read == nil {
		return nil, false
	}
	if chat.IsCheckpoint(path) && chat.Recorded(path) {
		return nil, true
	}
	return []Log{{Agent: agent, Path: path, Read: read}}, true
}

func promptLog(path string) []Log {
	l, err := chat.LoadPrompts(path)
	if err != nil {
		return []Log{{Agent: "gemini", Path: path, Read: func(string, transcript.Options) (*transcript.Channels, error) { return nil, err }}}
	}
	var out []Log
	for _, id := range l.Sessions() {
		out = append(out, Log{Agent: "gemini", Path: path, Session: id, Read: func(_ string, opt transcript.Options) (*transcript.Channels, error) {
			return l.Read(id, opt), nil
		}})
	}
	return out
}

// Find lists the sessions of every agent that ran in the working tree
// root, getenv giving the agents' folders ($CODEX_HOME, $HOME): Codex
// rollouts, Gemini CLI chats, checkpoints and prompt logs (one Log per
// session of a logs.json), Cursor agent transcripts and Copilot CLI
// session logs.
func Find(getenv func(string) string, root string) ([]Log, error) {
	var out []Log
	if home := rollout.Home(getenv); home != "" {
		files, err := rollout.Find(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "codex", Path: f, Read: rollout.ReadFile})
		}
	}
	if home := chat.Home(getenv); home != "" {
		files, err := chat.Find(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			logs, _ := Open(f)
			out = append(out, logs...)
		}
	}
	if home := transcripts.Home(getenv); home != "" {
		files, err := transcripts.Find(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "cursor", Path: f, Read: transcripts.ReadFile})
		}
	}
	if home := events.Home(getenv); home != "" {
		files, err := events.Find(home, root)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Log{Agent: "copilot", Path: f, Read: events.ReadFile})
		}
	}
	return out, nil
}
