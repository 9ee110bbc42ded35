// Package gemini is devlearn's adapter for Gemini CLI hooks ("hooks" in
// .gemini/settings.json). Gemini's input is Claude Code's in shape, with
// its own event and tool names. It adds context at SessionStart,
// BeforeAgent (each prompt) and AfterTool (appended to the tool's
// result); BeforeTool can refuse a call but not inform it, so the
// knowledge devlearn serves for a tool call is served after it, with the
// result, where the agent reads it before its next call.
package gemini

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/settings"
)

// Name is the agent's name on devlearn's command line.
const Name = "gemini"

// HookFile is the project settings file Gemini CLI reads hooks from (in
// a trusted folder).
const HookFile = ".gemini/settings.json"

// Profile is how .gemini/settings.json lists devlearn's hooks: Claude
// Code's layout, timeouts in milliseconds, each hook named.
var Profile = settings.Profile{
	Agent: Name,
	Hooks: []settings.Hook{
		{Event: "SessionStart", Sub: hook.SessionStart, Timeout: 10},
		{Event: "BeforeAgent", Sub: hook.UserPromptSubmit, Timeout: 5},
		{Event: "AfterTool", Sub: hook.PreToolUse, Matcher: "run_shell_command|write_file|replace", HasMatcher: true, Timeout: 5},
		{Event: "AfterTool", Sub: hook.PostToolUse, Matcher: "read_file|write_file|replace", HasMatcher: true, Timeout: 5},
		{Event: "AfterAgent", Sub: hook.Stop, Timeout: settings.StopTimeout},
		{Event: "SessionEnd", Sub: hook.SessionEnd, Timeout: 5},
	},
	TimeoutScale: 1000,
	Named:        true,
}

// tools maps Gemini CLI's built-in tools to Claude Code's names, which
// devlearn's knowledge is written against. grep_search is the grep
// tool's name now (google-gemini/gemini-cli,
// packages/core/src/tools/definitions/base-declarations.ts);
// search_file_content its name in older versions, whose logs and hooks
// still say so.
var tools = map[string]string{
	"run_shell_command":   "Bash",
	"write_file":          "Write",
	"replace":             "Edit",
	"read_file":           "Read",
	"read_many_files":     "Read",
	"glob":                "Glob",
	"grep_search":         "Grep",
	"search_file_content": "Grep",
	"web_fetch":           "WebFetch",
	"google_web_search":   "WebSearch",
}

// ToolName is a Gemini CLI tool's name in Claude Code's terms; a tool it
// does not know keeps its own name.
func ToolName(name string) string {
	if t, ok := tools[name]; ok {
		return t
	}
	return name
}

// eventNames are Gemini's names for the moments devlearn answers at.
var eventNames = map[string]string{
	hook.SessionStart:     "SessionStart",
	hook.UserPromptSubmit: "BeforeAgent",
	hook.PreToolUse:       "AfterTool",
	hook.PostToolUse:      "AfterTool",
}

// Codec is the adapter.
type Codec struct{}

// Decode reads Gemini's input; AfterAgent's prompt_response is the
// agent's last message.
func (Codec) Decode(event string, dec *jsontext.Decoder, in *hook.Input) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if err := jsonv2.Unmarshal(v, in, hook.InputOptions); err != nil {
		return err
	}
	in.ToolName = ToolName(in.ToolName)
	if event == hook.Stop {
		var s struct {
			PromptResponse string `json:"prompt_response"`
		}
		if jsonv2.Unmarshal(v, &s, hook.InputOptions) == nil && in.LastAssistantMessage == "" {
			in.LastAssistantMessage = s.PromptResponse
		}
	}
	return nil
}

type output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
}

type specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Encode: context where Gemini adds it; at AfterAgent a block becomes
// "deny", which has Gemini retry with the reason as its prompt; nothing
// at SessionEnd (Gemini does not wait for it). A question devlearn would
// ask the person before a call is given to the agent as context: the
// call has already run.
func (Codec) Encode(event string, o *hook.Output) []byte {
	var out output
	switch event {
	case hook.SessionEnd:
		return nil
	case hook.Stop:
		if o.Decision == "block" && o.Reason != "" {
			out.Decision, out.Reason = "deny", o.Reason
		}
	default:
		text := o.HookSpecificOutput.AdditionalContext
		if r := o.HookSpecificOutput.PermissionDecisionReason; r != "" {
			text = trimJoin(text, r)
		}
		if name, ok := eventNames[event]; ok && text != "" {
			out.HookSpecificOutput = &specific{HookEventName: name, AdditionalContext: text}
		}
	}
	out.SystemMessage = o.SystemMessage
	if out == (output{}) {
		return nil
	}
	return hook.JSONLine(out)
}

func trimJoin(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}
