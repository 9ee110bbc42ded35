package render

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/observe"
)

// The soft cap counts the entries a run appends as well as those it found:
// with one entry in force (and one deprecated) under a cap of three, two of
// four ready decisions are written and the other two skipped.
func TestSoftCapCountsSectionsAppendedInTheRun(t *testing.T) {
	var log strings.Builder
	for i := range 4 {
		q, conf := true, 0.95
		b, _ := json.Marshal(observe.Event{ID: fmt.Sprintf("obs_%08x", i), Type: observe.Decision, Pattern: fmt.Sprintf("Decision number %d", i),
			Confidence: &conf, Observations: 4, FirstSeen: fmt.Sprintf("2026-04-0%dT00:00:00Z", i+1), LastSeen: "2026-04-09T00:00:00Z",
			Status: "ready", QualityOK: &q, Details: "context: c; decision: d"})
		log.Write(b)
		log.WriteByte('\n')
	}
	cfg := config.Default()
	cfg.Knowledge.SoftCap = 3
	dir := t.TempDir()
	r := newRenderer(t, dir, []byte(log.String()), time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC), cfg)
	os.MkdirAll(filepath.Join(dir, ".memory", "knowledge"), 0o755)
	os.WriteFile(filepath.Join(dir, ".memory", "knowledge", "decisions.md"), []byte("# Architectural Decisions\n\n"+
		"## ADR-001: Plain files\n\n- **Status**: Accepted\n\n## ADR-002: Old files\n\n- **Status**: Deprecated\n"), 0o644)
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rendered) != 2 || len(res.Skipped) != 2 {
		t.Fatalf("rendered %d, skipped %d: want 2 and 2 (%+v)", len(res.Rendered), len(res.Skipped), res)
	}
	for _, s := range res.Skipped {
		if !strings.Contains(s.Reason, "has 3 active entries, the soft cap") {
			t.Errorf("skipped %s: %q", s.ID, s.Reason)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".memory", "knowledge", "decisions.md"))
	if got := strings.Count(string(data), "\n## ADR-"); got != 4 {
		t.Errorf("decisions.md has %d entries, want 4:\n%s", got, data)
	}
}
