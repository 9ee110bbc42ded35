package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
)

func newStore(t testing.TB) *Store {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return &Store{Proj: p, Config: config.Default(), Now: time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC), Src: "test",
		Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED]") }}
}

// A task's whole failure path: a rejection becomes a candidate exactly as
// ClawFlow's first capture trigger (a rejection) says, a similar second one fires the Two-Strike
// Protocol, a third trips the breaker.
func TestRejectTwoStrikeBreaker(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Start(ctx, "auth-fix", StartOptions{Title: "Auth fix", Stage: "plan"}); err != nil {
		t.Fatal(err)
	}
	o1, err := s.Reject(ctx, RejectInput{Task: "auth-fix", Stage: "plan", Feedback: "The plan ignores token refresh after expiry. Tokens expire every 15 minutes (key sk-secret)."})
	if err != nil {
		t.Fatal(err)
	}
	if !candidateKey(o1.Candidate, "auth-fix-plan-rejection-1") || o1.Strike != 1 || o1.TwoStrike != "" || o1.Breaker {
		t.Fatalf("%+v", o1)
	}
	e, err := knowledge.ReadEntry(s.Proj.Path(o1.CandidatePath), o1.CandidatePath)
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary != "The plan ignores token refresh after expiry." || e.Category != "lesson_learned" || e.Source != "fdrl" ||
		e.SourceID != "auth-fix" || e.Status != knowledge.StatusCandidate || strings.Join(e.Tags, ",") != "plan,auth,fix" ||
		!strings.Contains(e.Body, "[REDACTED]") || strings.Contains(e.Body, "sk-secret") || len(e.Evidence) != 1 {
		t.Fatalf("candidate %+v", e)
	}
	o2, err := s.Reject(ctx, RejectInput{Task: "auth-fix", Stage: "plan", Feedback: "Still no token refresh after expiry in the plan: tokens expire every 15 minutes."})
	if err != nil {
		t.Fatal(err)
	}
	want := Addendum("The plan ignores token refresh after expiry.", "Still no token refresh after expiry in the plan: tokens expire every 15 minutes.")
	if o2.Strike != 2 || o2.TwoStrike != want || o2.Breaker {
		t.Fatalf("%+v (overlap %.2f)", o2, o2.Overlap)
	}
	if !strings.HasPrefix(want, "## Two-Strike Protocol\n\nYour previous two attempts at this stage were rejected for similar reasons:\n- Attempt 1: The plan ignores") ||
		!strings.HasSuffix(want, "4. Only then proceed with implementation") {
		t.Fatal(want)
	}
	st, _, _ := s.Load("auth-fix")
	if st.TwoStrike != want || st.Strikes != 2 || st.Attempts != 3 || st.Stage != "plan" {
		t.Fatalf("%+v", st)
	}
	// A dissimilar third rejection still trips the breaker: it counts.
	o3, err := s.Reject(ctx, RejectInput{Task: "auth-fix", Stage: "plan", Feedback: "The rollout section has no feature flag."})
	if err != nil {
		t.Fatal(err)
	}
	if !o3.Breaker || o3.TwoStrike != "" || len(o3.Candidates) != 3 || !candidateKey(o3.Candidates[0], "auth-fix-plan-rejection-1") ||
		!candidateKey(o3.Candidates[1], "auth-fix-plan-rejection-2") || !candidateKey(o3.Candidates[2], "auth-fix-plan-rejection-3") {
		t.Fatalf("%+v", o3)
	}
	st, _, _ = s.Load("auth-fix")
	if st.Status != StatusBlocked || st.BlockedBy != BlockedBreaker || st.TwoStrike != "" {
		t.Fatalf("%+v", st)
	}
	var be *BreakerError
	if err := s.Blocked(st); !errors.As(err, &be) || len(be.Candidates) != 3 || !errors.Is(err, ErrBreaker) {
		t.Fatal(err)
	}
	// A person resumes: strikes start again, the lessons stay.
	if err := s.Resume(ctx, "auth-fix", "reviewed"); err != nil {
		t.Fatal(err)
	}
	st, _, _ = s.Load("auth-fix")
	if st.Status != StatusActive || st.Strikes != 0 || len(st.Lessons) != 3 {
		t.Fatalf("%+v", st)
	}
	o4, _ := s.Reject(ctx, RejectInput{Task: "auth-fix", Stage: "plan", Feedback: "Flag missing again."})
	if o4.Strike != 1 || !candidateKey(o4.Candidate, "auth-fix-plan-rejection-4") {
		t.Fatalf("numbers never repeat: %+v", o4)
	}
}

