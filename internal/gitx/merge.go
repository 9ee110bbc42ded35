package gitx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Kinds of merge.
const (
	KindUpToDate    = "up-to-date"   // the task has nothing the base lacks
	KindFastForward = "fast-forward" // the base moves to the task's tip
	KindMerge       = "merge"        // a merge commit with both parents
	KindConflict    = "conflict"     // refused: see Result.Conflicts
)

// Options says what to merge and how.
type Options struct {
	Dir    string // where the command runs: any folder of the clone
	Target string // the task: a branch name or a worktree's folder
	// Task names the task's log (.memory/tasks/<Task>.jsonl); "" names it
	// after the branch (TaskName).
	Task         string
	Into         string // the base branch; "" for the repository's main branch
	DryRun       bool   // compute and report, change nothing
	KeepWorktree bool   // keep the task's linked worktree after a merge
	Identity     Identity
	Now          time.Time
	// Mergers chooses the FileMerger of a path changed on both sides;
	// nil means DefaultMergers.
	Mergers Mergers
	// LockWait bounds the wait for another merge into the same base.
	LockWait time.Duration
	// BeforeCAS, when set, runs after the merge is computed and before the
	// base ref is swapped: tests move the base there to prove that a base
	// that moved is detected and never overwritten.
	BeforeCAS func()
	// Again is the command a refusal's hint tells the person to run once
	// the way is clear ("devlearn merge" when empty; 'task done' names
	// itself).
	Again string
}

// again is the command that runs this merge again, for hints.
func (o Options) again() string {
	if o.Again != "" {
		return o.Again
	}
	return "devlearn merge"
}

// Result is what a merge did, or in a dry run would do.
type Result struct {
	Task      string `json:"task"`
	Branch    string `json:"branch"`
	Base      string `json:"base"`
	Kind      string `json:"kind"`
	DryRun    bool   `json:"dry_run"`
	BaseFrom  string `json:"base_from"`         // the base's commit before
	BaseTo    string `json:"base_to,omitempty"` // after (the merge commit or the task's tip)
	MergeBase string `json:"merge_base,omitempty"`
	// Learned lists devlearn's own files committed on the task branch
	// first, in LearnedCommit.
	Learned       []string     `json:"learned,omitempty"`
	LearnedCommit string       `json:"learned_commit,omitempty"`
	Paths         []PathResult `json:"paths,omitempty"`     // how each changed path was merged
	Conflicts     []Conflict   `json:"conflicts,omitempty"` // why the merge was refused
	// Checkout is the worktree that has the base checked out, whose files
	// were brought up to date: Updated paths written, Skipped paths left
	// alone because they changed on disk during the merge.
	Checkout string   `json:"checkout,omitempty"`
	Updated  []string `json:"updated,omitempty"`
	Skipped  []string `json:"skipped,omitempty"`
	// Worktree is the task's linked worktree; Removed says whether it was
	// removed, and KeptBecause why not.
	Worktree    string   `json:"worktree,omitempty"`
	Removed     bool     `json:"removed"`
	KeptBecause string   `json:"kept_because,omitempty"`
	Dirty       []string `json:"dirty,omitempty"`
	// TaskLog is the task log the outcome was recorded in (project-relative,
	// in the worktree named by TaskLogIn).
	TaskLog   string `json:"task_log,omitempty"`
	TaskLogIn string `json:"task_log_in,omitempty"`
	// Recovered are the merges into the same base that a crash had
	// interrupted, finished or undone before this one began.
	Recovered []*Recovered `json:"recovered,omitempty"`
	// Refused is set when the merge was not made (a conflict, local
	// changes in the way, a base that moved): Kind and BaseTo then say what
	// it would have been.
	Refused *Refused `json:"refused,omitempty"`
}

// ErrNotFound is wrapped by the errors for a task or base that does not
// exist: a mistake on the command line.
var ErrNotFound = errors.New("no such task or base")

