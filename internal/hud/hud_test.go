package hud

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/project"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		c    Counts
		want string
	}{
		{Counts{}, ""},
		{Counts{NeedsReview: 1}, "⚠ 1 needs review"},
		{Counts{Artifacts: map[string]int{lesson.Workflow: 2, lesson.Procedural: 1, lesson.Decision: 3, lesson.Pitfall: 1}, NeedsReview: 1}, "Learning: 2 workflows, 1 skill, 3 decisions, 1 pitfall  ⚠ 1 needs review"},
		{Counts{Artifacts: map[string]int{lesson.Workflow: 1, lesson.Procedural: 2}, NeedsReview: 3}, "Learning: 1 workflow, 2 skills  ⚠ 3 need review"},
		{Counts{Artifacts: map[string]int{lesson.Decision: 1}}, "Learning: 1 decision"},
		{Counts{Lessons: 2}, "Learning: 2 lessons"},
		{Counts{Lessons: 1, Artifacts: map[string]int{lesson.Pitfall: 2}, NeedsReview: 1}, "Learning: 1 lesson, 2 pitfalls  ⚠ 1 needs review"},
	} {
		if got := Line(tc.c, nil); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
	if got := Line(Counts{NeedsReview: 2}, func(s string) string { return "<" + s + ">" }); got != "<⚠ 2 need review>" {
		t.Error(got)
	}
}

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

// repo builds a project with n observations in the log (every tenth one
// stale) and one manifest entry per type.
func repo(t testing.TB, n int) *project.Project {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".memory"), 0o755)
	var log strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&log, `{"op":"observe","eid":"e%d","at":"2026-05-04T09:00:00Z","src":"s%d","id":"obs_%012x","type":"pitfall","pattern":"Lesson number %d","quality_ok":true}`+"\n", i, i%7, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&log, `{"op":"flag","eid":"f%d","at":"2026-05-05T09:00:00Z","src":"reconcile","id":"obs_%012x","flag":"stale","reason":"x.go no longer exists"}`+"\n", i, i)
		}
	}
	for i, typ := range []string{"workflow", "workflow", "procedural", "decision", "pitfall"} {
		id := fmt.Sprintf("obs_%012x", 900000+i)
		fmt.Fprintf(&log, `{"op":"observe","eid":"c%d","at":"2026-05-04T09:00:00Z","src":"s1","id":"%s","type":"%s","pattern":"Made %d"}`+"\n", i, id, typ, i)
		fmt.Fprintf(&log, `{"op":"created","eid":"d%d","at":"2026-05-05T09:00:00Z","src":"render","id":"%s","path":"x%d"}`+"\n", i, id, i)
	}
	os.WriteFile(filepath.Join(dir, project.LogFile), []byte(log.String()), 0o644)
	// One entry in force for every hundred observations, and as many
	// archived: the line counts the first.
	entries := filepath.Join(dir, filepath.FromSlash(project.EntriesDir))
	os.MkdirAll(entries, 0o755)
	for i := 0; i < max(1, n/100); i++ {
		for _, st := range []string{"active", "archived"} {
			key := fmt.Sprintf("%s-%d", st, i)
			os.WriteFile(filepath.Join(entries, key+".md"), []byte("---\nkey: "+key+"\nsummary: lesson "+key+"\nstatus: "+st+"\n---\nbody\n"), 0o644)
		}
	}
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func load() (*config.Config, error) { return config.Default(), nil }

