package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Refused is a merge devlearn will not attempt or not complete, for a
// reason in the repository's state rather than a failure: a conflict, a
// base that moved, local changes in the way, or something go-git cannot do
// safely. The command layer turns it into exit code 3.
type Refused struct {
	Reason string   `json:"reason"`          // what stopped the merge
	Hint   string   `json:"hint"`            // what to do next
	Paths  []string `json:"paths,omitempty"` // the paths concerned, if any
}

func (r *Refused) Error() string {
	if len(r.Paths) == 0 {
		return r.Reason
	}
	return r.Reason + ": " + strings.Join(r.Paths, ", ")
}

func refusef(hint string, paths []string, format string, args ...any) *Refused {
	return &Refused{Reason: fmt.Sprintf(format, args...), Hint: hint, Paths: paths}
}

// Worktree is one checkout of the clone: the main one or a linked one.
type Worktree struct {
	Root   string // the working folder
	GitDir string // its own git folder (HEAD, index)
	Linked bool
	Branch string // the short branch name HEAD points at; "" when detached
	Locked bool   // `git worktree lock`ed: never removed
	admin  string // the linked worktree's folder under <common>/worktrees
}

// repo is a go-git repository opened with the clone's common folder, so
// that it sees the same objects and refs from any worktree.
type repo struct {
	*git.Repository
	common    string
	worktrees []*Worktree
}

func openRepo(dir string) (*repo, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s: not inside a git repository", dir)
		}
		return nil, refusef("merge this task with git itself", nil, "go-git cannot open the repository at %s: %v", dir, err)
	}
	rp := &repo{Repository: r}
	if err := rp.findWorktrees(dir); err != nil {
		return nil, err
	}
	if err := rp.checkFormat(); err != nil {
		return nil, err
	}
	return rp, nil
}

// findWorktrees lists the main worktree and every linked one, reading the
// files git keeps for them (v5 has no API for linked worktrees).
func (r *repo) findWorktrees(dir string) error {
	top, err := findTop(dir)
	if err != nil {
		return err
	}
	gitdir, common, err := gitDirs(top)
	if err != nil {
		return err
	}
	r.common = common
	if filepath.Base(common) == ".git" {
		main := &Worktree{Root: filepath.Dir(common), GitDir: common}
		main.Branch = headBranch(common)
		r.worktrees = append(r.worktrees, main)
	}
	admins, _ := os.ReadDir(filepath.Join(common, "worktrees"))
	for _, a := range admins {
		adm := filepath.Join(common, "worktrees", a.Name())
		b, err := os.ReadFile(filepath.Join(adm, "gitdir"))
		if err != nil {
			continue
		}
		dotgit := strings.TrimSpace(string(b))
		if !filepath.IsAbs(dotgit) {
			dotgit = filepath.Join(adm, dotgit)
		}
		w := &Worktree{Root: filepath.Dir(filepath.Clean(dotgit)), GitDir: adm, Linked: true, admin: adm}
		w.Branch = headBranch(adm)
		if _, err := os.Stat(filepath.Join(adm, "locked")); err == nil {
			w.Locked = true
		}
		r.worktrees = append(r.worktrees, w)
	}
	_ = gitdir
	return nil
}

// worktreeAt returns the worktree whose folder holds path.
func (r *repo) worktreeAt(path string) *Worktree {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	abs = realPath(abs)
	var best *Worktree
	for _, w := range r.worktrees {
		root := realPath(w.Root)
		if abs == root || strings.HasPrefix(abs, root+string(filepath.Separator)) {
			if best == nil || len(root) > len(realPath(best.Root)) {
				best = w
			}
		}
	}
	return best
}

// worktreeOn returns the worktree that has branch checked out, if any.
func (r *repo) worktreeOn(branch string) *Worktree {
	for _, w := range r.worktrees {
		if w.Branch == branch {
			return w
		}
	}
	return nil
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func findTop(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s: not inside a git repository", abs)
		}
	}
}

