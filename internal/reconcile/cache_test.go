package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// age makes every file of the project old, as it is between two sessions,
// so that the quiet-run cache trusts their fingerprints.
func age(t *testing.T, root string) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func quickRun(t *testing.T, p *project.Project) *Result {
	t.Helper()
	r := &Reconciler{
		Proj:   p,
		Log:    observe.Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, benchNow, evolve.Trigger{Command: "test"}),
		Opts:   Options{Now: benchNow, Config: config.Default()},
	}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The cache may only ever save time: every change it could hide must still
// be found.
func TestQuietRunCacheNeverHidesAChange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(p *project.Project)
		check  func(r *Result) bool
	}{
		{"same-size edit of a file", func(p *project.Project) {
			path := p.Path(project.CommandsDir + "/lesson-0.md")
			b, _ := os.ReadFile(path)
			b[len(b)-3] = 'X'
			os.WriteFile(path, b, 0o644)
		}, func(r *Result) bool { return r.Edits == 1 }},
		{"deleted file", func(p *project.Project) { os.Remove(p.Path(project.SkillsDir + "/lesson-1/SKILL.md")) },
			func(r *Result) bool { return r.Deletions == 1 }},
		{"deleted section", func(p *project.Project) {
			b, _ := os.ReadFile(p.Path(project.PitfallsFile))
			os.WriteFile(p.Path(project.PitfallsFile), b[:len(b)/2], 0o644)
		}, func(r *Result) bool { return r.Deletions > 0 }},
		{"referenced folder gone", func(p *project.Project) { os.RemoveAll(p.Path("src")) },
			func(r *Result) bool { return r.Stale > 0 }},
		{"orphan added", func(p *project.Project) {
			os.WriteFile(p.Path(project.CommandsDir+"/new.md"), []byte("---\nsource: self-learning:obs_x\n---\n"), 0o644)
		}, func(r *Result) bool { return len(r.Details) == 1 && r.Details[0].What == "orphan" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := benchProjectT(t, 8)
			age(t, p.Root)
			if r := quickRun(t, p); r.Unchanged != 8 {
				t.Fatalf("first run %+v", r)
			}
			if _, err := os.Stat(cachePath(p)); err != nil {
				t.Fatal("a quiet run on old files must leave the cache")
			}
			if r := cached(p, benchNow, config.Default()); r == nil || r.Unchanged != 8 {
				t.Fatalf("the cache must answer the next run: %+v", r)
			}
			tc.change(p)
			if r := quickRun(t, p); !tc.check(r) {
				t.Fatalf("the change was hidden: %+v", r)
			}
		})
	}
}

// The config (the project's file or the global one) sets the thresholds of
// adoption and staleness: under other thresholds the cache must not answer.
func TestQuietRunCacheFollowsTheConfig(t *testing.T) {
	p := benchProjectT(t, 8)
	age(t, p.Root)
	quickRun(t, p)
	if cached(p, benchNow, config.Default()) == nil {
		t.Fatal("the cache must answer the next run")
	}
	lower := config.Default()
	th := lower.Thresholds.Workflow
	th.Required--
	lower.Thresholds.Workflow = th
	if r := cached(p, benchNow, lower); r != nil {
		t.Fatalf("the cache answered under other thresholds: %+v", r)
	}
}
