package agent

import (
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/hook"
)

// fileTools is every agent's tools that act on one file, with the
// argument that names it, as upstream defines them. A row here whose
// file the hook does not read fails TestFileArguments: the tool's calls
// would get no file knowledge and no directive.
//
// Tools whose path is a folder or a glob (Claude Code's Grep and Glob,
// Gemini's grep_search, glob, list_directory and read_many_files,
// Copilot's grep and glob) are not here: like Claude Code's, they are
// read-only and served nothing before scoring.
var fileTools = []struct {
	agent, tool, arg string
}{
	// Claude Code: the tool input schemas of code.claude.com's hooks
	// reference (PreToolUse input) and its tools reference.
	{"claude", "Edit", "file_path"},
	{"claude", "MultiEdit", "file_path"},
	{"claude", "Write", "file_path"},
	{"claude", "Read", "file_path"},
	{"claude", "NotebookEdit", "notebook_path"},
	// Codex: apply_patch carries its patch as tool_input.command; the
	// files are its "*** Add/Update/Delete File:" lines (openai/codex,
	// codex-rs/apply-patch/apply_patch_tool_instructions.md); the "arg"
	// here is the patch header devlearn reads them from.
	{"codex", "apply_patch", "*** Update File: "},
	{"codex", "apply_patch", "*** Add File: "},
	// Gemini CLI: PARAM_FILE_PATH of read_file, write_file and replace
	// (google-gemini/gemini-cli,
	// packages/core/src/tools/definitions/base-declarations.ts).
	{"gemini", "read_file", "file_path"},
	{"gemini", "write_file", "file_path"},
	{"gemini", "replace", "file_path"},
	// Copilot CLI: EditArgs, CreateArgs and ViewArgs name the file
	// "path" (microsoft/vscode-copilot-chat,
	// src/extension/agents/copilotcli/common/copilotCLITools.ts, which
	// reads Copilot CLI's tool events; Copilot's session log, read by
	// internal/agent/sessions (copilot_events.go), says the same).
	{"copilot", "edit", "path"},
	{"copilot", "create", "path"},
	{"copilot", "view", "path"},
	// Cursor: none. devlearn registers no Cursor tool event (Cursor
	// cannot inform a call), and its sessionStart, stop and sessionEnd
	// name no file.
}

// fileInput is an input of the agent's shape for a call of tool whose
// argument arg names file.
func fileInput(agent, tool, arg, file string) string {
	q := func(s string) string { v, _ := jsonv2.Marshal(s); return string(v) }
	args := `{` + q(arg) + `:` + q(file) + `}`
	switch agent {
	case "codex":
		args = `{"command":` + q("*** Begin Patch\n"+arg+file+"\n+x\n*** End Patch\n") + `}`
	case "copilot":
		// Copilot sends toolArgs as a JSON string.
		return `{"sessionId":"s","timestamp":1778403600000,"cwd":"/home/dev/repo","toolName":` + q(tool) + `,"toolArgs":` + q(args) + `,"toolResult":{"resultType":"success","textResultForLlm":"ok"}}`
	}
	return `{"session_id":"s","cwd":"/home/dev/repo","hook_event_name":"PreToolUse","tool_name":` + q(tool) + `,"tool_input":` + args + `}`
}

// Every file-bearing tool's file reaches the hook: the call is scored
// against that file, as a Claude Code Edit is.
func TestFileArguments(t *testing.T) {
	const file = "/home/dev/repo/cmd/serve.go"
	for _, c := range fileTools {
		data := fileInput(c.agent, c.tool, c.arg, file)
		var in hook.Input
		var err error
		if c.agent == "claude" {
			// Claude Code's input is devlearn's own: no adapter.
			err = jsonv2.UnmarshalDecode(jsontext.NewDecoder(strings.NewReader(data)), &in)
		} else {
			err = agentNamed(t, c.agent).Codec.Decode(hook.PreToolUse, jsontext.NewDecoder(strings.NewReader(data)), &in)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", c.agent, c.tool, err)
		}
		call := hook.ToolCall("/home/dev/repo", "/home/dev", in, nil)
		if !call.FileScoped || len(call.Paths) != 1 || call.Paths[0] != "cmd/serve.go" {
			t.Errorf("%s %s {%s}: the hook reads files %q (file-scoped %v), want cmd/serve.go", c.agent, c.tool, strings.TrimSpace(c.arg), call.Paths, call.FileScoped)
		}
	}
}
