package outcome

import (
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/observe"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func TestAssess(t *testing.T) {
	log := observe.NewLog()
	items := func(s string) (Item, bool) {
		switch s {
		case "obs_aaa":
			return Item{Subject: s, Observation: "obs_aaa", Text: "Run the migrations before the tests"}, true
		case "entry:fmt":
			return Item{Subject: s, Text: "Format Go code with gofmt"}, true
		}
		return Item{}, false
	}
	opt := Options{Now: t0.Add(48 * time.Hour), HelpfulAfter: 2, Similarity: 0.6}
	uses := []Use{
		// s1: a command invoked twice and served once: one application.
		{Subject: "obs_aaa", Session: "s1", At: t0.Add(time.Minute), How: Invoked},
		{Subject: "obs_aaa", Session: "s1", At: t0.Add(2 * time.Minute), How: Invoked},
		{Subject: "obs_aaa", Session: "s1", At: t0, How: Served},
		// s2: served; its own lesson was sighted before it was served
		// (not a recurrence) and after (a recurrence).
		{Subject: "obs_aaa", Session: "s2", At: t0.Add(time.Hour), How: Served},
		// s3: fetched through a tool, and a paraphrase recurs.
		{Subject: "entry:fmt", Session: "s3", At: t0, How: Fetched},
		// an unknown subject: applied only.
		{Subject: "ADR-007", Session: "s3", At: t0, How: Served},
	}
	seen := []Sighting{
		{ID: "obs_aaa", Pattern: "Run the migrations before the tests", Session: "s2", At: t0.Add(30 * time.Minute)},
		{ID: "obs_aaa", Pattern: "Run the migrations before the tests", Session: "s2", At: t0.Add(2 * time.Hour)},
		{ID: "obs_zzz", Pattern: "Always format the Go code with gofmt", Session: "s3", At: t0.Add(time.Minute)},
		{ID: "obs_yyy", Pattern: "Something else entirely", Session: "s1", At: t0.Add(time.Hour)},
	}
	events, verdicts := Assess(log, uses, seen, items, opt)
	if len(verdicts) != 4 {
		t.Fatalf("verdicts %+v", verdicts)
	}
	want := map[string]map[string]int{
		"obs_aaa":   {Applied: 2, Harmful: 1},
		"entry:fmt": {Applied: 1, Harmful: 1},
		"ADR-007":   {Applied: 1},
	}
	for s, w := range want {
		c := log.Counters(s)
		for k, n := range w {
			if c[k] != n {
				t.Errorf("%s %s = %d, want %d (%v)", s, k, c[k], n, c)
			}
		}
		if c[Helpful] != 0 {
			t.Errorf("%s helpful %d", s, c[Helpful])
		}
	}
	// The same batch again adds nothing.
	if again, _ := Assess(log, uses, seen, items, opt); len(again) != 0 {
		t.Fatalf("assessed twice: %d events", len(again))
	}
	// Two clean sessions make one helpful (helpful_after 2): obs_aaa has
	// 2 applied, 1 harmful; two more clean ones give 4 − 1 = 3 → 1.
	more := []Use{{Subject: "obs_aaa", Session: "s4", At: t0, How: Served}, {Subject: "obs_aaa", Session: "s5", At: t0, How: Served}}
	events, _ = Assess(log, more, nil, items, opt)
	if c := log.Counters("obs_aaa"); c[Helpful] != 1 || c[Applied] != 4 {
		t.Fatalf("after two clean sessions: %v (%d events)", c, len(events))
	}
	if Subject("obs:obs_aaa") != "obs_aaa" || Subject("entry:x") != "entry:x" {
		t.Fatal("Subject")
	}
}

func TestStatsFlags(t *testing.T) {
	log := observe.NewLog()
	now := t0.Add(100 * 24 * time.Hour)
	log.Apply(AppliedEvent("entry:a", "s1", t0))
	items := []StatItem{
		{ID: "a", Type: "entry", Subjects: []string{"entry:a"}},
		{ID: "b", Type: "entry", Subjects: []string{"entry:b"}, Since: t0},
		{ID: "c", Type: "entry", Subjects: []string{"entry:c"}},
	}
	rows := Stats(log, items, now, 60)
	got := map[string][]string{}
	for _, r := range rows {
		got[r.ID] = r.Review
	}
	if len(got["a"]) != 1 || got["a"][0] != "not applied for 60 days" || len(got["b"]) != 1 || len(got["c"]) != 0 {
		t.Fatalf("%+v", got)
	}
}