// Dissimilar rejections give no addendum; a passing gate at the stage
// clears one that was given.
func TestTwoStrikeNeedsSimilarityAndClears(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	s.Reject(ctx, RejectInput{Task: "t1", Stage: "implement", Feedback: "The login handler leaks the session token in logs."})
	o, _ := s.Reject(ctx, RejectInput{Task: "t1", Stage: "implement", Feedback: "The login handler returns 500 on empty passwords."})
	if o.TwoStrike != "" {
		t.Fatalf("dissimilar: %+v", o)
	}
	s.Resume(ctx, "t1", "")
	s.Reject(ctx, RejectInput{Task: "t1", Stage: "implement", Feedback: goFail1})
	o, _ = s.Reject(ctx, RejectInput{Task: "t1", Stage: "implement", Feedback: goFail2})
	if o.TwoStrike == "" {
		t.Fatalf("similar: %+v", o)
	}
	// At another stage, nothing applies.
	st, _, _ := s.Load("t1")
	if st.TwoStrikeAt("code_review") != "" || st.TwoStrikeAt("implement") == "" {
		t.Fatal("addendum at the wrong stage")
	}
	pass := &gate.Report{Results: []gate.Result{{Name: "tests", Required: true, OK: true}}}
	if err := s.RecordGates(ctx, "t1", "implement", "post", pass); err != nil {
		t.Fatal(err)
	}
	st, _, _ = s.Load("t1")
	if st.TwoStrike != "" || st.LastGates == nil || !st.LastGates.Passed() {
		t.Fatalf("%+v", st)
	}
}

// The log is the state: a new process reading it finds everything, and a
// torn line costs only itself.
func TestRestartLosesNothing(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	s.Reject(ctx, RejectInput{Task: "t2", Stage: "implement", Feedback: goFail1})
	path := s.Proj.Path(LogRel("t2"))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"op":"reject","eid":"tsk_torn`) // a crash mid-line
	f.Close()
	again := &Store{Proj: s.Proj, Config: s.Config, Now: s.Now.Add(time.Hour), Src: "test"}
	o, err := again.Reject(ctx, RejectInput{Task: "t2", Stage: "implement", Feedback: goFail2})
	if err != nil {
		t.Fatal(err)
	}
	if o.Strike != 2 || o.TwoStrike == "" {
		t.Fatalf("%+v", o)
	}
	st, probs, _ := again.Load("t2")
	if len(st.Rejections) != 2 || len(probs) != 1 || probs[0].Line != 2 {
		t.Fatalf("%+v %+v", st, probs)
	}
}

// candidateKey tells whether key is prefix followed by the six hex digits
// that name the rejection apart.
func candidateKey(key, prefix string) bool {
	return candidateKeyRE.MatchString(key) && key[:len(key)-7] == prefix
}

var candidateKeyRE = regexp.MustCompile(`^[a-z0-9-]+-rejection-[0-9]+-[0-9a-f]{6}$`)

