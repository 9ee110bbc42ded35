package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"

	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/safefile"
)

// worktreeChanges lists the paths of w that differ from its HEAD: staged,
// modified, deleted or untracked (ignored files excepted).
func worktreeChanges(w *Worktree) ([]string, error) {
	r, err := git.PlainOpenWithOptions(w.Root, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, err
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	st, err := wt.Status()
	if err != nil {
		return nil, err
	}
	var out []string
	for p, fs := range st {
		if strings.HasPrefix(p, localState+"/") {
			continue // session state, never committed: it goes with the worktree
		}
		if fs.Staging != git.Unmodified || fs.Worktree != git.Unmodified {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// removeWorktree deletes a linked worktree the way `git worktree remove`
// does: its folder, then its administrative folder in the clone. It first
// checks that the folder's .git file names that administrative folder, so
// that it can never delete a folder that is not this worktree. resume
// finishes a removal a crash interrupted (the merge's journal says it
// began): the .git file, removed last of the folder, may be gone, and the
// administrative folder, removed last of all, still names the folder.
func removeWorktree(w *Worktree, resume bool) error {
	if !w.Linked || w.admin == "" {
		return fmt.Errorf("%s is the main worktree; it is never removed", w.Root)
	}
	dotgit := filepath.Join(w.Root, ".git")
	b, err := os.ReadFile(dotgit)
	switch {
	case err == nil:
		target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return fmt.Errorf("%s/.git: not a gitdir file", w.Root)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(w.Root, target)
		}
		if realPath(filepath.Clean(target)) != realPath(w.admin) {
			return fmt.Errorf("%s/.git points at %s, not at %s; left alone", w.Root, target, w.admin)
		}
	case resume && errors.Is(err, fs.ErrNotExist):
	default:
		return fmt.Errorf("%s: not a linked worktree: %w", w.Root, err)
	}
	// The worktree and its admin folder are devlearn's own, made by the
	// merge: removed whole, every link in them removed, never followed;
	// the .git file last of the folder, so that a removal cut short still
	// says whose folder this is.
	ents, err := os.ReadDir(w.Root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range ents {
		if e.Name() == ".git" {
			continue
		}
		if err := safefile.RemoveAll(w.Root, filepath.Join(w.Root, e.Name())); err != nil {
			return err
		}
		crashpoint.Hit("merge:worktree-entry-removed")
	}
	if err := safefile.RemoveAll(filepath.Dir(w.Root), w.Root); err != nil {
		return err
	}
	crashpoint.Hit("merge:worktree-folder-removed")
	return safefile.RemoveAll(filepath.Dir(w.admin), w.admin)
}
