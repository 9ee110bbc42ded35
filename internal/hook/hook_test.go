package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
)

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

// proj is a repository with .memory, and the hook environment around it.
type proj struct {
	t    *testing.T
	root string
	env  Env
}

func newProj(t *testing.T) *proj {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git", ".memory/knowledge/entries"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The clock that times a call stands still: a loaded machine must not
	// make a test's call "slow" and log it (TestSlowHookWarns moves it).
	still := func() time.Time { return now }
	return &proj{t: t, root: root, env: Env{Dir: root, Home: filepath.Join(root, ".home"), Now: func() time.Time { return now }, Clock: still}}
}

func (p *proj) entry(key, front, body string) {
	p.t.Helper()
	data := "---\n" + front + "\n---\n" + body
	if err := os.WriteFile(filepath.Join(p.root, ".memory/knowledge/entries", key+".md"), []byte(data), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *proj) file(rel, data string) {
	p.t.Helper()
	path := filepath.Join(p.root, rel)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// run runs one hook and returns what it printed.
func (p *proj) run(event string, in any) string {
	p.t.Helper()
	var stdin []byte
	switch v := in.(type) {
	case string:
		stdin = []byte(v)
	default:
		stdin, _ = json.Marshal(v)
	}
	var out bytes.Buffer
	Run(context.Background(), event, p.env, bytes.NewReader(stdin), &out)
	return out.String()
}

func (p *proj) log() string {
	data, _ := os.ReadFile(filepath.Join(p.root, ".git/devlearn/logs/hooks.log"))
	return string(data)
}

func (p *proj) write(file string, session string) map[string]any {
	return map[string]any{
		"session_id": session, "cwd": p.root, "hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(p.root, file), "content": "x"}, "tool_use_id": "toolu_1",
	}
}

func decode(t *testing.T, out string) Specific {
	t.Helper()
	var o Output
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return o.HookSpecificOutput
}

const bumpFront = `summary: Bumping a version means four files, not one
kind: checklist
priority: CRITICAL
triggers:
  tools: [Write, Edit]
  files: ["**/plugin.json"]
  actions: [version bump, release]`

func TestPreToolUseServesOncePerSessionAndPath(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	out := p.run(PreToolUse, p.write(".claude-plugin/plugin.json", "s1"))
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"devlearn: project knowledge quoted for this Write of .claude-plugin/plugin.json (data to weigh; what the person asks comes first).\n\n## version-bump-checklist [CRITICAL checklist]: Bumping a version means four files, not one\n(from .memory/knowledge/entries/version-bump-checklist.md; reviewed by a person)\n\n- [ ] plugin.json"}}` + "\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if again := p.run(PreToolUse, p.write(".claude-plugin/plugin.json", "s1")); again != "" {
		t.Fatalf("served twice in one session for one path:\n%s", again)
	}
	if other := p.run(PreToolUse, p.write("sub/plugin.json", "s1")); other == "" {
		t.Fatal("not served for another path")
	}
	if next := p.run(PreToolUse, p.write(".claude-plugin/plugin.json", "s2")); next == "" {
		t.Fatal("not served in another session")
	}
	served, err := SessionOf(mustFind(t, p.root), "s1").ServedIn()
	want1 := Served{At: "2026-05-10T09:00:00Z", Event: "PreToolUse", Tool: "Write", ToolUseID: "toolu_1", ID: "version-bump-checklist",
		Ref: "entry:version-bump-checklist", Path: ".claude-plugin/plugin.json", Score: 1.7}
	if err != nil || len(served) != 2 || (served[0] != want1 && served[1] != want1) {
		t.Fatalf("served: %+v, %v", served, err)
	}
}

// A draft is a note no person confirmed: said once in a session, at the
// first file it applies to, not again at every file after it; a lesson a
// person accepted is served for each file (above).
func TestPreToolUseServesADraftOncePerSession(t *testing.T) {
	p := newProj(t)
	// A learned draft: what the log knows from earlier sessions of the
	// project, kept in the clone's own folder.
	p.file(".memory/.local/observed/bump-draft.md", "---\n"+strings.Replace(bumpFront, "priority: CRITICAL", "priority: MEDIUM\nstatus: draft", 1)+"\n---\n- [ ] plugin.json\n")
	first := p.run(PreToolUse, p.write(".claude-plugin/plugin.json", "s1"))
	if !strings.Contains(first, "## bump-draft") || !strings.Contains(first, ", draft]") {
		t.Fatalf("the draft was not served at its first file:\n%s\nlog:\n%s", first, p.log())
	}
	if other := p.run(PreToolUse, p.write("sub/plugin.json", "s1")); other != "" {
		t.Fatalf("a draft served again in the same session, for another file:\n%s", other)
	}
	if next := p.run(PreToolUse, p.write("sub/plugin.json", "s2")); !strings.Contains(next, "## bump-draft") {
		t.Fatalf("the draft was not served in another session:\n%s", next)
	}
	served, err := SessionOf(mustFind(t, p.root), "s1").ServedIn()
	if err != nil || len(served) != 1 || served[0].Path != "" {
		t.Fatalf("served in s1: %+v, %v (want one session-wide claim)", served, err)
	}
}

// Concurrent hook processes (parallel tool calls) serve an entry once per
// session and path between them, without any lock.
func TestConcurrentProcessesServeOnce(t *testing.T) {
	if os.Getenv("DEVLEARN_HOOK_HELPER") != "" {
		t.Skip("helper")
	}
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	in, _ := json.Marshal(p.write("plugin.json", "par"))
	const n = 8
	var wg sync.WaitGroup
	outs := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHook$")
			cmd.Env = append(os.Environ(), "DEVLEARN_HOOK_HELPER="+p.root)
			cmd.Stdin = bytes.NewReader(in)
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("helper %d: %v", i, err)
			}
			outs[i] = string(out)
		}(i)
	}
	wg.Wait()
	served := 0
	for _, o := range outs {
		if strings.Contains(o, "version-bump-checklist") {
			served++
		}
	}
	if served != 1 {
		t.Fatalf("served %d times by %d concurrent hooks", served, n)
	}
	if rec, err := SessionOf(mustFind(t, p.root), "par").ServedIn(); err != nil || len(rec) != 1 {
		t.Fatalf("%d served records: %+v, %v", len(rec), rec, err)
	}
}

func TestHelperHook(t *testing.T) {
	root := os.Getenv("DEVLEARN_HOOK_HELPER")
	if root == "" {
		t.Skip("run by TestConcurrentProcessesServeOnce")
	}
	var out bytes.Buffer
	Run(context.Background(), PreToolUse, Env{Dir: root, Now: func() time.Time { return now }}, os.Stdin, &out)
	// Only the hook's output on stdout, nothing of the test framework's.
	os.Stdout.Write(out.Bytes())
	os.Stdout.Sync()
	os.Exit(0)
}

func TestVetoReadOnlyAndBash(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": "hi"}) // not the first: no opening note
	prompt := p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": "please fix the README wording"})
	if prompt != "" {
		t.Fatalf("a prompt without its keywords served:\n%s", prompt)
	}
	if out := p.run(PreToolUse, p.write("README.md", "s")); out != "" {
		t.Fatalf("README.md write served the version checklist:\n%s", out)
	}
	read := p.write("plugin.json", "s")
	read["tool_name"] = "Read"
	if out := p.run(PreToolUse, read); out != "" {
		t.Fatalf("a Read was served:\n%s", out)
	}
	bash := map[string]any{"session_id": "s", "cwd": p.root, "tool_name": "Bash", "tool_input": map[string]any{"command": "git commit -am 'release 0.8.0'"}}
	// CRITICAL, tool misses, no file, action "release" found: (0+0+0.1+0.05)×2 = 0.3.
	if out := p.run(PreToolUse, bash); out != "" {
		t.Fatalf("bash commit served:\n%s", out)
	}
	// Editing plugin.json through the shell: the file trigger matches a
	// path in the command: (0+0.4+0.1+0.05)×2 = 1.1.
	bash["tool_input"] = map[string]any{"command": "sed -i 's/0.7.0/0.8.0/' .claude-plugin/plugin.json # release"}
	if out := p.run(PreToolUse, bash); !strings.Contains(out, "version-bump-checklist") {
		t.Fatalf("sed on plugin.json not served: %q", out)
	}
}

func TestPromptKeywordsServeAndAreRecorded(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	p.env.Redact = func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:password]") }
	out := p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": "do the version bump to 0.8.0 and release it, password hunter2"})
	sp := decode(t, out)
	if sp.HookEventName != "UserPromptSubmit" || !strings.Contains(sp.AdditionalContext, "quoted for this request") {
		t.Fatalf("%+v", sp)
	}
	sess := SessionOf(mustFind(t, p.root), "s")
	if got := sess.Prompts(3); len(got) != 1 || strings.Contains(got[0], "hunter2") || !strings.Contains(got[0], "[REDACTED:password]") {
		t.Fatalf("recorded prompts %q", got)
	}
	// The prompt's words now count for tool calls in the session: a
	// Write to plugin.json scores (0.4+0.4+0.1+0.05)×2 = 1.9.
	out = p.run(PreToolUse, p.write("plugin.json", "s"))
	if !strings.Contains(out, "version-bump-checklist") {
		t.Fatalf("not served: %q", out)
	}
	rec, _ := sess.ServedIn()
	if len(rec) != 2 || rec[1].Path != "plugin.json" || rec[1].Score != 1.9 || rec[0].Event != "UserPromptSubmit" {
		t.Fatalf("served records: %+v", rec)
	}
}

// A prompt of megabytes (a pasted log) is redacted only as far as it is
// stored, plus a margin: a secret across where it is cut is still caught.
func TestLongPromptsAreRedactedAsFarAsStored(t *testing.T) {
	p := newProj(t)
	longest := 0
	p.env.Redact = func(s string) string {
		longest = max(longest, len(s))
		return strings.ReplaceAll(s, "hunter2hunter2", "[REDACTED:password]")
	}
	// The secret starts two runes before the stored prompt ends.
	prompt := strings.Repeat("x", MaxPromptRunes-2) + "hunter2hunter2" + strings.Repeat(" log line", 1<<20)
	p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": prompt})
	if longest == 0 || longest > MaxPromptRunes*4+promptRedactMargin {
		t.Fatalf("redacted %d bytes of a %d-byte prompt", longest, len(prompt))
	}
	got := SessionOf(mustFind(t, p.root), "s").Prompts(1)
	// Redacted before it was cut: the stored end is the placeholder's
	// start, not the secret's.
	if len(got) != 1 || !strings.HasSuffix(got[0], "xx[R") {
		t.Fatalf("recorded %d bytes ending %q", len(got[0]), got[0][max(0, len(got[0])-10):])
	}
}

// A password the person types in answer to the agent asking for one is
// redacted before the prompt is recorded: the transcript says what the
// agent asked, and is read only for a prompt holding such a word.
func TestPasswordAnswerIsNotRecorded(t *testing.T) {
	p := newProj(t)
	p.env.Redact = redact.Text
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(tr, []byte(`{"type":"assistant","uuid":"a1","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"What password should the new user have?"}]}}`+"\n"), 0o644)
	p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "transcript_path": tr, "prompt": "use West11berg1! for it"})
	got := SessionOf(mustFind(t, p.root), "s").Prompts(1)
	if len(got) != 1 || strings.Contains(got[0], "West11berg1!") || !strings.Contains(got[0], redact.PasswordPlaceholder) {
		t.Fatalf("recorded %q", got)
	}
}

