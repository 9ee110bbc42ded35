package extract

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/transcript"
)

// session builds channels from a script: "user: text", "assistant: text",
// "edit: /path", "bash: command" or "fail: command => error".
func session(id string, script ...string) *transcript.Channels {
	ch := &transcript.Channels{SessionID: id}
	var turn *transcript.DialogPair
	for i, step := range script {
		line := i + 1
		kind, text, _ := strings.Cut(step, ": ")
		meta := transcript.Meta{UUID: fmt.Sprintf("%s-r%d", id, line), SessionID: id, Timestamp: fmt.Sprintf("2026-01-01T00:00:%02dZ", line), Line: line}
		switch kind {
		case "user":
			s := transcript.UserSignal{Meta: meta, Text: text, Cwd: "/repo"}
			ch.UserSignals = append(ch.UserSignals, s)
			if turn != nil {
				turn.Reply = &ch.UserSignals[len(ch.UserSignals)-1]
				ch.DialogPairs = append(ch.DialogPairs, *turn)
				turn = nil
			}
		case "assistant":
			if turn == nil {
				turn = &transcript.DialogPair{SessionID: id, FromLine: line}
			}
			turn.Assistant = strings.TrimSpace(turn.Assistant + "\n\n" + text)
			turn.AssistantUUID, turn.Timestamp = meta.UUID, meta.Timestamp
		case "edit", "read":
			name := "Edit"
			if kind == "read" {
				name = "Read"
			}
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: name, Paths: []string{text}, Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res"})
		case "bash":
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Bash", Command: text, Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res"})
		case "fail", "failedit":
			cmd, errText, _ := strings.Cut(text, " => ")
			tc := transcript.ToolCall{Meta: meta, Name: "Bash", Command: cmd, Cwd: "/repo", HasResult: true, IsError: true, Error: errText, ResultUUID: meta.UUID + "-res"}
			if kind == "failedit" {
				tc.Name, tc.Command, tc.Paths = "Edit", "", []string{cmd}
			}
			ch.Tools = append(ch.Tools, tc)
		default:
			panic("bad step " + step)
		}
	}
	if turn != nil {
		ch.DialogPairs = append(ch.DialogPairs, *turn)
	}
	return ch
}

func TestCorrectionPitfall(t *testing.T) {
	ch := session("s1",
		"user: bump the version to 1.4.0",
		"assistant: I'll update the version.",
		"edit: /repo/internal/version/version.go",
		"assistant: Done, the version is now 1.4.0.",
		"user: You forgot to update CHANGELOG.md, as always.",
		"assistant: Sorry, updating it.",
		"edit: /repo/CHANGELOG.md",
	)
	obs := Corrections(ch, Options{})
	if len(obs) != 1 {
		t.Fatalf("observations %+v", obs)
	}
	want := Observation{
		ID:         observe.ID(Pitfall, "Forgot to update CHANGELOG.md"),
		Type:       Pitfall,
		Pattern:    "Forgot to update CHANGELOG.md",
		Details:    "area: CHANGELOG.md; issue: forgot to update CHANGELOG.md; impact: the user had to point it out; resolution: update CHANGELOG.md",
		Evidence:   []string{"user: You forgot to update CHANGELOG.md, as always.", "assistant: Done, the version is now 1.4.0."},
		QualityOK:  true,
		SessionID:  "s1",
		RecordUUID: "s1-r5",
		Extractor:  ExtractorCorrection,
		Timestamp:  "2026-01-01T00:00:05Z",
	}
	if !reflect.DeepEqual(obs[0], want) {
		t.Fatalf("got\n%+v\nwant\n%+v", obs[0], want)
	}
}

