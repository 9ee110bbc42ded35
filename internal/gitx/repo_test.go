package gitx

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// gitRepo is a real repository in a temporary folder, driven by the git
// command line (tests only: the product never runs git). git reads no
// system or user config, and commits have fixed authors.
type gitRepo struct {
	t    testing.TB
	dir  string // the main worktree
	home string
	tick int
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	return newGitRepoIn(t, t.TempDir())
}

func newGitRepoIn(t testing.TB, base string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	g := &gitRepo{t: t, dir: filepath.Join(base, "main"), home: filepath.Join(base, "home")}
	os.MkdirAll(g.home, 0o755)
	os.MkdirAll(g.dir, 0o755)
	g.git("init", "-q", "-b", "main")
	return g
}

func (g *gitRepo) env() []string {
	g.tick++
	date := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(g.tick) * time.Minute).Format(time.RFC3339)
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(g.home, ".gitconfig"), "HOME="+g.home,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
	)
}

// gitIn runs git in dir and returns its trimmed output, failing the test
// on error.
func (g *gitRepo) gitIn(dir string, args ...string) string {
	g.t.Helper()
	out, err := g.tryGitIn(dir, args...)
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (g *gitRepo) tryGitIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = g.env()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (g *gitRepo) git(args ...string) string { g.t.Helper(); return g.gitIn(g.dir, args...) }

func (g *gitRepo) write(dir, rel, content string) {
	g.t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gitRepo) read(dir, rel string) string {
	g.t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		g.t.Fatal(err)
	}
	return string(b)
}

// commit writes files (path, content pairs; empty content deletes) in dir
// and commits them.
func (g *gitRepo) commit(dir, msg string, files ...string) string {
	g.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		if files[i+1] == "" {
			g.gitIn(dir, "rm", "-q", files[i])
			continue
		}
		g.write(dir, files[i], files[i+1])
		g.gitIn(dir, "add", files[i])
	}
	g.gitIn(dir, "commit", "-q", "--allow-empty", "-m", msg)
	return g.gitIn(dir, "rev-parse", "HEAD")
}

// worktree adds a linked worktree on a new branch from start.
func (g *gitRepo) worktree(name, branch, start string) string {
	g.t.Helper()
	wt := filepath.Join(filepath.Dir(g.dir), name)
	g.git("worktree", "add", "-q", "-b", branch, wt, start)
	return wt
}

func (g *gitRepo) opts(target string) Options {
	g.tick++
	return Options{
		Dir:      g.dir,
		Target:   target,
		Identity: Identity{Author: Signature{"Test", "test@example.com"}, Committer: Signature{"Test", "test@example.com"}},
		Now:      time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC).Add(time.Duration(g.tick) * time.Minute),
	}
}

// checkRepo runs git fsck and checks that go-git and git agree on the
// branch tip, and that the main worktree is clean for git.
func (g *gitRepo) checkRepo(branch string) {
	g.t.Helper()
	g.git("fsck", "--strict", "--no-progress")
	r, err := git.PlainOpenWithOptions(g.dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		g.t.Fatal(err)
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		g.t.Fatal(err)
	}
	if want := g.git("rev-parse", branch); ref.Hash().String() != want {
		g.t.Fatalf("go-git says %s is %s, git says %s", branch, ref.Hash(), want)
	}
	if _, err := r.CommitObject(ref.Hash()); err != nil {
		g.t.Fatalf("go-git cannot read %s: %v", branch, err)
	}
}

func (g *gitRepo) status(dir string) string {
	g.t.Helper()
	return g.gitIn(dir, "status", "--porcelain")
}

func mustRefused(t *testing.T, err error) *Refused {
	t.Helper()
	var r *Refused
	if !errors.As(err, &r) {
		t.Fatalf("want a refusal, got %v", err)
	}
	return r
}

var bg = context.Background()
