package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
)

// joinRequest: two lessons of this session, one said before in other
// words, one new; and what the log holds.
func joinRequest() JoinRequest {
	return JoinRequest{
		Session: "sess-2",
		Fresh: []extract.Observation{
			{Type: "procedural", Pattern: "please keep tabs for indentation in the go files, I said it before"},
			{Type: "pitfall", Pattern: "The staging database is reset every night at 02:00"},
			{Type: "procedural", Pattern: "Indentation: tabs in Go files, never spaces"},
		},
		Existing: []observe.Observation{
			{ID: "obs_aaaaaaaaaaaa", Type: "decision", Pattern: "Indent Go files with tabs, not spaces"},
			{ID: "obs_bbbbbbbbbbbb", Type: "decision", Pattern: "Release notes go in CHANGELOG.md"},
			{ID: "obs_cccccccccccc", Type: "decision", Pattern: "Go files keep tabs: a person said no", Status: observe.Deprecated},
		},
	}
}

func TestPlanJoinAsksOnlyAboutWhatSharesWords(t *testing.T) {
	plan := planJoin(joinRequest())
	if !slices.Equal(plan.fresh, []int{0, 2}) {
		t.Fatalf("asked about %v, want the two that share words with an existing lesson", plan.fresh)
	}
	for n, at := range plan.candidates {
		if !slices.Equal(at, []int{0}) {
			t.Errorf("new %d: candidates %v, want only the tabs decision (never the deprecated one)", n+1, at)
		}
	}
	if p := planJoin(JoinRequest{Fresh: joinRequest().Fresh}); len(p.fresh) != 0 {
		t.Errorf("nothing existing, yet asked about %v", p.fresh)
	}
}

func TestJoinPromptIsDataAfterInstructions(t *testing.T) {
	req := joinRequest()
	req.Fresh[0].Details = "the key is AKIAIOSFODNN7EXAMPLF"
	p := buildJoinPrompt(req, planJoin(req), func(s string) string { return strings.ReplaceAll(s, "AKIAIOSFODNN7EXAMPLF", "[REDACTED]") })
	at := strings.LastIndex(string(p), "\n{\"new_observations\"")
	if at < 0 || !strings.HasPrefix(string(p), joinInstructionsText) {
		t.Fatalf("prompt shape:\n%s", p)
	}
	var doc joinDoc
	if err := json.Unmarshal(p[at+1:], &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.New) != 2 || doc.New[0].N != 1 || doc.New[1].N != 2 || len(doc.Existing) != 1 || doc.Existing[0].ID != "obs_aaaaaaaaaaaa" {
		t.Errorf("doc: %+v", doc)
	}
	if strings.Contains(string(p), "AKIAIOSFODNN7EXAMPLF") {
		t.Error("a secret went into the prompt")
	}
}

// writeAnswer writes a join answer in Claude Code's envelope.
func writeAnswer(t *testing.T, same string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "answer.json")
	if err := os.WriteFile(p, []byte(`{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":{"same":`+same+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// What the model says is taken only where it was asked: a new observation
// it was shown, paired with one of that one's candidates, once.
func TestJoinKeepsOnlyPairsItAsked(t *testing.T) {
	run, rec, log := runner(t, "answer", "")
	run.Env = append(run.Env, "FAKE_LLM_ANSWER="+writeAnswer(t, `[
		{"new": 1, "id": "obs_aaaaaaaaaaaa"},
		{"new": 1, "id": "obs_bbbbbbbbbbbb"},
		{"new": 2, "id": "obs_bbbbbbbbbbbb"},
		{"new": 7, "id": "obs_aaaaaaaaaaaa"},
		{"new": 2, "id": "obs_cccccccccccc"},
		{"new": "2", "id": "obs_aaaaaaaaaaaa"}]`))
	joined, err := run.Join(context.Background(), joinRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(joined) != 1 || joined[0].ID != "obs_aaaaaaaaaaaa" {
		t.Errorf("joined %+v, want only the first new observation, to the tabs decision", joined)
	}
	for _, want := range []string{"obs_bbbbbbbbbbbb is not a candidate of new observation 2", "pair 4 dropped", "obs_cccccccccccc is not a candidate", "pair 6 dropped"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(rec.read(t, "stdin"), `"new_observations"`) {
		t.Error("the prompt went elsewhere than stdin")
	}
}

func TestJoinAsksNothingWithoutCandidates(t *testing.T) {
	run, rec, _ := runner(t, "fail", "")
	req := joinRequest()
	req.Existing = req.Existing[1:2] // only the changelog decision
	joined, err := run.Join(context.Background(), req)
	if err != nil || len(joined) != 0 {
		t.Fatalf("joined %v, %v", joined, err)
	}
	if _, err := os.Stat(filepath.Join(rec.dir, "argv")); err == nil {
		t.Error("the command ran with nothing to ask")
	}
}

func TestJoinErrors(t *testing.T) {
	run, _, _ := runner(t, "fail", "")
	if _, err := run.Join(context.Background(), joinRequest()); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("a failing command: %v", err)
	}
	run, _, _ = runner(t, "answer", "good.json")
	if _, err := run.Join(context.Background(), joinRequest()); err == nil || !strings.Contains(err.Error(), `no "same" list`) {
		t.Errorf("an extraction's answer to a join: %v", err)
	}
	run.Env = append(run.Env, GuardEnv+"=1")
	if _, err := run.Join(context.Background(), joinRequest()); err == nil || !strings.Contains(err.Error(), "DEVLEARN_INTERNAL") {
		t.Errorf("inside a session devlearn started: %v", err)
	}
}

// Claude Code is held to the join answer's schema, not the extraction's.
func TestJoinSchemaForClaude(t *testing.T) {
	r := &Runner{Command: []string{"/usr/local/bin/claude", "-p", "--output-format", "json"}}
	argv := r.argv(joinSchemaText())
	if i := slices.Index(argv, "--json-schema"); i < 0 || !strings.Contains(argv[i+1], `"same"`) || strings.Contains(argv[i+1], `"observations"`) {
		t.Errorf("argv %q", argv)
	}
}
