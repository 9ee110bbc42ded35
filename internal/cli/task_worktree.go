package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/task"
)

// taskWorktree settles the folder 'task start --worktree DIR' names: an
// existing folder is taken as it is; a missing one is made a linked
// worktree of the repository on the task's branch (made from its base
// when it does not exist yet), since that is what the task's gates run in
// and what 'task done' merges. o.Worktree becomes the absolute path; the
// result says what was made, "" when nothing was.
func taskWorktree(env *Env, w *taskWS, name string, o *task.StartOptions) (string, error) {
	shown := o.Worktree
	abs := o.Worktree
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Dir, abs)
	}
	abs = filepath.Clean(abs)
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		o.Worktree = abs
		return "", nil
	case err == nil:
		return "", exitcode.Usagef("--worktree %s is a file, not a folder: name a folder for the task's worktree (a missing one is made)", shown)
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("--worktree %s: %w", shown, err)
	}
	// The branch the task will be merged from: as 'task done' names it.
	branch := o.Branch
	if branch == "" {
		if st, _, err := w.store.Load(name); err == nil && st.Branch != "" {
			branch = st.Branch
		} else {
			branch = name
		}
	}
	git := func(args ...string) (string, error) {
		out, err := register.ExecGit(w.proj.Root, args...)
		return strings.TrimSpace(string(out)), err
	}
	hint := fmt.Sprintf("make it yourself ('git worktree add %s %s'), then run this again", shown, branch)
	if _, err := git("rev-parse", "--verify", "-q", "refs/heads/"+branch); err == nil {
		if _, err := git("worktree", "add", abs, branch); err != nil {
			return "", exitcode.WithHint(fmt.Errorf("--worktree %s could not be made on branch %s: %w", shown, branch, err), hint)
		}
		o.Worktree, o.Branch = abs, branch
		return fmt.Sprintf("Made worktree %s on branch %s.", shown, branch), nil
	}
	base := o.Base
	if base == "" {
		base = w.cfg.Tasks.Base
	}
	if base == "" {
		// The branch checked out here: what a person starts a task from.
		if base, err = git("symbolic-ref", "--short", "-q", "HEAD"); err != nil || base == "" {
			base = "HEAD"
		}
	}
	if _, err := git("worktree", "add", "-b", branch, abs, base); err != nil {
		return "", exitcode.WithHint(fmt.Errorf("--worktree %s could not be made on a new branch %s from %s: %w", shown, branch, base, err), hint)
	}
	o.Worktree, o.Branch = abs, branch
	return fmt.Sprintf("Made worktree %s on new branch %s (from %s).", shown, branch, base), nil
}
