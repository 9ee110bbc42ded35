package gitx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
)

// Recovered is a merge a crash interrupted, as the next command found it
// and left it: Finished when the base had moved (the checkout was brought
// to the merge, the merge recorded, the task's worktree removed as after
// any merge), else undone (nothing of the base or its checkout had
// changed; only locks were dropped).
type Recovered struct {
	Task     string  `json:"task"`
	Branch   string  `json:"branch"`
	Base     string  `json:"base"`
	Phase    string  `json:"phase"`
	Finished bool    `json:"finished"`
	Result   *Result `json:"result,omitempty"`
}

// Recover finishes or undoes every merge of the clone a crash interrupted
// (each base's journal), skipping a base whose merge is running now. dir
// is any folder of the clone; opts gives the time and identity.
func Recover(ctx context.Context, opts Options) ([]*Recovered, error) {
	r, err := openRepo(opts.Dir)
	if err != nil {
		return nil, err
	}
	js, err := journals(r.common)
	if err != nil {
		return nil, err
	}
	var out []*Recovered
	for _, j := range js {
		unlock, ok, err := jsonl.TryLock(mergeLockPath(r.common, j.Base))
		if err != nil {
			return out, err
		}
		if !ok {
			continue // a merge into that base is running: its journal is live
		}
		rec, err := func() (*Recovered, error) {
			defer unlock()
			// Another command may have finished it meanwhile.
			j, err := readJournal(j.path)
			if errors.Is(err, os.ErrNotExist) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			return recoverJournal(ctx, r, j, opts)
		}()
		if err != nil {
			return out, err
		}
		if rec != nil {
			out = append(out, rec)
		}
	}
	return out, nil
}

func mergeLockPath(common, base string) string {
	return (&project.Project{CommonDir: common}).StatePath("locks", "merge", TaskName(base)+".lock")
}

// recoverJournal finishes or undoes the merge j records; the caller holds
// the base's merge lock, so the merge that wrote j is not running, and
// every lock holding j's nonce (or, for a ref, j's target) is its own.
func recoverJournal(ctx context.Context, r *repo, j *journal, opts Options) (*Recovered, error) {
	rec := &Recovered{Task: j.Task, Branch: j.Branch, Base: j.Base, Phase: j.Phase}
	res := &Result{Task: j.Task, Branch: j.Branch, Base: j.Base, Kind: j.Kind, BaseFrom: j.From, BaseTo: j.To,
		Checkout: j.Checkout, Worktree: j.TaskWorktree}
	m := &merger{r: r, s: newOverlay(r.Storer), res: res, j: j,
		opts: Options{Dir: opts.Dir, Task: j.Task, Now: opts.Now, KeepWorktree: j.KeepWorktree, Identity: opts.Identity}}
	m.taskWT = r.worktreeRooted(j.TaskWorktree)
	if r.worktreeRooted(j.Checkout) == nil {
		res.Checkout = ""
	}
	baseRef := filepath.Join(r.common, filepath.FromSlash(plumbing.NewBranchReferenceName(j.Base).String()))
	to := plumbing.NewHash(j.To)

	switch j.Phase {
	case phaseMoving:
		// The lock still there means the ref did not move yet; under it
		// the base was seen at From, and no git command has moved it
		// since (the lock stops them): the move is made now.
		if lock := baseRef + ".lock"; ownLock(lock, refContent(to)) {
			if err := commitRefLock(r.common, lock, baseRef); err != nil {
				return nil, fmt.Errorf("finish the interrupted merge into %s: %w", j.Base, err)
			}
		}
		now, err := r.branchHash(j.Base)
		if err != nil {
			return nil, err
		}
		if now.String() == j.From {
			// Our lock was removed by hand before the move: nothing moved.
			break
		}
		var co *checkout
		var ups []pathUpdate
		// A checkout that is on another branch now is not main's to
		// update (git could only have switched it with our lock removed).
		if w := r.worktreeRooted(j.Checkout); w != nil && w.Branch == j.Base {
			from, err := object.GetCommit(m.s, plumbing.NewHash(j.From))
			if err != nil {
				return nil, err
			}
			next, err := object.GetCommit(m.s, to)
			if err != nil {
				return nil, err
			}
			if ups, err = commitUpdates(ctx, from, next); err != nil {
				return nil, err
			}
			if co, err = lockCheckout(r.common, w, m.s, j.Nonce, true); err != nil {
				return nil, fmt.Errorf("finish the interrupted merge of %s into %s: %w", j.Branch, j.Base, err)
			}
			defer co.release()
			co.recovering = true
		}
		m.keepJournal = true
		if err := m.complete(ctx, co, ups, to); err != nil {
			return nil, err
		}
		rec.Finished, rec.Result = true, res
		return rec, j.remove(r.common)
	case phaseRemoving:
		if w := m.taskWT; w != nil {
			if err := removeWorktree(w, true); err != nil {
				return nil, fmt.Errorf("finish removing the worktree of merged task %s: %w", j.Task, err)
			}
			res.Removed = true
		}
		rec.Finished, rec.Result = true, res
		return rec, j.remove(r.common)
	}
	// Learning or prepared: the base has not moved and no file of its
	// checkout was written. What the merge took is given back.
	undo(r, j)
	return rec, j.remove(r.common)
}

