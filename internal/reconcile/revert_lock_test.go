package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
)

// A revert that puts a log back (a 'learn --clear' undone) holds that
// log's lock while the writer replaces it, as scrub and purge do, so an
// append cannot land between the writer's check and its rename and be
// lost; files no appender locks are not locked.
func TestRevertLocksTheLogsItReplaces(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory", "tasks"), 0o755)
	p, err := project.Find(root)
	if err != nil {
		t.Fatal(err)
	}
	changes := []evolve.Change{{Path: project.LogFile}, {Path: project.TasksDir + "/t.jsonl"}, {Path: project.DecisionsFile}}
	release, err := lockLogs(context.Background(), p, changes)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{project.LogFile: false, project.TasksDir + "/t.jsonl": false, project.DecisionsFile: true} {
		unlock, ok, err := jsonl.TryLock(p.LockPath(rel))
		if err != nil || ok != want {
			t.Errorf("%s: free %v, want %v (%v)", rel, ok, want, err)
		}
		if ok {
			unlock()
		}
	}
	release()
	unlock, ok, err := jsonl.TryLock(p.LockPath(project.LogFile))
	if err != nil || !ok {
		t.Fatalf("not released: %v %v", ok, err)
	}
	unlock()
}
