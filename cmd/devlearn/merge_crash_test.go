package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mergeFiles is how many files the task changes: enough that the checkout
// has many write points, few enough to run every crash.
const mergeFiles = 12

// newMergeCrashRepo is a clone with a task worktree ready to merge: the task
// changes, adds and deletes files and leaves one learned file uncommitted;
// main changed a file of its own meanwhile, so the merge is a merge
// commit. It returns the main worktree.
func newMergeCrashRepo(t *testing.T, bin string) string {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "repo")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = mergeCrashEnv(dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(dir, 0o755)
	git(dir, "init", "-q", "-b", "main")
	if code, out := runMergeCrash(t, bin, dir, nil, "init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	for i := range mergeFiles {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "app.txt"), []byte("header\nbody\nfooter\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".memory", "learning-log.jsonl"), []byte(`{"op":"observe","eid":"e1"}`+"\n"), 0o644)
	git(dir, "add", "-A")
	git(dir, "commit", "-qm", "start")
	wt := filepath.Join(top, "wt")
	git(dir, "worktree", "add", "-q", "-b", "task/cart", wt)
	for i := range mergeFiles {
		os.WriteFile(filepath.Join(wt, fmt.Sprintf("f%02d.txt", i)), []byte(fmt.Sprintf("file %d, changed by the task\n", i)), 0o644)
	}
	os.MkdirAll(filepath.Join(wt, "new"), 0o755)
	os.WriteFile(filepath.Join(wt, "new", "added.txt"), []byte("added by the task\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "app.txt"), []byte("header\nbody\nfooter changed by the task\n"), 0o644)
	os.Remove(filepath.Join(wt, "f00.txt"))
	git(wt, "add", "-A")
	git(wt, "commit", "-qm", "task: cart")
	// Learned in the task, never committed: the merge commits it first.
	os.WriteFile(filepath.Join(wt, ".memory", "learning-log.jsonl"), []byte(`{"op":"observe","eid":"e1"}`+"\n"+`{"op":"observe","eid":"task"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app.txt"), []byte("HEADER\nbody\nfooter\n"), 0o644)
	git(dir, "commit", "-qam", "main: header")
	if code, out := runMergeCrash(t, bin, dir, nil, "task", "start", "cart", "--branch", "task/cart", "--worktree", wt); code != 0 {
		t.Fatalf("task start: exit %d\n%s", code, out)
	}
	return dir
}

func mergeCrashEnv(dir string) []string {
	home := filepath.Join(filepath.Dir(dir), "home")
	env := []string{"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2026-05-10T08:00:00Z", "GIT_COMMITTER_DATE=2026-05-10T08:00:00Z",
		"DEVLEARN_NOW=2026-05-10T09:00:00Z", "NO_COLOR=1", "PATH=" + os.Getenv("PATH")}
	return env
}

func runMergeCrash(t *testing.T, bin, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(mergeCrashEnv(dir), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = mergeCrashEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// mergeState is what a person sees of a merge: where main points, what git
// status says, whether the task's worktree and the locks are there.
type mergeState struct {
	Main, Status, Worktrees, Task string
}

func readMergeState(t *testing.T, bin, dir string) mergeState {
	t.Helper()
	_, status := runMergeCrash(t, bin, dir, nil, "task", "status", "cart", "--json")
	var st struct {
		Task struct {
			Status string `json:"status"`
		} `json:"task"`
	}
	json.Unmarshal([]byte(status), &st)
	return mergeState{
		Main:      gitOut(t, dir, "rev-parse", "main"),
		Status:    gitOut(t, dir, "status", "--porcelain", "--untracked-files=no"),
		Worktrees: strings.ReplaceAll(gitOut(t, dir, "worktree", "list", "--porcelain"), filepath.Dir(dir), "$TOP"),
		Task:      st.Task.Status,
	}
}

// doctorMerges is doctor's merge check: ok, and what it says.
func doctorMerges(t *testing.T, bin, dir string) (bool, string) {
	t.Helper()
	_, out := runMergeCrash(t, bin, dir, nil, "doctor", "--json")
	var res struct {
		Checks []struct {
			Name, Detail, Fix string
			OK                bool
		}
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range res.Checks {
		if c.Name == "no merge left half done" {
			return c.OK, c.Detail + " / " + c.Fix
		}
	}
	// A doctor with no such check says all is well.
	return true, "doctor has no merge check"
}

// crashOutcome says what a crash at a point left, before any command runs.
func crashOutcome(t *testing.T, dir, mainBefore string) string {
	t.Helper()
	var parts []string
	if gitOut(t, dir, "rev-parse", "main") == mainBefore {
		parts = append(parts, "main not moved")
	} else {
		parts = append(parts, "main moved")
	}
	common := filepath.Join(dir, ".git")
	if b, err := os.ReadFile(filepath.Join(common, "devlearn", "merges", "main.json")); err == nil {
		var j struct{ Phase string }
		json.Unmarshal(b, &j)
		parts = append(parts, "journal "+j.Phase)
	} else {
		parts = append(parts, "no journal")
	}
	if _, err := os.Stat(filepath.Join(common, "index.lock")); err == nil {
		parts = append(parts, "main's index locked")
	}
	locks, _ := filepath.Glob(filepath.Join(common, "worktrees", "*", "index.lock"))
	if len(locks) > 0 {
		parts = append(parts, "task's index locked")
	}
	if refLocks, _ := filepath.Glob(filepath.Join(common, "refs", "heads", "*.lock")); len(refLocks) > 0 {
		parts = append(parts, "main's ref locked")
	}
	if refLocks, _ := filepath.Glob(filepath.Join(common, "refs", "heads", "task", "*.lock")); len(refLocks) > 0 {
		parts = append(parts, "task's ref locked")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "wt")); err != nil {
		parts = append(parts, "worktree gone")
	} else if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "wt", ".git")); err != nil {
		parts = append(parts, "worktree half removed")
	}
	if st := gitOutOK(dir, "diff", "--cached", "--quiet"); !st {
		parts = append(parts, "staged diff")
	}
	return strings.Join(parts, ", ")
}

func gitOutOK(dir string, args ...string) bool {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = mergeCrashEnv(dir)
	return cmd.Run() == nil
}

// 'task done' is stopped dead at every write point of its merge in turn;
// then doctor must report what is left (when anything is), and 'task done'
// run again must end exactly where a run that never crashed ends: main at
// the same merge commit, its checkout clean (no staged diff that undoes
// the task), no lock or journal left, the task recorded merged once, its
// worktree removed only then.
func TestTaskDoneCrashAtEveryMergeWritePoint(t *testing.T) {
	bin := crashBinary(t)

	ref := newMergeCrashRepo(t, bin)
	mainBefore := gitOut(t, ref, "rev-parse", "main")
	trace := filepath.Join(t.TempDir(), "trace")
	if code, out := runMergeCrash(t, bin, ref, []string{"DEVLEARN_CRASH_TRACE=" + trace}, "task", "done", "cart"); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	want := readMergeState(t, bin, ref)
	if want.Task != "merged" || want.Status != "" || strings.Contains(want.Worktrees, "task/cart") || want.Main == mainBefore {
		t.Fatalf("the reference merge is not whole: %+v", want)
	}
	b, _ := os.ReadFile(trace)
	first, last := map[string]string{}, map[string]string{}
	var names []string
	for _, id := range strings.Fields(string(b)) {
		name, _, _ := strings.Cut(id, "#")
		if !strings.HasPrefix(name, "merge:") {
			continue
		}
		if _, ok := first[name]; !ok {
			first[name] = id
			names = append(names, name)
		}
		last[name] = id
	}
	// A point passed many times (a file written, a folder removed) is
	// crashed at its first, second and last pass.
	var points []string
	for _, name := range names {
		points = append(points, first[name])
		if second := name + "#2"; second != first[name] && strings.Contains(string(b), second+"\n") && second != last[name] {
			points = append(points, second)
		}
		if last[name] != first[name] {
			points = append(points, last[name])
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d merge write points traced: %v", len(names), names)
	}

	var table []string
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			dir := newMergeCrashRepo(t, bin)
			mainBefore := gitOut(t, dir, "rev-parse", "main")
			if code, out := runMergeCrash(t, bin, dir, []string{"DEVLEARN_CRASH_AT=" + point}, "task", "done", "cart"); code != 137 {
				t.Fatalf("crash run: exit %d, want 137\n%s", code, out)
			}
			outcome := crashOutcome(t, dir, mainBefore)
			// doctor reports a crash that left anything to finish.
			okDoctor, says := doctorMerges(t, bin, dir)
			_, journalErr := os.Stat(filepath.Join(dir, ".git", "devlearn", "merges", "main.json"))
			if journalErr == nil && okDoctor {
				t.Errorf("doctor passes with an interrupted merge (%s): %s", outcome, says)
			}
			if strings.Contains(outcome, "main moved") && okDoctor {
				t.Errorf("doctor passes while main moved and the merge is not finished: %s", says)
			}
			code, out := runMergeCrash(t, bin, dir, nil, "task", "done", "cart")
			if code != 0 {
				t.Fatalf("task done after a crash at %s (%s): exit %d\n%s", point, outcome, code, out)
			}
			got := readMergeState(t, bin, dir)
			if got != want {
				t.Errorf("after a crash at %s (%s) and task done:\n got %+v\nwant %+v\n%s", point, outcome, got, want, out)
			}
			checkMergeLeftNothing(t, dir)
			if ok, says := doctorMerges(t, bin, dir); !ok {
				t.Errorf("doctor after the merge finished: %s", says)
			}
			table = append(table, fmt.Sprintf("| %s | %s | %s | %s |", point, outcome, doctorSays(okDoctor), firstLine(out)))
		})
	}
	t.Logf("crash table (write point | left after the crash | doctor | task done again):\n%s", strings.Join(table, "\n"))
}

func doctorSays(ok bool) string {
	if ok {
		return "passes"
	}
	return "FAIL: interrupted merge, next step"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// checkMergeLeftNothing: no lock, journal or temporary file, and one merge
// record.
func checkMergeLeftNothing(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(filepath.Dir(dir), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		base := filepath.Base(p)
		if strings.HasSuffix(base, ".lock") && strings.Contains(p, string(filepath.Separator)+".git"+string(filepath.Separator)) && !strings.Contains(p, filepath.Join("devlearn", "locks")) {
			t.Errorf("lock left: %s", p)
		}
		if strings.Contains(base, ".tmp-") || strings.HasSuffix(base, ".lock-tmp") || strings.HasPrefix(base, ".devlearn-merge-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, ".git", "devlearn", "merges", "main.json")); err == nil {
		t.Error("the merge's journal is left")
	}
	log, _ := os.ReadFile(filepath.Join(dir, ".memory", "tasks", "cart.jsonl"))
	if n := strings.Count(string(log), `"op":"merged"`); n != 1 {
		t.Errorf("%d merged records, want 1:\n%s", n, log)
	}
	if strings.Contains(string(log), `"op":"done"`) {
		t.Errorf("a merging task recorded done before its merge:\n%s", log)
	}
}

// A merge stopped dead while it writes the checkout, then a line appended
// to the learning log there (a hook, the worker, a command, while no one
// has finished the merge yet): finishing the merge keeps the task's lines
// and the appended one. Before, the log was "left alone (changed on disk
// during the merge)", without the task's lines, and committing it lost them.
func TestAppendAfterMergeCrashIsKept(t *testing.T) {
	bin := crashBinary(t)
	ref := newMergeCrashRepo(t, bin)
	trace := filepath.Join(t.TempDir(), "trace")
	if code, out := runMergeCrash(t, bin, ref, []string{"DEVLEARN_CRASH_TRACE=" + trace}, "task", "done", "cart"); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, out)
	}
	b, _ := os.ReadFile(trace)
	var points []string
	for _, id := range strings.Fields(string(b)) {
		if strings.HasPrefix(id, "merge:file-written#") {
			points = append(points, id)
		}
	}
	if len(points) < 3 {
		t.Fatalf("file write points: %v", points)
	}
	for _, point := range []string{points[0], points[len(points)/2], points[len(points)-1]} {
		t.Run(point, func(t *testing.T) {
			dir := newMergeCrashRepo(t, bin)
			if code, out := runMergeCrash(t, bin, dir, []string{"DEVLEARN_CRASH_AT=" + point}, "task", "done", "cart"); code != 137 {
				t.Fatalf("crash run: exit %d, want 137\n%s", code, out)
			}
			// Nothing is judged deleted or edited while the merge is half
			// written: files at the merge and files not yet are no person's.
			if code, out := runMergeCrash(t, bin, dir, nil, "reconcile"); code != 0 || !strings.Contains(out, "a devlearn merge into this working tree has not finished") {
				t.Errorf("reconcile after the crash: exit %d\n%s", code, out)
			}
			logPath := filepath.Join(dir, ".memory", "learning-log.jsonl")
			f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"op":"observe","eid":"appended"}` + "\n")
			f.Close()
			if code, out := runMergeCrash(t, bin, dir, nil, "task", "done", "cart"); code != 0 {
				t.Fatalf("task done after the crash: exit %d\n%s", code, out)
			}
			data, _ := os.ReadFile(logPath)
			for _, eid := range []string{`"e1"`, `"task"`, `"appended"`} {
				if strings.Count(string(data), eid) != 1 {
					t.Errorf("%s in the log %d times, want once:\n%s", eid, strings.Count(string(data), eid), data)
				}
			}
		})
	}
}
