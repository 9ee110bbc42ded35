package knowledge

import (
	"strings"
	"testing"
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