func mustFind(t *testing.T, dir string) *project.Project {
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Nothing that goes wrong reaches the agent: no output, the reason in the
// worker log.
func TestFailuresPrintNothing(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "x\n")
	for _, tc := range []struct{ name, in, log string }{
		{"empty", "", "empty hook input"},
		{"blank", "  \n", "empty hook input"},
		{"not json", "{not json", "hook input is not the expected JSON object"},
		{"array", "[1,2]", "hook input is not the expected JSON object"},
		{"wrong types", `{"session_id": 5}`, "hook input is not the expected JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := p.run(PreToolUse, tc.in); out != "" {
				t.Fatalf("printed %q", out)
			}
			if !strings.Contains(p.log(), tc.log) {
				t.Fatalf("log lacks %q:\n%s", tc.log, p.log())
			}
		})
	}
	if out := p.run("notification", "{}"); out != "" || !strings.Contains(p.log(), `unknown hook event "notification"`) {
		t.Fatalf("unknown event: %q\n%s", out, p.log())
	}
}

func TestPanicIsRecoveredAndLogged(t *testing.T) {
	p := newProj(t)
	p.entry("a", "summary: a\npriority: CRITICAL", "")
	p.env.Reconcile = func(context.Context, *project.Project, *config.Config, time.Time) error { panic("reconcile exploded") }
	out := p.run(SessionStart, map[string]any{"session_id": "s", "cwd": p.root, "source": "startup"})
	if out != "" {
		t.Fatalf("printed %q", out)
	}
	if l := p.log(); !strings.Contains(l, "panic: reconcile exploded") || !strings.Contains(l, "goroutine") {
		t.Fatalf("log:\n%s", l)
	}
	// A failing reconcile is logged and session start goes on.
	p.env.Reconcile = func(context.Context, *project.Project, *config.Config, time.Time) error {
		return fmt.Errorf("disk on fire")
	}
	if out := p.run(SessionStart, map[string]any{"session_id": "s", "cwd": p.root}); !strings.Contains(out, "CRITICAL") {
		t.Fatalf("session start after a failed reconcile: %q", out)
	}
	if !strings.Contains(p.log(), "reconcile: disk on fire (serving what is on disk)") {
		t.Fatalf("log:\n%s", p.log())
	}
}