// Merge merges a finished task into its base branch. A conflict, a base
// that moved, local changes in the way or a repository go-git cannot
// handle safely return a *Refused error together with the Result.
func Merge(ctx context.Context, opts Options) (res *Result, err error) {
	defer func() {
		var refused *Refused
		if res != nil && errors.As(err, &refused) {
			res.Refused = refused
		}
	}()
	r, err := openRepo(opts.Dir)
	if err != nil {
		return nil, err
	}
	mergers := opts.Mergers
	if mergers == nil {
		mergers = DefaultMergers()
	}
	res = &Result{DryRun: opts.DryRun}

	// The task: a worktree folder or a branch.
	var taskWT *Worktree
	if fi, err := os.Stat(opts.Target); err == nil && fi.IsDir() {
		taskWT = r.worktreeAt(opts.Target)
		if taskWT == nil {
			return nil, fmt.Errorf("%w: %s is not a worktree of this repository", ErrNotFound, opts.Target)
		}
		if taskWT.Branch == "" {
			return nil, refusef("check out the task's branch there, or name the branch", nil, "worktree %s has a detached HEAD", taskWT.Root)
		}
		res.Branch = taskWT.Branch
	} else {
		res.Branch = strings.TrimPrefix(opts.Target, "refs/heads/")
		if _, err := r.branchHash(res.Branch); err != nil {
			return nil, fmt.Errorf("%w: %q is neither a worktree folder nor a local branch (branches: %s)", ErrNotFound, opts.Target, strings.Join(r.branches(), ", "))
		}
		taskWT = r.worktreeOn(res.Branch)
	}
	res.Task = TaskName(res.Branch)
	if opts.Task != "" {
		res.Task = opts.Task
	}
	if taskWT != nil {
		res.Worktree = taskWT.Root
	}

	res.Base = opts.Into
	if res.Base == "" {
		if res.Base, err = r.defaultBase(res.Branch); err != nil {
			return nil, fmt.Errorf("%w; name the base with --into", err)
		}
	}
	if _, err := r.branchHash(res.Base); err != nil {
		return nil, fmt.Errorf("%w: base branch %q not found (branches: %s)", ErrNotFound, res.Base, strings.Join(r.branches(), ", "))
	}
	if res.Base == res.Branch {
		return nil, fmt.Errorf("the task branch and the base are both %q", res.Base)
	}

	// One merge into a base at a time, across every worktree of the clone.
	lockCtx := ctx
	if opts.LockWait > 0 {
		var cancel context.CancelFunc
		lockCtx, cancel = context.WithTimeout(ctx, opts.LockWait)
		defer cancel()
	}
	unlock, err := jsonl.Lock(lockCtx, mergeLockPath(r.common, res.Base))
	if err != nil {
		return nil, refusef("wait for the other merge to finish, then run this again", nil, "another devlearn merge into %s is running (%v)", res.Base, err)
	}
	defer unlock()

	if j, err := readJournal(journalPath(r.common, res.Base)); err == nil {
		if opts.DryRun {
			return res, refusef("run devlearn merge or devlearn task done without --dry-run: it finishes that merge first", nil,
				"a merge of %s into %s was interrupted (%s)", j.Branch, j.Base, j.path)
		}
		rec, err := recoverJournal(ctx, r, j, opts)
		if err != nil {
			return res, err
		}
		res.Recovered = append(res.Recovered, rec)
		// The interrupted merge may have moved the base, or removed the
		// very worktree named.
		r.worktrees = nil
		if err := r.findWorktrees(opts.Dir); err != nil {
			return res, err
		}
		if taskWT != nil && r.worktreeOn(res.Branch) == nil {
			taskWT = nil
			res.Worktree = ""
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}

	s := newOverlay(r.Storer)
	m := &merger{r: r, s: s, opts: opts, res: res, mergers: mergers, taskWT: taskWT}
	return m.run(ctx)
}

type merger struct {
	r       *repo
	s       *overlay
	opts    Options
	res     *Result
	mergers Mergers
	taskWT  *Worktree
	// j is the merge's journal (nil in a dry run); keepJournal is set
	// while what it records must be finished by the next command.
	j           *journal
	keepJournal bool
}

func (m *merger) run(ctx context.Context) (*Result, error) {
	res := m.res
	if !m.opts.DryRun {
		m.j = &journal{Nonce: newNonce(), Task: res.Task, Branch: res.Branch, Base: res.Base,
			KeepWorktree: m.opts.KeepWorktree, Started: m.opts.Now.UTC().Format(time.RFC3339),
			path: journalPath(m.r.common, res.Base)}
		if m.taskWT != nil {
			m.j.TaskWorktree, m.j.TaskGitDir = m.taskWT.Root, m.taskWT.GitDir
		}
		// A refusal or an error before the base's ref moves leaves nothing
		// to finish: the journal goes. After it, the journal stays for the
		// next command, which finishes the merge (a crash skips this too).
		defer func() {
			if !m.keepJournal {
				m.j.remove(m.r.common)
			}
		}()
	}
	taskTip, err := m.r.branchHash(res.Branch)
	if err != nil {
		return nil, err
	}
	if m.taskWT != nil {
		if taskTip, err = m.commitLearned(ctx, taskTip); err != nil {
			return res, err
		}
	}
	baseTip, err := m.r.branchHash(res.Base)
	if err != nil {
		return nil, err
	}
	res.BaseFrom = baseTip.String()
	task, err := object.GetCommit(m.s, taskTip)
	if err != nil {
		return nil, err
	}
	base, err := object.GetCommit(m.s, baseTip)
	if err != nil {
		return nil, err
	}

	var newTip plumbing.Hash
	switch {
	case taskTip == baseTip:
		res.Kind = KindUpToDate
	default:
		if done, err := task.IsAncestor(base); err != nil {
			return nil, err
		} else if done {
			res.Kind = KindUpToDate
			break
		}
		ff, err := base.IsAncestor(task)
		if err != nil {
			return nil, err
		}
		if ff {
			res.Kind = KindFastForward
			newTip = taskTip
			break
		}
		if newTip, err = m.threeWay(ctx, base, task); err != nil {
			return res, err
		}
		res.Kind = KindMerge
	}
	if res.Kind == KindUpToDate {
		res.BaseTo = res.BaseFrom
		return res, m.finish(ctx, baseTip)
	}
	res.BaseTo = newTip.String()

	newCommit, err := object.GetCommit(m.s, newTip)
	if err != nil {
		return nil, err
	}
	if res.Kind == KindFastForward {
		if err := m.listFastForward(ctx, base, newCommit); err != nil {
			return res, err
		}
	}
	// The worktree with the base checked out: its files must be free to
	// change before anything is published.
	w := m.r.worktreeOn(res.Base)
	var ups []pathUpdate
	if w != nil {
		res.Checkout = w.Root
		if ups, err = commitUpdates(ctx, base, newCommit); err != nil {
			return nil, err
		}
	}
	if m.opts.DryRun {
		if w != nil {
			co, err := readCheckout(w, m.s)
			if err != nil {
				return res, err
			}
			if err := m.refuseDirty(co, ups); err != nil {
				return res, err
			}
		}
		return res, m.finish(ctx, newTip)
	}

	if err := m.s.flush(); err != nil {
		return res, err
	}
	crashpoint.Hit("merge:objects-written")
	m.j.Kind, m.j.From, m.j.To = res.Kind, baseTip.String(), newTip.String()
	if w != nil {
		m.j.Checkout, m.j.CheckoutGitDir = w.Root, w.GitDir
	}
	if err := m.j.save(m.r.common, phasePrepared); err != nil {
		return res, err
	}
	var co *checkout
	if w != nil {
		if co, err = lockCheckout(m.r.common, w, m.s, m.j.Nonce, false); err != nil {
			return res, err
		}
		defer co.release()
		crashpoint.Hit("merge:checkout-locked")
		if err := m.refuseDirty(co, ups); err != nil {
			return res, err
		}
	}
	if m.opts.BeforeCAS != nil {
		m.opts.BeforeCAS()
	}
	err = m.swapRef(res.Base, baseTip, newTip, func() error {
		if err := m.j.save(m.r.common, phaseMoving); err != nil {
			return err
		}
		m.keepJournal = true
		return nil
	})
	if err != nil {
		return res, err
	}
	return res, m.complete(ctx, co, ups, newTip)
}

// commitUpdates lists the paths a checkout of from moves to reach to.
func commitUpdates(ctx context.Context, from, to *object.Commit) ([]pathUpdate, error) {
	ft, err := from.Tree()
	if err != nil {
		return nil, err
	}
	tt, err := to.Tree()
	if err != nil {
		return nil, err
	}
	return treeUpdates(ctx, ft, tt)
}

// refuseDirty refuses a merge whose checkout has local changes on a path
// the merge changes; otherwise it lists those paths as to be updated.
func (m *merger) refuseDirty(co *checkout, ups []pathUpdate) error {
	dirty, err := co.dirty(ups)
	if err != nil {
		return err
	}
	if len(dirty) > 0 {
		return refusef("commit or stash them in "+co.w.Root+", then run "+m.opts.again()+" again", dirty,
			"local changes in %s would be overwritten by the merge", co.w.Root)
	}
	for _, u := range ups {
		m.res.Updated = append(m.res.Updated, u.path)
	}
	return nil
}

// complete is everything after the base's ref moved: the checkout brought
// to the merge's tree, the merge recorded on the task and verified, the
// task's worktree removed. Each step finds its own work done when it runs
// again after a crash, so the next command runs it whole.
func (m *merger) complete(ctx context.Context, co *checkout, ups []pathUpdate, tip plumbing.Hash) error {
	res := m.res
	if co != nil {
		written, skipped, err := co.apply(ctx, ups)
		res.Updated, res.Skipped = written, skipped
		if err != nil {
			return fmt.Errorf("%s moved to %s, but updating the files of %s failed: %w (fix that, then run devlearn merge or task done again: it finishes this merge first)", res.Base, short(tip), res.Checkout, err)
		}
		if err := co.commit(); err != nil {
			return fmt.Errorf("%s moved to %s, but writing the index of %s failed: %w (fix that, then run devlearn merge or task done again: it finishes this merge first)", res.Base, short(tip), res.Checkout, err)
		}
	}
	return m.finish(ctx, tip)
}

// threeWay computes the merge commit of task into base, or refuses with
// the conflicts, recording the task as blocked.
func (m *merger) threeWay(ctx context.Context, base, task *object.Commit) (plumbing.Hash, error) {
	res := m.res
	bases, err := base.MergeBase(task)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	switch len(bases) {
	case 0:
		return plumbing.ZeroHash, refusef("merge them with git if this is intended", nil, "%s and %s have no common history", res.Branch, res.Base)
	case 1:
	default:
		return plumbing.ZeroHash, refusef("merge this task with git itself (git merge "+res.Branch+")", nil,
			"%s and %s have %d merge bases (criss-cross history), which devlearn does not merge", res.Branch, res.Base, len(bases))
	}
	res.MergeBase = bases[0].Hash.String()
	mbTree, err := bases[0].Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	oursTree, err := base.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	theirsTree, err := task.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tw, err := mergeTrees(ctx, m.s, mbTree, oursTree, theirsTree, m.mergers)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	changed := make([]string, 0, len(tw.ours)+len(tw.theirs))
	for p := range tw.ours {
		changed = append(changed, p)
	}
	for p := range tw.theirs {
		changed = append(changed, p)
	}
	if bad := filtered(m.s, m.r.common, []*object.Tree{oursTree, theirsTree}, changed); len(bad) > 0 {
		return plumbing.ZeroHash, refusef("merge this task with git itself", bad,
			"these paths use a filter, encoding or line-ending attribute (such as Git LFS) that go-git does not apply")
	}
	var tree plumbing.Hash
	if len(tw.conflicts) == 0 {
		if tree, err = tw.applyMerge(oursTree.Hash); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	for _, pr := range tw.results {
		// Paths only the base changed are already there: not news.
		if pr.How != TakenOurs {
			res.Paths = append(res.Paths, pr)
		}
	}
	if len(tw.conflicts) > 0 {
		res.Kind = KindConflict
		res.Conflicts = tw.conflicts
		return plumbing.ZeroHash, m.blocked(ctx)
	}
	msg := fmt.Sprintf("Merge task %s (branch %s) into %s\n", res.Task, res.Branch, res.Base)
	c := &object.Commit{
		Author:       m.opts.Identity.Author.at(m.opts.Now),
		Committer:    m.opts.Identity.Committer.at(m.opts.Now),
		Message:      msg,
		TreeHash:     tree,
		ParentHashes: []plumbing.Hash{base.Hash, task.Hash},
	}
	return writeCommit(m.s, c)
}

// listFastForward reports the paths a fast-forward brings in, and refuses
// the same filtered paths a merge would.
func (m *merger) listFastForward(ctx context.Context, base, next *object.Commit) error {
	bt, err := base.Tree()
	if err != nil {
		return err
	}
	nt, err := next.Tree()
	if err != nil {
		return err
	}
	ups, err := treeUpdates(ctx, bt, nt)
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(ups))
	for _, u := range ups {
		paths = append(paths, u.path)
		m.res.Paths = append(m.res.Paths, PathResult{Path: u.path, How: TakenTheirs})
	}
	if bad := filtered(m.s, m.r.common, []*object.Tree{nt}, paths); len(bad) > 0 {
		return refusef("merge this task with git itself", bad,
			"these paths use a filter, encoding or line-ending attribute (such as Git LFS) that go-git does not apply")
	}
	return nil
}

// blocked records the conflict on the task and returns the refusal.
func (m *merger) blocked(ctx context.Context) error {
	res := m.res
	paths := make([]string, len(res.Conflicts))
	for i, c := range res.Conflicts {
		paths[i] = c.Path
	}
	if !m.opts.DryRun {
		if err := m.record(ctx, TaskEvent{Op: OpMergeBlocked, Conflicts: res.Conflicts}); err != nil {
			return err
		}
	}
	changed := "no branch or file was changed"
	if len(res.Learned) > 0 && !m.opts.DryRun {
		changed = fmt.Sprintf("%s and its files were not changed (the task's learning was committed on %s first)", res.Base, res.Branch)
	}
	if res.TaskLog != "" {
		changed += fmt.Sprintf(" but the task's log, %s in %s, which records the block", res.TaskLog, res.TaskLogIn)
	}
	hint := fmt.Sprintf("%s; resolve with 'git merge %s' in the worktree of %s (or rebase the task onto %s), then run %s again", changed, res.Branch, res.Base, res.Base, m.opts.again())
	return refusef(hint, paths, "merging %s into %s conflicts", res.Branch, res.Base)
}

// record appends a task event: in the task's worktree while it is kept, so
// it travels with the task; else in the worktree with the base, or the
// current one.
func (m *merger) record(ctx context.Context, ev TaskEvent) error {
	res := m.res
	ev.Task, ev.Branch, ev.Base = res.Task, res.Branch, res.Base
	root := ""
	switch {
	case ev.Op == OpMergeBlocked && m.taskWT != nil:
		root = m.taskWT.Root
	case res.Checkout != "":
		root = res.Checkout
	default:
		if w := m.r.worktreeAt(m.opts.Dir); w != nil {
			root = w.Root
		}
	}
	if root == "" {
		return nil
	}
	if ev.Op == OpMerged {
		commit := ev.Commit
		if ev.Kind == KindUpToDate {
			commit = "" // any merge of the task's will do
		}
		if rel, ok := mergedIn(root, ev.Task, commit); ok {
			res.TaskLog, res.TaskLogIn = rel, root
			return nil
		}
	}
	rel, ok, err := appendTaskEvent(ctx, root, ev, m.opts.Now)
	if err != nil {
		return fmt.Errorf("record task %s: %w", res.Task, err)
	}
	if ok {
		res.TaskLog, res.TaskLogIn = rel, root
	}
	return nil
}

// finish records a successful merge on the task and removes the task's
// clean linked worktree once the base is seen to hold the task's tip.
func (m *merger) finish(ctx context.Context, tip plumbing.Hash) error {
	res := m.res
	w := m.taskWT
	if !m.opts.DryRun && (res.Kind != KindUpToDate || m.opts.Task != "") {
		// A task finished with 'task done' is recorded merged even when git
		// merged it already; a merge finished after a crash is recorded
		// once.
		if err := m.record(ctx, TaskEvent{Op: OpMerged, Kind: res.Kind, Commit: tip.String()}); err != nil {
			return err
		}
		crashpoint.Hit("merge:recorded")
	}
	// The merge is whole: nothing is left for the next command to finish.
	m.keepJournal = false
	if w == nil {
		return nil
	}
	switch {
	case !w.Linked:
		res.KeptBecause = "it is the main worktree"
		return nil
	case m.opts.KeepWorktree:
		res.KeptBecause = "--keep-worktree"
		return nil
	case w.Locked:
		res.KeptBecause = "it is locked (git worktree unlock to allow removal)"
		return nil
	case m.r.worktreeAt(m.opts.Dir) == w:
		res.KeptBecause = "it is the current folder"
		return nil
	}
	dirty, err := worktreeChanges(w)
	if err != nil {
		return fmt.Errorf("check %s before removing it: %w", w.Root, err)
	}
	if m.opts.DryRun {
		// The learned files would have been committed first.
		learned := map[string]bool{}
		for _, p := range res.Learned {
			learned[p] = true
		}
		kept := dirty[:0]
		for _, p := range dirty {
			if !learned[p] {
				kept = append(kept, p)
			}
		}
		dirty = kept
	}
	if len(dirty) > 0 {
		res.Dirty = dirty
		res.KeptBecause = "it has uncommitted changes"
		return nil
	}
	if m.opts.DryRun {
		res.Removed = true
		return nil
	}
	if err := m.verify(); err != nil {
		res.KeptBecause = err.Error()
		return nil
	}
	if err := m.j.save(m.r.common, phaseRemoving); err != nil {
		return err
	}
	m.keepJournal = true
	err = removeWorktree(w, false)
	m.keepJournal = false
	if err != nil {
		res.KeptBecause = err.Error()
		return nil
	}
	res.Removed = true
	return nil
}

// verify checks that the base holds the task branch's tip, as it reads
// now: a worktree is removed only when nothing in it can be lost.
func (m *merger) verify() error {
	res := m.res
	baseTip, err := m.r.branchHash(res.Base)
	if err != nil {
		return fmt.Errorf("the merge could not be verified: %w", err)
	}
	taskTip, err := m.r.branchHash(res.Branch)
	if err != nil {
		return fmt.Errorf("the merge could not be verified: %w", err)
	}
	if baseTip == taskTip {
		return nil
	}
	b, err := object.GetCommit(m.s, baseTip)
	if err != nil {
		return fmt.Errorf("the merge could not be verified: %w", err)
	}
	t, err := object.GetCommit(m.s, taskTip)
	if err != nil {
		return fmt.Errorf("the merge could not be verified: %w", err)
	}
	if ok, err := t.IsAncestor(b); err != nil || !ok {
		return fmt.Errorf("%s (%s) does not hold %s's tip (%s): the merge is not verified", res.Base, short(baseTip), res.Branch, short(taskTip))
	}
	return nil
}

// commitLearned commits devlearn's own uncommitted files in the task
// worktree on the task branch, and returns the branch's new tip.
func (m *merger) commitLearned(ctx context.Context, tip plumbing.Hash) (plumbing.Hash, error) {
	w := m.taskWT
	head, err := object.GetCommit(m.s, tip)
	if err != nil {
		return tip, err
	}
	tree, err := head.Tree()
	if err != nil {
		return tip, err
	}
	edits, err := learnedEdits(m.s, w.Root, m.r.common, tree)
	if err != nil || len(edits) == 0 {
		return tip, err
	}
	nt, err := editTree(m.s, tree.Hash, edits)
	if err != nil {
		return tip, err
	}
	var list strings.Builder
	for _, e := range edits {
		m.res.Learned = append(m.res.Learned, e.path)
		fmt.Fprintf(&list, "  %s\n", e.path)
	}
	c := &object.Commit{
		Author:       m.opts.Identity.Author.at(m.opts.Now),
		Committer:    m.opts.Identity.Committer.at(m.opts.Now),
		Message:      fmt.Sprintf("devlearn: keep what task %s learned\n\n%s", m.res.Task, list.String()),
		TreeHash:     nt,
		ParentHashes: []plumbing.Hash{tip},
	}
	next, err := writeCommit(m.s, c)
	if err != nil {
		return tip, err
	}
	m.res.LearnedCommit = next.String()
	if m.opts.DryRun {
		return next, nil
	}
	m.j.LearnedFrom, m.j.LearnedTo = tip.String(), next.String()
	if err := m.j.save(m.r.common, phaseLearning); err != nil {
		return tip, err
	}
	if err := m.s.flush(); err != nil {
		return tip, err
	}
	crashpoint.Hit("merge:learned-objects-written")
	co, err := lockCheckout(m.r.common, w, m.s, m.j.Nonce, false)
	if err != nil {
		return tip, err
	}
	defer co.release()
	crashpoint.Hit("merge:learned-index-locked")
	for _, e := range edits {
		if e.e.absent() {
			delete(co.byNm, e.path)
			continue
		}
		ie, err := indexEntry(e.path, filepath.Join(w.Root, filepath.FromSlash(e.path)), e.e)
		if err != nil {
			return tip, err
		}
		co.byNm[e.path] = ie
	}
	// The index first, then the branch: a crash between the two leaves
	// the learned files staged, as 'git add' would, and the next merge
	// commits them again; the other order would leave a staged diff that
	// undoes the commit.
	if err := co.commit(); err != nil {
		return tip, fmt.Errorf("writing the index of %s failed: %w", w.Root, err)
	}
	if err := m.swapRef(m.res.Branch, tip, next, nil); err != nil {
		return tip, err
	}
	return next, nil
}

// swapRef moves branch from old to next with a compare-and-swap under
// git's own lock file for the ref (<ref>.lock, created exclusively and
// holding next, as git's does), so that a git command updating the same
// ref at the same moment fails instead of being overwritten; it re-reads
// the ref after the swap. beforeMove runs with the lock held and the ref
// seen at old: the last moment the move can still be undone.
func (m *merger) swapRef(branch string, old, next plumbing.Hash, beforeMove func() error) error {
	name := plumbing.NewBranchReferenceName(branch)
	ref := filepath.Join(m.r.common, filepath.FromSlash(name.String()))
	lock := ref + ".lock"
	if err := safefile.MkdirAll(m.r.common, filepath.Dir(ref), 0o755); err != nil {
		return err
	}
	content := refContent(next)
	err := createLock(m.r.common, m.r.common, lock, content, m.j.Nonce)
	if errors.Is(err, fs.ErrExist) {
		return refusef("run "+m.opts.again()+" again when it has finished", nil, "%s is being updated by another git process (%s exists)", branch, lock)
	}
	if err != nil {
		return err
	}
	crashpoint.Hit("merge:ref-locked")
	moved := false
	defer func() {
		if !moved {
			dropLock(m.r.common, m.r.common, lock, content, m.j.Nonce)
		}
	}()
	if now, err := m.r.branchHash(branch); err != nil {
		return err
	} else if now != old {
		return refusef("nothing was changed; run "+m.opts.again()+" again to merge into the new "+branch, nil,
			"%s moved from %s to %s during the merge", branch, short(old), short(now))
	}
	if beforeMove != nil {
		if err := beforeMove(); err != nil {
			return err
		}
	}
	if err := commitRefLock(m.r.common, lock, ref); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	moved = true
	crashpoint.Hit("merge:ref-moved")
	if now, err := m.r.branchHash(branch); err != nil || now != next {
		return fmt.Errorf("update %s: it reads %s after the swap, not %s", name, short(now), short(next))
	}
	return nil
}

// refContent is a loose ref's file for h.
func refContent(h plumbing.Hash) []byte { return []byte(h.String() + "\n") }

// commitRefLock moves a ref the way git does: its lock file, which holds
// the new value, renamed over the ref, so that the ref is the old value or
// the new one, whole, and the lock is gone the moment the ref moves.
func commitRefLock(common, lock, ref string) error {
	if err := safefile.Rename(common, lock, ref); err != nil {
		return err
	}
	return jsonl.SyncDir(filepath.Dir(ref))
}

func short(h plumbing.Hash) string { return h.String()[:12] }
