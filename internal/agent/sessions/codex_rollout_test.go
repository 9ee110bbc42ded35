package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/klauspost/compress/zstd"

	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

const sample = `{"timestamp":"2026-05-08T10:00:00.000Z","type":"session_meta","payload":{"id":"r1","cwd":"/home/dev/repo","cli_version":"0.150.0"}}
{"timestamp":"2026-05-08T10:00:00.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}
{"timestamp":"2026-05-08T10:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests","kind":"plain"}}
{"timestamp":"2026-05-08T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"go test ./...\"]}","call_id":"c1"}}
{"timestamp":"2026-05-08T10:00:03.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":1,"stderr":"FAIL a_test.go"}}
{"timestamp":"2026-05-08T10:00:03.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"FAIL\",\"metadata\":{\"exit_code\":1}}"}}
{"timestamp":"2026-05-08T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet ./...\"}","call_id":"c2"}}
{"timestamp":"2026-05-08T10:00:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Exit code: 0\nWall time: 1s\nOutput:\n"}}
{"timestamp":"2026-05-08T10:00:06.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c3","input":"*** Begin Patch\n*** Update File: a.go\n*** Add File: b.go\n*** End Patch"}}
{"timestamp":"2026-05-08T10:00:06.500Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Update File: c.go\\n@@\\n-a\\n+b\\n*** End Patch\"]}","call_id":"c4"}}
{"timestamp":"2026-05-08T10:00:07.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed."}]}}
{"timestamp":"2026-05-08T10:00:08.000Z","type":"event_msg","payload":{"type":"user_message","message":"you forgot go generate"}}
{"timestamp":"2026-05-08T10:00:09.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total":{"input_tokens":3}},"message":{"odd":true}}}
`

