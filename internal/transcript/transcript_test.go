package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

const transcripts = "../../testdata/transcripts"

func realFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(transcripts, "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 21 {
		t.Fatalf("found %d transcripts in %s, want the 21 of MANIFEST.tsv", len(files), transcripts)
	}
	return files
}

func realFile(t testing.TB, part string) string {
	t.Helper()
	for _, f := range realFiles(t) {
		if strings.Contains(f, part) {
			return f
		}
	}
	t.Fatalf("no transcript matches %q", part)
	return ""
}

// TestEveryTranscriptReads: every real transcript reads without an error;
// only the deliberately malformed fixture has Problems, on the lines that
// are malformed; and what comes out is clean text with its provenance.
func TestEveryTranscriptReads(t *testing.T) {
	for _, f := range realFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			ch, err := ReadFiles([]string{f}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var lines []int
			for _, p := range ch.Problems {
				lines = append(lines, p.Line)
				if p.File != f || !strings.HasPrefix(p.Error(), fmt.Sprintf("%s:%d: ", f, p.Line)) {
					t.Errorf("problem does not name its file: %v", p)
				}
			}
			want := []int(nil)
			if strings.Contains(f, "edge_cases") {
				// 11: a user record whose message is a string; 13, 15, 16: a
				// JSON string, number and array instead of a record.
				want = []int{11, 13, 15, 16}
			}
			if !slices.Equal(lines, want) {
				t.Fatalf("problems on lines %v, want %v: %v", lines, want, ch.Problems)
			}
			if ch.Stats.UserSignals != len(ch.UserSignals) || ch.Stats.DialogPairs != len(ch.DialogPairs) {
				t.Errorf("stats %+v disagree with %d signals, %d pairs", ch.Stats, len(ch.UserSignals), len(ch.DialogPairs))
			}
			for _, s := range ch.UserSignals {
				if s.Text == "" || !utf8.ValidString(s.Text) || s.Line == 0 {
					t.Errorf("bad signal %+v", s)
				}
				if text, _ := PersonText(s.Text); text != s.Text && !s.Rejection {
					t.Errorf("signal is noise: %q", s.Text)
				}
				if s.UUID == "" && !strings.Contains(f, "edge_cases") {
					t.Errorf("signal without uuid: %+v", s)
				}
			}
			for i, p := range ch.DialogPairs {
				if p.Reply == nil && i != len(ch.DialogPairs)-1 && ch.Stats.Compactions == 0 {
					t.Errorf("pair %d without reply before the end: %+v", i, p)
				}
				if p.Reply != nil && p.Reply.Line <= p.FromLine {
					t.Errorf("reply before its turn: %+v", p)
				}
			}
			if !slices.IsSortedFunc(ch.Tools, func(a, b ToolCall) int { return a.Line - b.Line }) {
				t.Error("tools not in line order")
			}
		})
	}
}

func texts(ss []UserSignal) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Text)
	}
	return out
}