func TestCorrectionArea(t *testing.T) {
	tests := []struct {
		name   string
		script []string
		typ    string
		area   string
	}{
		{"edited right after", []string{"user: add a cache", "assistant: ok", "edit: /repo/internal/cache/cache.go",
			"user: you forgot to close the file handle", "assistant: fixing", "edit: /repo/internal/store/store.go"}, Pitfall, "internal/store/store.go"},
		{"edited before, nothing after", []string{"user: add a cache", "assistant: ok", "edit: /repo/internal/cache/cache.go",
			"user: you forgot to close the file handle"}, Pitfall, "internal/cache/cache.go"},
		{"several files: their folder", []string{"user: go", "assistant: ok",
			"user: you didn't update the handlers for the new field", "edit: /repo/api/v1/users.go", "edit: /repo/api/v1/orders.go"}, Pitfall, "api/v1"},
		{"no file anywhere: procedural", []string{"user: go", "assistant: ok", "bash: go build ./...",
			"user: you forgot to run the race detector"}, Procedural, ""},
		{"outside the project: last two elements", []string{"user: go", "assistant: ok",
			"user: you forgot to update the global config", "edit: /home/me/.config/tool/config.toml"}, Pitfall, "tool/config.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := Corrections(session("s", tt.script...), Options{})
			if len(obs) != 1 || obs[0].Type != tt.typ {
				t.Fatalf("%+v", obs)
			}
			if tt.area != "" && !strings.HasPrefix(obs[0].Details, "area: "+tt.area+";") {
				t.Errorf("details %q, want area %s", obs[0].Details, tt.area)
			}
			if tt.typ == Procedural && !strings.HasPrefix(obs[0].Details, "trigger: after Bash: go build ./...; steps: run the race detector;") {
				t.Errorf("details %q", obs[0].Details)
			}
		})
	}
}

func TestDedupeWithinSession(t *testing.T) {
	ch := session("s1",
		"user: You forgot to run go vet.",
		"assistant: Running it.",
		"user: again: you forgot to run GO VET!!",
		"assistant: Sorry.",
		"user: From now on, use pnpm instead of npm. Also: from now on use pnpm instead of npm",
	)
	res := Session(ch, Options{})
	var kinds []string
	for _, o := range res.Observations {
		kinds = append(kinds, o.Type+"/"+o.Pattern)
	}
	if !slices.Equal(kinds, []string{"procedural/Forgot to run go vet", "decision/Use pnpm instead of npm"}) {
		t.Fatalf("observations %q", kinds)
	}
	if ev := res.Observations[0].Evidence; len(ev) != 3 || ev[1] != "user: again: you forgot to run GO VET!!" || res.Observations[0].RecordUUID != "s1-r1" {
		t.Errorf("two sightings, one observation: evidence %q uuid %s", ev, res.Observations[0].RecordUUID)
	}
}

func TestLessonDecision(t *testing.T) {
	ch := session("s1", "user: from now on prefer table-driven tests because they are easier to extend")
	obs := Lessons(ch, Options{})
	if len(obs) != 1 {
		t.Fatalf("%+v", obs)
	}
	o := obs[0]
	if o.Type != Decision || o.Pattern != "Prefer table-driven tests" || o.Extractor != ExtractorLesson ||
		o.Details != "context: stated by the user as a rule for this project; decision: prefer table-driven tests; rationale: because they are easier to extend" {
		t.Errorf("%+v", o)
	}
}

func TestEvidenceIsShort(t *testing.T) {
	long := "You forgot to update the docs " + strings.Repeat("and this and that ", 80)
	obs := Corrections(session("s", "user: "+long), Options{})
	if len(obs) != 1 {
		t.Fatalf("%+v", obs)
	}
	for _, e := range obs[0].Evidence {
		if n := utf8.RuneCountInString(e); n > maxQuote+len("assistant: ") || strings.Contains(e, "\n") {
			t.Errorf("evidence of %d runes: %q", n, e)
		}
	}
	if n := utf8.RuneCountInString(obs[0].Pattern); n > maxPattern {
		t.Errorf("pattern of %d runes", n)
	}
}

