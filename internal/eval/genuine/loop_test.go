package genuine

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A served item is named for its verdicts: a learned draft by the
// observation its key names, a rendered section by the observation it was
// rendered from (observationOf, for the readers' judgement of the lesson);
// an entry a person wrote by the name its heading starts with (itemOf, for
// the judgement at the call).
func TestObservationOfAndItemOf(t *testing.T) {
	lr := &loopRepo{artifacts: map[string]string{"PF-001": "obs_50d4bf4e5ab6"}}
	for title, want := range map[string][2]string{
		"obs-d05884eb019b [MEDIUM warning, draft]: `sed` fails":      {"obs_d05884eb019b", "obs_d05884eb019b"},
		"## obs-3f9a1c2b7d4e [MEDIUM note, draft]: x":                {"obs_3f9a1c2b7d4e", "obs_3f9a1c2b7d4e"},
		"PF-001: `yarn test:web` names no script":                    {"obs_50d4bf4e5ab6", "obs_50d4bf4e5ab6"},
		"PF-002: `python` is not available here":                     {"", "PF-002"},
		"version-bump-checklist [CRITICAL checklist]: Bumping a ...": {"", "version-bump-checklist"},
		"ADR-002: Use pnpm": {"", "ADR-002"},
	} {
		if got := lr.observationOf(title); got != want[0] {
			t.Errorf("observationOf(%q) = %q, want %q", title, got, want[0])
		}
		if got := lr.itemOf(title); got != want[1] {
			t.Errorf("itemOf(%q) = %q, want %q", title, got, want[1])
		}
	}
}

// A moment the index listed at session start and a call served again
// counts by relevance too; judged-useful items stay in distraction.
func TestSummarizeLoop(t *testing.T) {
	r := &LoopResult{Split: Dev, Served: 4,
		Unrelated:    []string{"a", "b"},
		JudgedUseful: []string{"b"},
		Given:        []Given{{Verdict: "relevant"}, {Verdict: "not relevant", Related: true}, {Verdict: "not relevant", AtFailure: true}, {AtFailure: true}},
		Moments: []Moment{
			{Known: true, Found: true, Served: true, Start: true, Relevant: true},
			{Known: true, Found: true, Served: true, Start: true, AtFailure: true},
			{Found: true, AtFailure: true},
		}}
	s := SummarizeLoop([]*LoopResult{r}, Dev)
	if s.Moments != 3 || s.Served != 2 || s.Relevant != 1 || s.Known != 2 || s.KnownServed != 2 || s.KnownRelevant != 1 {
		t.Errorf("moments: %+v", s)
	}
	if s.Items != 4 || s.Unrelated != 2 || s.JudgedUseful != 1 {
		t.Errorf("items: %+v", s)
	}
	// An item holding a labelled lesson can still bear on nothing at its
	// call; one not judged counts in neither figure.
	if s.GivenJudged != 3 || s.NotRelevant != 2 {
		t.Errorf("judged at the call: %+v", s)
	}
	// Given with a failed call's error: counted apart from what was
	// served by then, and its items among all the items.
	if s.AtFailure != 2 || s.AtFailureMissed != 1 || s.FailureItems != 2 || s.FailureNotRelevant != 1 {
		t.Errorf("with the error: %+v", s)
	}
}

// A verdict is found again for the same item at the same call, and for no
// other: the key holds the session, the call and the item.
func TestGivenKey(t *testing.T) {
	k := GivenKey("en-a", "toolu_01", "obs_50d4bf4e5ab6")
	if k != GivenKey("en-a", "toolu_01", "obs_50d4bf4e5ab6") || !strings.HasPrefix(k, "given_") {
		t.Fatalf("GivenKey is not stable: %s", k)
	}
	for _, other := range []string{GivenKey("en-b", "toolu_01", "obs_50d4bf4e5ab6"), GivenKey("en-a", "toolu_02", "obs_50d4bf4e5ab6"), GivenKey("en-a", "toolu_01", "obs_3f9a1c2b7d4e")} {
		if other == k {
			t.Errorf("two items at two calls share the key %s", k)
		}
	}
}