func TestSwitches(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "x\n")
	in := p.write("plugin.json", "s")
	p.env.Silenced = true
	if out := p.run(PreToolUse, in); out != "" {
		t.Fatalf("silenced hook printed %q", out)
	}
	p.env.Silenced = false
	p.file(".memory/learning.json", `{"enabled": false}`)
	if out := p.run(PreToolUse, in); out != "" {
		t.Fatalf("disabled hook printed %q", out)
	}
	p.file(".memory/learning.json", `{"serve": {"enabled": false}}`)
	if out := p.run(PreToolUse, in); out != "" {
		t.Fatalf("serve disabled, hook printed %q", out)
	}
	// Serving off stops injection only: prompts are still recorded.
	p.run(UserPromptSubmit, map[string]any{"session_id": "s", "cwd": p.root, "prompt": "release it"})
	if got := SessionOf(mustFind(t, p.root), "s").Prompts(3); len(got) != 1 {
		t.Fatalf("prompt not recorded with serving off: %q", got)
	}
	p.file(".memory/learning.json", `{"serve": {"threshold": "high"}}`)
	if out := p.run(PreToolUse, in); out != "" || !strings.Contains(p.log(), `key "serve.threshold"`) {
		t.Fatalf("bad config: printed %q, log:\n%s", out, p.log())
	}
	os.Remove(filepath.Join(p.root, ".memory/learning.json"))
	os.RemoveAll(filepath.Join(p.root, ".memory"))
	if out := p.run(PreToolUse, in); out != "" {
		t.Fatalf("project without .memory served %q", out)
	}
}

