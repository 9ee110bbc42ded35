package agent

import (
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
)

func decode(t *testing.T, a *Agent, event, data string) hook.Input {
	t.Helper()
	var in hook.Input
	if err := a.Codec.Decode(event, jsontext.NewDecoder(strings.NewReader(data)), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

func agentNamed(t *testing.T, name string) *Agent {
	a, ok := Lookup(name)
	if !ok {
		t.Fatalf("no agent %s", name)
	}
	return a
}

// Each agent's input, real in shape (see docs/agents.md for the source
// of each), becomes the request devlearn's handlers read.
func TestDecode(t *testing.T) {
	for _, c := range []struct {
		agent, event, data string
		want               hook.Input
	}{
		{"cursor", hook.SessionStart,
			`{"conversation_id":"c-1","generation_id":"g-1","model":"claude-4.5-sonnet","hook_event_name":"sessionStart","cursor_version":"1.7.2","workspace_roots":["/home/dev/repo"],"user_email":null,"transcript_path":null,"session_id":"c-1","is_background_agent":false,"composer_mode":"agent"}`,
			hook.Input{SessionID: "c-1", Cwd: "/home/dev/repo", HookEventName: "sessionStart"}},
		{"cursor", hook.Stop,
			`{"conversation_id":"c-1","generation_id":"g-2","hook_event_name":"stop","workspace_roots":["/home/dev/repo"],"status":"completed","loop_count":1}`,
			hook.Input{SessionID: "c-1", Cwd: "/home/dev/repo", HookEventName: "stop", StopHookActive: true}},
		{"gemini", hook.PreToolUse,
			`{"session_id":"g-1","transcript_path":"/home/dev/.gemini/tmp/repo/chats/session-2026-05-10T09-00-g1.jsonl","cwd":"/home/dev/repo","hook_event_name":"AfterTool","timestamp":"2026-05-10T09:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"go test ./...","description":"run the tests"},"tool_response":{"llmContent":"ok","returnDisplay":"ok"}}`,
			hook.Input{SessionID: "g-1", TranscriptPath: "/home/dev/.gemini/tmp/repo/chats/session-2026-05-10T09-00-g1.jsonl", Cwd: "/home/dev/repo", HookEventName: "AfterTool", ToolName: "Bash",
				Tool: hook.ToolArgsOf(map[string]string{"command": "go test ./...", "description": "run the tests"})}},
		{"gemini", hook.PreToolUse,
			`{"session_id":"g-1","cwd":"/home/dev/repo","hook_event_name":"AfterTool","tool_name":"grep_search","tool_input":{"pattern":"func Serve","dir_path":"/home/dev/repo/cmd"}}`,
			hook.Input{SessionID: "g-1", Cwd: "/home/dev/repo", HookEventName: "AfterTool", ToolName: "Grep"}},
		{"gemini", hook.PreToolUse,
			`{"session_id":"g-1","cwd":"/home/dev/repo","hook_event_name":"AfterTool","tool_name":"search_file_content","tool_input":{"pattern":"func Serve"}}`,
			hook.Input{SessionID: "g-1", Cwd: "/home/dev/repo", HookEventName: "AfterTool", ToolName: "Grep"}},
		{"gemini", hook.Stop,
			`{"session_id":"g-1","transcript_path":"","cwd":"/home/dev/repo","hook_event_name":"AfterAgent","timestamp":"2026-05-10T09:00:00.000Z","prompt":"fix it","prompt_response":"Fixed.","stop_hook_active":false}`,
			hook.Input{SessionID: "g-1", Cwd: "/home/dev/repo", HookEventName: "AfterAgent", Prompt: "fix it", LastAssistantMessage: "Fixed."}},
		{"copilot", hook.PreToolUse,
			`{"sessionId":"p-1","timestamp":1778403600000,"cwd":"/home/dev/repo","toolName":"bash","toolArgs":"{\"command\":\"go test ./...\"}","toolResult":{"resultType":"success","textResultForLlm":"ok"}}`,
			hook.Input{SessionID: "p-1", Cwd: "/home/dev/repo", ToolName: "Bash", Tool: hook.ToolArgsOf(map[string]string{"command": "go test ./..."})}},
		{"copilot", hook.PostToolUse,
			`{"sessionId":"p-1","timestamp":1778403600000,"cwd":"/home/dev/repo","toolName":"edit","toolArgs":{"file_path":"/home/dev/repo/a.go"}}`,
			hook.Input{SessionID: "p-1", Cwd: "/home/dev/repo", ToolName: "Edit", Tool: hook.ToolArgsOf(map[string]string{"file_path": "/home/dev/repo/a.go"})}},
	} {
		if got := decode(t, agentNamed(t, c.agent), c.event, c.data); got != c.want {
			t.Errorf("%s %s:\n got %+v\nwant %+v", c.agent, c.event, got, c.want)
		}
	}
}

// Each answer in the one shape the agent honours at that moment, or
// nothing.
func TestEncode(t *testing.T) {
	ctx := &hook.Output{HookSpecificOutput: hook.Specific{HookEventName: "SessionStart", AdditionalContext: "devlearn: k"}}
	block := &hook.Output{Decision: "block", Reason: "tick the checklist"}
	for _, c := range []struct {
		agent, event string
		o            *hook.Output
		want         string
	}{
		{"cursor", hook.SessionStart, ctx, `{"additional_context":"devlearn: k"}`},
		{"cursor", hook.Stop, block, `{"followup_message":"tick the checklist"}`},
		{"cursor", hook.SessionEnd, ctx, ``},
		{"gemini", hook.SessionStart, ctx, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"devlearn: k"}}`},
		{"gemini", hook.PreToolUse, ctx, `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"devlearn: k"}}`},
		{"gemini", hook.Stop, block, `{"decision":"deny","reason":"tick the checklist"}`},
		{"gemini", hook.SessionEnd, ctx, ``},
		{"copilot", hook.SessionStart, ctx, `{"additionalContext":"devlearn: k"}`},
		{"copilot", hook.PostToolUse, ctx, `{"additionalContext":"devlearn: k"}`},
		{"copilot", hook.Stop, block, `{"decision":"block","reason":"tick the checklist"}`},
		{"copilot", hook.SessionEnd, ctx, ``},
	} {
		got := strings.TrimSuffix(string(agentNamed(t, c.agent).Codec.Encode(c.event, c.o)), "\n")
		if got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.agent, c.event, got, c.want)
		}
	}
}

// Copilot denies a tool call whose preToolUse command fails: devlearn
// registers none.
func TestCopilotRegistersNoPreToolUse(t *testing.T) {
	for _, h := range agentNamed(t, "copilot").Profile.Hooks {
		if h.Event == "preToolUse" || h.Event == "PreToolUse" {
			t.Errorf("copilot registers %s", h.Event)
		}
	}
}

// Each agent's adapter runs on every hook of that agent: decoding its
// input and encoding the answer must cost next to nothing beside the
// hook's own work.
func BenchmarkAdapters(b *testing.B) {
	inputs := map[string]string{
		"codex":   `{"session_id":"s","transcript_path":null,"cwd":"/r","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"c","turn_id":"t"}`,
		"gemini":  `{"session_id":"s","transcript_path":"","cwd":"/r","hook_event_name":"AfterTool","timestamp":"2026-05-10T09:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"go test ./..."},"tool_response":{"llmContent":"ok"}}`,
		"cursor":  `{"conversation_id":"c","generation_id":"g","hook_event_name":"sessionStart","workspace_roots":["/r"],"session_id":"c","is_background_agent":false}`,
		"copilot": `{"sessionId":"s","timestamp":1,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"go test ./...\"}"}`,
	}
	events := map[string]string{"codex": hook.PreToolUse, "gemini": hook.PreToolUse, "cursor": hook.SessionStart, "copilot": hook.PreToolUse}
	o := &hook.Output{HookSpecificOutput: hook.Specific{HookEventName: "PreToolUse", AdditionalContext: strings.Repeat("devlearn: knowledge ", 100)}}
	for name, in := range inputs {
		a, _ := Lookup(name)
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var req hook.Input
				if err := a.Codec.Decode(events[name], jsontext.NewDecoder(strings.NewReader(in)), &req); err != nil {
					b.Fatal(err)
				}
				a.Codec.Encode(events[name], o)
			}
		})
	}
}

