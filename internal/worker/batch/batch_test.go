package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
)

var now = time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC)

// tree makes a working tree set up for devlearn.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{".git", ".memory"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// transcriptFile copies a genuine transcript that teaches nothing (its
// agent slips on no rule a batch would keep) under a session's name.
func transcriptFile(t *testing.T, id string) string {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/transcripts/d-kimuson+claude-code-viewer/mock-global-claude-dir__projects__sample-project__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A batch over three working trees, given its pieces by hand: the batch
// reads no environment, so each working tree's fate shows in the result
// and in the calls it made.
func TestABatchAnswersForEachSession(t *testing.T) {
	good, broken := tree(t), tree(t)
	gone := t.TempDir() // no longer a working tree
	bare := t.TempDir() // a working tree on a branch without .memory/
	os.MkdirAll(filepath.Join(bare, ".git"), 0o755)
	const readable = "0b9f6e2c-1111-4aaa-8bbb-000000000001"
	entries := []worker.Entry{
		{SessionID: readable, TranscriptPath: transcriptFile(t, readable), Root: good},
		{SessionID: "0b9f6e2c-1111-4aaa-8bbb-000000000002", TranscriptPath: filepath.Join(t.TempDir(), "deleted.jsonl"), Root: good},
		{SessionID: "s3", Root: gone},
		{SessionID: "s4", Root: broken},
		{SessionID: "another-agent", TranscriptPath: filepath.Join(t.TempDir(), "rollout.agent"), Root: good},
		{SessionID: "s6", Root: bare},
	}
	var calls, logged []string
	d := Deps{
		Now:       now,
		Logf:      func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) },
		ClaudeDir: t.TempDir(),
		// Another agent's log is read by its own reader, even where no
		// file is: the reader is the one to say.
		ReaderFor: func(path string) Reader {
			if !strings.HasSuffix(path, ".agent") {
				return nil
			}
			return func(path string, _ transcript.Options) (*transcript.Channels, error) {
				calls = append(calls, "read "+filepath.Base(path))
				return &transcript.Channels{}, nil
			}
		},
		Config: func(p *project.Project) (*config.Config, error) {
			calls = append(calls, "config "+p.Root)
			if p.Root == broken {
				return nil, errors.New("learning.json: line 1: bad")
			}
			return config.Default(), nil
		},
		Capture: func(ctx context.Context, p *project.Project, cfg *config.Config) Capture {
			calls = append(calls, "capture "+p.Root)
			return Capture{
				Pipeline: &ingest.Pipeline{
					Proj: p, Config: cfg, Now: now, Redact: redact.Text,
					Log:         observe.ProjectStore(p),
					HistoryPath: ingest.HistoryPath(p),
					Writer:      evolve.New(p, now, evolve.Trigger{Command: "worker"}),
				},
				After: func(ctx context.Context, res *ingest.Result) (int, error) {
					calls = append(calls, fmt.Sprintf("after %d sessions", len(res.Sessions)))
					return 0, nil
				},
			}
		},
		Age: func(ctx context.Context, p *project.Project, cfg *config.Config) error {
			calls = append(calls, "age "+p.Root)
			return nil
		},
		AfterPass: func(ctx context.Context, p *project.Project, cfg *config.Config) int {
			calls = append(calls, "after pass "+p.Root)
			return 0
		},
	}
	var begun []int
	res := Ingest(t.Context(), d, entries, func(i int) { begun = append(begun, i) })

	for _, i := range []int{0, 4} {
		if res.Errs[i] != nil {
			t.Errorf("session %s: %v", entries[i].SessionID, res.Errs[i])
		}
	}
	if !errors.Is(res.Errs[1], worker.ErrGone) {
		t.Errorf("a session whose transcript is gone: %v, want ErrGone (never retried)", res.Errs[1])
	}
	if !errors.Is(res.Errs[2], worker.ErrGone) || !strings.Contains(res.Errs[2].Error(), gone) {
		t.Errorf("a session of a working tree that is gone: %v, want ErrGone naming it", res.Errs[2])
	}
	if err := res.Errs[5]; err == nil || errors.Is(err, worker.ErrGone) || errors.Is(err, worker.ErrBatch) || !strings.Contains(err.Error(), "no .memory/") {
		t.Errorf("a session of a working tree on a branch without .memory/: %v, want an attempt counted and a retry", err)
	}
	if !errors.Is(res.Errs[3], worker.ErrBatch) || !strings.Contains(res.Errs[3].Error(), "learning.json") {
		t.Errorf("a session of a working tree whose config fails: %v, want ErrBatch (retried without a count) with the config's error", res.Errs[3])
	}
	if res.Err != nil {
		t.Errorf("rendering: %v", res.Err)
	}
	want := []string{"config " + good, "capture " + good, "read rollout.agent", "after 2 sessions", "age " + good, "after pass " + good, "config " + broken}
	if !slices.Equal(calls, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	// Each session is blamed while it is read, then the batch as a whole.
	if !slices.Equal(begun, []int{0, 1, 4, 0, 4, -1}) {
		t.Errorf("begin got %v, want [0 1 4 0 4 -1]", begun)
	}
	if !slices.ContainsFunc(logged, func(l string) bool { return strings.HasPrefix(l, "no changes: 2 sessions in "+good) }) {
		t.Errorf("the log does not say the batch gave nothing new: %q", logged)
	}
}
