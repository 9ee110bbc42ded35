package gitx

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMergeFastForward(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "a.txt", "a\n", "keep.txt", "k\n")
	wt := g.worktree("wt", "task/ff", "main")
	tip := g.commit(wt, "task work", "a.txt", "a2\n", "new/b.txt", "b\n", "keep.txt", "")

	res, err := Merge(bg, g.opts("task/ff"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindFastForward || res.BaseTo != tip {
		t.Fatalf("kind %s to %s, want fast-forward to %s", res.Kind, res.BaseTo, tip)
	}
	if got := g.git("rev-parse", "main"); got != tip {
		t.Fatalf("main is %s, want %s", got, tip)
	}
	if g.read(g.dir, "a.txt") != "a2\n" || g.read(g.dir, "new/b.txt") != "b\n" {
		t.Fatal("the main worktree's files were not updated")
	}
	if _, err := os.Stat(filepath.Join(g.dir, "keep.txt")); !os.IsNotExist(err) {
		t.Fatal("deleted file still on disk")
	}
	if st := g.status(g.dir); st != "" {
		t.Fatalf("main worktree not clean after fast-forward:\n%s", st)
	}
	if !res.Removed {
		t.Fatalf("clean task worktree kept: %s", res.KeptBecause)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatal("worktree folder still there")
	}
	if out := g.git("worktree", "list", "--porcelain"); strings.Contains(out, wt) {
		t.Fatalf("git still lists the worktree:\n%s", out)
	}
	g.checkRepo("main")
}

func TestMergeThreeWayClean(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "code.go", "1\n2\n3\n4\n5\n6\n7\n8\n", "ours.txt", "o\n", "theirs.txt", "t\n", "same.txt", "s\n")
	wt := g.worktree("wt", "task/clean", "main")
	g.commit(wt, "task", "code.go", "1\n2\n3\n4\n5\n6\n7\nEIGHT\n", "theirs.txt", "T\n", "same.txt", "S\n", "added.txt", "new\n")
	g.commit(g.dir, "base", "code.go", "ONE\n2\n3\n4\n5\n6\n7\n8\n", "ours.txt", "O\n", "same.txt", "S\n")
	baseTip := g.git("rev-parse", "main")
	taskTip := g.git("rev-parse", "task/clean")

	res, err := Merge(bg, g.opts(wt))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindMerge {
		t.Fatalf("kind %s, want merge", res.Kind)
	}
	if want := g.git("merge-base", baseTip, taskTip); res.MergeBase != want {
		t.Fatalf("go-git merge base %s, git says %s", res.MergeBase, want)
	}
	parents := strings.Fields(g.git("log", "-1", "--format=%P", "main"))
	if !slices.Equal(parents, []string{baseTip, taskTip}) {
		t.Fatalf("merge parents %v, want [%s %s]", parents, baseTip, taskTip)
	}
	if msg := g.git("log", "-1", "--format=%s", "main"); !strings.Contains(msg, "task/clean") {
		t.Fatalf("merge message %q does not name the task", msg)
	}
	want := map[string]string{"code.go": "ONE\n2\n3\n4\n5\n6\n7\nEIGHT\n", "ours.txt": "O\n", "theirs.txt": "T\n", "same.txt": "S\n", "added.txt": "new\n"}
	for p, c := range want {
		if got := g.git("show", "main:"+p) + "\n"; got != c {
			t.Errorf("%s in the merge commit = %q, want %q", p, got, c)
		}
		if got := g.read(g.dir, p); got != c {
			t.Errorf("%s on disk = %q, want %q", p, got, c)
		}
	}
	if st := g.status(g.dir); st != "" {
		t.Fatalf("main worktree not clean:\n%s", st)
	}
	// git agrees that the task is merged.
	g.git("merge-base", "--is-ancestor", taskTip, "main")
	g.checkRepo("main")
}

