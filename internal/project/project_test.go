package project

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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

// Every file name this package gives is in Written, read from the source:
// a new file devlearn writes cannot be left out of the check for links.
func TestWrittenNamesEveryFile(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "project.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, w := range Written {
		listed[w] = true
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for i, v := range s.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				val, _ := strconv.Unquote(lit.Value)
				if val == MemoryDir {
					continue // walked whole
				}
				n++
				if !listed[val] {
					t.Errorf("%s (%s) is not in Written", s.(*ast.ValueSpec).Names[i].Name, val)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("read %d names: the scan is not reading the constants", n)
	}
}

func TestLinksNamesEveryCommittedLink(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".memory", "knowledge"), 0o755)
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	for _, l := range []string{LogFile, EntriesDir, SettingsFile, ".memory/other.txt"} {
		if err := os.Symlink(outside, filepath.Join(root, l)); err != nil {
			t.Skip(err)
		}
	}
	os.MkdirAll(filepath.Join(root, ".git", "devlearn"), 0o755)
	os.Symlink(outside, filepath.Join(root, ".git", "devlearn", "logs"))
	p, _ := Find(root)
	var got []string
	for _, le := range p.Links() {
		got = append(got, le.Link)
	}
	sort.Strings(got)
	want := []string{filepath.Join(root, ".claude/settings.json"), filepath.Join(root, ".git/devlearn/logs"), filepath.Join(root, ".memory/knowledge/entries"),
		filepath.Join(root, ".memory/learning-log.jsonl"), filepath.Join(root, ".memory/other.txt")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A devlearn merge whose journal names this working tree as its checkout
// is under way for it (running, or stopped dead); another's is not.
func TestMergeUnderway(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	p, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	if p.MergeUnderway() {
		t.Fatal("no journal")
	}
	dir := p.StatePath(MergeJournals)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"nonce":"n","base":"other","checkout_git_dir":"/elsewhere/.git"}`), 0o644)
	if p.MergeUnderway() {
		t.Fatal("another checkout's journal")
	}
	os.WriteFile(filepath.Join(dir, "main.json"), []byte(`{"nonce":"n","base":"main","checkout_git_dir":"`+p.GitDir+`"}`), 0o644)
	if !p.MergeUnderway() {
		t.Fatal("this checkout's journal")
	}
}

// The logs that are appended to under a lock are the learning log and the
// task logs, each under the lock its appenders take.
func TestAppendLock(t *testing.T) {
	p := &Project{Root: "/r", GitDir: "/r/.git", CommonDir: "/r/.git"}
	for rel, want := range map[string]string{
		LogFile: p.LockPath(LogFile), TasksDir + "/t.jsonl": p.LockPath(TasksDir + "/t.jsonl"),
		DecisionsFile: "", EvolutionLog: "", TasksDir + "/notes.md": "",
	} {
		if got := p.AppendLock(rel); got != want {
			t.Errorf("AppendLock(%s) = %q, want %q", rel, got, want)
		}
	}
}