// At most 9,000 characters per output, and whatever is left
// out is named with how to read it.
func TestOutputKeepsToTheBudget(t *testing.T) {
	p := newProj(t)
	big := strings.Repeat("A long line of checklist text that goes on. ", 60) + "\n" // ~2,700 chars
	for i := 0; i < 6; i++ {
		p.entry(fmt.Sprintf("big-%d", i), "summary: Big entry\npriority: CRITICAL\ntriggers:\n  tools: [Write]\n  files: [\"**/*.go\"]", big)
	}
	for _, ev := range []string{PreToolUse, SessionStart} {
		out := p.run(ev, p.write("main.go", "budget-"+ev))
		if n := len([]rune(out)); n > 9000 || n < 5000 {
			t.Fatalf("%s: output of %d characters", ev, n)
		}
		sp := decode(t, out)
		if !strings.Contains(sp.AdditionalContext, "left out for length: ") || !strings.Contains(sp.AdditionalContext, "devlearn knowledge show ID") {
			t.Fatalf("%s: left-out items not named:\n%s", ev, sp.AdditionalContext)
		}
	}
}

func TestAskBeforeTheToolRuns(t *testing.T) {
	p := newProj(t)
	p.entry("prod-config", "summary: Production config changes need a second pair of eyes\npriority: HIGH\nask: true\ntriggers:\n  tools: [Write, Edit]\n  files: [\"deploy/prod/**\"]", "Ask the on-call first.\n")
	sp := decode(t, p.run(PreToolUse, p.write("deploy/prod/app.yaml", "s")))
	if sp.PermissionDecision != "ask" || !strings.Contains(sp.PermissionDecisionReason, "prod-config") || !strings.Contains(sp.AdditionalContext, "Ask the on-call first.") {
		t.Fatalf("%+v", sp)
	}
}

func TestBrokenEntryDoesNotStopServing(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "x\n")
	p.entry("broken", "summary: b\npriority: ASAP", "")
	if out := p.run(PreToolUse, p.write("plugin.json", "s")); !strings.Contains(out, "version-bump-checklist") {
		t.Fatalf("not served beside a broken entry: %q", out)
	}
	if !strings.Contains(p.log(), `.memory/knowledge/entries/broken.md:3: priority "ASAP" is not one of CRITICAL, HIGH, MEDIUM, LOW (skipped; the other entries are served)`) {
		t.Fatalf("log:\n%s", p.log())
	}
}

