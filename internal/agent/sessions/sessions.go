// Package sessions finds and recognises the session logs of the agents
// other than Claude Code, for ingest: each comes with the reader that
// turns it into the channels the extractors read.
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

// Log is one session log found.
type Log struct {
	Agent string
	Path  string
	Read  Reader
}

// ReaderFor is the reader of the file at path when it is another agent's
// session log, nil when it is not (a Claude Code transcript, say).
func ReaderFor(path string) Reader {
	switch {
	case rollout.IsRollout(path):
		return rollout.ReadFile
	case chat.IsChat(path):
		return chat.ReadFile
	case transcripts.IsTranscript(path):
		return transcripts.ReadFile
	case events.IsLog(path):
		return events.ReadFile
	}
	return nil
}

// Find lists the session logs of every agent that ran in the working
// tree root, getenv giving the agents' folders ($CODEX_HOME, $HOME):
// Codex rollouts, Gemini CLI chats, Cursor agent transcripts and Copilot
// CLI session logs.
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
			out = append(out, Log{Agent: "gemini", Path: f, Read: chat.ReadFile})
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
