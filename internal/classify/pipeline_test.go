package classify

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/transcript"
)

func session(id, request string) *ingest.Session {
	return &ingest.Session{ID: id, Channels: &transcript.Channels{UserSignals: []transcript.UserSignal{{Text: request}}}}
}

// A pipeline watched classifies each session it reads, asks the model
// only when the rules cannot tell, weighs bug and feedback sessions by
// classify.weight, and keeps the classes once saved: a session of an
// earlier run weighs as it was classified then.
func TestWatchClassifiesWeighsAndKeeps(t *testing.T) {
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
	cfg := config.Default()
	cfg.Classify.Weight = 3
	now := time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)
	var asked []string
	pl := &ingest.Pipeline{Proj: p, Config: cfg, Now: now}
	sc := Watch(pl, func(req string) (string, error) {
		asked = append(asked, req)
		if req == "hi" {
			return Feedback, nil
		}
		return "", errors.New("no model")
	})
	pl.OnSession(session("s1", "The login page crashes with a nil pointer panic, please fix it"))
	pl.OnSession(session("s2", "Add a new endpoint for exporting invoices as CSV"))
	pl.OnSession(session("s3", "hi"))
	if len(asked) != 1 || asked[0] != "hi" {
		t.Errorf("the model was asked %q, want only the session the rules cannot tell", asked)
	}
	for id, want := range map[string]int{"s1": 3, "s2": 1, "s3": 3, "unknown": 1} {
		if got := pl.Weight(id); got != want {
			t.Errorf("Weight(%s) = %d, want %d", id, got, want)
		}
	}
	if err := sc.Save(t.Context(), p); err != nil {
		t.Fatal(err)
	}

	later := &ingest.Pipeline{Proj: p, Config: cfg, Now: now}
	Watch(later, nil)
	if got := later.Weight("s1"); got != 3 {
		t.Errorf("a bug session of an earlier run weighs %d, want 3", got)
	}
	stored, err := StoreOf(p).Load()
	if err != nil {
		t.Fatal(err)
	}
	if c := stored["s3"]; c.Class != Feedback || c.By != "llm" || c.Request != "hi" {
		t.Errorf("s3 kept as %+v", c)
	}
}