// TestRedactEverything: every text the extractors output goes through the
// Redact option.
func TestRedactEverything(t *testing.T) {
	const secret = "ghp_SecretTokenValueXyzzy"
	opt := Options{Redact: func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }}
	script := []string{
		"user: you forgot to export API_KEY=" + secret + " in deploy.sh",
		"assistant: Lesson learned: the key " + secret + " must come from the vault.\n\n[PROCESS_KNOWLEDGE]\nkey: vault-keys\nsummary: keys like " + secret + " live in the vault\ntags: [" + secret + "]\n[/PROCESS_KNOWLEDGE]",
		"fail: curl -H 'Authorization: " + secret + "' https://api => Error: 401 for " + secret,
		"user: from now on read " + secret + " from the environment",
		"user: please deploy with token " + secret,
	}
	a := Session(session("s1", script...), opt)
	b := Session(session("s2", script...), opt)
	out, err := json.Marshal([]any{a, b, Across([]Result{a, b}, opt)})
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{secret, observe.Normalize(secret), secret[:12]} {
		if strings.Contains(string(out), leak) {
			t.Fatalf("secret (%s) in output: %s", leak, out)
		}
	}
	for _, want := range []string{"[REDACTED]", ExtractorCorrection, ExtractorLesson, ExtractorRepeatedRequest, ExtractorRepeatedFailure} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s missing from output: the test no longer covers every extractor", want)
		}
	}
	if len(a.Candidates) != 1 || a.Candidates[0].Entry["tags"].([]any)[0] != "[REDACTED]" {
		t.Errorf("candidates %+v", a.Candidates)
	}
}

