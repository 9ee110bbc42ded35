package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/devlearn/devlearn/internal/hook"
)

// schema compiles one of Codex's vendored JSON Schemas (testdata/schema,
// Apache-2.0, see its README).
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("testdata", "schema", name)
	c := jsonschema.NewCompiler()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", data, err)
	}
	return s.Validate(v)
}

// outputs is every shape of answer devlearn's handlers give.
var outputs = map[string]*hook.Output{
	"context": {HookSpecificOutput: hook.Specific{HookEventName: "X", AdditionalContext: "devlearn: project knowledge"}},
	"ask": {HookSpecificOutput: hook.Specific{HookEventName: "PreToolUse", AdditionalContext: "ctx",
		PermissionDecision: "ask", PermissionDecisionReason: "devlearn: k1 asks for a check"}},
	"ask only":       {HookSpecificOutput: hook.Specific{HookEventName: "PreToolUse", PermissionDecision: "ask", PermissionDecisionReason: "why"}},
	"block":          {Decision: "block", Reason: "go through the checklist"},
	"block and note": {Decision: "block", Reason: "go through the checklist", SystemMessage: "devlearn: released"},
	"note":           {SystemMessage: "devlearn: the session stopped without CHECKLIST.md"},
	"empty":          {},
}

var schemas = map[string]string{
	hook.SessionStart:     "session-start.command.output.schema.json",
	hook.UserPromptSubmit: "user-prompt-submit.command.output.schema.json",
	hook.PreToolUse:       "pre-tool-use.command.output.schema.json",
	hook.PostToolUse:      "post-tool-use.command.output.schema.json",
	hook.Stop:             "stop.command.output.schema.json",
}

// Every output devlearn can print at every event validates against the
// schema Codex parses that event's output with: one unknown key, or
// "ask", would have Codex discard it whole.
func TestOutputsValidateAgainstCodexSchemas(t *testing.T) {
	for event, file := range schemas {
		s := schema(t, file)
		for name, o := range outputs {
			data := Codec{}.Encode(event, o)
			if data == nil {
				continue
			}
			if err := validate(t, s, data); err != nil {
				t.Errorf("%s, %s: %s\n%v", event, name, data, err)
			}
			if strings.Contains(string(data), `"ask"`) {
				t.Errorf("%s, %s: %s asks, which Codex refuses", event, name, data)
			}
		}
	}
	for name, o := range outputs {
		if data := (Codec{}).Encode(hook.SessionEnd, o); data != nil {
			t.Errorf("session-end, %s: printed %s; Codex has no SessionEnd output", name, data)
		}
	}
}

// The schemas are strict: the test above could not pass by accident.
func TestSchemasRejectWhatCodexRejects(t *testing.T) {
	for _, c := range []struct{ file, data string }{
		{"pre-tool-use.command.output.schema.json", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x","extra":1}}`},
		{"stop.command.output.schema.json", `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"x"}}`},
		{"stop.command.output.schema.json", `{"decision":"block"}`},
		{"session-start.command.output.schema.json", `{"additionalContext":"x"}`},
	} {
		if validate(t, schema(t, c.file), []byte(c.data)) == nil {
			t.Errorf("%s accepts %s", c.file, c.data)
		}
	}
}

// What is served where: context at PreToolUse with the question folded
// in; the block at Stop; the note everywhere Codex shows one.
func TestEncodeKeepsWhatCodexHonours(t *testing.T) {
	got := string(Codec{}.Encode(hook.PreToolUse, outputs["ask"]))
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"ctx\n\ndevlearn: k1 asks for a check"}}` + "\n"
	if got != want {
		t.Errorf("pre-tool-use ask:\n got %s\nwant %s", got, want)
	}
	got = string(Codec{}.Encode(hook.Stop, outputs["block and note"]))
	want = `{"decision":"block","reason":"go through the checklist","systemMessage":"devlearn: released"}` + "\n"
	if got != want {
		t.Errorf("stop:\n got %s\nwant %s", got, want)
	}
	if got := (Codec{}).Encode(hook.SessionStart, outputs["empty"]); got != nil {
		t.Errorf("empty output printed %s", got)
	}
}

func decode(t *testing.T, event, data string) hook.Input {
	t.Helper()
	var in hook.Input
	if err := (Codec{}).Decode(event, jsontext.NewDecoder(strings.NewReader(data)), &in); err != nil {
		t.Fatal(err)
	}
	return in
}

// The fixture is a PreToolUse input as Codex's own input schema defines
// it; it decodes to the Bash call it is.
func TestDecodePreToolUse(t *testing.T) {
	data, err := os.ReadFile("testdata/pre-tool-use.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, schema(t, "pre-tool-use.command.input.schema.json"), data); err != nil {
		t.Fatalf("the fixture is not Codex's shape: %v", err)
	}
	in := decode(t, hook.PreToolUse, string(data))
	if in.ToolName != "Bash" || in.SessionID == "" || in.Cwd != "/home/dev/repo" {
		t.Errorf("decoded %+v", in)
	}
	if in.Tool != hook.ToolArgsOf(map[string]string{"command": "go test ./..."}) {
		t.Errorf("tool args %+v", in.Tool)
	}
}

func TestApplyPatchIsTheEditOfItsFile(t *testing.T) {
	in := decode(t, hook.PreToolUse, `{"session_id":"s","cwd":"/r","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: internal/a.go\n@@\n-x\n+y\n*** End Patch\n"}}`)
	if in.ToolName != "Edit" || in.Tool.FilePath != "internal/a.go" {
		t.Errorf("decoded %+v", in)
	}
	in = decode(t, hook.PreToolUse, `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: b.go\n+package b\n*** End Patch"}}`)
	if in.ToolName != "Write" || in.Tool.FilePath != "b.go" {
		t.Errorf("decoded %+v", in)
	}
	in = decode(t, hook.PreToolUse, `{"tool_name":"apply_patch","tool_input":["odd"]}`)
	if in.ToolName != "Edit" || in.Tool.FilePath != "" {
		t.Errorf("decoded %+v", in)
	}
}
