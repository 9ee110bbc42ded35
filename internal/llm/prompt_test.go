package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// promptSession decodes the JSON document at the end of a prompt.
func promptSession(t *testing.T, p []byte) session {
	t.Helper()
	i := bytes.LastIndex(p, []byte("\n{\"existing_observations\""))
	if i < 0 {
		t.Fatalf("no session document in the prompt:\n%s", p)
	}
	var s session
	dec := json.NewDecoder(bytes.NewReader(p[i+1:]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("session document: %v", err)
	}
	return s
}

func bigRequest(n int) Request {
	req := Request{Session: "s"}
	for i := range n {
		ts := fmt.Sprintf("2026-03-01T10:%02d:%02dZ", i/60%60, i%60)
		u := transcript.UserSignal{Meta: transcript.Meta{UUID: fmt.Sprint("u", i), Timestamp: ts, Line: 2*i + 1},
			Text: fmt.Sprintf("message %d: %s", i, strings.Repeat("please keep the tests fast ", 60))}
		if i%2 == 0 {
			req.Signals = append(req.Signals, u)
			continue
		}
		reply := u
		req.Signals = append(req.Signals, u)
		req.Pairs = append(req.Pairs, transcript.DialogPair{Assistant: strings.Repeat("I changed the handler and ran the suite. ", 80), Timestamp: ts, Reply: &reply})
	}
	for i := range 50 {
		req.Existing = append(req.Existing, observe.Observation{ID: fmt.Sprintf("obs_%012d", i), Type: "pitfall", Pattern: strings.Repeat("p", 400), Count: 1})
	}
	return req
}

func TestPromptBounded(t *testing.T) {
	req := bigRequest(400)
	for _, limit := range []int{16 << 10, DefaultMaxPrompt, 200 << 10} {
		p, ok := buildPrompt(req, redact.Text, limit)
		if !ok {
			t.Fatal("nothing to ask")
		}
		if len(p) > limit {
			t.Errorf("limit %d: prompt is %d bytes", limit, len(p))
		}
		s := promptSession(t, p)
		if len(s.Signals) == 0 || len(s.Pairs) == 0 {
			t.Errorf("limit %d: %d signals, %d pairs", limit, len(s.Signals), len(s.Pairs))
		}
		if len(s.Existing) > MaxExisting {
			t.Errorf("%d existing observations", len(s.Existing))
		}
		// The newest are kept.
		last := s.Signals[len(s.Signals)-1].Text
		if !strings.HasPrefix(last, "message 398:") {
			t.Errorf("limit %d: last signal kept is %.20q", limit, last)
		}
		if !strings.HasPrefix(s.Pairs[len(s.Pairs)-1].Reply, "message 399:") {
			t.Errorf("limit %d: last pair kept answers %.20q", limit, s.Pairs[len(s.Pairs)-1].Reply)
		}
		for _, sig := range s.Signals {
			if len(sig.Text) > maxSignal {
				t.Fatalf("a signal of %d bytes", len(sig.Text))
			}
			if strings.HasPrefix(sig.Text, "message 1:") || strings.HasPrefix(sig.Text, "message 3:") {
				t.Fatalf("a pair's reply is also a signal: %.20q", sig.Text)
			}
		}
		for _, p := range s.Pairs {
			if len(p.Assistant) > maxAssistant || !strings.HasPrefix(p.Assistant, "…") {
				t.Fatalf("an agent turn of %d bytes, or not its end: %.20q", len(p.Assistant), p.Assistant)
			}
		}
	}
}

// TestPromptRedactsBeforeCutting: a secret straddling a length limit is
// redacted whole; cutting first would leave its first half.
func TestPromptRedactsBeforeCutting(t *testing.T) {
	key := "AKIAIOSFODNN7EXAMPLF"
	text := strings.Repeat("a", maxSignal-10) + " " + key + " and more"
	req := Request{Signals: []transcript.UserSignal{{Text: text}},
		Pairs: []transcript.DialogPair{{Assistant: key + " " + strings.Repeat("b", maxAssistant), Reply: &transcript.UserSignal{Text: "ok " + key}}}}
	p, _ := buildPrompt(req, redact.Text, DefaultMaxPrompt)
	if bytes.Contains(p, []byte("AKIAIOSF")) {
		t.Errorf("part of the secret is in the prompt:\n%s", p)
	}
	if !bytes.Contains(p, []byte("[REDACTED:aws-access-token]")) {
		t.Error("no placeholder in the prompt")
	}
}

func TestPromptNothingToAsk(t *testing.T) {
	for _, req := range []Request{
		{},
		{Pairs: []transcript.DialogPair{{Assistant: "done"}}},
		{Signals: []transcript.UserSignal{{Text: "  \n "}}},
	} {
		if _, ok := buildPrompt(req, redact.Text, DefaultMaxPrompt); ok {
			t.Errorf("%+v: a prompt for nothing", req)
		}
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("é", 100) // 2 bytes each
	for n := 4; n < 60; n++ {
		a, b := clipStart(s, n), clipEnd(s, n)
		if len(a) > n || len(b) > n || !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Fatalf("n=%d: %q (%d) %q (%d)", n, a, len(a), b, len(b))
		}
	}
	if clipStart("short", 10) != "short" || clipEnd("short", 10) != "short" {
		t.Error("short text changed")
	}
}

func TestShown(t *testing.T) {
	obs := []observe.Observation{
		{ID: "obs_a", Pattern: "Write the commit messages in English.", Confidence: 0.2, Status: observe.Observing},
		{ID: "obs_b", Pattern: "Use uv, not pip.", Confidence: 0.9, Status: observe.Deprecated},
		{ID: "obs_c", Pattern: "Run gofmt before committing.", Confidence: 0.8, Status: observe.Created},
		{ID: "obs_d", Pattern: "Deploy with make deploy.", Confidence: 0.5, Status: observe.Ready},
	}
	ids := func(list []observe.Observation) string {
		var out []string
		for _, o := range list {
			out = append(out, o.ID)
		}
		return strings.Join(out, " ")
	}
	cands := []Candidate{{Why: []string{Said}, Person: "and the commit messages in English, please"}}
	// Room for all: the strongest first, never the one a person said no to.
	if got := ids(Shown(obs, cands, 5)); got != "obs_c obs_d obs_a" {
		t.Errorf("room for all: %s", got)
	}
	// Room for two: the one this session speaks of, weak as it is, then
	// the strongest.
	if got := ids(Shown(obs, cands, 2)); got != "obs_a obs_c" {
		t.Errorf("room for two: %s", got)
	}
	// A session that speaks of none: the strongest.
	if got := ids(Shown(obs, []Candidate{{Why: []string{Said}, Person: "add the login page"}}, 2)); got != "obs_c obs_d" {
		t.Errorf("nothing related: %s", got)
	}
}

func BenchmarkBuildPrompt(b *testing.B) {
	req := bigRequest(400)
	b.ReportAllocs()
	for b.Loop() {
		buildPrompt(req, redact.Text, DefaultMaxPrompt)
	}
}

// When the prompt's budget runs out, the flagged candidates are kept before
// the turns only said, whatever their age, and all go in time order.
func TestCandidatePromptKeepsFlaggedFirst(t *testing.T) {
	long := strings.Repeat("word ", 300)
	cands := []Candidate{{Why: []string{"correction"}, Person: "no, use pnpm, not npm", Timestamp: "2026-01-01T00:00:00Z"}}
	for i := range 20 {
		cands = append(cands, Candidate{Why: []string{Said}, Person: fmt.Sprintf("request %d %s", i, long), Timestamp: fmt.Sprintf("2026-01-01T00:%02d:00Z", i+1)})
	}
	for i := range cands {
		cands[i].UUID = fmt.Sprintf("u%d", i)
	}
	p, turns, ok := buildCandidatePrompt(Request{Candidates: cands}, func(s string) string { return s }, 16<<10)
	if !ok || len(p) > 16<<10 {
		t.Fatalf("prompt of %d bytes, %v", len(p), ok)
	}
	i := bytes.LastIndex(p, []byte("\n{\"existing_observations\""))
	var doc nominated
	if err := json.Unmarshal(p[i+1:], &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Candidates) < 2 || len(doc.Candidates) > 12 || doc.Candidates[0].Person != "no, use pnpm, not npm" {
		t.Fatalf("%d candidates, first %+v", len(doc.Candidates), doc.Candidates[0])
	}
	if last := doc.Candidates[len(doc.Candidates)-1]; !strings.HasPrefix(last.Person, "request 19 ") {
		t.Fatalf("the latest request is kept: %.40s", last.Person)
	}
	// What was sent is what the prompt carries.
	if len(turns) != len(doc.Candidates) || turns[0].UUID != "u0" || turns[len(turns)-1].UUID != "u20" {
		t.Fatalf("%d sent for %d candidates carried", len(turns), len(doc.Candidates))
	}
}

// The turns a model passed on are those none of its items quotes as the
// person's, whatever the case, the white space or an ellipsis in the quote.
func TestPassed(t *testing.T) {
	sent := []Candidate{
		{UUID: "u1", Person: "no, we use pnpm here,\nnot npm"},
		{UUID: "u2", Person: "add a --json flag to the list command"},
		{UUID: "u3", Person: "Keep the CHANGELOG in English and add an entry for every release"},
		{Failed: "git push", Why: []string{"failure"}},
	}
	obs := []extract.Observation{
		{Evidence: []string{"user: We use PNPM here, not npm", "assistant: Switching to pnpm."}},
		{Evidence: []string{"user: keep the changelog in english … every release"}},
		{Evidence: []string{"user: no", "assistant: add a --json flag to the list command"}},
	}
	if got := passedOn(sent, obs); fmt.Sprint(got) != "[u2]" {
		t.Fatalf("passed %v, want [u2]", got)
	}
	if got := passedOn(sent, nil); fmt.Sprint(got) != "[u1 u2 u3]" {
		t.Fatalf("an empty answer passes every turn: %v", got)
	}
	// Quotes that cannot be placed: which turns were used is not known, so
	// none is passed on.
	for _, ev := range []string{"We use pnpm here, not npm", "user: we always use yarn workspaces"} {
		if got := passedOn(sent, append(obs, extract.Observation{Evidence: []string{ev}})); got != nil {
			t.Fatalf("evidence %q: passed %v", ev, got)
		}
	}
}

// What the worker spends choosing the known lessons to show, for a log of
// a thousand observations and a session of sixty candidates.
func BenchmarkShown(b *testing.B) {
	var obs []observe.Observation
	for i := range 1000 {
		obs = append(obs, observe.Observation{ID: fmt.Sprintf("obs_%012d", i), Type: "procedural",
			Pattern: fmt.Sprintf("Run make check%d before committing the change to module %d.", i, i%37), Count: 1 + i%4, Confidence: float64(i%100) / 100})
	}
	var cands []Candidate
	for i := range 60 {
		cands = append(cands, Candidate{Why: []string{Said}, Person: fmt.Sprintf("message %d: %s", i, strings.Repeat("please keep the tests fast ", 20))})
	}
	b.ReportAllocs()
	for b.Loop() {
		Shown(obs, cands, MaxExisting)
	}
}
