// Package cursor is devlearn's adapter for Cursor's agent hooks
// (.cursor/hooks.json). Cursor adds context at one moment only: its
// sessionStart's additional_context. Its stop can send a follow-up
// message (devlearn's checklist gate uses it); its sessionEnd spools the
// session. Before a tool or a prompt Cursor can block but not inform, so
// devlearn registers nothing there: serving there would mark entries as
// given that the model never saw.
package cursor

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/settings"
)

// Name is the agent's name on devlearn's command line.
const Name = "cursor"

// HookFile is where Cursor reads a project's hooks (in a trusted
// workspace); they run from the project's root.
const HookFile = ".cursor/hooks.json"

// Profile is how .cursor/hooks.json lists devlearn's hooks: a list of
// commands per event under "version": 1.
var Profile = settings.Profile{
	Agent: Name,
	Flat:  true,
	Hooks: []settings.Hook{
		{Event: "sessionStart", Sub: hook.SessionStart, Timeout: 10},
		{Event: "stop", Sub: hook.Stop, Timeout: settings.StopTimeout},
		{Event: "sessionEnd", Sub: hook.SessionEnd, Timeout: 5},
	},
	Version: true,
}

// input is Cursor's hook JSON: no cwd on most events (the workspace
// roots instead), the conversation's id as the session's.
type input struct {
	ConversationID string        `json:"conversation_id"`
	SessionID      string        `json:"session_id"`
	HookEventName  string        `json:"hook_event_name"`
	WorkspaceRoots []string      `json:"workspace_roots"`
	TranscriptPath string        `json:"transcript_path"`
	Cwd            string        `json:"cwd"`
	Prompt         string        `json:"prompt"`
	ToolName       string        `json:"tool_name"`
	ToolInput      hook.ToolArgs `json:"tool_input"`
	ToolUseID      string        `json:"tool_use_id"`
	Reason         string        `json:"reason"`
	Status         string        `json:"status"`
	LoopCount      int           `json:"loop_count"`
}

// tools maps Cursor's tool types to the names devlearn's knowledge is
// written against.
var tools = map[string]string{"Shell": "Bash", "Read": "Read", "Write": "Write", "Grep": "Grep", "Delete": "Bash", "Task": "Task"}

// Codec is the adapter.
type Codec struct{}

// Decode maps Cursor's input to devlearn's.
func (Codec) Decode(event string, dec *jsontext.Decoder, in *hook.Input) error {
	var c input
	if err := jsonv2.UnmarshalDecode(dec, &c); err != nil {
		return err
	}
	*in = hook.Input{
		SessionID:      c.SessionID,
		TranscriptPath: c.TranscriptPath,
		Cwd:            c.Cwd,
		HookEventName:  c.HookEventName,
		Prompt:         c.Prompt,
		ToolName:       c.ToolName,
		Tool:           c.ToolInput,
		ToolUseID:      c.ToolUseID,
		Reason:         c.Reason,
		// loop_count counts the follow-ups stop already sent: the
		// agent was stopped and sent on at least once.
		StopHookActive: c.LoopCount > 0,
	}
	if in.SessionID == "" {
		in.SessionID = c.ConversationID
	}
	if in.Cwd == "" && len(c.WorkspaceRoots) > 0 {
		in.Cwd = c.WorkspaceRoots[0]
	}
	if t, ok := tools[c.ToolName]; ok {
		in.ToolName = t
	}
	return nil
}

// Encode: sessionStart's additional_context; stop's followup_message,
// sent as the next user message, for a block; nothing anywhere else.
func (Codec) Encode(event string, o *hook.Output) []byte {
	switch event {
	case hook.SessionStart:
		if t := o.HookSpecificOutput.AdditionalContext; t != "" {
			return hook.JSONLine(struct {
				AdditionalContext string `json:"additional_context"`
			}{t})
		}
	case hook.Stop:
		if o.Decision == "block" && o.Reason != "" {
			return hook.JSONLine(struct {
				FollowupMessage string `json:"followup_message"`
			}{o.Reason})
		}
	}
	return nil
}