// undo drops every lock j's merge may have taken and left.
func undo(r *repo, j *journal) {
	marker := lockMarker(j.Nonce)
	for _, gd := range []string{j.TaskGitDir, j.CheckoutGitDir} {
		if gd != "" {
			dropLock(r.common, gd, filepath.Join(gd, "index.lock"), marker, j.Nonce)
		}
	}
	for _, mv := range []struct{ branch, to string }{{j.Branch, j.LearnedTo}, {j.Base, j.To}} {
		if mv.to == "" {
			continue
		}
		ref := filepath.Join(r.common, filepath.FromSlash(plumbing.NewBranchReferenceName(mv.branch).String()))
		dropLock(r.common, r.common, ref+".lock", refContent(plumbing.NewHash(mv.to)), j.Nonce)
	}
}

// worktreeRooted is the worktree whose folder is root, if the clone still
// has it.
func (r *repo) worktreeRooted(root string) *Worktree {
	if root == "" {
		return nil
	}
	for _, w := range r.worktrees {
		if realPath(w.Root) == realPath(root) {
			return w
		}
	}
	return nil
}

// Interruption is a merge a crash interrupted, or a lock one left, as
// doctor reports it.
type Interruption struct {
	What string `json:"what"`
	Next string `json:"next"`
	// Running is a merge under way now, not interrupted.
	Running bool `json:"running,omitempty"`
}

// Interrupted lists, without changing anything, the clone's merges a
// crash interrupted and the index locks devlearn left that no journal
// accounts for.
func Interrupted(dir string) ([]Interruption, error) {
	r, err := openRepo(dir)
	if err != nil {
		return nil, err
	}
	js, err := journals(r.common)
	if err != nil {
		return nil, err
	}
	var out []Interruption
	nonces := map[string]bool{}
	for _, j := range js {
		nonces[j.Nonce] = true
		unlock, ok, err := jsonl.TryLock(mergeLockPath(r.common, j.Base))
		if err != nil {
			return out, err
		}
		if !ok {
			out = append(out, Interruption{Running: true, What: fmt.Sprintf("a merge of %s into %s is running", j.Branch, j.Base)})
			continue
		}
		unlock()
		what := fmt.Sprintf("the merge of %s into %s was interrupted (%s, %s)", j.Branch, j.Base, j.Phase, j.path)
		next := fmt.Sprintf("run 'devlearn task done %s' (or 'devlearn merge %s'): it finishes the merge", j.Task, j.Branch)
		if j.Phase == phaseLearning || j.Phase == phasePrepared {
			next = fmt.Sprintf("run 'devlearn task done %s' (or 'devlearn merge %s'): %s did not move, the interrupted merge is undone and made again", j.Task, j.Branch, j.Base)
		}
		if j.Checkout != "" && (j.Phase == phaseMoving) {
			what += fmt.Sprintf("; %s may point at the merge while the files and index of %s are not yet updated: do not commit there before", j.Base, j.Checkout)
		}
		out = append(out, Interruption{What: what, Next: next})
	}
	for _, w := range r.worktrees {
		lock := filepath.Join(w.GitDir, "index.lock")
		b, err := os.ReadFile(lock)
		if err != nil || !strings.HasPrefix(string(b), lockPrefix) {
			continue
		}
		if nonces[strings.TrimSpace(strings.TrimPrefix(string(b), lockPrefix))] {
			continue // its journal is reported above
		}
		out = append(out, Interruption{
			What: fmt.Sprintf("%s was left by a devlearn merge that no journal describes", lock),
			Next: "remove it once no devlearn merge runs: rm " + lock,
		})
	}
	return out, nil
}
