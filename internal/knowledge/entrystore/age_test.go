package entrystore

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
)

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
	legacy, _ := knowledge.ReadEntry(dir+"/legacy-cand.md", "legacy-cand.md")
	if legacy.Status != knowledge.StatusCandidate || legacy.CreatedAt != "2026-05-10T09:00:00Z" {
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