// Two branches that each reach rejection 1 of a task name their candidates
// apart (a merge of the two never conflicts on one file); the same
// rejection saved again is the same entry; a long title still gives a key
// that fits.
func TestCandidateKeys(t *testing.T) {
	a, b := newStore(t), newStore(t)
	b.Now = a.Now.Add(time.Hour)
	ctx := context.Background()
	oa, err := a.Reject(ctx, RejectInput{Task: "cart", Stage: "implement", Feedback: "Rounds half down."})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := b.Reject(ctx, RejectInput{Task: "cart", Stage: "implement", Feedback: "Rounds half down."})
	if err != nil {
		t.Fatal(err)
	}
	if !candidateKey(oa.Candidate, "cart-implement-rejection-1") || !candidateKey(ob.Candidate, "cart-implement-rejection-1") || oa.Candidate == ob.Candidate {
		t.Fatalf("%q %q", oa.Candidate, ob.Candidate)
	}
	st, _, _ := a.Load("cart")
	key, path, _, err := a.saveCandidate(ctx, st, RejectInput{Task: "cart", Stage: "implement"}, "Rounds half down.", oa.Summary, 1)
	if err != nil || key != oa.Candidate || path != oa.CandidatePath {
		t.Fatalf("saved again: %q %q %v", key, path, err)
	}
	// A run that saved rejection 2's candidate and stopped before its log
	// line; the retry, an hour later, takes that file as its own.
	st, _, _ = a.Load("cart")
	stopped, _, _, err := a.saveCandidate(ctx, st, RejectInput{Task: "cart", Stage: "implement"}, "Still rounds half down.", "Still rounds half down.", 2)
	if err != nil {
		t.Fatal(err)
	}
	retry := *a
	retry.Now = a.Now.Add(time.Hour)
	or, err := retry.Reject(ctx, RejectInput{Task: "cart", Stage: "implement", Feedback: "Still rounds half down."})
	if err != nil || or.Candidate != stopped {
		t.Fatalf("retry saved %q, the stopped run %q: %v", or.Candidate, stopped, err)
	}
	if names, _ := filepath.Glob(a.Proj.Path(".memory/knowledge/entries/cart-implement-rejection-2-*.md")); len(names) != 1 {
		t.Fatalf("%v", names)
	}
	long := strings.Repeat("very long title words ", 10)
	if _, err := a.Start(ctx, "long", StartOptions{Title: long, Stage: "code_review"}); err != nil {
		t.Fatal(err)
	}
	ol, err := a.Reject(ctx, RejectInput{Task: "long", Stage: "code_review", Feedback: "Too long."})
	if err != nil {
		t.Fatal(err)
	}
	if len(ol.Candidate) > knowledge.MaxKey || !candidateKeyRE.MatchString(ol.Candidate) || !strings.HasPrefix(ol.Candidate, "very-long-title") {
		t.Fatalf("%q", ol.Candidate)
	}
}

