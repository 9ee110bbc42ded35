package gitx

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"

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
// that it can never delete a folder that is not this worktree.
func removeWorktree(w *Worktree) error {
	if !w.Linked || w.admin == "" {
		return fmt.Errorf("%s is the main worktree; it is never removed", w.Root)
	}
	b, err := os.ReadFile(filepath.Join(w.Root, ".git"))
	if err != nil {
		return fmt.Errorf("%s: not a linked worktree: %w", w.Root, err)
	}
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
	// The worktree and its admin folder are devlearn's own, made by the
	// merge: removed whole, every link in them removed, never followed.
	if err := safefile.RemoveAll(filepath.Dir(w.Root), w.Root); err != nil {
		return err
	}
	return safefile.RemoveAll(filepath.Dir(w.admin), w.admin)
}