// TestRealTranscripts checks what the channels hold for the transcripts
// that each show one feature of the format.
func TestRealTranscripts(t *testing.T) {
	read := func(t *testing.T, part string) *Channels {
		ch, err := ReadFiles([]string{realFile(t, part)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	t.Run("interrupted request and refused tool calls (1.0.17)", func(t *testing.T) {
		ch := read(t, "sniffly")
		if got := texts(ch.UserSignals); !slices.Equal(got, []string{"push to github", "continue"}) {
			t.Fatalf("signals %q", got)
		}
		if ch.UserSignals[0].AfterInterrupt || !ch.UserSignals[1].AfterInterrupt {
			t.Error("only the message after [Request interrupted by user] is AfterInterrupt")
		}
		var rejected, failed int
		for _, tc := range ch.Tools {
			if tc.Rejected {
				rejected++
			}
			if tc.Failed() {
				failed++
			}
		}
		if len(ch.Tools) != 7 || rejected != 2 || failed != 0 {
			t.Errorf("%d tools, %d rejected, %d failed; want 7, 2, 0", len(ch.Tools), rejected, failed)
		}
		if ch.Tools[0].Name != "Bash" || ch.Tools[0].Command != "git status" || ch.Tools[0].UUID == "" || ch.Tools[0].ResultUUID == "" {
			t.Errorf("first tool %+v", ch.Tools[0])
		}
		if n := len(ch.DialogPairs); n != 2 || ch.DialogPairs[0].Reply == nil || ch.DialogPairs[0].Reply.Text != "continue" || ch.DialogPairs[1].Reply != nil {
			t.Errorf("pairs %+v", ch.DialogPairs)
		}
	})
	t.Run("the person's reason for refusing a tool call is a signal", func(t *testing.T) {
		ch := read(t, "JSSoundRecorder")
		i := slices.IndexFunc(ch.UserSignals, func(s UserSignal) bool { return s.Rejection })
		if i < 0 || ch.UserSignals[i].Text != "use pnpm" {
			t.Fatalf("no rejection signal 'use pnpm' in %q", texts(ch.UserSignals))
		}
		for _, s := range ch.UserSignals {
			if strings.Contains(s.Text, "<ide_") || strings.Contains(s.Text, "<command-") {
				t.Errorf("IDE or command wrapper leaked: %q", s.Text)
			}
		}
		if ch.Stats.Thinking != 36 || ch.Stats.Other != 12 {
			t.Errorf("stats %+v: want 36 thinking blocks and 12 queue-operation records", ch.Stats)
		}
		j := slices.IndexFunc(ch.Tools, func(tc ToolCall) bool { return tc.Name == "Edit" && tc.IsError && !tc.Rejected })
		if j < 0 || !strings.HasPrefix(ch.Tools[j].Error, "<tool_use_error>String to replace not found") {
			t.Errorf("the failed Edit and its error are missing")
		} else if tc := ch.Tools[j]; !tc.Protocol || tc.Failed() {
			t.Errorf("an Edit whose old string is not found is Claude Code's tool protocol, not a failure: %+v", tc)
		}
	})
	t.Run("a 1 MB image line", func(t *testing.T) {
		ch := read(t, "0d3a8e6f")
		if ch.Stats.Images != 1 || len(ch.UserSignals) != 4 {
			t.Fatalf("stats %+v, signals %q", ch.Stats, texts(ch.UserSignals))
		}
		if !strings.Contains(ch.UserSignals[3].Text, "[Image #1]") || !ch.UserSignals[3].AfterInterrupt {
			t.Errorf("image message: %+v", ch.UserSignals[3])
		}
	})
	t.Run("inline sidechains (1.0.98)", func(t *testing.T) {
		ch := read(t, "fe5e1c67")
		if got := texts(ch.UserSignals); !slices.Equal(got, []string{"Thanks! Please update CLAUDE.md for current changes"}) {
			t.Fatalf("the subagents' prompts or /orchestrator leaked into signals: %q", got)
		}
		side := 0
		for _, tc := range ch.Tools {
			if tc.Sidechain {
				side++
			}
		}
		if side < 100 || side == len(ch.Tools) {
			t.Errorf("%d of %d tools are sidechain", side, len(ch.Tools))
		}
	})
	t.Run("subagent files: flat (2.0.x) and under subagents/ (2.1.x)", func(t *testing.T) {
		for _, part := range []string{"agent-9fa17969", "subagents__agent-ab1e"} {
			ch := read(t, part)
			if len(ch.UserSignals) != 0 || len(ch.DialogPairs) != 0 || len(ch.Tools) == 0 {
				t.Errorf("%s: a subagent's prompt is not the person: %d signals, %d pairs, %d tools", part, len(ch.UserSignals), len(ch.DialogPairs), len(ch.Tools))
			}
			for _, tc := range ch.Tools {
				if !tc.Sidechain || tc.AgentID == "" {
					t.Errorf("%s: tool not marked as the subagent's: %+v", part, tc)
				}
			}
		}
		if ch := read(t, "agent-9fa17969"); ch.SessionID != "741790a4-4fe2-4644-9a51-fb4482074060" {
			t.Errorf("flat agent file's session %q, want its parent's", ch.SessionID)
		}
	})
	t.Run("compaction, compact summary, api errors, rare record types", func(t *testing.T) {
		ch := read(t, "claude__small")
		if len(ch.Compactions) != 2 || ch.Compactions[0].Trigger != "auto" {
			t.Errorf("compactions %+v", ch.Compactions)
		}
		for _, s := range ch.UserSignals {
			if s.Text == "Hello" || s.Text == "Summary of prior context." {
				t.Errorf("sidechain or compact summary taken as the person: %q", s.Text)
			}
		}
		if ch.Stats.Other < 40 {
			t.Errorf("rare records should be counted as ignored: %+v", ch.Stats)
		}
	})
	t.Run("schema drift: top-level tool records, notification origin", func(t *testing.T) {
		ch := read(t, "schema_drift")
		if got := texts(ch.UserSignals); !slices.Equal(got, []string{"Open README"}) {
			t.Errorf("signals %q: a task notification is not the person", got)
		}
		if len(ch.Tools) != 1 || ch.Tools[0].Command != "cat README.md" || !ch.Tools[0].HasResult {
			t.Errorf("tools %+v", ch.Tools)
		}
	})
	t.Run("malformed fixture", func(t *testing.T) {
		ch := read(t, "edge_cases")
		got := texts(ch.UserSignals)
		if len(got) != 3 || !strings.HasPrefix(got[0], "Here's a message") || !strings.HasPrefix(got[2], "Testing special characters: café") {
			t.Errorf("signals %q", got)
		}
	})
	t.Run("command wrappers only", func(t *testing.T) {
		if ch := read(t, "3680252d"); len(ch.UserSignals) != 0 || len(ch.Summaries) != 3 {
			t.Errorf("signals %q, summaries %d", texts(ch.UserSignals), len(ch.Summaries))
		}
	})
	t.Run("empty file", func(t *testing.T) {
		ch := read(t, "4fe49c7c")
		if ch.Stats.Lines != 0 || ch.SessionID != "" || len(ch.Problems) != 0 {
			t.Errorf("%+v", ch)
		}
	})
}

// line builds one record line from alternating keys and values.
func line(kv ...any) string {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func user(uuid string, content any, extra ...any) string {
	return line(append([]any{"type", "user", "uuid", uuid, "sessionId", "s1", "timestamp", "t-" + uuid, "cwd", "/repo",
		"message", map[string]any{"role": "user", "content": content}}, extra...)...)
}

func assistant(uuid string, blocks ...map[string]any) string {
	return line("type", "assistant", "uuid", uuid, "sessionId", "s1", "timestamp", "t-"+uuid, "cwd", "/repo",
		"message", map[string]any{"role": "assistant", "content": blocks})
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

func toolResult(id string, content any, isErr bool) []any {
	return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}}
}

func read(t *testing.T, lines ...string) *Channels {
	t.Helper()
	ch, err := Read(strings.NewReader(strings.Join(lines, "\n")), "test.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestChannels(t *testing.T) {
	ch := read(t,
		user("u1", "fix the flaky test in store_test.go"),
		line("type", "file-history-snapshot", "snapshot", map[string]any{"x": 1}),
		assistant("a1", map[string]any{"type": "thinking", "thinking": "hmm"}, text("Looking."), toolUse("t1", "Read", map[string]any{"file_path": "/repo/store_test.go"})),
		user("u2", toolResult("t1", "package store", false), "toolUseResult", map[string]any{"type": "text"}),
		assistant("a2", toolUse("t2", "Bash", map[string]any{"command": "go test ./...", "description": "run"})),
		user("u3", toolResult("t2", []any{text("--- FAIL: TestPut"), map[string]any{"type": "image"}, text("FAIL")}, true), "toolUseResult", "Error: ..."),
		assistant("a3", text("The test fails; I will fix it.")),
		user("u4", []any{text("<system-reminder>ignore me</system-reminder>you forgot to run go vet"), map[string]any{"type": "image", "source": map[string]any{"data": "AAAA"}}}),
		user("u5", "<command-name>/clear</command-name>"),
		user("u6", "a meta prompt", "isMeta", true),
		line("type", "brand-new-type", "uuid", "x", "whatever", []any{1, 2}),
		assistant("a4", text("Ran go vet.")),
	)
	if got := texts(ch.UserSignals); !slices.Equal(got, []string{"fix the flaky test in store_test.go", "you forgot to run go vet"}) {
		t.Fatalf("signals %q", got)
	}
	s := ch.UserSignals[1]
	if s.UUID != "u4" || s.SessionID != "s1" || s.Timestamp != "t-u4" || s.Line != 8 || s.Cwd != "/repo" {
		t.Errorf("signal provenance %+v", s)
	}
	if len(ch.DialogPairs) != 2 {
		t.Fatalf("pairs %+v", ch.DialogPairs)
	}
	p := ch.DialogPairs[0]
	if p.Assistant != "Looking.\n\nThe test fails; I will fix it." || p.AssistantUUID != "a3" || p.FromLine != 3 || p.Reply == nil || p.Reply.UUID != "u4" {
		t.Errorf("pair %+v", p)
	}
	if last := ch.DialogPairs[1]; last.Assistant != "Ran go vet." || last.Reply != nil {
		t.Errorf("last pair %+v", last)
	}
	if len(ch.Tools) != 2 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	read, bash := ch.Tools[0], ch.Tools[1]
	if read.Name != "Read" || !slices.Equal(read.Paths, []string{"/repo/store_test.go"}) || read.IsError || read.UUID != "a1" || read.ResultUUID != "u2" {
		t.Errorf("read %+v", read)
	}
	if bash.Command != "go test ./..." || !bash.Failed() || bash.Error != "--- FAIL: TestPut\nFAIL" || bash.ResultLine != 6 {
		t.Errorf("bash %+v", bash)
	}
	if ch.Stats.Thinking != 1 || ch.Stats.Images != 1 || ch.Stats.Other != 2 || ch.Stats.ToolErrors != 1 || ch.Stats.Meta != 1 {
		t.Errorf("stats %+v", ch.Stats)
	}
}

func TestCompactionClosesTheTurn(t *testing.T) {
	ch := read(t,
		user("u1", "refactor the parser"),
		assistant("a1", text("Working on it.")),
		line("type", "system", "subtype", "compact_boundary", "uuid", "c1", "compactMetadata", map[string]any{"trigger": "manual"}),
		user("u2", "This session is being continued from a previous conversation.", "isCompactSummary", true),
		assistant("a2", text("Continuing.")),
		user("u3", "thanks"),
	)
	if len(ch.Compactions) != 1 || ch.Compactions[0].Trigger != "manual" || ch.Compactions[0].UUID != "c1" {
		t.Fatalf("compactions %+v", ch.Compactions)
	}
	if got := texts(ch.UserSignals); !slices.Equal(got, []string{"refactor the parser", "thanks"}) {
		t.Fatalf("signals %q", got)
	}
	if len(ch.DialogPairs) != 2 || ch.DialogPairs[0].Reply != nil || ch.DialogPairs[1].Assistant != "Continuing." || ch.DialogPairs[1].Reply.Text != "thanks" {
		t.Errorf("pairs %+v", ch.DialogPairs)
	}
}

// The recap Claude Code has the agent write at a compaction is kept, as
// the agent's words and redacted: marked isCompactSummary, or opening so
// in versions that do not mark it; a subagent's is not the session's.
func TestRecapIsKept(t *testing.T) {
	ch := read(t,
		user("u1", "refactor the parser"),
		user("u2", "Summary:\n4. Errors and fixes:\n   - User was angry: \"no force pushes\" (token ghp_R8s9Tk2LmQ4vW7xZ1pN3bC5dF6gH8jK0aE2y)", "isCompactSummary", true),
		user("u3", "This session is being continued from a previous conversation. Summary: none."),
		user("u4", "This session is being continued from a previous conversation. A subagent's.", "isSidechain", true),
		user("u5", "thanks"),
	)
	if len(ch.Recaps) != 2 || ch.Recaps[0].UUID != "u2" || ch.Recaps[1].UUID != "u3" {
		t.Fatalf("recaps %+v", ch.Recaps)
	}
	if r := ch.Recaps[0].Text; !strings.Contains(r, "no force pushes") || strings.Contains(r, "ghp_R8s9") {
		t.Errorf("recap %q: want it whole and redacted", r)
	}
	if got := texts(ch.UserSignals); !slices.Equal(got, []string{"refactor the parser", "thanks"}) {
		t.Errorf("signals %q: a recap is not the person's words", got)
	}
}

func TestTornAndLongLines(t *testing.T) {
	big := strings.Repeat("x\\\"y", 300<<10) // 1.2 MB of escapes, across many buffer fills
	ch := read(t,
		user("u1", "first request"),
		assistant("a1", text(big)),
		user("u2", "second request"),
		`{"type":"user","uuid":"u3","message":{"role":"user","content":"cut off mid-wr`,
	)
	if got := texts(ch.UserSignals); !slices.Equal(got, []string{"first request", "second request"}) {
		t.Fatalf("signals %q", got)
	}
	if len(ch.Problems) != 1 || !ch.Problems[0].Torn || ch.Problems[0].Line != 4 {
		t.Fatalf("problems %+v: the cut-off last line must be reported torn", ch.Problems)
	}
	if !errors.Is(ch.Problems[0].Err, ErrBadRecord) {
		t.Errorf("problem error %v", ch.Problems[0].Err)
	}
	if n := len(ch.DialogPairs[0].Assistant); n > DefaultMaxText || !strings.HasSuffix(ch.DialogPairs[0].Assistant, `x\"y`) {
		t.Errorf("assistant text kept %d bytes; want its last %d", n, DefaultMaxText)
	}
}

func TestMaxText(t *testing.T) {
	long := "héllo " + strings.Repeat("é", 100)
	ch, err := Read(strings.NewReader(strings.Join([]string{
		user("u1", long),
		assistant("a1", text(long)),
		user("u2", "ok"),
	}, "\n")), "t", Options{MaxText: 21})
	if err != nil {
		t.Fatal(err)
	}
	if got := ch.UserSignals[0].Text; got != "héllo ééééééé" {
		t.Errorf("head %q", got)
	}
	if got := ch.DialogPairs[0].Assistant; got != strings.Repeat("é", 10) {
		t.Errorf("tail %q", got)
	}
}

func TestPendingToolsFlushAtEnd(t *testing.T) {
	ch := read(t,
		assistant("a1", toolUse("t1", "Write", map[string]any{"file_path": "/repo/a.go"}), toolUse("t2", "Edit", map[string]any{"file_path": "/repo/b.go"})),
		user("u1", toolResult("t2", "ok", false)),
		user("u2", toolResult("t9", "Exit code 1\nboom", true)),
	)
	if len(ch.Tools) != 3 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if ch.Tools[0].ID != "t1" || ch.Tools[0].HasResult || ch.Tools[1].ID != "t2" || !ch.Tools[1].HasResult {
		t.Errorf("tools %+v", ch.Tools)
	}
	if orphan := ch.Tools[2]; orphan.Name != "" || !orphan.Failed() || orphan.Error != "Exit code 1\nboom" {
		t.Errorf("a result without its call keeps its error: %+v", orphan)
	}
}

// A command that passed only because a filter ends its pipeline keeps
// what it printed first; one without such a filter, or one that failed,
// does not.
func TestHiddenByAFilter(t *testing.T) {
	ch := read(t,
		assistant("a1", toolUse("t1", "Bash", map[string]any{"command": "git count-objects -v 2>&1 | head -20"})),
		user("u1", toolResult("t1", "fatal: detected dubious ownership in repository at '/repo'\nremote: https://x:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com", false)),
		assistant("a2", toolUse("t2", "Bash", map[string]any{"command": "git count-objects -v"})),
		user("u2", toolResult("t2", "count: 12", false)),
		assistant("a3", toolUse("t3", "Bash", map[string]any{"command": "false || echo x | head"})),
		user("u3", toolResult("t3", "x", false)),
	)
	if len(ch.Tools) != 3 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if got := ch.Tools[0]; got.Failed() || !strings.HasPrefix(got.Hidden, "fatal: detected dubious ownership in repository at '/repo'\n") {
		t.Errorf("through head: %+v", got)
	}
	if strings.Contains(ch.Tools[0].Hidden, "ghp_abcdef") {
		t.Errorf("a secret in what was printed is kept: %q", ch.Tools[0].Hidden)
	}
	if ch.Tools[1].Hidden != "" {
		t.Errorf("no filter, nothing hidden: %+v", ch.Tools[1])
	}
	for cmd, want := range map[string]bool{"a | head": true, "a 2>&1 | tail -5": true, "a | grep x": true, "a || b": false, "a | xargs rm": false, "a\nb | head": false, "a": false} {
		if got := FilteredLast(strings.ReplaceAll(cmd, `\n`, "\n")); got != want {
			t.Errorf("FilteredLast(%q) = %v", cmd, got)
		}
	}
}

// A Bash call with Claude Code's sandbox turned off is known as one run
// outside it; the others are not.
func TestSandboxTurnedOff(t *testing.T) {
	ch := read(t,
		assistant("a1", toolUse("t1", "Bash", map[string]any{"command": "gh pr create", "dangerouslyDisableSandbox": true})),
		user("u1", toolResult("t1", "https://github.com/o/r/pull/1", false)),
		assistant("a2", toolUse("t2", "Bash", map[string]any{"command": "gh pr view", "dangerouslyDisableSandbox": false})),
		user("u2", toolResult("t2", "ok", false)),
		assistant("a3", toolUse("t3", "Bash", map[string]any{"command": "ls"})),
		user("u3", toolResult("t3", "a", false)),
	)
	if len(ch.Tools) != 3 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if got := ch.Tools[0]; got.Unsandboxed != SandboxDisabled || !got.Escalated() {
		t.Errorf("sandbox turned off: %+v", got)
	}
	for _, got := range ch.Tools[1:] {
		if got.Escalated() {
			t.Errorf("in the sandbox: %+v", got)
		}
	}
}

func TestSinkErrorStops(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	_, _, err := Walk(strings.NewReader(user("u1", "a")+"\n"+user("u2", "b")), Options{}, Sink{UserSignal: func(UserSignal) error { n++; return stop }})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d signals", err, n)
	}
}

func TestWalkWithoutToolSink(t *testing.T) {
	// Without a ToolCall sink no tool call is built, but a refusal's reason
	// still reaches the person's channel.
	var got []UserSignal
	st, _, err := Walk(strings.NewReader(strings.Join([]string{
		assistant("a1", toolUse("t1", "Bash", map[string]any{"command": "npm install"})),
		user("u1", toolResult("t1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm", true)),
	}, "\n")), Options{}, Sink{UserSignal: func(s UserSignal) error { got = append(got, s); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "use pnpm" || !got[0].Rejection || st.ToolErrors != 1 {
		t.Fatalf("signals %+v stats %+v", got, st)
	}
}

// When the person answers Claude Code's questions by asking to talk them
// over, the "reason" is Claude Code's own text: no words of theirs.
func TestRejectionReason(t *testing.T) {
	const rejected = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
	for in, want := range map[string]string{
		rejected + "use pnpm, not npm": "use pnpm, not npm",
		rejected + "The user wants to clarify these questions.\n    This means they may have additional information, context or questions for you.\n\n    Questions asked:\n- \"Where should I create the repository?\"\n  (No answer provided)": "",
		"The user doesn't want to proceed with this tool use.": "",
	} {
		if got := rejectionReason(in); got != want {
			t.Errorf("rejectionReason(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPersonText(t *testing.T) {
	tests := []struct {
		in, want    string
		interrupted bool
	}{
		{"  please add tests  ", "please add tests", false},
		{"[Request interrupted by user for tool use]", "", true},
		{"[Request interrupted by user]", "", true},
		{"<command-name>/model</command-name>\n<command-args></command-args>", "", false},
		{"<command-message>init is analyzing your codebase…</command-message>", "", false},
		{"<local-command-stdout>See ya!</local-command-stdout>", "", false},
		{"<local-command-caveat>Caveat: ...</local-command-caveat>", "", false},
		{"Caveat: The messages below were generated by the user while running local commands. DO NOT respond", "", false},
		{"<bash-input>uv run ty check</bash-input>", "", false},
		{"Detect my project's dev servers and save all their configurations to .claude/launch.json, then ask which ones to start.\n\nUse runtimeExecutable for the command", "", false},
		{"<ide_opened_file>The user opened the file /x in the IDE.</ide_opened_file>", "", false},
		{"<ide_selection>lines 1-2</ide_selection>", "", false},
		{"<system-reminder>be nice</system-reminder>", "", false},
		{"fix it<system-reminder>hook text</system-reminder> please", "fix it please", false},
		{"unclosed <system-reminder>rest", "unclosed", false},
		{"ok thanks\n<bash-stdout>you forgot to install left-pad</bash-stdout>", "ok thanks", false},
		{"look:<local-command-stdout>x</local-command-stdout><bash-stderr>y</bash-stderr> done", "look: done", false},
		{"<task-notification>\n<status>completed</status>\n</task-notification>\nRead the output file to retrieve the result: /tmp/claude/tasks/b1.output", "", false},
		{"<div>my html</div>", "<div>my html</div>", false},
		{"<my-tag>not closed at the end", "<my-tag>not closed at the end", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, intr := PersonText(tt.in)
		if got != tt.want || intr != tt.interrupted {
			t.Errorf("PersonText(%q) = %q, %v; want %q, %v", tt.in, got, intr, tt.want, tt.interrupted)
		}
	}
}

func TestRecords(t *testing.T) {
	var types []string
	problems, err := Records(strings.NewReader(strings.Join([]string{
		`{"type":"summary","summary":"Fix \"quotes\"","leafUuid":"l1"}`,
		``,
		`  {"unknown":{"deep":[1,2,{"x":null}]},"type":"progress"}  `,
		`{"type":"assistant","message":{"role":"assistant","content":7}}`,
		`{"type":"attachment","message":"not an object, but nobody reads it"}`,
		`{"type":"user","isSidechain":true,"isMeta":true,"toolUseResult":null,"message":null}`,
	}, "\n")), func(r *Record) error {
		types = append(types, r.Type.String())
		if r.IsType("summary") && (r.Summary.String() != `Fix "quotes"` || r.LeafUUID.String() != "l1") {
			t.Errorf("summary %q %q", r.Summary.String(), r.LeafUUID.String())
		}
		if r.IsType("user") && (!r.IsSidechain || !r.IsMeta || r.HasToolUseResult || r.Content != nil) {
			t.Errorf("user flags %+v", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(types, []string{"summary", "progress", "attachment", "user"}) {
		t.Errorf("types %q", types)
	}
	if len(problems) != 1 || problems[0].Line != 4 || !strings.Contains(problems[0].Err.Error(), "neither text nor a list") {
		t.Errorf("problems %+v", problems)
	}
}

func TestParseBlocks(t *testing.T) {
	var got []string
	err := ParseBlocks([]byte(`[{"type":"text","text":"a\nb"},"stray",{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/x"}},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}],"is_error":true},{"type":"image","source":{"data":"AAAA"}}]`), func(b *Block) error {
		got = append(got, b.Type.String()+":"+b.Text.String()+":"+b.Name.String()+":"+string(b.Input)+":"+b.ToolUseID.String()+":"+string(b.Content))
		if b.Type.Is("tool_result") && !b.IsError {
			t.Error("is_error lost")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"text:a\nb::::", `tool_use::Edit:{"file_path":"/x"}::`, `tool_result::::t1:[{"type":"text","text":"ok"}]`, "image:::::"}
	if !slices.Equal(got, want) {
		t.Errorf("blocks\n%q\nwant\n%q", got, want)
	}
	n := 0
	if err := ParseBlocks([]byte(`"plain string content"`), func(b *Block) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("string content: %d blocks, %v", n, err)
	}
	for _, bad := range []string{`[{"type":"text"`, `42`, `[{"type":"text","text":"x"},]`} {
		if err := ParseBlocks([]byte(bad), func(*Block) error { return nil }); err == nil {
			t.Errorf("ParseBlocks(%s): no error", bad)
		}
	}
}

func seedLines(f *testing.F) {
	f.Helper()
	for _, p := range realFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for i, l := range strings.Split(string(data), "\n") {
			if i%7 == 0 && len(l) < 20000 {
				f.Add([]byte(l))
			}
		}
	}
}

// FuzzWalk: any input, however broken, is read without a panic; what comes
// out is valid UTF-8 and every problem names a line that exists.
func FuzzWalk(f *testing.F) {
	seedLines(f)
	f.Add([]byte(user("u1", "you forgot the tests") + "\n" + assistant("a1", text("ok")) + "\n{\"type\":\"us"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		check := func(s string) {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 out: %q", s)
			}
		}
		st, problems, err := Walk(strings.NewReader(string(data)), Options{MaxText: 64}, Sink{
			UserSignal: func(s UserSignal) error { check(s.Text); return nil },
			DialogPair: func(p DialogPair) error { check(p.Assistant); return nil },
			ToolCall:   func(tc ToolCall) error { check(tc.Error); check(tc.Command); return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("problem on line %d of %d", p.Line, lines)
			}
		}
		if st.Lines > lines {
			t.Fatalf("%d lines counted of %d", st.Lines, lines)
		}
	})
}

// FuzzParseBlocks: the content-block parser never panics, and on valid
// JSON it finds the blocks encoding/json finds.
func FuzzParseBlocks(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `[{"type":"text","text":"hi"}]`, `[{"type":"tool_use","id":"x","name":"Bash","input":{"command":"ls"}}]`,
		`[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"e"}],"is_error":true}]`,
		`[{"type":"image","source":{"type":"base64","data":"iVBOR"}},"s",1,null]`, `[]`, `null`, `[{"type":"te`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var types []string
		err := ParseBlocks(data, func(b *Block) error {
			types = append(types, b.Type.String())
			return nil
		})
		var std []json.RawMessage
		if err != nil || json.Unmarshal(data, &std) != nil || !utf8.Valid(data) {
			return
		}
		var want []string
		for _, raw := range std {
			// A map, not a struct: encoding/json matches struct fields
			// without regard to case, Claude Code's keys are exact.
			var m map[string]json.RawMessage
			if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &m) == nil {
				var typ string
				_ = json.Unmarshal(m["type"], &typ)
				want = append(want, typ)
			}
		}
		if !slices.Equal(types, want) {
			t.Fatalf("blocks %q, encoding/json %q", types, want)
		}
	})
}

// Refusing an edit, Claude Code 2.1 gives back only what the person typed
// as the tool's error: those are the person's words, and the call was
// refused. The edit tool's own errors and a command's are not.
func TestTypedRefusalOfAnEdit(t *testing.T) {
	var signals []UserSignal
	var calls []ToolCall
	_, _, err := Walk(strings.NewReader(strings.Join([]string{
		assistant("a1", toolUse("t1", "Edit", map[string]any{"file_path": "/repo/vm.ts", "old_string": "a", "new_string": "b"})),
		user("u1", toolResult("t1", "I don't need or want changes to the ViewModel files.  Let's revert changes to those files.", true)),
		assistant("a2", toolUse("t2", "Edit", map[string]any{"file_path": "/repo/a.ts", "old_string": "a", "new_string": "b"})),
		user("u2", toolResult("t2", "<tool_use_error>String to replace not found in file.</tool_use_error>", true)),
		assistant("a3", toolUse("t3", "Write", map[string]any{"file_path": "/root/CLAUDE.md", "content": "x"})),
		user("u3", toolResult("t3", "EACCES: permission denied, open '/root/CLAUDE.md'", true)),
		assistant("a5", toolUse("t5", "Edit", map[string]any{"file_path": "/repo/b.ts", "old_string": "a", "new_string": "b"})),
		user("u5", toolResult("t5", "File has been unexpectedly modified. Read it again before attempting to write it.", true)),
		assistant("a4", toolUse("t4", "Bash", map[string]any{"command": "make"})),
		user("u4", toolResult("t4", "make: *** No rule to make target 'x'.  Stop.", true)),
		// the VS Code extension's words for a replace that found nothing
		assistant("a6", toolUse("t6", "Edit", map[string]any{"file_path": "/repo/c.md", "old_string": "a", "new_string": "b"})),
		user("u6", toolResult("t6", "String not found in file. Failed to apply edit.", true)),
	}, "\n")), Options{}, Sink{UserSignal: func(s UserSignal) error { signals = append(signals, s); return nil }, ToolCall: func(c ToolCall) error { calls = append(calls, c); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(signals) != 1 || !signals[0].Rejection || !strings.HasPrefix(signals[0].Text, "I don't need or want changes to the ViewModel files.") {
		t.Fatalf("signals %+v", signals)
	}
	if len(calls) != 6 || calls[5].Rejected || !calls[5].Protocol || calls[3].Rejected || calls[3].Failed() || !calls[3].Protocol || !calls[0].Rejected || calls[0].Failed() || calls[1].Rejected || calls[2].Rejected || !calls[2].Failed() || calls[4].Rejected || !calls[4].Failed() {
		t.Fatalf("calls %+v", calls)
	}
}

// What the agent wrote since its last call is kept with the next call of
// the main conversation (redacted, capped), and forgotten once the person
// speaks; a subagent's calls keep none.
func TestSaidBeforeACall(t *testing.T) {
	ch := read(t,
		user("u1", "publish it"),
		assistant("a1", toolUse("t1", "Bash", map[string]any{"command": "gh repo create randroid-dojo/x"})),
		user("u2", toolResult("t1", "HTTP 404: Not Found", true)),
		assistant("a2", text("The organization is Randroids-Dojo, with an s."), text("Token ghp_abcdefghijklmnopqrstuvwxyz0123456789 works.")),
		assistant("a3", toolUse("t2", "Bash", map[string]any{"command": "gh repo create Randroids-Dojo/x"})),
		user("u3", toolResult("t2", "ok", false)),
		assistant("a4", text("Done, shall I push?")),
		user("u4", "yes"),
		assistant("a5", toolUse("t3", "Bash", map[string]any{"command": "git push"})),
		line("type", "assistant", "uuid", "s1", "sessionId", "s1", "isSidechain", true, "message", map[string]any{"role": "assistant",
			"content": []any{text("Subagent here."), toolUse("t4", "Read", map[string]any{"file_path": "/repo/x"})}}),
	)
	if len(ch.Tools) != 4 {
		t.Fatalf("tools %+v", ch.Tools)
	}
	if got := ch.Tools[0].Said; got != "" {
		t.Errorf("first call: %q", got)
	}
	got := ch.Tools[1].Said
	if !strings.HasPrefix(got, "The organization is Randroids-Dojo, with an s.\n\nToken ") || strings.Contains(got, "ghp_abcdef") {
		t.Errorf("rerun: %q", got)
	}
	if got := ch.Tools[2].Said; got != "" {
		t.Errorf("after the person spoke: %q", got)
	}
	if got := ch.Tools[3].Said; got != "" {
		t.Errorf("a subagent's call: %q", got)
	}
	for _, long := range []string{strings.Repeat("word ", MaxSaid), "x" + strings.Repeat("語", MaxSaid)} {
		ch = read(t, assistant("a1", text(long), toolUse("t1", "Bash", map[string]any{"command": "ls"})))
		if said := ch.Tools[0].Said; len(said) == 0 || len(said) > MaxSaid || !utf8.ValidString(said) {
			t.Errorf("capped at %d: %d bytes, valid %v", MaxSaid, len(said), utf8.ValidString(said))
		}
	}
}