// Rejections at the same moment each get their own number and file.
func TestConcurrentRejections(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Reject(context.Background(), RejectInput{Task: "t3", Stage: "verify", Feedback: fmt.Sprintf("Failure number %d of the verify stage.", i)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, _, _ := s.Load("t3")
	if len(st.Lessons) != 8 || len(st.Rejections) != 8 {
		t.Fatalf("%d lessons, %d rejections", len(st.Lessons), len(st.Rejections))
	}
}

// The same gate failing on three tasks suggests a global lesson, citing
// them.
func TestSameGateAcrossTasks(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for i, task := range []string{"a", "b", "c"} {
		o, err := s.Reject(ctx, RejectInput{Task: task, Stage: "implement", Feedback: "Gate \"lint\" failed (exit 1): unused import.", From: "gate:lint"})
		if err != nil {
			t.Fatal(err)
		}
		if (o.Suggest != nil) != (i == 2) {
			t.Fatalf("task %s: %+v", task, o.Suggest)
		}
		// The same failure is one lesson, counted: the first task's.
		if want := map[int]int{0: 0, 1: 2, 2: 3}[i]; o.Recurrences != want || !candidateKey(o.Candidate, "a-implement-rejection-1") {
			t.Fatalf("task %s: candidate %s counted %d times, want a's, %d", task, o.Candidate, o.Recurrences, want)
		}
		if i == 2 && (strings.Join(o.Suggest.Tasks, ",") != "a,b,c" || o.Suggest.Gate != "lint" || len(o.Suggest.Candidates) != 1) {
			t.Fatalf("%+v", o.Suggest)
		}
	}
	// A person's rejections are not a gate's.
	o, _ := s.Reject(ctx, RejectInput{Task: "d", Stage: "implement", Feedback: "unused import", From: "person"})
	if o.Suggest != nil {
		t.Fatal(o.Suggest)
	}
}

func TestGateFeedback(t *testing.T) {
	rep := &gate.Report{Results: []gate.Result{
		{Name: "build", Required: true, OK: true},
		{Name: "tests", Command: "go test ./...", Required: true, ExitCode: 1, Output: "=== RUN TestX\n--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\n"},
		{Name: "lint", Required: false, ExitCode: 1, Output: "meh"},
	}}
	fb, from := GateFeedback(rep)
	if from != "gate:tests" || !strings.HasPrefix(fb, `Gate "tests" failed (exit 1): --- FAIL: TestX (0.00s).`) || !strings.Contains(fb, "$ go test ./...\n=== RUN TestX") || strings.Contains(fb, "lint") {
		t.Fatalf("%s / %s", from, fb)
	}
	if FirstSentence(fb) != `Gate "tests" failed (exit 1): --- FAIL: TestX (0.00s).` {
		t.Fatal(FirstSentence(fb))
	}
}

func TestNamesAndStages(t *testing.T) {
	for _, bad := range []string{"", "../x", ".hidden", "a/b", "a b", strings.Repeat("x", 101)} {
		if ValidName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if ValidName("task-42.v2_x") != nil || ValidStage("design_review") != nil || ValidStage("stop") != nil || ValidStage("deploy") == nil {
		t.Fatal("names")
	}
	s := newStore(t)
	if _, err := s.Reject(context.Background(), RejectInput{Task: "../../etc", Stage: "plan", Feedback: "x"}); err == nil {
		t.Fatal("a path as a task name")
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Tests are missing. Add them.":         "Tests are missing.",
		"\n\n  Use v1.2.3 of the API! Then go": "Use v1.2.3 of the API!",
		"no period at all\nsecond line":        "no period at all",
		"":                                     "Rejected without a reason given",
		strings.Repeat("word ", 60):            knowledge.Cut(strings.Repeat("word ", 60), 200),
	} {
		if got := FirstSentence(in); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

// The task log is written by the merge too: the package's names for what
// the merge writes must be the merge's, though it does not link gitx.
func TestMergeNamesMatchGitx(t *testing.T) {
	if OpMerged != gitx.OpMerged || OpMergeBlocked != gitx.OpMergeBlocked || KindConflict != gitx.KindConflict {
		t.Fatal("op names differ from gitx's")
	}
	for _, name := range []string{"task-42", "a.b_c", "x"} {
		if ValidName(name) != nil || gitx.TaskName(name) != name || LogRel(name) != gitx.TaskLogRel(name) {
			t.Errorf("%s: names differ from gitx's", name)
		}
	}
	for _, branch := range []string{"task/auth", ".hidden", "a b"} {
		if ValidName(branch) == nil || ValidName(gitx.TaskName(branch)) != nil {
			t.Errorf("%s: gitx names a task devlearn refuses, or the reverse", branch)
		}
	}
	data, _ := json.Marshal(gitx.Conflict{Path: "a", Reason: "b"})
	var c Conflict
	if json.Unmarshal(data, &c) != nil || c.Path != "a" || c.Reason != "b" {
		t.Fatal(string(data))
	}
}

// A gate failing the same way three times within one second (the clock
// reads to the second) is three rejections: the third trips the breaker.
func TestSameRejectionsInOneSecondAllCount(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var strikes []int
	for range 3 {
		o, err := s.Reject(ctx, RejectInput{Task: "t", Stage: StopStage, From: "gate:tests", Feedback: "FAIL: TestX boom"})
		if err != nil {
			t.Fatal(err)
		}
		strikes = append(strikes, o.Strike)
		if o.Strike == 3 && !o.Breaker {
			t.Fatalf("third rejection did not trip the breaker: %+v", o)
		}
	}
	if fmt.Sprint(strikes) != "[1 2 3]" {
		t.Fatalf("strikes %v", strikes)
	}
	st, _, _ := s.Load("t")
	if st.Strikes != 3 {
		t.Fatalf("state: %+v", st)
	}
}
