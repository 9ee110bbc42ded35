// Package codex is devlearn's adapter for OpenAI Codex CLI hooks
// (.codex/hooks.json). Codex's hook input is Claude Code's, field for
// field; its output is too, except that Codex parses every output
// against a schema that rejects unknown keys and a few values Claude
// Code accepts (permissionDecision "ask", hookSpecificOutput on Stop,
// any output at SessionEnd). The adapter prints exactly what each event
// accepts, or nothing.
package codex

import (
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/settings"
)

// Name is the agent's name on devlearn's command line.
const Name = "codex"

// HookFile is where Codex reads a project's hooks (only once the project
// is trusted, and each hook only once the person trusted it in /hooks).
const HookFile = ".codex/hooks.json"

// toolMatcher: the tools whose calls devlearn serves, by Codex's names
// (apply_patch also matches its aliases Edit and Write).
const toolMatcher = "^(Bash|apply_patch|Edit|Write)$"

// Profile is how .codex/hooks.json lists devlearn's hooks: Claude Code's
// layout, with no matcher where Codex ignores or does not need one.
var Profile = settings.Profile{
	Agent: Name,
	Hooks: []settings.Hook{
		{Event: "SessionStart", Sub: hook.SessionStart, Timeout: 10},
		{Event: "UserPromptSubmit", Sub: hook.UserPromptSubmit, Timeout: 5},
		{Event: "PreToolUse", Sub: hook.PreToolUse, Matcher: toolMatcher, HasMatcher: true, Timeout: 5},
		{Event: "PostToolUse", Sub: hook.PostToolUse, Matcher: toolMatcher, HasMatcher: true, Timeout: 5},
		{Event: "Stop", Sub: hook.Stop, Timeout: settings.StopTimeout},
		{Event: "SessionEnd", Sub: hook.SessionEnd, Timeout: 5},
	},
}

// Codec is the adapter.
type Codec struct{}

// Decode reads Codex's input. apply_patch carries the patch as its
// "command": the file it names first is the file the call is about, and
// the call counts as the Edit (or Write, for a new file) it is.
func (Codec) Decode(event string, dec *jsontext.Decoder, in *hook.Input) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if err := jsonv2.Unmarshal(v, in, hook.InputOptions); err != nil {
		return err
	}
	if in.ToolName == "apply_patch" {
		var p struct {
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		jsonv2.Unmarshal(v, &p, hook.InputOptions) // a tool_input of another shape names no file
		tool, file := PatchTarget(p.ToolInput.Command)
		in.ToolName = tool
		in.Tool = hook.ToolArgsOf(map[string]string{"file_path": file})
	}
	return nil
}

// PatchTarget is the first file an apply_patch patch touches and the tool
// that call amounts to: Write for a new file, Edit otherwise.
func PatchTarget(patch string) (tool, file string) {
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		for _, h := range []struct{ prefix, tool string }{
			{"*** Add File: ", "Write"},
			{"*** Update File: ", "Edit"},
			{"*** Delete File: ", "Edit"},
		} {
			if f, ok := strings.CutPrefix(line, h.prefix); ok {
				return h.tool, strings.TrimSpace(f)
			}
		}
	}
	return "Edit", ""
}

// output is every key devlearn may print to Codex; each is left out when
// empty, and only the keys an event's schema has are ever set.
type output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
}

type specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

var eventNames = map[string]string{
	hook.SessionStart:     "SessionStart",
	hook.UserPromptSubmit: "UserPromptSubmit",
	hook.PreToolUse:       "PreToolUse",
	hook.PostToolUse:      "PostToolUse",
}

// Encode maps devlearn's answer to what Codex accepts at each event:
//   - Stop: decision "block" with its reason (Codex goes on with the
//     reason as its prompt), or nothing; no context exists there.
//   - SessionEnd: nothing (Codex has no output for it).
//   - PreToolUse: context only. Codex refuses "ask" (and devlearn never
//     denies), so the question devlearn would have asked the person is
//     given to the agent as context instead.
//   - the others: context.
func (Codec) Encode(event string, o *hook.Output) []byte {
	var out output
	switch event {
	case hook.SessionEnd:
		return nil
	case hook.Stop:
		if o.Decision == "block" && strings.TrimSpace(o.Reason) != "" {
			out.Decision, out.Reason = "block", o.Reason
		}
	default:
		text := o.HookSpecificOutput.AdditionalContext
		if r := o.HookSpecificOutput.PermissionDecisionReason; r != "" {
			text = strings.TrimLeft(text+"\n\n"+r, "\n")
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