// Copilot's input names no session log: the adapter names the session's,
// inside Copilot's folder, and none for an id that would leave it.
func TestCopilotSessionLog(t *testing.T) {
	a, _ := Lookup("copilot")
	env := map[string]string{"HOME": "/home/dev"}
	c := a.For(func(k string) string { return env[k] })
	var in hook.Input
	if err := c.Decode(hook.SessionEnd, jsontext.NewDecoder(strings.NewReader(`{"sessionId":"abc-1","cwd":"/r","reason":"complete"}`)), &in); err != nil {
		t.Fatal(err)
	}
	if in.TranscriptPath != "/home/dev/.copilot/session-state/abc-1/events.jsonl" {
		t.Errorf("transcript %q", in.TranscriptPath)
	}
	for _, id := range []string{"../../etc", "a/b", ".hidden", ""} {
		in = hook.Input{}
		c.Decode(hook.SessionEnd, jsontext.NewDecoder(strings.NewReader(`{"sessionId":`+strconv.Quote(id)+`}`)), &in)
		if in.TranscriptPath != "" {
			t.Errorf("id %q gave %q", id, in.TranscriptPath)
		}
	}
}

// Every agent's input is read with U+FFFD where a string holds half of a
// surrogate pair or a byte that is not UTF-8, as the hook reads it
// (hook.InputOptions; Claude Code's input, read by the hook itself, is
// TestBrokenTextInInputIsStillServed's): an agent that cut a long output inside an emoji
// would otherwise lose the whole event.
func TestDecodeBrokenText(t *testing.T) {
	for _, c := range []struct{ agent, data string }{
		{"codex", `{"session_id":"s-1","cwd":"/r","prompt":"cut \ud83d here"}`},
		{"gemini", `{"session_id":"s-1","cwd":"/r","prompt":"cut \ud83d here"}`},
		{"cursor", `{"conversation_id":"s-1","workspace_roots":["/r"],"prompt":"cut \ud83d here"}`},
		{"copilot", `{"sessionId":"s-1","cwd":"/r","prompt":"cut \ud83d here"}`},
		{"copilot", "{\"sessionId\":\"s-1\",\"cwd\":\"/r\",\"prompt\":\"cut \xff here\"}"},
	} {
		var in hook.Input
		dec := jsontext.NewDecoder(strings.NewReader(c.data), hook.InputOptions)
		err := agentNamed(t, c.agent).Codec.Decode(hook.UserPromptSubmit, dec, &in)
		if err != nil || in.SessionID != "s-1" || in.Prompt != "cut \ufffd here" {
			t.Errorf("%s %q: %+v, %v", c.agent, c.data, in, err)
		}
	}
}
