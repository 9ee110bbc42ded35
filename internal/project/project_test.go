package project

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFindPlainRepository(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	p, err := Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != root || p.GitDir != filepath.Join(root, ".git") || p.CommonDir != p.GitDir {
		t.Fatalf("%+v", p)
	}
	if p.StateDir() != filepath.Join(root, ".git", "devlearn") {
		t.Fatalf("state dir %s", p.StateDir())
	}
}

// A linked worktree's .git is a file; its state is the clone's, shared.
func TestFindLinkedWorktreeSharesTheCloneState(t *testing.T) {
	base := t.TempDir()
	main := filepath.Join(base, "main")
	wtGit := filepath.Join(main, ".git", "worktrees", "task-1")
	os.MkdirAll(wtGit, 0o755)
	os.WriteFile(filepath.Join(wtGit, "commondir"), []byte("../..\n"), 0o644)
	wt := filepath.Join(base, "task-1")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+wtGit+"\n"), 0o644)

	p, err := Find(wt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != wt || p.GitDir != wtGit || p.CommonDir != filepath.Join(main, ".git") {
		t.Fatalf("%+v", p)
	}
	if p.StateDir() != filepath.Join(main, ".git", "devlearn") {
		t.Fatalf("worktrees must share the clone's state: %s", p.StateDir())
	}
	m, _ := Find(main)
	if p.LockPath(LogFile) == m.LockPath(LogFile) {
		t.Fatal("each worktree has its own copy of the log, so its own lock")
	}
}

func TestFindRelativeGitdirAndSubmodule(t *testing.T) {
	base := t.TempDir()
	mod := filepath.Join(base, ".git", "modules", "sub")
	os.MkdirAll(mod, 0o755)
	sub := filepath.Join(base, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: ../.git/modules/sub"), 0o644)
	p, err := Find(sub)
	if err != nil {
		t.Fatal(err)
	}
	if p.GitDir != mod || p.CommonDir != mod {
		t.Fatalf("%+v", p)
	}
}

func TestFindOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	if _, err := Find(dir); !errors.Is(err, ErrNoRepo) {
		t.Fatalf("got %v", err)
	}
	os.WriteFile(filepath.Join(dir, ".git"), []byte("nonsense"), 0o644)
	if _, err := Find(dir); err == nil {
		t.Fatal("a .git file without gitdir must be an error")
	}
}