func TestReadRollout(t *testing.T) {
	ch := rollout(t, sample)
	if ch.SessionID != "r1" || len(ch.Problems) != 0 {
		t.Fatalf("session %q, problems %v", ch.SessionID, ch.Problems)
	}
	if len(ch.UserSignals) != 2 || ch.UserSignals[0].Text != "run the tests" || ch.UserSignals[0].Cwd != "/home/dev/repo" {
		t.Errorf("user signals %+v", ch.UserSignals)
	}
	if len(ch.Tools) != 4 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if c := ch.Tools[0]; c.Name != "Bash" || c.Command != "go test ./..." || !c.Failed() || c.Error != "FAIL a_test.go" {
		t.Errorf("shell call %+v", c)
	}
	if c := ch.Tools[1]; c.Name != "Bash" || c.Command != "go vet ./..." || c.Failed() || !c.HasResult {
		t.Errorf("exec_command %+v", c)
	}
	if c := ch.Tools[2]; c.Name != "Edit" || strings.Join(c.Paths, ",") != "a.go,b.go" {
		t.Errorf("apply_patch %+v", c)
	}
	if c := ch.Tools[3]; c.Name != "Edit" || c.Command != "" || strings.Join(c.Paths, ",") != "c.go" {
		t.Errorf("apply_patch through the shell %+v", c)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Assistant != "Fixed." || ch.DialogPairs[0].Reply.Text != "you forgot go generate" {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
}

// A compressed rollout reads as the plain one, and Find prefers the plain
// one where both are left, keeping only this working tree's sessions.
func TestCompressedRolloutAndFind(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "05", "08")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	plain := filepath.Join(day, "rollout-2026-05-08T10-00-00-r1.jsonl")
	other := filepath.Join(day, "rollout-2026-05-08T11-00-00-r2.jsonl.zst")
	os.WriteFile(plain, []byte(sample), 0o644)
	os.WriteFile(plain+".zst", enc.EncodeAll([]byte(sample), nil), 0o644)
	os.WriteFile(other, enc.EncodeAll([]byte(strings.Replace(sample, "/home/dev/repo", "/home/dev/other", 1)), nil), 0o644)
	ch, err := readCodexFile(plain+".zst", transcript.Options{})
	if err != nil || len(ch.Tools) != 4 {
		t.Fatalf("compressed: %v, %+v", err, ch)
	}
	got, err := findCodex(home, "/home/dev/repo")
	if err != nil || len(got) != 1 || got[0] != plain {
		t.Errorf("Find: %v, %v", got, err)
	}
	if !isCodexRollout(other) {
		t.Errorf("%s is a rollout", other)
	}
}

// Secrets are redacted where the text enters devlearn, as for Claude Code
// transcripts.
func TestRolloutSecretsAreRedactedOnRead(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"r2","cwd":"/r"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"use ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y to push"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git push https://x:ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y@github.com/o/r\"]}","call_id":"c1"}}
`
	ch := rollout(t, in)
	for _, s := range []string{ch.UserSignals[0].Text, ch.Tools[0].Command} {
		if strings.Contains(s, "ghp_R8s9") || !strings.Contains(s, "REDACTED") {
			t.Errorf("kept a secret: %q", s)
		}
	}
}

// A password the person types in answer to the agent asking for one is
// redacted as in Claude Code transcripts: the question says what it is.
func TestRolloutPasswordAnswerIsRedacted(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"r3","cwd":"/r"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"create the db user"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Which password should the db user get?"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"Mfq72!!Kx9 please"}}
`
	ch := rollout(t, in)
	if got := ch.UserSignals[1].Text; got != redact.PasswordPlaceholder+" please" {
		t.Errorf("the answer: %q", got)
	}
}

// Codex before session_meta lines: a first line with the session's id,
// timestamp and instructions, then items on lines of their own, without
// payload or times. Codex's own user-role messages (the instructions, the
// environment that names the cwd) are not the person's.
const older = `{"id":"89fd76e1-3371-41a0-9ae3-12e5b8f999e8","timestamp":"2025-09-24T00:55:32.770Z","instructions":"# Repository Guidelines\n- run the tests"}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<user_instructions>\n\n# Repository Guidelines\n</user_instructions>"}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>E:\\ANPR\\anpr_system</cwd>\n  <shell>powershell.exe</shell>\n</environment_context>"}]}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"schreibe alles auf deutsch"}]}
{"type":"reasoning","id":"rs_1","summary":[]}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"powershell.exe\",\"-Command\",\"python manage.py test\"]}","call_id":"call_1"}
{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"ModuleNotFoundError\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.5}}"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Die Tests schlagen fehl."}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"nutze die venv"}]}
`

func TestReadRolloutOlderShape(t *testing.T) {
	ch, err := readCodex(strings.NewReader(older), "rollout-2025-09-24T02-55-32-89fd76e1.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.SessionID != "89fd76e1-3371-41a0-9ae3-12e5b8f999e8" || len(ch.Problems) != 0 {
		t.Fatalf("session %q, problems %v", ch.SessionID, ch.Problems)
	}
	var said []string
	for _, u := range ch.UserSignals {
		said = append(said, u.Text)
		if u.Cwd != `E:\ANPR\anpr_system` || u.Timestamp != "2025-09-24T00:55:32.770Z" {
			t.Errorf("%q: cwd %q, time %q", u.Text, u.Cwd, u.Timestamp)
		}
	}
	if strings.Join(said, "|") != "schreibe alles auf deutsch|nutze die venv" {
		t.Errorf("the person said %q", said)
	}
	if len(ch.Tools) != 1 || ch.Tools[0].Command != "powershell.exe -Command python manage.py test" || !ch.Tools[0].Failed() {
		t.Errorf("tools %+v", ch.Tools)
	}
	if len(ch.DialogPairs) != 1 || ch.DialogPairs[0].Reply == nil || ch.DialogPairs[0].Reply.Text != "nutze die venv" {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2025-09-24T02-55-32-89fd76e1.jsonl")
	os.WriteFile(path, []byte(older), 0o644)
	if ok, cwd := firstMeta(path); !ok || cwd != `E:\ANPR\anpr_system` {
		t.Errorf("firstMeta: %v %q", ok, cwd)
	}
}

// A rollout of the older shape whose session had no instructions writes
// "instructions": null on its first line; it is a rollout all the same.
func TestOlderShapeWithoutInstructionsIsARollout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2025-09-24T03-49-52-6fa66ef4.jsonl")
	in := strings.Replace(older, `"instructions":"# Repository Guidelines\n- run the tests"`, `"instructions":null,"git":{}`, 1)
	if in == older {
		t.Fatal("the sample's first line changed: update this test")
	}
	os.WriteFile(path, []byte(in), 0o644)
	if ok, cwd := firstMeta(path); !ok || cwd != `E:\ANPR\anpr_system` {
		t.Errorf("firstMeta: %v %q", ok, cwd)
	}
	if ReaderFor(path) == nil {
		t.Errorf("not read as a rollout")
	}
}

// Code mode runs shell commands from a script, and answers with a list of
// text parts; a call may ask to run outside the sandbox.
func TestReadRolloutCodeModeAndEscalation(t *testing.T) {
	const in = `{"timestamp":"2026-07-23T00:00:00Z","type":"session_meta","payload":{"id":"r2","cwd":"/w"}}
{"timestamp":"2026-07-23T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"push it"}}
{"timestamp":"2026-07-23T00:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":"exec","call_id":"c1","input":"const r = await tools.shell_command({\"command\":\"git push\",\"workdir\":\"/w\"}); text(r);"}}
{"timestamp":"2026-07-23T00:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":[{"type":"input_text","text":"Script completed\nWall time 0.1 seconds\nOutput:\n"},{"type":"input_text","text":"Exit code: 128\nWall time: 0.1 seconds\nOutput:\nssh: Could not resolve hostname github.com\n"}]}}
{"timestamp":"2026-07-23T00:00:04Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"git push\",\"sandbox_permissions\":\"require_escalated\",\"justification\":\"push needs network\"}","call_id":"c2"}}
{"timestamp":"2026-07-23T00:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Exit code: 0\nWall time: 1 seconds\nOutput:\n"}}
`
	ch := rollout(t, in)
	if len(ch.Tools) != 2 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if c := ch.Tools[0]; c.Command != "git push" || !c.Failed() || !strings.Contains(c.Error, "Could not resolve hostname") || c.Escalated() {
		t.Errorf("code mode call %+v", c)
	}
	if c := ch.Tools[1]; c.Command != "git push" || c.Failed() || c.Unsandboxed != transcript.EscalatedPermissions {
		t.Errorf("escalated call %+v", c)
	}
}

// Codex's unified exec (exec_command) reports a command's end as
// "Process exited with code N" after a chunk header, not "Exit code: N".
func TestReadUnifiedExecExitCode(t *testing.T) {
	const in = `{"timestamp":"2026-02-23T14:07:00Z","type":"session_meta","payload":{"id":"r3","cwd":"/w"}}
{"timestamp":"2026-02-23T14:07:01Z","type":"event_msg","payload":{"type":"user_message","message":"run the tests"}}
{"timestamp":"2026-02-23T14:07:57Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test -- --runInBand\",\"yield_time_ms\":120000}","call_id":"c1"}}
{"timestamp":"2026-02-23T14:07:58Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 7cc5d8\nWall time: 0.1482 seconds\nProcess exited with code 1\nOriginal token count: 276\nOutput:\n\nCACError: Unknown option ` + "`--runInBand`" + `\n"}}
{"timestamp":"2026-02-23T14:08:02Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"npm test\"}","call_id":"c2"}}
{"timestamp":"2026-02-23T14:08:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: aa0da7\nWall time: 1.4 seconds\nProcess exited with code 0\nOriginal token count: 151\nOutput:\n ok\n"}}
`
	ch := rollout(t, in)
	if len(ch.Tools) != 2 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if c := ch.Tools[0]; !c.Failed() || !strings.Contains(c.Error, "Unknown option") {
		t.Errorf("the failed call reads as %+v", c)
	}
	if c := ch.Tools[1]; c.Failed() {
		t.Errorf("the passing call reads as failed: %+v", c)
	}
}

// What the agent said, quoted back above the person's question, is not
// the person's words in a rollout either.
func TestRolloutQuotedBackIsNotOwn(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"r4","cwd":"/r"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"fix the icons"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done.\n\n- **fallback**: missing files fall back to the old icon set"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"fallback: missing files fall back to the old icon set\nwhy the old set?"}}
`
	ch := rollout(t, in)
	if got := ch.UserSignals[1].Own; got != "why the old set?" {
		t.Errorf("own words: %q", got)
	}
}

// rollout reads a rollout given as text, failing the test on an error.
func rollout(t *testing.T, in string) *transcript.Channels {
	t.Helper()
	ch, err := readCodex(strings.NewReader(in), "r.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// Under its sandbox Codex gives back, for a command that ended badly, a
// text of its own in place of the output and its metadata: any exit
// status but 0 reads "sandbox denied", whether or not the sandbox had a
// part in it. Each is a failure, its text what the command printed (its
// output, then its errors, without Codex's labels); a time
// limit is no failure of the command, as Claude Code's is not.
func TestSandboxFailures(t *testing.T) {
	for _, c := range []struct {
		name, output string
		failed       bool
		text         string
	}{
		{"an exit status under seccomp", `failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2, stdout: \nE   ModuleNotFoundError: No module named 'opk'\n, stderr: `, true, "E   ModuleNotFoundError: No module named 'opk'"},
		{"an exit status under Seatbelt", `failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: fatal: not a git repository`, true, "fatal: not a git repository"},
		{"both printed", `failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 128, stdout:  M app.js\nmain\n, stderr: fatal: Unable to create '/w/.git/index.lock': Permission denied\n`, true, "M app.js\nmain\nfatal: Unable to create '/w/.git/index.lock': Permission denied"},
		{"an exit status that printed nothing", `failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: `, true, ""},
		{"a program not found", `execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })`, true, `Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })`},
		{"the time limit", `failed in sandbox None with execution error: command timed out`, false, "command timed out"},
		{"a success", `Exit code: 0\nOutput:\nok`, false, "Exit code: 0\nOutput:\nok"},
		// older Codex: a patch it could not apply, in place of the metadata
		{"a patch not applied", `error: Failed to find expected lines in /w/app.js:\nfi`, true, "Failed to find expected lines in /w/app.js:\nfi"},
		{"a patch applied", `{"output":"Success. Updated app.js","metadata":{"exit_code":0}}`, false, "Success. Updated app.js"},
	} {
		raw, _ := jsonv2.Marshal(strings.ReplaceAll(c.output, `\n`, "\n"))
		failed, text := outcome(raw)
		if failed != c.failed || text != strings.ReplaceAll(c.text, `\n`, "\n") {
			t.Errorf("%s: failed %v, text %q", c.name, failed, text)
		}
	}
}

// What a patch adds to an agent's instructions is kept, redacted, as the
// call's Wrote; a patch to code keeps none.
func TestRolloutPatchToInstructionsIsKept(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"r3","cwd":"/r"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"write that rule into AGENTS.md"}}
{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c1","input":"*** Begin Patch\n*** Update File: AGENTS.md\n@@\n # Rules\n+- Always answer in Japanese; push with ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y.\n*** End Patch"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Success."}}
{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c2","input":"*** Begin Patch\n*** Update File: main.go\n@@\n+var rule = 1\n*** End Patch"}}
`
	ch := rollout(t, in)
	if len(ch.Tools) != 2 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if got := ch.Tools[0].Wrote; !strings.Contains(got, "- Always answer in Japanese") || strings.Contains(got, "ghp_R8s9") {
		t.Errorf("wrote %q", got)
	}
	if got := ch.Tools[1].Wrote; got != "" {
		t.Errorf("code kept as written instructions: %q", got)
	}
}
