package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
)

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

func newProject(t testing.TB) *project.Project {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git", ".memory"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pipeline(p *project.Project, at time.Time) *Pipeline {
	return &Pipeline{
		Proj:        p,
		Config:      config.Default(),
		Log:         observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Now:         at,
		Redact:      redact.Text,
		HistoryPath: HistoryPath(p),
		Writer:      evolve.New(p, at, evolve.Trigger{Command: "ingest"}),
	}
}

// testTranscripts lists every transcript of testdata/transcripts.
func testTranscripts(t testing.TB) []string {
	t.Helper()
	var out []string
	filepath.WalkDir("../../testdata/transcripts", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	if len(out) < 20 {
		t.Fatalf("only %d transcripts in testdata/transcripts", len(out))
	}
	return out
}

func TestIngestEveryTestTranscriptTwice(t *testing.T) {
	p := newProject(t)
	var sources []Source
	for _, f := range testTranscripts(t) {
		sources = append(sources, Source{Files: []string{f}})
	}
	// The rules are tuned for precision, and the test transcripts (samples
	// of other projects' test data) hold no lesson they recognise: one
	// session that does makes the first run write a log, so the second
	// run's adding nothing can show.
	lesson := correction("0b9f6e2c-1111-4aaa-8bbb-000000000009", p.Root, now.Add(-time.Hour)).write(t, t.TempDir())
	sources = append(sources, Source{Files: []string{lesson}})
	res, err := pipeline(p, now).Run(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sessions {
		if s.Err != nil {
			t.Errorf("%s: %v", s.File, s.Err)
		}
	}
	t.Logf("%d sessions, %d observations (%d new), %d candidates, %d problems", len(res.Sessions), len(res.Observations), res.NewCount(), len(res.Candidates), len(res.Problems))
	for _, pr := range res.Problems {
		t.Logf("problem: %s", pr)
	}
	if res.Appended == 0 {
		t.Fatal("the first run appended nothing")
	}
	first, err := os.ReadFile(p.Path(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	again, err := pipeline(p, now.Add(time.Hour)).Run(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(p.Path(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if again.Appended != 0 || string(first) != string(second) || again.NewCount() != 0 {
		t.Fatalf("ingesting again appended %d events", again.Appended)
	}
}

func runOnce(t *testing.T, p *Pipeline, files ...string) *Result {
	t.Helper()
	var sources []Source
	for _, f := range files {
		sources = append(sources, Source{Files: []string{f}})
	}
	res, err := p.Run(context.Background(), sources)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sessions {
		if s.Err != nil {
			t.Fatalf("%s: %v", s.File, s.Err)
		}
	}
	return res
}

func loadLog(t *testing.T, p *project.Project) *observe.Log {
	t.Helper()
	l, err := observe.LoadFile(p.Path(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func logLines(t *testing.T, p *project.Project) int {
	data, _ := os.ReadFile(p.Path(project.LogFile))
	return strings.Count(string(data), "\n")
}

// Two corrections of the same lesson in one session are one
// sighting, and the same transcript ingested twice adds nothing.
func TestOneSightingPerSessionAndIdempotent(t *testing.T) {
	p := newProject(t)
	s := correction("0b9f6e2c-1111-4aaa-8bbb-000000000001", p.Root, now.Add(-time.Hour))
	s.assistant(text("Updated."))
	s.user("You forgot to update CHANGELOG.md again!")
	f := s.write(t, t.TempDir())

	res := runOnce(t, pipeline(p, now), f)
	if len(res.Observations) != 1 || !res.Observations[0].New || res.Appended != 1 {
		t.Fatalf("observations: %+v, appended %d", res.Observations, res.Appended)
	}
	o := res.Observations[0]
	if o.Extractor != "correction" || o.SessionID != s.id || !strings.Contains(strings.ToLower(o.Pattern), "changelog") {
		t.Fatalf("observation: %+v", o)
	}
	view, _ := loadLog(t, p).Observation(o.ID, now, config.Default())
	if view.Count != 1 {
		t.Fatalf("count %d after one session", view.Count)
	}
	lines := logLines(t, p)
	again := runOnce(t, pipeline(p, now.Add(time.Hour)), f)
	if again.Appended != 0 || logLines(t, p) != lines || again.NewCount() != 0 || len(again.Observations) != 1 {
		t.Fatalf("again: appended %d, %d new", again.Appended, again.NewCount())
	}

	// Another session with the same lesson is a second source.
	other := correction("0b9f6e2c-1111-4aaa-8bbb-000000000002", p.Root, now.Add(-30*time.Minute)).write(t, t.TempDir())
	runOnce(t, pipeline(p, now), other)
	if view, _ := loadLog(t, p).Observation(o.ID, now, config.Default()); view.Count != 2 {
		t.Fatalf("count %d after two sessions", view.Count)
	}
}

// requestSession is a session that asks for the release routine.
func requestSession(id, cwd string, at time.Time) *session {
	s := newSession(id, cwd, at)
	s.user("Please run the integration tests and update the changelog")
	s.assistant(text("Running them."))
	s.bash("b1", "make integration-test", "ok  all 42 passed", false)
	s.assistant(toolUse("e1", "Edit", map[string]any{"file_path": cwd + "/CHANGELOG.md", "old_string": "a", "new_string": "b"}))
	s.result("e1", "The file has been updated.", false)
	s.assistant(text("Tests pass and the changelog is updated."))
	s.user("thanks")
	return s
}

// A request made in three sessions over three days, each ingested in its
// own run, becomes a workflow observation ready to render: the history
// carries the earlier sessions' requests from run to run.
func TestRepeatedRequestAcrossRuns(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(fmt.Sprint("history=", keep), func(t *testing.T) {
			p := newProject(t)
			dir := t.TempDir()
			var id string
			for i, day := range []int{1, 2, 4} {
				at := time.Date(2026, 5, day, 10, 0, 0, 0, time.UTC)
				f := requestSession(fmt.Sprintf("5e55f00d-0000-4000-8000-00000000000%d", i), p.Root, at).write(t, dir)
				pl := pipeline(p, at.Add(time.Hour))
				if !keep {
					pl.HistoryPath = ""
				}
				res := runOnce(t, pl, f)
				for _, o := range res.Observations {
					if o.Extractor == "repeated-request" {
						id = o.ID
					}
				}
			}
			if !keep {
				if id != "" {
					t.Fatal("a request repeated without a history")
				}
				return
			}
			if id == "" {
				t.Fatal("no workflow observation from a request made in three sessions")
			}
			o, _ := loadLog(t, p).Observation(id, time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC), config.Default())
			if o.Type != observe.Workflow || o.Count != 3 || o.Status != observe.Ready || !o.QualityOK {
				t.Fatalf("workflow: %+v", o)
			}
			h, err := LoadHistory(HistoryPath(p))
			if err != nil || len(h.Sessions) != 3 {
				t.Fatalf("history: %+v %v", h, err)
			}
		})
	}
}

// created records an artifact in force for a new observation.
func created(t *testing.T, p *project.Project, typ, pattern, path, anchor string) string {
	t.Helper()
	s := observe.Sighting{Type: typ, Pattern: pattern}
	q := true
	s.QualityOK = &q
	if err := s.Clean(nil, nil); err != nil {
		t.Fatal(err)
	}
	st := observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)}
	at := now.Add(-48 * time.Hour)
	err := st.Append(context.Background(),
		observe.ObserveEvent(s, "seed", at),
		observe.NewEvent(observe.OpCreated, s.ID, at, "render", func(e *observe.Event) { e.Path, e.Anchor, e.Seq = path, anchor, 1 }))
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func TestReinforcementCountsOncePerSession(t *testing.T) {
	p := newProject(t)
	cmd := created(t, p, observe.Workflow, "Run the release checks", ".claude/commands/self-learning/run-the-release-checks.md", "")
	skill := created(t, p, observe.Procedural, "Check the migrations", ".claude/skills/check-the-migrations/SKILL.md", "")
	pf := created(t, p, observe.Pitfall, "The cache is per worktree", ".memory/knowledge/pitfalls.md", "PF-002")
	idle := created(t, p, observe.Decision, "Events are a join", ".memory/knowledge/decisions.md", "ADR-001")

	dir := t.TempDir()
	a := newSession("a0000000-0000-4000-8000-000000000001", p.Root, now.Add(-time.Hour))
	for i := 0; i < 2; i++ {
		a.user("<command-message>run-the-release-checks is running…</command-message>\n<command-name>/run-the-release-checks</command-name>")
		a.assistant(text("Running the release checks."))
	}
	a.assistant(toolUse("s1", "Skill", map[string]any{"skill": "check-the-migrations"}))
	a.result("s1", "Launching skill: check-the-migrations", false)
	a.assistant(map[string]any{"type": "thinking", "thinking": "ADR-001 might apply"}, text("As PF-2 warns, and PF-002 again, the cache is per worktree."))
	a.user("Is ADR-001 relevant?") // the person's words: not the agent using it
	fa := a.write(t, dir)

	res := runOnce(t, pipeline(p, now), fa)
	if len(res.Uses) != 3 {
		t.Fatalf("uses: %+v", res.Uses)
	}
	counters := func(id string) int { return loadLog(t, p).Counters(id)[Counter] }
	for _, id := range []string{cmd, skill, pf} {
		if counters(id) != 1 {
			t.Fatalf("%s used %d times after one session", id, counters(id))
		}
	}
	if counters(idle) != 0 {
		t.Fatal("a decision cited only by the person and in thinking was counted")
	}

	b := newSession("b0000000-0000-4000-8000-000000000002", p.Root, now.Add(-time.Minute))
	b.user("<command-name>/project:self-learning:run-the-release-checks</command-name>")
	b.assistant(toolUse("s2", "Skill", map[string]any{"command": "self-learning:check-the-migrations"}))
	fb := b.write(t, dir)
	runOnce(t, pipeline(p, now), fb)
	lines := logLines(t, p)
	if again := runOnce(t, pipeline(p, now.Add(time.Hour)), fa, fb); again.Appended != 0 || logLines(t, p) != lines {
		t.Fatalf("ingesting the same sessions again appended %d events", again.Appended)
	}
	if counters(cmd) != 2 || counters(skill) != 2 || counters(pf) != 1 {
		t.Fatalf("after two sessions, ingested twice: %d %d %d", counters(cmd), counters(skill), counters(pf))
	}
}

func TestCandidatesFromTranscript(t *testing.T) {
	p := newProject(t)
	s := newSession("c0000000-0000-4000-8000-000000000001", p.Root, now.Add(-time.Hour))
	s.user("Bump the version")
	s.assistant(text("Done. For next time:\n\n[PROCESS_KNOWLEDGE]\nsummary: Bumping a version means four files, not one\nkind: checklist\npriority: HIGH\ntriggers:\n  actions: [version bump]\nbody: |\n  - [ ] package.json\n  - [ ] plugin.json\n[/PROCESS_KNOWLEDGE]"))
	f := s.write(t, t.TempDir())
	res := runOnce(t, pipeline(p, now), f)
	if len(res.Candidates) != 1 || !res.Candidates[0].Created || !strings.HasPrefix(res.Candidates[0].Path, ".memory/knowledge/entries/bumping-a-version-means-four-files-not-one-") {
		t.Fatalf("candidates: %+v", res.Candidates)
	}
	data, err := os.ReadFile(p.Path(res.Candidates[0].Path))
	if err != nil || !strings.Contains(string(data), "status: draft") || !strings.Contains(string(data), "source: transcript") {
		t.Fatalf("%s: %v", data, err)
	}
	again := runOnce(t, pipeline(p, now), f)
	if len(again.Candidates) != 1 || again.Candidates[0].Created || again.Candidates[0].Path != res.Candidates[0].Path {
		t.Fatalf("again: %+v", again.Candidates)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	p := newProject(t)
	s := correction("d0000000-0000-4000-8000-000000000001", p.Root, now.Add(-time.Hour))
	s.assistant(text("[PROCESS_KNOWLEDGE]\nsummary: Changelog with every flag\nbody: add a line\n[/PROCESS_KNOWLEDGE]"))
	f := s.write(t, t.TempDir())
	pl := pipeline(p, now)
	pl.DryRun = true
	res := runOnce(t, pl, f)
	if len(res.Observations) != 1 || !res.Observations[0].New || len(res.Candidates) != 1 || res.Appended != 0 {
		t.Fatalf("dry run found %+v", res)
	}
	for _, path := range []string{p.Path(project.LogFile), HistoryPath(p), p.Path(project.EntriesDir)} {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("a dry run wrote %s", path)
		}
	}
}

func TestUnreadableSourceDoesNotStopTheRun(t *testing.T) {
	p := newProject(t)
	good := correction("e0000000-0000-4000-8000-000000000001", p.Root, now.Add(-time.Hour)).write(t, t.TempDir())
	res, err := pipeline(p, now).Run(context.Background(), []Source{{Files: []string{filepath.Join(t.TempDir(), "gone.jsonl")}}, {Files: []string{good}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions[0].Err == nil || !errors.Is(res.Sessions[0].Err, fs.ErrNotExist) || res.Sessions[1].Err != nil || res.Appended != 1 {
		t.Fatalf("%+v", res.Sessions)
	}
}

// A turn a model read and found no lesson in loses the rules' reading of
// it, at this ingestion and every later one (the history keeps it, and
// the model is not asked again about the same records); what the person
// asked to keep stays.
func TestRulesGiveWayToAModelThatPassed(t *testing.T) {
	p := newProject(t)
	s := newSession("0b9f6e2c-1111-4aaa-8bbb-000000000009", p.Root, now.Add(-time.Hour))
	s.assistant(text("I added the --verbose flag."))
	slip := s.user("You forgot to update CHANGELOG.md.")
	s.assistant(text("Sorry, updating it now."))
	keep := s.user("From now on, always run go vet before you commit.")
	s.assistant(text("Noted."))
	f := s.write(t, t.TempDir())

	patterns := func(res *Result) string {
		var out []string
		for _, o := range res.Observations {
			out = append(out, o.Pattern)
		}
		return strings.Join(out, " | ")
	}
	asked := 0
	model := Extractor{Name: "model", Extract: func(_ context.Context, s *Session) (Found, error) {
		asked++
		return Found{Passed: []string{slip, keep}}, nil
	}}

	alone := runOnce(t, pipeline(newProject(t), now), f)
	if got := patterns(alone); !strings.Contains(strings.ToLower(got), "changelog") || !strings.Contains(got, "go vet") {
		t.Fatalf("the rules alone read both turns: %s", got)
	}

	pl := pipeline(p, now)
	pl.Extractors = []Extractor{model}
	res := runOnce(t, pl, f)
	if got := patterns(res); strings.Contains(strings.ToLower(got), "changelog") || !strings.Contains(got, "go vet") {
		t.Fatalf("with the model's pass: %s", got)
	}
	again := pipeline(p, now.Add(time.Hour))
	again.Extractors = []Extractor{model}
	res = runOnce(t, again, f)
	if asked != 1 {
		t.Fatalf("the model was asked %d times about the same records", asked)
	}
	if got := patterns(res); strings.Contains(strings.ToLower(got), "changelog") {
		t.Fatalf("ingested again, the rules' reading came back: %s", got)
	}
	if data, _ := os.ReadFile(p.Path(project.LogFile)); strings.Contains(strings.ToLower(string(data)), "changelog") {
		t.Fatal("the log holds the reading the model passed on")
	}
}

func TestGiveWayKeepsWhatIsNotAReadingOfATurn(t *testing.T) {
	rules := []extract.Observation{
		{Pattern: "read", Extractor: extract.ExtractorCorrection, RecordUUID: "u1"},
		{Pattern: "asked to keep", Extractor: extract.ExtractorCorrection, RecordUUID: "u1", Explicit: true},
		{Pattern: "other turn", Extractor: extract.ExtractorCorrection, RecordUUID: "u2"},
		{Pattern: "failure", Extractor: extract.ExtractorFailureFix, RecordUUID: "u1"},
	}
	var got []string
	for _, o := range GiveWay(rules, []string{"u1"}) {
		got = append(got, o.Pattern)
	}
	if strings.Join(got, ",") != "asked to keep,other turn,failure" {
		t.Fatalf("kept %v", got)
	}
	if len(rules) != 4 || rules[0].Pattern != "read" {
		t.Fatal("GiveWay changed the rules' list")
	}
}

// twoSessions writes two sessions an hour apart in p, the person asking
// for the same thing in each; prefix tells their ids from other tests'.
func twoSessions(t *testing.T, p *project.Project, prefix string) []string {
	t.Helper()
	var files []string
	for i := range 2 {
		s := newSession(fmt.Sprintf("%s000000-0000-4000-8000-00000000000%d", prefix, i+1), p.Root, now.Add(time.Duration(i-2)*time.Hour))
		s.user("add the settings page")
		s.assistant(text("Done."))
		files = append(files, s.write(t, t.TempDir()))
	}
	return files
}

// What the person says again in another session is promoted at once,
// whoever read it (the rules or a model quoting them); what the agent met
// or wrote waits for the thresholds, and so does a request not specific
// enough to be a lesson.
func TestTaughtAgain(t *testing.T) {
	p := newProject(t)
	files := twoSessions(t, p, "7a")
	model := Extractor{Name: "model", Extract: func(_ context.Context, s *Session) (Found, error) {
		at := s.Channels.UserSignals[0].Timestamp
		uuid := s.Channels.UserSignals[0].UUID
		lesson := func(typ, pattern, quote string, ok bool) extract.Observation {
			return extract.Observation{Type: typ, Pattern: pattern, Details: "-", Evidence: []string{quote}, QualityOK: ok,
				SessionID: s.ID, RecordUUID: uuid, Extractor: "model", Timestamp: at}
		}
		return Found{Observations: []extract.Observation{
			lesson("procedural", "Put new pages under app/settings, as the person asked.", "user: put it under app/settings", true),
			lesson("procedural", "Run the migrations with make -f db/Makefile migrate.", "tool: `make migrate` failed", true),
			lesson("procedural", "Carry on with the next page when one is done.", "user: next", false),
		}}, nil
	}}
	var res *Result
	for i, f := range files {
		pl := pipeline(p, now.Add(time.Duration(i)*time.Minute))
		pl.Extractors = []Extractor{model}
		res = runOnce(t, pl, f)
	}
	status := map[string]string{}
	for _, o := range res.Log.Observations(now, config.Default()) {
		status[o.Pattern] = o.Status
	}
	want := map[string]string{
		"Put new pages under app/settings, as the person asked.": observe.Ready,
		"Run the migrations with make -f db/Makefile migrate.":   observe.Observing,
		"Carry on with the next page when one is done.":          observe.Observing,
	}
	for pattern, st := range want {
		if status[pattern] != st {
			t.Errorf("%q: %q, want %q (all: %v)", pattern, status[pattern], st, status)
		}
	}
}

// A backlog read in one run: each session's extractors are shown what the
// sessions before it in the run found, as they would be shown it had the
// sessions been read one by one.
func TestLaterSessionsOfARunSeeWhatEarlierOnesFound(t *testing.T) {
	p := newProject(t)
	files := twoSessions(t, p, "7b")
	var shown [][]string
	model := Extractor{Name: "model", Extract: func(_ context.Context, s *Session) (Found, error) {
		var ids []string
		for _, o := range s.Existing {
			ids = append(ids, o.ID)
		}
		shown = append(shown, ids)
		return Found{Observations: []extract.Observation{{Type: "procedural", Pattern: "Put new pages under app/settings.", Details: "-",
			Evidence: []string{"user: add the settings page"}, QualityOK: true, SessionID: s.ID, Extractor: "model",
			Timestamp: s.Channels.UserSignals[0].Timestamp, RecordUUID: s.Channels.UserSignals[0].UUID}}}, nil
	}}
	pl := pipeline(p, now)
	pl.Extractors = []Extractor{model}
	runOnce(t, pl, files...)
	want := observe.ID("procedural", "Put new pages under app/settings.")
	if len(shown) != 2 || len(shown[0]) != 0 || !slices.Equal(shown[1], []string{want}) {
		t.Fatalf("shown %v, want nothing then %s", shown, want)
	}
}