func TestCacheFollowsTheFiles(t *testing.T) {
	p := repo(t, 30)
	c, err := Cached(p, "", "cfg1", load, now)
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{Lessons: 1, Artifacts: map[string]int{lesson.Workflow: 2, lesson.Procedural: 1, lesson.Decision: 1, lesson.Pitfall: 1}, NeedsReview: 3}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("%+v, want %+v", c, want)
	}
	// A hit does not read the log: replace the computation to prove it.
	calls := 0
	counting := func() (*config.Config, error) { calls++; return config.Default(), nil }
	if c, _ := Cached(p, "", "cfg1", counting, now); !reflect.DeepEqual(c, want) || calls != 0 {
		t.Fatalf("cache miss on unchanged files (%d calls)", calls)
	}
	// An append to the log changes its size: recomputed.
	f, _ := os.OpenFile(p.Path(project.LogFile), os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintln(f, `{"op":"flag","eid":"zz","at":"2026-05-06T09:00:00Z","src":"r","id":"obs_000000000001","flag":"review"}`)
	f.Close()
	if c, _ := Cached(p, "", "cfg1", counting, now); c.NeedsReview != 4 || calls != 1 {
		t.Fatalf("after an append: %+v, %d calls", c, calls)
	}
	// A candidate entry appears.
	os.MkdirAll(p.Path(project.EntriesDir), 0o755)
	os.WriteFile(p.Path(project.EntriesDir+"/k.md"), []byte("---\nkey: k\nsummary: a candidate\nstatus: candidate\n---\nx\n"), 0o644)
	if c, _ := Cached(p, "", "cfg1", counting, now); c.NeedsReview != 5 {
		t.Fatalf("after a candidate: %+v", c)
	}
	// Another config is another key.
	Cached(p, "", "cfg2", counting, now)
	if calls != 3 {
		t.Fatalf("%d calls", calls)
	}
	// The candidate accepted by an edit in place: its folder is unchanged,
	// so the counts stand until MaxAge has passed.
	os.WriteFile(p.Path(project.EntriesDir+"/k.md"), []byte("---\nkey: k\nsummary: a candidate\nstatus: active\n---\nx\n"), 0o644)
	if c, _ := Cached(p, "", "cfg2", counting, now.Add(MaxAge-time.Second)); c.NeedsReview != 5 || calls != 3 {
		t.Fatalf("within MaxAge: %+v, %d calls", c, calls)
	}
	if c, _ := Cached(p, "", "cfg2", counting, now.Add(MaxAge)); c.NeedsReview != 4 || calls != 4 {
		t.Fatalf("after MaxAge: %+v, %d calls", c, calls)
	}
	// A clock set back does not make old counts fresh.
	if Cached(p, "", "cfg2", counting, now); calls != 5 {
		t.Fatalf("clock set back: %d calls", calls)
	}
}

func BenchmarkHudCached(b *testing.B) {
	p := repo(b, 10000)
	if _, err := Cached(p, "", "cfg", load, now); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Cached(p, "", "cfg", load, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHudUncached10k(b *testing.B) {
	p := repo(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(p, config.Default(), "", now); err != nil {
			b.Fatal(err)
		}
	}
}

// Two observations adopted into one section (render's dedup of pitfalls
// with the same area and issue) are one pitfall, not two: the HUD counts
// artifacts. It counted 3 pitfalls where pitfalls.md had 2 sections.
func TestCountsArtifactsNotObservations(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".memory"), 0o755)
	var log strings.Builder
	for i, anchor := range []string{"PF-001", "PF-002", "PF-001"} {
		id := fmt.Sprintf("obs_%012x", i+1)
		fmt.Fprintf(&log, `{"op":"observe","eid":"o%d","at":"2026-05-04T09:00:00Z","src":"s1","id":"%s","type":"pitfall","pattern":"Pitfall %d","quality_ok":true}`+"\n", i, id, i)
		fmt.Fprintf(&log, `{"op":"created","eid":"c%d","at":"2026-05-05T09:00:00Z","src":"render","id":"%s","path":".memory/knowledge/pitfalls.md","anchor":"%s"}`+"\n", i, id, anchor)
	}
	os.WriteFile(filepath.Join(dir, project.LogFile), []byte(log.String()), 0o644)
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compute(p, config.Default(), "", now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Artifacts[lesson.Pitfall] != 2 {
		t.Fatalf("%d pitfalls counted for two sections", c.Artifacts[lesson.Pitfall])
	}
}
