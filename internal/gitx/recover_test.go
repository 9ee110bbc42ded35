package gitx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCrashedJournal leaves what a merge stopped dead after taking main's
// index lock leaves: its journal (phase prepared) and, when lock is not
// "", main's index.lock with that content.
func writeCrashedJournal(t *testing.T, g *gitRepo, lock string) (journalFile, lockFile string) {
	t.Helper()
	common := filepath.Join(g.dir, ".git")
	j := journal{Nonce: "n1", Phase: phasePrepared, Task: "task-x", Branch: "task/x", Base: "main",
		From: g.git("rev-parse", "main"), To: g.git("rev-parse", "task/x"), Checkout: g.dir, CheckoutGitDir: common}
	b, _ := json.Marshal(j)
	journalFile = journalPath(common, "main")
	os.MkdirAll(filepath.Dir(journalFile), 0o755)
	os.WriteFile(journalFile, b, 0o644)
	lockFile = filepath.Join(common, "index.lock")
	if lock != "" {
		os.WriteFile(lockFile, []byte(lock), 0o644)
	}
	return journalFile, lockFile
}

// A crashed merge's index lock is known by its nonce and dropped; a lock
// with anything else in it is a live git command's and is never touched:
// the merge is refused while it is there.
func TestRecoverDropsOnlyItsOwnLock(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "a.txt", "a\n")
	wt := g.worktree("wt", "task/x", "main")
	g.commit(wt, "task", "t.txt", "t\n")

	journalFile, lockFile := writeCrashedJournal(t, g, "devlearn merge n1\n")
	recs, err := Recover(bg, g.opts(""))
	if err != nil || len(recs) != 1 || recs[0].Finished {
		t.Fatalf("recover: %+v %v, want one merge undone", recs, err)
	}
	for _, p := range []string{journalFile, lockFile} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is left", p)
		}
	}

	writeCrashedJournal(t, g, "git's own index, being written\n")
	if _, err := Recover(bg, g.opts("")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(lockFile); err != nil || !strings.Contains(string(b), "git's own") {
		t.Fatalf("a lock that is not ours was touched: %q %v", b, err)
	}
	list, err := Interrupted(g.dir)
	if err != nil || len(list) != 0 {
		t.Fatalf("doctor's list: %+v %v (a git lock is not devlearn's to report)", list, err)
	}
	_, err = Merge(bg, g.opts("task/x"))
	if r := mustRefused(t, err); !strings.Contains(r.Reason, "another git process holds the index lock") {
		t.Fatalf("refusal %+v", r)
	}
	if g.git("rev-parse", "main") == g.git("rev-parse", "task/x") {
		t.Fatal("main moved while git held its index lock")
	}
	if _, err := os.Stat(journalFile); err == nil {
		t.Error("a refused merge left its journal")
	}
	os.Remove(lockFile)
	if _, err := Merge(bg, g.opts("task/x")); err != nil {
		t.Fatal(err)
	}
	g.checkRepo("main")
}

// A devlearn lock no journal accounts for is named by doctor's list.
func TestInterruptedNamesAnOrphanLock(t *testing.T) {
	g := newGitRepo(t)
	g.commit(g.dir, "init", "a.txt", "a\n")
	lock := filepath.Join(g.dir, ".git", "index.lock")
	os.WriteFile(lock, []byte("devlearn merge gone\n"), 0o644)
	list, err := Interrupted(g.dir)
	if err != nil || len(list) != 1 || !strings.Contains(list[0].Next, "rm "+lock) {
		t.Fatalf("%+v %v", list, err)
	}
}