// A loop in which calls failed says so beside its figures, without -v:
// a run that learned nothing would otherwise read as a capture problem.
func TestWriteLoopReportsFailedCalls(t *testing.T) {
	results := []*LoopResult{{Project: "shop", Split: Dev, Moments: []Moment{{}},
		Problems: []string{"s1: ingest: signal: killed: ", "s2: render-ready: signal: killed: "}}}
	rep := &Report{Loop: map[string]LoopSummary{Dev: SummarizeLoop(results, Dev), "all": SummarizeLoop(results, "")}}
	var b strings.Builder
	WriteLoop(&b, rep, nil)
	if want := "2 calls failed during the loop"; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "shop: s1: ingest: signal: killed") {
		t.Errorf("the report says nothing of the failed calls:\n%s", b.String())
	}
}

// Gemini CLI's logs.json holds the prompts of several sessions; the corpus
// names the file, so the loop plays them all, each prompt at its index
// (the labels' M<n>).
func TestReadChannelsPlaysEverySessionOfAPromptLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".gemini", "tmp", "0f3a")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "logs.json")
	log := `[{"sessionId":"a","messageId":0,"type":"user","message":"translate the file","timestamp":"2025-07-01T10:00:00Z"},
{"sessionId":"b","messageId":0,"type":"user","message":"read every config file before you answer","timestamp":"2025-07-02T10:00:00Z"}]`
	if err := os.WriteFile(file, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := hookCalls(file, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, c := range calls {
		if c.prompt {
			prompts = append(prompts, fmt.Sprint(c.input["prompt"], " ", c.ids[2]))
		}
	}
	if got := strings.Join(prompts, "|"); got != "translate the file M0|read every config file before you answer M1" {
		t.Errorf("prompts %q", got)
	}
}

// An ingest's sightings read as the log folds them: one observation per
// id, where it was first seen, with its latest sighting's words.
func TestLatestText(t *testing.T) {
	got := latestText([]Observation{
		{ID: "a", Type: "pitfall", Pattern: "`gemini` fails: first"},
		{ID: "b", Pattern: "other"},
		{ID: "a", Type: "pitfall", Pattern: "`gemini` fails: second", Details: "d"},
	})
	want := []Observation{{ID: "a", Type: "pitfall", Pattern: "`gemini` fails: second", Details: "d"}, {ID: "b", Pattern: "other"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("latestText = %+v, want %+v", got, want)
	}
}

// Session start's index gives a lesson when one of its lines holds it:
// words of two lessons' lines do not make a third.
func TestIndexLines(t *testing.T) {
	index := "Domain Knowledge Index\nProject-specific: 2 entries | Global: 0 entries\n\n### Project Knowledge\n- [a] Deploy with the workflow\n- [b] Back up the database first\n\nUse fetch_knowledge(key_or_id) to read full details."
	l := &Lesson{ID: "x"}
	l.terms = []Term{{regexp.MustCompile("(?i)deploy")}, {regexp.MustCompile("(?i)back ?up")}}
	if !l.Matches(index) {
		t.Fatal("the lesson's words are not in the index at all")
	}
	if slices.ContainsFunc(indexLines(index), l.Matches) {
		t.Error("two lines' words were taken for one lesson given")
	}
	if got := indexLines("PF-001: x"); len(got) != 1 || got[0] != "PF-001: x" {
		t.Errorf("an item that is not the index: %q", got)
	}
}

// A Bash call that failed is played twice: before it (pre-tool-use), and
// after it with the error it printed (post-tool-use-failure), as Claude
// Code calls its hooks; one that passed, or one the person refused, once.
func TestHookCallsPlayAFailedCallsError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	recs := `{"type":"user","sessionId":"s","cwd":"/srv/app","uuid":"u1","timestamp":"2026-05-04T09:00:01Z","message":{"role":"user","content":"is the api up?"}}
{"type":"assistant","sessionId":"s","uuid":"a1","timestamp":"2026-05-04T09:00:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"curl -s http://localhost:8080/health"}}]}}
{"type":"user","sessionId":"s","uuid":"u2","timestamp":"2026-05-04T09:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 7\ncurl: (7) Failed to connect to localhost port 8080"}]}}
{"type":"assistant","sessionId":"s","uuid":"a2","timestamp":"2026-05-04T09:00:04Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"curl -s https://api.example.com/health"}}]}}
{"type":"user","sessionId":"s","uuid":"u3","timestamp":"2026-05-04T09:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}}
`
	if err := os.WriteFile(file, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := hookCalls(file, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		s := c.event
		if len(c.ids) > 0 {
			s += " " + c.ids[0]
		}
		if e, ok := c.input["error"].(string); ok {
			s += " [" + e + "]"
		}
		got = append(got, s)
	}
	want := []string{"session-start", "user-prompt-submit u1", "pre-tool-use t1",
		"post-tool-use-failure t1 [Exit code 7\ncurl: (7) Failed to connect to localhost port 8080]", "pre-tool-use t2"}
	if !slices.Equal(got, want) {
		t.Errorf("calls\n got %q\nwant %q", got, want)
	}
	if c := calls[3]; !strings.Contains(c.full(), "(it failed, printing: Exit code 7") {
		t.Errorf("a reader judging what was given there sees no error: %q", c.full())
	}
}

// A prompt reaches the hook as the person wrote it on their machine, where
// the paths it names in the folder the session ran in are the project's:
// the replay moves that folder to the repository in prompts as it does in
// tool calls, so that a pasted traceback's files are read as the hook
// would read them there (relative), not as paths outside the project.
func TestHookCallsMoveTheSessionsFolderInPrompts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	recs := `{"type":"user","sessionId":"s","cwd":"/home/rj/dev/docx/python","uuid":"u1","timestamp":"2026-05-04T09:00:01Z","message":{"role":"user","content":"Traceback (most recent call last):\n  File \"/home/rj/dev/docx/python/actions/checkbox.py\", line 21\nfix it"}}
{"type":"assistant","sessionId":"s","uuid":"a1","timestamp":"2026-05-04T09:00:02Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/home/rj/dev/docx/python/actions/checkbox.py"}}]}}
`
	if err := os.WriteFile(file, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := hookCalls(file, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	var prompt, path string
	for _, c := range calls {
		if c.prompt {
			prompt = fmt.Sprint(c.input["prompt"])
		}
		if in, ok := c.input["tool_input"].(map[string]any); ok {
			path = fmt.Sprint(in["file_path"])
		}
	}
	if !strings.Contains(prompt, `File "/repo/actions/checkbox.py"`) || strings.Contains(prompt, "/home/rj") {
		t.Errorf("the prompt keeps the session's folder: %q", prompt)
	}
	if path != "/repo/actions/checkbox.py" {
		t.Errorf("the tool call's file %q", path)
	}
}

// The session's folder moves where a path names it whole, and nowhere
// else: not inside another path, not in a URL, not as a bare drive.
func TestMoveFolder(t *testing.T) {
	for _, c := range []struct{ s, from, want string }{
		{"cd /app && make", "/app", "cd /repo && make"},
		{`File "/app/a.py", line 3`, "/app/", `File "/repo/a.py", line 3`},
		{"/app", "/app", "/repo"},
		{"edit src/app/page.tsx", "/app", "edit src/app/page.tsx"},
		{"see https://x.dev/app and /app/b.go", "/app", "see https://x.dev/app and /repo/b.go"},
		{"/apple/a.go and /app.go", "/app", "/apple/a.go and /app.go"},
		{`type C:\Users\me\x\a.txt`, `C:\Users\me\x`, `type /repo\a.txt`},
		{`dir C:\Windows`, `C:\`, `dir C:\Windows`},
		{"PYTHONPATH=/app:/app/lib", "/app", "PYTHONPATH=/repo:/repo/lib"},
		{"the server runs from /app. Then /app.bak is left", "/app", "the server runs from /repo. Then /app.bak is left"},
	} {
		if got := moveFolder(c.s, c.from, "/repo"); got != c.want {
			t.Errorf("moveFolder(%q, %q) = %q, want %q", c.s, c.from, got, c.want)
		}
	}
}
