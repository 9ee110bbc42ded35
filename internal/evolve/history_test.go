package evolve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHistoryFiltersAndFinds(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	e1, _ := New(p, now, Trigger{Command: "render-ready"}).Apply(ctx, Reason{Text: "one"}, Change{Path: "a.md", Data: []byte("a\n")})
	e2, _ := New(p, now.Add(time.Hour), Trigger{Command: "reconcile"}).Apply(ctx, Reason{Text: "two"}, Change{Path: "b.md", Data: []byte("b\n")})
	all, _, err := History(p, Query{})
	if err != nil || len(all) != 2 {
		t.Fatalf("%v %v", all, err)
	}
	if got, _, _ := History(p, Query{Since: now.Add(time.Minute)}); len(got) != 1 || got[0].ID != e2.ID {
		t.Fatalf("since: %+v", got)
	}
	if got, _, _ := History(p, Query{File: "a.md"}); len(got) != 1 || got[0].ID != e1.ID {
		t.Fatalf("file: %+v", got)
	}
	if e, err := Find(all, e1.ID[3:9]); err != nil || e.ID != e1.ID {
		t.Fatalf("short id: %v %v", e, err)
	}
	if _, err := Find(all, "ev_zz"); !errors.Is(err, ErrNoEntry) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestDiffsShowBothSides(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	os.WriteFile(p.Path("a.md"), []byte("one\ntwo\n"), 0o644)
	w := New(p, now, Trigger{Command: "test"})
	e, err := w.Apply(ctx, Reason{Text: "edit"}, Change{Path: "a.md", Data: []byte("one\nthree\n")}, Change{Path: "new.md", Data: []byte("n\n")})
	if err != nil {
		t.Fatal(err)
	}
	// A person changes a.md afterwards: what the entry wrote is still
	// shown, from its kept copy.
	os.WriteFile(p.Path("a.md"), []byte("mine\n"), 0o644)
	diffs, err := Diffs(p, e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diffs[0].Diff, "-two\n+three\n") || diffs[0].Missing != "" {
		t.Fatalf("a.md diff:\n%s (%s)", diffs[0].Diff, diffs[0].Missing)
	}
	if !strings.Contains(diffs[1].Diff, "--- /dev/null") || !strings.Contains(diffs[1].Diff, "+n\n") {
		t.Fatalf("new.md diff:\n%s", diffs[1].Diff)
	}
}

func TestPlanRevertRefusesAfterAnEditAndRestoresOtherwise(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	os.WriteFile(p.Path("a.md"), []byte("before\n"), 0o644)
	w := New(p, now, Trigger{Command: "render-ready"})
	e, _ := w.Apply(ctx, Reason{Text: "render"}, Change{Path: "a.md", Data: []byte("after\n")}, Change{Path: "b.md", Data: []byte("b\n")})
	entries, _, _ := ReadLog(p)

	os.WriteFile(p.Path("a.md"), []byte("hand edit\n"), 0o644)
	plan, err := PlanRevert(p, entries, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 1 || plan.Conflicts[0].Path != "a.md" || !strings.Contains(plan.Conflicts[0].Diff, "-after\n+hand edit\n") {
		t.Fatalf("conflicts %+v", plan.Conflicts)
	}

	os.WriteFile(p.Path("a.md"), []byte("after\n"), 0o644)
	plan, err = PlanRevert(p, entries, e, nil)
	if err != nil || len(plan.Conflicts) != 0 || len(plan.Changes) != 2 {
		t.Fatalf("%+v %v", plan, err)
	}
	rw := New(p, now.Add(time.Minute), Trigger{Command: "revert"})
	// A write between the plan and the revert refuses the whole batch.
	os.WriteFile(p.Path("b.md"), []byte("raced\n"), 0o644)
	var changed *ChangedError
	if _, err := rw.Revert(ctx, plan); !errors.As(err, &changed) || changed.Path != "b.md" {
		t.Fatalf("raced revert: %v", err)
	}
	if got, _ := os.ReadFile(p.Path("a.md")); string(got) != "after\n" {
		t.Fatalf("a refused batch wrote a.md: %q", got)
	}
	os.WriteFile(p.Path("b.md"), []byte("b\n"), 0o644)
	r, err := rw.Revert(ctx, plan)
	if err != nil || r.Reason.Reverts != e.ID {
		t.Fatalf("%+v %v", r, err)
	}
	if got, _ := os.ReadFile(p.Path("a.md")); string(got) != "before\n" {
		t.Fatalf("a.md = %q", got)
	}
	if _, err := os.Stat(p.Path("b.md")); !os.IsNotExist(err) {
		t.Fatal("b.md was created by the entry and should be gone")
	}
	entries, _, _ = ReadLog(p)
	if by := RevertedBy(entries, e); by == nil || by.ID != r.ID {
		t.Fatalf("reverted by %+v", by)
	}
	// The revert is a change like any other: it can be reverted.
	back, _ := PlanRevert(p, entries, r, nil)
	if _, err := New(p, now.Add(2*time.Minute), Trigger{Command: "revert"}).Revert(ctx, back); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p.Path("b.md")); string(got) != "b\n" {
		t.Fatalf("b.md = %q", got)
	}
}

func TestPlanRevertRefusesWhatWasNeverKept(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	os.WriteFile(p.Path("a.md"), []byte("secret\n"), 0o644)
	e, _ := New(p, now, Trigger{Command: "redact"}).Apply(ctx, Reason{Text: "scrub"}, Change{Path: "a.md", Data: []byte("x\n"), Forget: true})
	entries, _, _ := ReadLog(p)
	var cannot *CannotRevert
	if _, err := PlanRevert(p, entries, e, nil); !errors.As(err, &cannot) || !strings.Contains(err.Error(), "no longer kept") {
		t.Fatalf("got %v", err)
	}
}

func TestPruneByAgeAndBudgetKeepsTheNewestCopyOfEachFile(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	day := 24 * time.Hour
	// a.md replaced on days 0, 1, 2; b.md on day 0.
	write := func(at time.Time, path, data string) {
		if _, err := New(p, at, Trigger{Command: "test"}).Apply(ctx, Reason{Text: "w"}, Change{Path: path, Data: []byte(data)}); err != nil {
			t.Fatal(err)
		}
	}
	write(now, "a.md", "a0\n")
	write(now, "b.md", "b0\n")
	write(now.Add(day), "a.md", "a1\n")
	write(now.Add(2*day), "a.md", "a2\n")
	write(now.Add(2*day), "b.md", "b1\n")
	has := func(data string) bool {
		_, err := os.Stat(ObjectPath(p, BlobHash([]byte(data))))
		return err == nil
	}
	res, err := Prune(ctx, p, PruneOptions{Now: now.Add(30 * day), MaxAge: 10 * day, DryRun: true})
	if err != nil || len(res.Removed) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if !has("a0\n") {
		t.Fatal("a dry run removed a copy")
	}
	if _, err := Prune(ctx, p, PruneOptions{Now: now.Add(30 * day), MaxAge: 10 * day}); err != nil {
		t.Fatal(err)
	}
	// The newest copy of each file is what its last change replaced:
	// a1 for a.md, b0 for b.md. Everything else is older than 10 days.
	for data, want := range map[string]bool{"a0\n": false, "a1\n": true, "a2\n": false, "b0\n": true, "b1\n": false} {
		if has(data) != want {
			t.Errorf("copy of %q kept = %v, want %v", data, has(data), want)
		}
	}

	// A budget removes the oldest first, and still never the newest copy
	// of a file.
	p2 := newProject(t)
	p = p2
	write(now, "a.md", "first\n")
	write(now.Add(day), "a.md", strings.Repeat("x", 100)+"\n")
	write(now.Add(2*day), "a.md", "third\n")
	res, err = Prune(ctx, p, PruneOptions{Now: now.Add(2 * day), MaxBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !has(strings.Repeat("x", 100)+"\n") || has("first\n") || has("third\n") {
		t.Fatalf("budget pruning: removed %+v", res.Removed)
	}
	if res.Removed[0].Hash != BlobHash([]byte("first\n")) {
		t.Fatalf("not oldest first: %+v", res.Removed)
	}
}

func TestWorktreesShareTheCopies(t *testing.T) {
	p := newProject(t)
	// A linked worktree, as git lays it out.
	other := t.TempDir()
	gitdir := filepath.Join(p.CommonDir, "worktrees", "wt")
	os.MkdirAll(gitdir, 0o755)
	os.WriteFile(filepath.Join(gitdir, "gitdir"), []byte(filepath.Join(other, ".git")+"\n"), 0o644)
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(other, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	trees := p.Worktrees()
	if len(trees) != 2 || trees[1].Root != other || trees[1].WorktreeID() != "wt" {
		t.Fatalf("%+v", trees)
	}
}

// A file with a merge is devlearn's own record: what changed in it since
// is merged, never a conflict; a merge that fails leaves it a conflict.
func TestPlanRevertMergesOwnRecords(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	os.WriteFile(p.Path("rec"), []byte("x\n"), 0o644)
	e, _ := New(p, now, Trigger{Command: "render-ready"}).Apply(ctx, Reason{Text: "render"}, Change{Path: "rec", Data: []byte("x\ny\n")})
	os.WriteFile(p.Path("rec"), []byte("x\ny\nz\n"), 0o644) // a later curate
	entries, _, _ := ReadLog(p)
	var got [3]string
	merges := map[string]Merge{"rec": func(base, ours, theirs []byte) ([]byte, error) {
		got = [3]string{string(base), string(ours), string(theirs)}
		return []byte("x\nz\n"), nil
	}}
	plan, err := PlanRevert(p, entries, e, merges)
	if err != nil || len(plan.Conflicts) != 0 || len(plan.Changes) != 1 || string(plan.Changes[0].Data) != "x\nz\n" {
		t.Fatalf("%+v %v", plan, err)
	}
	if got != [3]string{"x\ny\n", "x\ny\nz\n", "x\n"} {
		t.Fatalf("merged %q", got)
	}
	merges["rec"] = func(base, ours, theirs []byte) ([]byte, error) { return nil, errors.New("unreadable") }
	if plan, err := PlanRevert(p, entries, e, merges); err != nil || len(plan.Conflicts) != 1 {
		t.Fatalf("a failed merge: %+v %v", plan, err)
	}
}
