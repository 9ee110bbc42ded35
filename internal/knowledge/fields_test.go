package knowledge

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
)

// ClawFlow's knowledge store fields are front matter keys, read, checked and written
// back as they were given.
func TestSeedFields(t *testing.T) {
	src := "---\nsummary: API returns epoch timestamps, not ISO-8601\ncategory: api_quirk\nsource: workshop\nsource_id: task-42\nstatus: candidate\ntags: [api, dates]\nevidence:\n  - task auth-fix, stage plan, rejection 1\ntoken_estimate: 999\ncreated_at: 2026-05-01T10:00:00+02:00\nupdated_at: 2026-05-02T08:00:00Z\n---\nThe API sends seconds since 1970.\n"
	e, err := ParseEntry("api-date-format.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if e.SourceID != "task-42" || e.Source != "workshop" || len(e.Evidence) != 1 || e.CreatedAt != "2026-05-01T08:00:00Z" || e.UpdatedAt != "2026-05-02T08:00:00Z" {
		t.Fatalf("%+v", e)
	}
	if e.TokenEstimate != Tokens(e.Body) {
		t.Fatalf("token_estimate is derived from the body, not taken from the file: %d", e.TokenEstimate)
	}
	data, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"source_id: task-42\n", "evidence:\n  - task auth-fix, stage plan, rejection 1\n", "token_estimate: 9\n", "created_at: \"2026-05-01T08:00:00Z\"\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("missing %q in\n%s", want, data)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"---\nsummary: s\ncreated_at: yesterday\n---\n", `e.md:3: created_at "yesterday" is not an RFC 3339 time`},
		{"---\nsummary: s\ntoken_estimate: many\n---\n", `e.md:3: token_estimate must be a whole number`},
		{"---\nsummary: s\nevidence: {a: b}\n---\n", `e.md:3: evidence must be a list`},
	} {
		if _, err := ParseEntry("e.md", []byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s", tc.src, err, tc.want)
		}
	}
}

// The hook and the worker see one block at different times with
// different evidence: still one content, one key (the entries and counters rule, docs/architecture.md).
func TestContentHashIgnoresWhenAndWhy(t *testing.T) {
	a := &Entry{Summary: "Run go generate first", Body: "x\n", CreatedAt: "2026-05-01T00:00:00Z", Evidence: []string{"hook"}, SourceID: "s1"}
	b := &Entry{Summary: "Run go generate first", Body: "x\n", CreatedAt: "2026-05-03T00:00:00Z", Evidence: []string{"worker"}, SourceID: "s1"}
	if ContentHash(a) != ContentHash(b) {
		t.Fatal("hash depends on when the block was seen")
	}
}

func TestCreateStampsAndUpdateKeepsCreation(t *testing.T) {
	st, p := projectStore(t)
	e := &Entry{Key: "api-date-format", Summary: "API returns epoch timestamps", Body: "seconds\n"}
	rel, created, err := st.Create(context.Background(), e, "test")
	if err != nil || !created {
		t.Fatal(err)
	}
	got, _ := ReadEntry(p.Path(rel), rel)
	if got.CreatedAt != "2026-05-10T09:00:00Z" || got.UpdatedAt != got.CreatedAt {
		t.Fatalf("%+v", got)
	}
	later := &Store{Scope: ScopeProject, Proj: p, Writer: evolve.New(p, time.Date(2026, 5, 12, 0, 0, 0, 0, time.UTC), evolve.Trigger{Command: "test"})}
	later.Now = later.Writer.Now()
	up := &Entry{Key: "api-date-format", Summary: "API returns epoch seconds", Body: "seconds since 1970\n", Tags: []string{"api"}}
	if _, err := later.Update(context.Background(), up, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ = ReadEntry(p.Path(rel), rel)
	if got.CreatedAt != "2026-05-10T09:00:00Z" || got.UpdatedAt != "2026-05-12T00:00:00Z" || got.Summary != "API returns epoch seconds" {
		t.Fatalf("%+v", got)
	}
	if _, err := later.Update(context.Background(), &Entry{Key: "nope", Summary: "s"}, "test"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	// Promote stamps updated_at and keeps the rest of the file.
	if _, _, _, err := later.SetStatus(context.Background(), "api-date-format", StatusArchived, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ = ReadEntry(p.Path(rel), rel)
	if got.Status != StatusArchived || got.UpdatedAt != "2026-05-12T00:00:00Z" {
		t.Fatalf("%+v", got)
	}
}

// Candidates not promoted within the window are archived, never deleted;
// one without a creation time starts its clock rather than going at once.
// Drafts have their own window, and an active entry none.
func TestAge(t *testing.T) {
	st, p := projectStore(t)
	dir := p.Path(".memory/knowledge/entries")
	os.MkdirAll(dir, 0o755)
	write := func(name, fm string) {
		os.WriteFile(dir+"/"+name+".md", []byte("---\nsummary: "+name+"\n"+fm+"---\nbody\n"), 0o644)
	}
	write("old-cand", "status: candidate   # waiting\ncreated_at: 2026-04-01T00:00:00Z\n")
	write("young-cand", "status: candidate\ncreated_at: 2026-05-01T00:00:00Z\n")
	write("legacy-cand", "status: candidate\n")
	write("old-active", "created_at: 2026-01-01T00:00:00Z\n")
	write("old-draft", "status: draft\ncreated_at: 2026-04-20T00:00:00Z\n")
	write("young-draft", "status: draft\ncreated_at: 2026-05-05T00:00:00Z\n")
	windows := Windows{Candidates: 30 * 24 * time.Hour, Drafts: 7 * 24 * time.Hour}
	aged, err := st.Age(context.Background(), windows)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(aged.Archived, ",") != "old-cand" || strings.Join(aged.Started, ",") != "legacy-cand" ||
		strings.Join(aged.Expired, ",") != "old-draft" || len(aged.DraftsStarted) != 0 {
		t.Fatalf("%+v", aged)
	}
	old, _ := os.ReadFile(dir + "/old-cand.md")
	if !strings.Contains(string(old), "status: archived    # waiting\n") || !strings.Contains(string(old), "updated_at: \"2026-05-10T09:00:00Z\"") {
		t.Fatalf("%s", old)
	}
	legacy, _ := ReadEntry(dir+"/legacy-cand.md", "legacy-cand.md")
	if legacy.Status != StatusCandidate || legacy.CreatedAt != "2026-05-10T09:00:00Z" {
		t.Fatalf("%+v", legacy)
	}
	// Nothing due: nothing written.
	again, err := st.Age(context.Background(), windows)
	if err != nil || len(again.Archived)+len(again.Started)+len(again.Expired) != 0 {
		t.Fatal(again, err)
	}
	log, _, _ := evolve.ReadLog(p)
	if len(log) != 1 {
		t.Fatalf("one audited batch, got %d", len(log))
	}
}