// gitDirs returns the worktree's own git folder and the clone's common one.
func gitDirs(top string) (gitdir, common string, err error) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", "", err
	}
	if fi.IsDir() {
		return dotgit, dotgit, nil
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return "", "", err
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", "", fmt.Errorf("%s: not a gitdir file", dotgit)
	}
	gitdir = strings.TrimSpace(target)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	common = gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	return filepath.Clean(gitdir), filepath.Clean(common), nil
}

// headBranch reads the branch a HEAD file points at; "" when detached.
func headBranch(gitdir string) string {
	b, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:")
	if !ok {
		return ""
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	if !ok {
		return ""
	}
	return name
}

// checkFormat refuses repositories go-git would misread: formats and
// extensions it does not implement, partial clones whose objects may be
// missing, shallow clones whose history ends early, and sparse checkouts
// whose files it would write in full.
func (r *repo) checkFormat() error {
	raw, err := readRawConfig(filepath.Join(r.common, "config"))
	if err != nil {
		return err
	}
	hint := "merge this task with git itself"
	core := raw.Section("core")
	if v := core.Options.Get("repositoryformatversion"); v != "" && v != "0" && v != "1" {
		return refusef(hint, nil, "repository format version %s is not supported by go-git", v)
	}
	known := map[string]bool{"noop": true, "preciousobjects": true, "worktreeconfig": true}
	for _, o := range raw.Section("extensions").Options {
		key := strings.ToLower(o.Key)
		if key == "objectformat" && strings.EqualFold(o.Value, "sha1") {
			continue
		}
		if !known[key] {
			return refusef(hint, nil, "the repository uses extensions.%s = %s, which go-git does not support", o.Key, o.Value)
		}
	}
	if strings.EqualFold(core.Options.Get("sparsecheckout"), "true") {
		return refusef(hint, nil, "the repository uses a sparse checkout, which go-git would write in full")
	}
	if v := strings.ToLower(core.Options.Get("autocrlf")); v == "true" {
		return refusef(hint, nil, "core.autocrlf = true: go-git does not convert line endings")
	}
	if _, err := os.Stat(filepath.Join(r.common, "shallow")); err == nil {
		return refusef(hint, nil, "the repository is a shallow clone; its history may not reach the merge base")
	}
	return nil
}

func readRawConfig(path string) (*formatcfg.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg := formatcfg.New()
	if err := formatcfg.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// branchHash returns the commit a local branch points at.
func (r *repo) branchHash(branch string) (plumbing.Hash, error) {
	ref, err := r.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// defaultBase is the repository's main branch: the one origin/HEAD names,
// else main, else master, else the main worktree's branch.
func (r *repo) defaultBase(task string) (string, error) {
	isMain := false
	if ref, err := r.Reference("refs/remotes/origin/HEAD", false); err == nil && ref.Type() == plumbing.SymbolicReference {
		name := strings.TrimPrefix(ref.Target().String(), "refs/remotes/origin/")
		if _, err := r.branchHash(name); err == nil {
			if name != task {
				return name, nil
			}
			isMain = true
		}
	}
	for _, name := range []string{"main", "master"} {
		if _, err := r.branchHash(name); err == nil {
			if name != task {
				return name, nil
			}
			isMain = true
		}
	}
	for _, w := range r.worktrees {
		if !w.Linked && w.Branch != "" && w.Branch != task {
			return w.Branch, nil
		}
	}
	if isMain {
		return "", fmt.Errorf("%s is the main branch itself: name a task branch or worktree to merge into it", task)
	}
	return "", fmt.Errorf("no main branch found (no main, master or origin/HEAD)")
}

// branches lists local branch names, for error messages.
func (r *repo) branches() []string {
	var out []string
	it, err := r.Branches()
	if err != nil {
		return nil
	}
	_ = it.ForEach(func(ref *plumbing.Reference) error {
		out = append(out, ref.Name().Short())
		return nil
	})
	sort.Strings(out)
	return out
}