func TestMergeConflictSameLine(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n2\n3\n", ".memory/learning.json", "{}\n")
	wt := g.worktree("wt", "task/c", "main")
	g.commit(wt, "task", "f.txt", "1\nTASK\n3\n", "other.txt", "x\n")
	g.commit(g.dir, "base", "f.txt", "1\nBASE\n3\n")
	before := g.git("rev-parse", "main")
	objects := g.git("count-objects", "-v")

	res, err := Merge(bg, g.opts("task/c"))
	r := mustRefused(t, err)
	if res.Kind != KindConflict || len(res.Conflicts) != 1 || res.Conflicts[0].Path != "f.txt" {
		t.Fatalf("want one conflict on f.txt, got %+v", res.Conflicts)
	}
	if !slices.Equal(r.Paths, []string{"f.txt"}) || !strings.Contains(r.Hint, "no branch or file was changed") {
		t.Fatalf("refusal %+v", r)
	}
	if g.git("rev-parse", "main") != before || g.read(g.dir, "f.txt") != "1\nBASE\n3\n" {
		t.Fatal("a conflict changed main")
	}
	if g.git("count-objects", "-v") != objects {
		t.Fatal("a conflict wrote objects")
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatal("the task worktree must be kept on a conflict")
	}
	log := g.read(wt, ".memory/tasks/task-c.jsonl")
	if !strings.Contains(log, `"op":"merge-blocked"`) || !strings.Contains(log, `"path":"f.txt"`) {
		t.Fatalf("task not recorded as blocked: %s", log)
	}
	g.checkRepo("main")
}

