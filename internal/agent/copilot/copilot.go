// Package copilot is devlearn's adapter for GitHub Copilot CLI hooks
// (.github/hooks/*.json; devlearn owns .github/hooks/devlearn.json).
// Copilot adds context at sessionStart (top-level additionalContext; some
// versions drop it), at userPromptSubmitted (from Copilot CLI 1.0.65;
// older versions drop it) and after a tool (postToolUse, appended to the
// result); agentStop can send the agent on. It cannot inform before a
// tool, and a preToolUse command that fails denies the call, so devlearn
// registers no preToolUse at all: the knowledge for a call is served
// after it, with its result.
package copilot

import (
	"path/filepath"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/settings"
)

// Name is the agent's name on devlearn's command line.
const Name = "copilot"

// HookFile is devlearn's own hook file, which Copilot reads with every
// other file in .github/hooks/.
const HookFile = ".github/hooks/devlearn.json"

// Profile is how .github/hooks/devlearn.json lists devlearn's hooks:
// Copilot's camelCase events (whose input is camelCase too), each a
// "bash" command with "timeoutSec".
var Profile = settings.Profile{
	Agent: Name,
	Flat:  true,
	Hooks: []settings.Hook{
		{Event: "sessionStart", Sub: hook.SessionStart, Timeout: 10},
		{Event: "userPromptSubmitted", Sub: hook.UserPromptSubmit, Timeout: 5},
		{Event: "postToolUse", Sub: hook.PreToolUse, Matcher: "bash|edit|create|apply_patch", HasMatcher: true, Timeout: 5},
		{Event: "postToolUse", Sub: hook.PostToolUse, Matcher: "view|edit|create|apply_patch", HasMatcher: true, Timeout: 5},
		{Event: "agentStop", Sub: hook.Stop, Timeout: settings.StopTimeout},
		{Event: "sessionEnd", Sub: hook.SessionEnd, Timeout: 5},
	},
	CommandKey: "bash",
	TimeoutKey: "timeoutSec",
	Version:    true,
}

// input is Copilot's camelCase hook JSON. toolArgs is an object, or the
// same object as a JSON string.
type input struct {
	SessionID      string         `json:"sessionId"`
	Cwd            string         `json:"cwd"`
	Source         string         `json:"source"`
	Prompt         string         `json:"prompt"`
	ToolName       string         `json:"toolName"`
	ToolArgs       jsontext.Value `json:"toolArgs"`
	TranscriptPath string         `json:"transcriptPath"`
	Reason         string         `json:"reason"`
	StopHookActive bool           `json:"stop_hook_active"`
}

// tools maps Copilot's tool names to Claude Code's.
var tools = map[string]string{"bash": "Bash", "view": "Read", "create": "Write", "edit": "Edit", "apply_patch": "Edit", "glob": "Glob", "grep": "Grep"}

// fileTools name their file "path" (Copilot's edit, create and view; see
// the table in internal/agent's tests for the source), where Claude Code's
// say "file_path".
var fileTools = map[string]bool{"view": true, "create": true, "edit": true}

// Codec is the adapter. Home is Copilot's folder ($COPILOT_HOME, else
// ~/.copilot), where its session logs are: Copilot's input names none,
// and session end spools the session with its log for the worker.
type Codec struct{ Home string }

// SessionLog is where Copilot keeps the log of session id under home, ""
// for an id that cannot name a folder.
func SessionLog(home, id string) string {
	if home == "" || hook.SafeName(id) != id {
		return ""
	}
	return filepath.Join(home, "session-state", id, "events.jsonl")
}

// Decode maps Copilot's input to devlearn's.
func (x Codec) Decode(event string, dec *jsontext.Decoder, in *hook.Input) error {
	var c input
	if err := jsonv2.UnmarshalDecode(dec, &c); err != nil {
		return err
	}
	*in = hook.Input{
		SessionID:      c.SessionID,
		TranscriptPath: c.TranscriptPath,
		Cwd:            c.Cwd,
		Source:         c.Source,
		Prompt:         c.Prompt,
		ToolName:       c.ToolName,
		Reason:         c.Reason,
		StopHookActive: c.StopHookActive,
	}
	if t, ok := tools[c.ToolName]; ok {
		in.ToolName = t
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = SessionLog(x.Home, c.SessionID)
	}
	args := c.ToolArgs
	if args.Kind() == '"' {
		var s string
		if jsonv2.Unmarshal(args, &s, hook.InputOptions) == nil {
			args = jsontext.Value(s)
		}
	}
	if len(args) > 0 {
		jsonv2.Unmarshal(args, &in.Tool, hook.InputOptions) // arguments of another shape name nothing
		if fileTools[c.ToolName] && in.Tool.FilePath == "" {
			var f struct {
				Path string `json:"path"`
			}
			jsonv2.Unmarshal(args, &f, hook.InputOptions) // a path that is not a string names no file
			in.Tool.FilePath = f.Path
		}
	}
	return nil
}

// Encode: additionalContext at sessionStart, at a prompt and after a
// tool; at agentStop a block with its reason; nothing anywhere else.
func (Codec) Encode(event string, o *hook.Output) []byte {
	switch event {
	case hook.SessionStart, hook.UserPromptSubmit, hook.PreToolUse, hook.PostToolUse:
		text := o.HookSpecificOutput.AdditionalContext
		if r := o.HookSpecificOutput.PermissionDecisionReason; r != "" {
			if text != "" {
				text += "\n\n"
			}
			text += r
		}
		if text != "" {
			return hook.JSONLine(struct {
				AdditionalContext string `json:"additionalContext"`
			}{text})
		}
	case hook.Stop:
		if o.Decision == "block" && o.Reason != "" {
			return hook.JSONLine(struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
			}{"block", o.Reason})
		}
	}
	return nil
}
