package genuine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/devlearn/devlearn/internal/eval/figures"
)

// The committed set reads, every label names sessions of the corpus and
// compiles, and every kept file is the blob corpus.tsv names.
func TestCommittedSet(t *testing.T) {
	set, err := Load(filepath.Join("..", "..", "..", "testdata", "genuine"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Sessions) < 40 || len(set.Lessons) < 150 {
		t.Fatalf("%d sessions, %d lessons", len(set.Sessions), len(set.Lessons))
	}
	dir := t.TempDir()
	kept := 0
	for _, s := range set.Sessions {
		if !s.Kept() {
			continue
		}
		kept++
		p, err := set.Materialize(s, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	if kept == 0 {
		t.Fatal("no kept session")
	}
	for _, l := range set.Lessons {
		if !l.Matches(l.Statement) && l.Kind != "failure-fix" {
			t.Errorf("lesson %s does not match its own statement %q", l.ID, l.Statement)
		}
	}
}

// Two people's project folders of one name are two projects, and a
// folder the agent left unnamed is its repository's: no project holds
// sessions of two repositories, so none spans both splits.
func TestProjectsByRepository(t *testing.T) {
	dir := t.TempDir()
	corpus := "session\tpart\trepo\tcommit\tpath\tblob\tlic\tkept\tsize\tagent\tlang\tproject\tstarted\tsplit\n" +
		"a1\tmain\tann/dotfiles\tc\ta1.jsonl\tb\tnone\tno\t1\tclaude-code\ten\tdotfiles\t2025-01-01\tdev\n" +
		"a2\tmain\tann/dotfiles\tc\ta2.jsonl\tb\tnone\tno\t1\tclaude-code\ten\tdotfiles\t2025-01-02\tdev\n" +
		"b1\tmain\tbo/dotfiles\tc\tb1.jsonl\tb\tnone\tno\t1\tclaude-code\tja\tdotfiles\t2025-01-01\tholdout\n" +
		"c1\tmain\tcy/app\tc\tc1.json\tb\tnone\tno\t1\tgemini\tko\t\t2025-01-01\tdev\n" +
		"d1\tmain\tdi/web\tc\td1.json\tb\tnone\tno\t1\tgemini\tes\t\t2025-01-01\tholdout\n"
	if err := os.WriteFile(filepath.Join(dir, "corpus.tsv"), []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	set := &Set{byID: map[string]*Session{}}
	if err := set.readCorpus(filepath.Join(dir, "corpus.tsv")); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for name, list := range set.Projects() {
		for _, s := range list {
			got[name] = append(got[name], s.ID+"/"+s.Split)
		}
	}
	want := map[string][]string{
		"ann/dotfiles:dotfiles": {"a1/dev", "a2/dev"},
		"bo/dotfiles:dotfiles":  {"b1/holdout"},
		"cy/app":                {"c1/dev"},
		"di/web":                {"d1/holdout"},
	}
	if len(got) != len(want) {
		t.Fatalf("projects %v, want %v", got, want)
	}
	for name, ids := range want {
		if !slices.Equal(got[name], ids) {
			t.Errorf("project %s: %v, want %v", name, got[name], ids)
		}
	}
}

func TestBlobID(t *testing.T) {
	// git hash-object of "hello\n"
	if got := BlobID([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Fatal(got)
	}
}

func lesson(id, session string, also []string, terms ...string) *Lesson {
	l := &Lesson{ID: id, Transcript: session, AlsoIn: also, Kind: "preference", Lang: "en"}
	for _, x := range terms {
		l.terms = append(l.terms, Term{regexp.MustCompile("(?im)" + x)})
	}
	return l
}

// A project's repository: a lesson taught in two sessions is ready when
// one observation holding it is; two sightings joined under one id are a
// false merge when they hold two different lessons, and a lesson caught
// in two sessions under two ids only is a missed merge.
func TestScoreProject(t *testing.T) {
	set := &Set{byID: map[string]*Session{}}
	for _, id := range []string{"a", "b", "c"} {
		s := &Session{ID: id, Project: "p", Split: Dev, Parts: []Part{{Path: id + ".jsonl"}}}
		set.byID[id] = s
		set.Sessions = append(set.Sessions, s)
	}
	set.Lessons = []*Lesson{
		lesson("tabs", "a", []string{"b"}, "tabs"),
		lesson("english", "a", []string{"c"}, "commit", "english"),
		lesson("pnpm", "b", nil, "pnpm"),
	}
	repo := &Repo{
		Observations: []Observation{
			{ID: "obs_1", Pattern: "Keep tabs here.", Status: "ready"},
			{ID: "obs_2", Pattern: "Write commit messages in English.", Status: "observing"},
		},
		Sightings: []Sighting{
			{ID: "obs_1", Session: "a", Pattern: "Keep tabs here."},
			{ID: "obs_1", Session: "b", Pattern: "I'd rather we keep tabs."},
			{ID: "obs_2", Session: "a", Pattern: "Write commit messages in English."},
			{ID: "obs_3", Session: "c", Pattern: "Commit messages in English, please."},
			{ID: "obs_4", Session: "a", Pattern: "Use pnpm."},
			{ID: "obs_4", Session: "b", Pattern: "Keep tabs."},
		},
	}
	pr := scoreProject(set, "p", set.Sessions, repo)
	if len(pr.Recurring) != 2 || len(pr.Ready) != 1 || pr.Ready[0] != "tabs" {
		t.Errorf("recurring %v, ready %v", pr.Recurring, pr.Ready)
	}
	if len(pr.Missed) != 1 || pr.Missed[0] != "english" {
		t.Errorf("missed merges %v", pr.Missed)
	}
	if !slices.Equal(pr.Caught, []string{"tabs", "english"}) {
		t.Errorf("caught together %v", pr.Caught)
	}
	// Recall together counts what a session alone caught and what the
	// project's repository holds, each lesson once, at its first session.
	res := &Result{Projects: []*ProjectResult{pr}}
	for _, s := range set.Sessions {
		sr := &SessionResult{Session: s, Read: true}
		if s.ID == "b" {
			sr.Caught = []string{"pnpm"}
		}
		res.Sessions = append(res.Sessions, sr)
	}
	rep := Summarize(set, res)
	if b := rep.Sets[Dev]; b.Recall != (Tally{Lessons: 3, Found: 1}) || b.Together != (Tally{Lessons: 3, Found: 3}) {
		t.Errorf("recall %+v, together %+v", b.Recall, b.Together)
	}
	var same, false_ int
	for _, p := range pr.Pairs {
		switch {
		case p.Same == nil:
			t.Errorf("pair %s undecided", p.ID)
		case *p.Same:
			same++
		default:
			false_++
		}
	}
	if same != 1 || false_ != 1 {
		t.Errorf("%d same, %d false: %+v", same, false_, pr.Pairs)
	}
}

// A run without the pointer-only sessions is compared with the figures
// measured on the kept sessions alone, never with those on all of them;
// the committed before.json holds both.
func TestBeforeOnTheSameSessions(t *testing.T) {
	before, err := figures.Load[Report](filepath.Join("..", "..", "..", "testdata", "genuine", "before.json"))
	if err != nil {
		t.Fatal(err)
	}
	all := &Report{Sessions: before.Sessions}
	keptOnly := &Report{Sessions: before.Kept, Missing: before.Sessions - before.Kept}
	if got := before.Beside(all); got != before {
		t.Errorf("a run on every session: before is %+v", got)
	}
	if got := before.Beside(keptOnly); got == nil || got.Sessions != before.Kept || got.Sets["all"] == nil {
		t.Errorf("a run on the kept sessions: before is %+v", got)
	}
	if got := before.Beside(&Report{Sessions: 3, Missing: 1}); got != nil {
		t.Errorf("a run on other sessions: before is %+v", got)
	}
}

// What only the project's sessions together gave is judged as a session's
// kept observations are, and counted apart; a recurring lesson not ready
// says how far it got.
func TestAcrossAndWhyNotReady(t *testing.T) {
	set := &Set{byID: map[string]*Session{}, Judged: map[string]Verdict{"obs_go": {Verdict: "trivial"}}}
	for _, id := range []string{"a", "b"} {
		s := &Session{ID: id, Project: "p", Split: Dev}
		set.byID[id] = s
		set.Sessions = append(set.Sessions, s)
	}
	set.Lessons = []*Lesson{lesson("commit", "a", []string{"b"}, "commit"), lesson("docs", "a", []string{"b"}, "docs/old")}
	repo := &Repo{
		Observations: []Observation{
			{ID: "obs_tabs", Pattern: "Keep tabs.", Status: "observing", Type: "decision", Count: 1},
			{ID: "obs_commit", Pattern: "Commit this.", Status: "observing", Type: "workflow", Count: 2},
			{ID: "obs_go", Pattern: "Go ahead.", Status: "observing", Type: "workflow", Count: 2},
			{ID: "obs_new", Pattern: "Start it.", Status: "observing", Type: "workflow", Count: 2},
		},
		Sightings: []Sighting{{ID: "obs_commit", Session: "a", Pattern: "Commit this."}, {ID: "obs_commit", Session: "b", Pattern: "Commit this."}},
	}
	pr := scoreProject(set, "p", set.Sessions, repo)
	pr.Across = acrossKept(set, pr, map[string]bool{"obs_tabs": true})
	var p Precision
	for _, k := range pr.Across {
		p.add(k)
	}
	if len(pr.Across) != 3 || p.String() != "0.50 (1/2, 1 not judged)" {
		t.Errorf("across %d: %s", len(pr.Across), p)
	}
	if got := (Precision{Kept: 2}).String(); got != "n/a (2 not judged)" {
		t.Errorf("nothing judged: %s", got)
	}
	if got := whyNotReady(set, pr, "commit"); got != "sighted in 2 of 2 sessions; observing workflow×2" {
		t.Errorf("commit: %s", got)
	}
	if got := whyNotReady(set, pr, "docs"); got != "never sighted" {
		t.Errorf("docs: %s", got)
	}
}

// A configuration measured is the one every repository's home starts with.
func TestRunnerConfigReachesEveryHome(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	work := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.json")
	want := `{"extractor":{"llm":true,"command":["recorded","answers"]}}`
	if err := os.WriteFile(cfg, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	truth, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to stand in for devlearn init")
	}
	r := &Runner{Bin: truth, Work: work, Config: cfg}
	for _, name := range []string{"one", "two"} {
		_, home, _, err := r.initRepo(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(home, ".devlearn", "config.json"))
		if err != nil || string(got) != want {
			t.Fatalf("%s: config %q, %v", name, got, err)
		}
	}
}

// A lesson said again is recorded in the lesson's words with the turn as
// its only evidence: the evaluator judges the turn. A sighting with
// details, or quoting the same words, or the agent, is read as it is.
func TestSaidAgainReadsTheTurn(t *testing.T) {
	for _, c := range []struct {
		pattern, details string
		evidence         []string
		want             string
		ok               bool
	}{
		{"Uploads go through uploads-slow.", "", []string{"user: ok, uploads go through uploads-slow again please"}, "ok, uploads go through uploads-slow again please", true},
		{"Uploads go through uploads-slow.", "steps: x", []string{"user: uploads go through uploads-slow"}, "", false},
		{"Uploads go through uploads-slow.", "", []string{"user: uploads go through uploads-slow"}, "", false},
		{"Uploads go through uploads-slow.", "", []string{"assistant: done"}, "", false},
		{"Uploads go through uploads-slow.", "", []string{"user: a", "assistant: b"}, "", false},
	} {
		got, ok := saidAgain(c.pattern, c.details, c.evidence)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("saidAgain(%q, %q, %q) = %q, %v", c.pattern, c.details, c.evidence, got, ok)
		}
	}
}