func TestParseKnowledgeBlocks(t *testing.T) {
	text := "Done.\n\n[PROCESS_KNOWLEDGE]\nkey: version-bump-checklist\nsummary: Bumping a version means four files, not one\nkind: checklist\npriority: CRITICAL\ntriggers:\n  tools: [Write, Edit]\n  files: [\"**/plugin.json\", \"**/*version*\"]\n  actions: [version bump]\nbody: |\n  - [ ] pyproject.toml\n  - [ ] plugin.json\n[/PROCESS_KNOWLEDGE]\n\n" +
		"Mentioning [PROCESS_KNOWLEDGE] in prose is not a block.\n\n" +
		"  [PROCESS_KNOWLEDGE]\n```yaml\nkey: fenced\nsummary: a fenced block\n```\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\n- just\n- a list\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\nkey: [unclosed\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\nkey: never-closed\n"
	blocks, errs := ParseKnowledgeBlocks(text, Options{})
	if len(blocks) != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	e := blocks[0].Entry
	if e["key"] != "version-bump-checklist" || e["priority"] != "CRITICAL" || e["body"] != "- [ ] pyproject.toml\n- [ ] plugin.json" {
		t.Errorf("entry %+v", e)
	}
	trig := e["triggers"].(map[string]any)
	if !reflect.DeepEqual(trig["files"], []any{"**/plugin.json", "**/*version*"}) || !reflect.DeepEqual(trig["tools"], []any{"Write", "Edit"}) {
		t.Errorf("triggers not as written: %+v", trig)
	}
	if !strings.HasPrefix(blocks[0].Raw, "[PROCESS_KNOWLEDGE]\nkey: version-bump-checklist") || !strings.HasSuffix(blocks[0].Raw, "[/PROCESS_KNOWLEDGE]") {
		t.Errorf("raw %q", blocks[0].Raw)
	}
	if blocks[1].Entry["key"] != "fenced" {
		t.Errorf("fenced block %+v", blocks[1])
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	want := []string{
		"knowledge block at line 25: not a YAML mapping",
		"knowledge block at line 29: not a YAML mapping",
		"knowledge block at line 32: no [/PROCESS_KNOWLEDGE]",
	}
	if len(msgs) != len(want) {
		t.Fatalf("errors %q", msgs)
	}
	for i := range want {
		if !strings.HasPrefix(msgs[i], want[i]) {
			t.Errorf("error %q, want prefix %q", msgs[i], want[i])
		}
	}
	same := KnowledgeBlock{Raw: strings.ReplaceAll(blocks[0].Raw, "\n", "  \r\n")}
	if same.Hash() != blocks[0].Hash() || (KnowledgeBlock{Raw: blocks[1].Raw}).Hash() == blocks[0].Hash() {
		t.Error("Hash must ignore line endings and trailing spaces, and only them")
	}
}

func TestKnowledgeCandidatesOnce(t *testing.T) {
	block := "[PROCESS_KNOWLEDGE]\nkey: k\nsummary: s\n[/PROCESS_KNOWLEDGE]"
	ch := session("s1", "user: please record this:\n"+block, "assistant: Recorded.\n"+block, "user: thanks")
	cands, errs := KnowledgeCandidates(ch, Options{})
	if len(errs) != 0 || len(cands) != 1 || cands[0].RecordUUID != "s1-r1" || cands[0].Extractor != ExtractorKnowledgeBlock || cands[0].Hash == "" {
		t.Fatalf("%+v %v", cands, errs)
	}
}

func TestRepeatedRequests(t *testing.T) {
	s1 := session("s1", "user: please run the linter and fix the warnings", "assistant: ok", "bash: golangci-lint run ./...", "edit: /repo/a.go", "user: continue")
	s2 := session("s2", "user: Run the linter and fix the warnings!", "assistant: ok", "bash: golangci-lint run", "user: continue")
	s3 := session("s3", "user: can you run the linter and fix the warnings", "user: can you run the linter and fix the warnings", "user: continue")
	s4 := session("s4", "user: add a readme section", "user: add a readme section")
	var results []Result
	for _, ch := range []*transcript.Channels{s1, s2, s3, s4} {
		results = append(results, Session(ch, Options{}))
	}
	obs := RepeatedRequests(append(append(append(results[0].Requests, results[1].Requests...), results[2].Requests...), results[3].Requests...), Options{})
	if len(obs) != 3 {
		t.Fatalf("want one workflow per session for the linter request, nothing for 'continue' or a request repeated in one session: %+v", obs)
	}
	for i, o := range obs {
		if o.Type != Workflow || o.Pattern != "run the linter and fix the warnings" || o.SessionID != fmt.Sprint("s", i+1) || o.Extractor != ExtractorRepeatedRequest {
			t.Errorf("%+v", o)
		}
	}
	if obs[0].Details != "request: please run the linter and fix the warnings; sessions: 3; steps: Bash: golangci-lint run ./..., Edit a.go" || !obs[0].QualityOK || obs[2].QualityOK {
		t.Errorf("details %q quality %v/%v", obs[0].Details, obs[0].QualityOK, obs[2].QualityOK)
	}
	if len(obs[0].Evidence) != 3 {
		t.Errorf("evidence %q", obs[0].Evidence)
	}
	if got := RepeatedRequests(results[0].Requests, Options{MinSessions: 1}); len(got) != 1 {
		t.Errorf("MinSessions 1: %+v", got)
	}
}

func TestNormalizeRequest(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hey Claude, can you please push to github? Thanks", "push to github"},
		{"bump the version to 1.2.3", "bump the version to #"},
		{"OK so now let's deploy to staging", "deploy to staging"},
		{"continue", ""},
		{"yes please", ""},
		{"fix", ""},
		{strings.Repeat("word ", 20), ""},
	}
	for _, tt := range tests {
		if got := normalizeRequest(tt.in); got != tt.want {
			t.Errorf("normalizeRequest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRepeatedFailures(t *testing.T) {
	s1 := session("s1",
		"fail: go test ./... => --- FAIL: TestPut (0.01s)\nstore_test.go:12: boom",
		"fail: ls -la missing/ => ls: cannot access 'missing/': No such file or directory",
		"failedit: /repo/a.go => <tool_use_error>String to replace not found in file.\nString: foo</tool_use_error>",
		"read: /repo/a.go",
		"edit: /repo/a.go",
		"fail: git commit => The user doesn't want to proceed with this tool use.",
	)
	s1.Tools[len(s1.Tools)-1].Rejected = true
	s2 := session("s2",
		"fail: cd /repo && go test ./... => --- FAIL: TestGet (0.02s)",
		"bash: go test ./...",
		"fail: ls -la other/ => ls: cannot access 'other/': No such file or directory",
		"failedit: /repo/b.go => <tool_use_error>String to replace not found in file.\nString: bar</tool_use_error>",
	)
	s3 := session("s3", "fail: npm run build => Error: Cannot find module 'x'")
	var fails []Failure
	for _, ch := range []*transcript.Channels{s1, s2, s3} {
		fails = append(fails, Failures(ch, Options{})...)
	}
	obs := RepeatedFailures(fails, Options{})
	var got []string
	for _, o := range obs {
		got = append(got, o.SessionID+" "+o.Pattern)
		if o.Type != Pitfall || o.Extractor != ExtractorRepeatedFailure || !strings.HasPrefix(o.Details, "area: ") || !strings.Contains(o.Details, "; impact: failed in 2 sessions; resolution: ") {
			t.Errorf("%+v", o)
		}
	}
	want := []string{
		"s1 Bash fails: go test ./...",
		"s2 Bash fails: go test ./...",
		"s1 Bash error: ls cannot access no such file or directory",
		"s2 Bash error: ls cannot access no such file or directory",
		"s1 Edit error: string to replace not found in file",
		"s2 Edit error: string to replace not found in file",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	for _, o := range obs {
		if strings.HasPrefix(o.Pattern, "Edit") && (!o.QualityOK || !strings.HasSuffix(o.Details, "resolution: it succeeded after Read a.go")) {
			t.Errorf("the Edit failure was resolved by reading the file first: %+v", o)
		}
		if strings.HasPrefix(o.Pattern, "Bash fails") && o.RecordUUID != o.SessionID+"-r1-res" {
			t.Errorf("a failure's record is the tool result's: %s", o.RecordUUID)
		}
	}
}

// TestRealTranscripts runs every extractor over the real transcripts: no
// failure, and every observation well formed.
func TestRealTranscripts(t *testing.T) {
	files, err := filepath.Glob("../../testdata/transcripts/*/*.jsonl")
	if err != nil || len(files) != 21 {
		t.Fatalf("%d transcripts, %v", len(files), err)
	}
	var results []Result
	for _, f := range files {
		ch, err := transcript.ReadFiles([]string{f}, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, Session(ch, Options{}))
	}
	// The same session read twice under two ids stands for a failure that
	// recurs: the worker must then report it.
	ch, err := transcript.ReadFiles([]string{realPath(t, files, "fe5e1c67")}, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again := Session(ch, Options{})
	for i := range again.Failures {
		again.Failures[i].SessionID = "copy"
	}
	all := append(Across(append(results, again), Options{}), results[0].Observations...)
	for _, r := range results {
		all = append(all, r.Observations...)
	}
	found := false
	for _, o := range all {
		checkObservation(t, o)
		if o.Extractor == ExtractorRepeatedFailure && strings.Contains(o.Details, "fails with: File has not been read yet. Read it first before writing to it.") {
			found = true
		}
	}
	if !found {
		t.Error("the recurring 'File has not been read yet' failure was not reported")
	}
}

func realPath(t *testing.T, files []string, part string) string {
	for _, f := range files {
		if strings.Contains(f, part) {
			return f
		}
	}
	t.Fatalf("no %s", part)
	return ""
}

func checkObservation(t *testing.T, o Observation) {
	t.Helper()
	if !slices.Contains([]string{Workflow, Procedural, Decision, Pitfall}, o.Type) || o.Pattern == "" || o.SessionID == "" || o.RecordUUID == "" || o.Extractor == "" {
		t.Errorf("incomplete observation %+v", o)
	}
	prefix := map[string]string{Pitfall: "area: ", Decision: "context: "}[o.Type]
	if !strings.HasPrefix(o.Details, prefix) {
		t.Errorf("details %q do not follow the %s convention", o.Details, o.Type)
	}
	if len(o.Evidence) == 0 || len(o.Evidence) > observe.MaxEvidence {
		t.Errorf("%d evidence quotes", len(o.Evidence))
	}
}

// Every pattern compiles (they compile on first use, not at start).
func TestPatternsCompile(t *testing.T) {
	if len(patterns) < 25 {
		t.Fatalf("only %d patterns registered", len(patterns))
	}
	for _, p := range patterns {
		if p.get() == nil {
			t.Fatalf("%q did not compile", p.src)
		}
	}
}