func TestMergeConflictDeleteModify(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n", "g.txt", "1\n")
	wt := g.worktree("wt", "task/dm", "main")
	g.commit(wt, "task", "f.txt", "", "g.txt", "2\n")
	g.commit(g.dir, "base", "f.txt", "changed\n", "g.txt", "")
	res, err := Merge(bg, g.opts("task/dm"))
	mustRefused(t, err)
	got := map[string]string{}
	for _, c := range res.Conflicts {
		got[c.Path] = c.Reason
	}
	if !strings.Contains(got["f.txt"], "deleted on the task") || !strings.Contains(got["g.txt"], "deleted on the base") {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	g.checkRepo("main")
}

func TestMergeBinary(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "img.bin", "\x00\x01base", "one.bin", "\x00one")
	wt := g.worktree("wt", "task/bin", "main")
	g.commit(wt, "task", "img.bin", "\x00\x01task", "one.bin", "\x00one-task")
	g.commit(g.dir, "base", "img.bin", "\x00\x01main")
	res, err := Merge(bg, g.opts("task/bin"))
	mustRefused(t, err)
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "img.bin" || !strings.Contains(res.Conflicts[0].Reason, "binary") {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	// A binary file changed on one side only merges.
	g.commit(wt, "task: drop the clash", "img.bin", "\x00\x01main")
	if _, err := Merge(bg, g.opts("task/bin")); err != nil {
		t.Fatal(err)
	}
	if g.read(g.dir, "one.bin") != "\x00one-task" {
		t.Fatal("binary change from the task not taken")
	}
	g.checkRepo("main")
}

func TestMergeRenames(t *testing.T) {
	g := newGitRepo(t)
	body := "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\n"
	g.commit(g.dir, "init", "old.txt", body, "both.txt", "x\ny\nz\n")
	wt := g.worktree("wt", "task/mv", "main")
	// The task renames old.txt; the base edits it. The edit follows the rename.
	g.gitIn(wt, "mv", "old.txt", "new.txt")
	g.commit(wt, "task: rename")
	g.commit(g.dir, "base: edit", "old.txt", strings.Replace(body, "line 2", "LINE 2", 1))
	res, err := Merge(bg, g.opts("task/mv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.read(g.dir, "new.txt"); got != strings.Replace(body, "line 2", "LINE 2", 1) {
		t.Fatalf("new.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(g.dir, "old.txt")); !os.IsNotExist(err) {
		t.Fatal("old.txt still there")
	}
	if st := g.status(g.dir); st != "" {
		t.Fatalf("not clean:\n%s", st)
	}
	_ = res
	g.checkRepo("main")

	// Renamed to different names on both sides: a conflict.
	wt2 := g.worktree("wt2", "task/mv2", "main")
	g.gitIn(wt2, "mv", "both.txt", "task-name.txt")
	g.commit(wt2, "task: rename")
	g.gitIn(g.dir, "mv", "both.txt", "base-name.txt")
	g.commit(g.dir, "base: rename")
	res, err = Merge(bg, g.opts("task/mv2"))
	mustRefused(t, err)
	if len(res.Conflicts) == 0 || res.Conflicts[0].Path != "both.txt" {
		t.Fatalf("conflicts %+v", res.Conflicts)
	}
	g.checkRepo("main")
}

func TestMergeObservationLogs(t *testing.T) {
	g := newGitRepo(t)
	log := ".memory/learning-log.jsonl"
	g.commit(g.dir, "init", log, `{"op":"observe","eid":"e1"}`+"\n", ".memory/tasks/t.jsonl", `{"op":"gate","eid":"g1"}`+"\n")
	wt := g.worktree("wt", "task/obs", "main")
	g.commit(wt, "task learns", log, `{"op":"observe","eid":"e1"}`+"\n"+`{"op":"observe","eid":"task"}`+"\n")
	g.commit(g.dir, "base learns", log, `{"op":"observe","eid":"e1"}`+"\n"+`{"op":"observe","eid":"base"}`+"\n")
	// And the task worktree learned more without committing it.
	g.write(wt, log, `{"op":"observe","eid":"e1"}`+"\n"+`{"op":"observe","eid":"task"}`+"\n"+`{"op":"observe","eid":"late"}`+"\n")
	g.write(wt, ".claude/skills/s/SKILL.md", "skill\n")
	g.write(wt, "code-not-learned.txt", "wip\n")

	res, err := Merge(bg, g.opts("task/obs"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Learned, []string{".claude/skills/s/SKILL.md", log}) {
		t.Fatalf("learned %v", res.Learned)
	}
	want := `{"op":"observe","eid":"e1"}` + "\n" + `{"op":"observe","eid":"base"}` + "\n" + `{"op":"observe","eid":"task"}` + "\n" + `{"op":"observe","eid":"late"}` + "\n"
	if got := g.read(g.dir, log); got != want {
		t.Fatalf("merged log:\n%s\nwant:\n%s", got, want)
	}
	if g.read(g.dir, ".claude/skills/s/SKILL.md") != "skill\n" {
		t.Fatal("learned skill did not come home")
	}
	if res.Removed || !slices.Contains(res.Dirty, "code-not-learned.txt") {
		t.Fatalf("a dirty worktree must be kept: removed=%v dirty=%v", res.Removed, res.Dirty)
	}
	if st := g.status(wt); st != "?? code-not-learned.txt" {
		t.Fatalf("task worktree status after committing the learned files:\n%s", st)
	}
	if msg := g.git("log", "-1", "--format=%s", "task/obs"); msg != "devlearn: keep what task task-obs learned" {
		t.Fatalf("learned commit on the task branch: %q", msg)
	}
	rec := g.read(g.dir, ".memory/tasks/task-obs.jsonl")
	if !strings.Contains(rec, `"op":"merged"`) || !strings.Contains(rec, g.git("rev-parse", "main")) {
		t.Fatalf("merge not recorded on the task: %s", rec)
	}
	g.checkRepo("main")
	g.checkRepo("task/obs")
}

func TestMergeDirtyBaseRefused(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n", "g.txt", "1\n")
	wt := g.worktree("wt", "task/d", "main")
	g.commit(wt, "task", "f.txt", "2\n")
	g.write(g.dir, "f.txt", "local edit\n")
	before := g.git("rev-parse", "main")
	_, err := Merge(bg, g.opts("task/d"))
	r := mustRefused(t, err)
	if !slices.Equal(r.Paths, []string{"f.txt"}) {
		t.Fatalf("refusal %+v", r)
	}
	if g.git("rev-parse", "main") != before || g.read(g.dir, "f.txt") != "local edit\n" {
		t.Fatal("a refused merge changed something")
	}
	if _, err := os.Stat(filepath.Join(g.dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Fatal("index.lock left behind")
	}
	// A local change elsewhere does not stand in the way, and survives.
	g.git("checkout", "--", "f.txt")
	g.write(g.dir, "g.txt", "local edit\n")
	if _, err := Merge(bg, g.opts("task/d")); err != nil {
		t.Fatal(err)
	}
	if g.read(g.dir, "g.txt") != "local edit\n" || g.read(g.dir, "f.txt") != "2\n" {
		t.Fatal("files wrong after merge")
	}
	if st := g.status(g.dir); st != "M g.txt" {
		t.Fatalf("status %q", st)
	}
	g.checkRepo("main")
}

func TestMergeBaseMovedConcurrently(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n")
	wt := g.worktree("wt", "task/race", "main")
	g.commit(wt, "task", "t.txt", "t\n")
	g.commit(g.dir, "base", "b.txt", "b\n")
	o := g.opts("task/race")
	var moved string
	o.BeforeCAS = func() {
		// Another process moves main between our read and our swap.
		moved = g.git("commit-tree", "main^{tree}", "-p", "main", "-m", "concurrent")
		g.git("update-ref", "refs/heads/main", moved)
	}
	_, err := Merge(bg, o)
	r := mustRefused(t, err)
	if !strings.Contains(r.Reason, "moved") {
		t.Fatalf("refusal %+v", r)
	}
	if got := g.git("rev-parse", "main"); got != moved {
		t.Fatalf("main is %s, want the concurrent commit %s (never overwritten)", got, moved)
	}
	if st := g.status(g.dir); st != "" {
		t.Fatalf("files touched after a lost race:\n%s", st)
	}
	// Running again merges into the new base.
	if _, err := Merge(bg, g.opts("task/race")); err != nil {
		t.Fatal(err)
	}
	g.git("merge-base", "--is-ancestor", moved, "main")
	g.checkRepo("main")
}

func TestMergeDryRun(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n2\n3\n")
	wt := g.worktree("wt", "task/dry", "main")
	g.commit(wt, "task", "f.txt", "1\n2\nthree\n")
	g.commit(g.dir, "base", "f.txt", "one\n2\n3\n")
	g.write(wt, ".memory/learning-log.jsonl", "{\"op\":\"observe\"}\n")
	before, taskBefore := g.git("rev-parse", "main"), g.git("rev-parse", "task/dry")
	objects := g.git("count-objects", "-v")
	o := g.opts("task/dry")
	o.DryRun = true
	res, err := Merge(bg, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindMerge || !res.Removed || len(res.Learned) != 1 || !slices.Equal(res.Updated, []string{".memory/learning-log.jsonl", "f.txt"}) {
		t.Fatalf("dry run result %+v", res)
	}
	if g.git("rev-parse", "main") != before || g.git("rev-parse", "task/dry") != taskBefore || g.git("count-objects", "-v") != objects {
		t.Fatal("dry run changed the repository")
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatal("dry run removed the worktree")
	}
	g.checkRepo("main")
}

func TestMergeUpToDateAndErrors(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n")
	g.git("branch", "task/old")
	g.commit(g.dir, "more", "f.txt", "2\n")
	res, err := Merge(bg, g.opts("task/old"))
	if err != nil || res.Kind != KindUpToDate {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := Merge(bg, g.opts("no-such-branch")); err == nil || !strings.Contains(err.Error(), "neither a worktree folder nor a local branch") {
		t.Fatalf("err %v", err)
	}
	// The main branch named as the task: said so, not "no main branch".
	if _, err := Merge(bg, g.opts("main")); err == nil || !strings.Contains(err.Error(), "main is the main branch itself") {
		t.Fatalf("err %v", err)
	}
	o := g.opts("task/old")
	o.Into = "nope"
	if _, err := Merge(bg, o); err == nil || !strings.Contains(err.Error(), `base branch "nope" not found`) {
		t.Fatalf("err %v", err)
	}
	g.checkRepo("main")
}

func TestMergeRefusesLFS(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", ".gitattributes", "*.psd filter=lfs diff=lfs merge=lfs -text\n", "a.txt", "1\n2\n3\n")
	wt := g.worktree("wt", "task/lfs", "main")
	g.commit(wt, "task", "art.psd", "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n", "a.txt", "1\n2\nthree\n")
	g.commit(g.dir, "base", "a.txt", "one\n2\n3\n")
	before := g.git("rev-parse", "main")
	_, err := Merge(bg, g.opts("task/lfs"))
	r := mustRefused(t, err)
	if !slices.Equal(r.Paths, []string{"art.psd"}) || !strings.Contains(r.Reason, "LFS") {
		t.Fatalf("refusal %+v", r)
	}
	if g.git("rev-parse", "main") != before {
		t.Fatal("refused merge moved main")
	}
	g.checkRepo("main")
}

func TestMergeRefusesUnknownFormat(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n")
	g.git("branch", "task/x")
	g.git("config", "core.repositoryformatversion", "1")
	g.git("config", "extensions.refstorage", "reftable-imaginary")
	_, err := Merge(bg, g.opts("task/x"))
	r := mustRefused(t, err)
	if !strings.Contains(r.Reason, "refstorage") {
		t.Fatalf("refusal %+v", r)
	}
}

func TestMergeFromInsideTheTaskWorktree(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "f.txt", "1\n")
	wt := g.worktree("wt", "task/here", "main")
	g.commit(wt, "task", "f.txt", "2\n")
	o := g.opts(".")
	o.Dir, o.Target = filepath.Join(wt), wt
	res, err := Merge(bg, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed || res.KeptBecause != "it is the current folder" {
		t.Fatalf("removed=%v kept=%q", res.Removed, res.KeptBecause)
	}
	if g.read(g.dir, "f.txt") != "2\n" {
		t.Fatal("the main worktree was not updated")
	}
	g.checkRepo("main")
}
