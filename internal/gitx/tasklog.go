package gitx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Task log operations written by a merge.
const (
	OpMergeBlocked = "merge-blocked"
	OpMerged       = "merged"
)

// TaskEvent is one line of .memory/tasks/<task>.jsonl written by a merge
// (the events rule of docs/architecture.md: op, eid, at, src on every line).
type TaskEvent struct {
	Op        string     `json:"op"`
	EID       string     `json:"eid"`
	At        string     `json:"at"`
	Src       string     `json:"src"`
	Task      string     `json:"task"`
	Branch    string     `json:"branch"`
	Base      string     `json:"base"`
	Kind      string     `json:"kind,omitempty"`
	Commit    string     `json:"commit,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// TaskName is the task a branch stands for, safe as a file name: the
// branch's short name with every character outside [A-Za-z0-9._-] (a
// slash, say) replaced by '-', and no leading dot.
func TaskName(branch string) string {
	b := []byte(branch)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '-'
		}
	}
	name := strings.TrimLeft(string(b), ".")
	if name == "" {
		name = "task"
	}
	if textkey.Reserved(name) {
		name = "task-" + name // a branch named "aux" would name a device on Windows
	}
	return name
}

// TaskLogRel is the project-relative path of a task's log.
func TaskLogRel(task string) string { return path.Join(project.TasksDir, TaskName(task)+".jsonl") }

// appendTaskEvent records ev in the task log of the worktree at root, under
// the log's lock. A worktree without .memory/ is not set up for devlearn
// and gets nothing; ok reports whether the event was written.
func appendTaskEvent(ctx context.Context, root string, ev TaskEvent, at time.Time) (rel string, ok bool, err error) {
	p, err := project.Find(root)
	if err != nil {
		return "", false, err
	}
	if fi, err := os.Stat(p.Path(project.MemoryDir)); err != nil || !fi.IsDir() {
		return "", false, nil
	}
	ev.At = at.UTC().Format(time.RFC3339)
	ev.Src = "devlearn merge"
	ev.EID = ""
	id, err := json.Marshal(ev)
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(id)
	ev.EID = "mrg_" + hex.EncodeToString(sum[:6])
	line, err := json.Marshal(ev)
	if err != nil {
		return "", false, err
	}
	rel = TaskLogRel(ev.Task)
	if err := jsonl.Append(ctx, p.Root, p.Path(rel), p.LockPath(rel), line); err != nil {
		return "", false, err
	}
	return rel, true, nil
}

// mergedIn reports whether the task log in the worktree at root records
// the task merged at commit ("" for any commit): a merge finished after a
// crash, or a task merged before, is recorded once.
func mergedIn(root, task, commit string) (rel string, ok bool) {
	rel = TaskLogRel(task)
	jsonl.ScanFile(filepath.Join(root, filepath.FromSlash(rel)), func(_ int, line []byte) error {
		var ev TaskEvent
		if json.Unmarshal(line, &ev) == nil && ev.Op == OpMerged && ev.Task == task && (commit == "" || ev.Commit == commit) {
			ok = true
		}
		return nil
	})
	return rel, ok
}