// An entry deleted or archived after the cache was built is never served.
func TestChangedSinceCachedIsNotServed(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "x\n")
	p.run(SessionStart, map[string]any{"session_id": "a", "cwd": p.root})
	dir := filepath.Join(p.root, ".memory/knowledge/entries")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
	p.run(SessionStart, map[string]any{"session_id": "a", "cwd": p.root}) // a cache the hot path trusts
	// Archived in place: the folder does not change.
	p.entry("version-bump-checklist", strings.Replace(bumpFront, "priority: CRITICAL", "priority: CRITICAL\nstatus: archived", 1), "x\n")
	os.Chtimes(dir, old, old)
	if out := p.run(PreToolUse, p.write("plugin.json", "b")); out != "" {
		t.Fatalf("archived entry served: %q", out)
	}
	os.Remove(filepath.Join(dir, "version-bump-checklist.md"))
	os.Chtimes(dir, old, old)
	if out := p.run(PreToolUse, p.write("plugin.json", "c")); out != "" {
		t.Fatalf("deleted entry served: %q", out)
	}
}

// Whatever the number and length of what is left out, and however long the
// path, the output keeps to the smallest budget the config allows.
func TestOutputKeepsToASmallBudgetWithManyLeftOut(t *testing.T) {
	p := newProj(t)
	p.file(".memory/learning.json", `{"serve": {"budget_chars": 500, "max_items": 50}}`)
	for i := 0; i < 40; i++ {
		key := fmt.Sprintf("a-rather-long-key-for-an-entry-that-says-something-%02d", i)
		p.entry(key, "summary: Big entry\npriority: CRITICAL\ntriggers:\n  tools: [Write]\n  files: [\"**/*.go\"]", strings.Repeat("words ", 20)+"\n")
	}
	long := strings.Repeat("deep/", 200) + "main.go"
	for _, ev := range []string{PreToolUse, SessionStart} {
		out := p.run(ev, p.write(long, "small-"+ev))
		if n := len([]rune(out)); n > 500 || n == 0 {
			t.Fatalf("%s: output of %d characters:\n%s", ev, n, out)
		}
		// Named in part ("…and 38 more. Read") or only counted ("40 items.
		// Read"), as the budget allows.
		if sp := decode(t, out); !strings.Contains(sp.AdditionalContext, "more. Read") && !strings.Contains(sp.AdditionalContext, "40 items. Read") {
			t.Fatalf("%s: the left-out count is missing:\n%s", ev, sp.AdditionalContext)
		}
	}
}

// A writer that leaves stdin open after the hook's JSON object does not
// hold the hook: it reads one value and answers.
func TestStdinLeftOpen(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	in, _ := json.Marshal(p.write("plugin.json", "s"))
	r, w := io.Pipe()
	defer w.Close()
	go w.Write(in) // and never closed
	done := make(chan string)
	go func() {
		var out bytes.Buffer
		Run(context.Background(), PreToolUse, p.env, r, &out)
		done <- out.String()
	}()
	select {
	case out := <-done:
		if !strings.Contains(out, "version-bump-checklist") {
			t.Fatalf("not served: %q", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the hook waits for stdin to close")
	}
}

// A tool's input of an unexpected shape (an MCP tool's list-valued
// command, a non-object input) is served on what is known, as before.
func TestOddToolInputIsStillServed(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	in := p.write("plugin.json", "s")
	in["tool_input"] = map[string]any{"file_path": filepath.Join(p.root, "plugin.json"), "command": []string{"ls"}, "query": 3, "content": map[string]any{"a": "b"}}
	if out := p.run(PreToolUse, in); !strings.Contains(out, "version-bump-checklist") {
		t.Fatalf("not served: %q\n%s", out, p.log())
	}
	in["tool_input"] = "plugin.json"
	if out := p.run(PreToolUse, in); out != "" || p.log() != "" {
		t.Fatalf("a string tool_input printed %q or logged:\n%s", out, p.log())
	}
}

// An agent that cut a long output inside an emoji leaves half of a UTF-16
// surrogate pair in its input, and a byte that is not UTF-8 comes the same
// way: the event is read with U+FFFD there, not lost.
func TestBrokenTextInInputIsStillServed(t *testing.T) {
	p := newProj(t)
	p.entry("version-bump-checklist", bumpFront, "- [ ] plugin.json\n")
	for i, odd := range []string{`"cut \ud83d"`, `"\udc00 alone"`, "\"raw \xff byte\""} {
		data, _ := json.Marshal(p.write("plugin.json", fmt.Sprint("s", i)))
		in := strings.Replace(string(data), "{", `{"tool_response":`+odd+",", 1)
		if out := p.run(PreToolUse, in); !strings.Contains(out, "version-bump-checklist") {
			t.Fatalf("%s: not served: %q\n%s", odd, out, p.log())
		}
	}
}
