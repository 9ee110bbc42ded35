package evolve

import (
	"bytes"
	"context"
	"fmt"

	"github.com/devlearn/devlearn/internal/project"
)

// Conflict is a file of an entry that changed since the entry wrote it:
// reverting it would throw that change away.
type Conflict struct {
	Path string `json:"path"`
	// Wrote is what the entry left (its After), Now what is there
	// (blob hashes, "" = absent).
	Wrote string `json:"wrote"`
	Now   string `json:"now"`
	// Diff is the change made since, from what the entry wrote to what
	// is there now; empty when what the entry wrote is no longer kept.
	Diff string `json:"diff,omitempty"`
}

// RevertPlan is what reverting an entry would write.
type RevertPlan struct {
	Entry *Entry `json:"entry"`
	// Changes put every file back as it was before the entry, each
	// guarded on the content the plan was made from.
	Changes []Change `json:"-"`
	// Conflicts are the files changed since the entry; with them, the
	// revert is refused unless forced.
	Conflicts []Conflict `json:"conflicts"`
	// RevertedBy is the entry that already reverted this one, if any.
	RevertedBy string `json:"reverted_by,omitempty"`
}

// CannotRevert is an entry that can never be reverted, and why.
type CannotRevert struct{ Why string }

func (e *CannotRevert) Error() string { return e.Why }

// Merge merges three versions of a file devlearn keeps as its own record
// (the manifest), for a revert: base is what the reverted entry wrote,
// ours what is there now, theirs what was there before the entry (nil:
// absent). It returns what the revert writes, nil for no file.
type Merge func(base, ours, theirs []byte) ([]byte, error)

// PlanRevert plans the revert of entry e of p's audit log (entries is the
// whole log, as ReadLog returned it). Every file goes back to its content
// before the entry. A file changed since is a Conflict; the plan still
// holds its change, guarded on what is there now, for a forced revert (the
// current content is kept like any replaced content, so a revert can be
// reverted too).
//
// A file with a merge in merges is devlearn's own record: what changed in
// it since is devlearn's bookkeeping (a later curate or reconcile), never
// a person's edit, so it is no conflict. The revert takes back only what
// the entry changed in it and keeps the rest.
func PlanRevert(p *project.Project, entries []Entry, e *Entry, merges map[string]Merge) (*RevertPlan, error) {
	plan := &RevertPlan{Entry: e, Conflicts: []Conflict{}}
	kept := newCopies(p)
	defer kept.close()
	if by := RevertedBy(entries, e); by != nil {
		plan.RevertedBy = by.ID
	}
	for _, fc := range e.Files {
		if fc.Path == LogPath {
			return nil, &CannotRevert{Why: fmt.Sprintf("%s rewrote the audit log itself (devlearn redact): what it removed was never kept, so it cannot be reverted", e.ID)}
		}
		before, ok, err := content(kept, fc.Path, fc.Before)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &CannotRevert{Why: fmt.Sprintf("%s: what %s replaced is no longer kept (pruned from the snapshots, or scrubbed by devlearn redact); take it from git instead: git log -p -- %s", fc.Path, e.ID, fc.Path)}
		}
		cur, exists, err := Current(p, fc.Path)
		if err != nil {
			return nil, err
		}
		now := ""
		if exists {
			now = BlobHash(cur)
		}
		if now == fc.Before {
			continue // already as it was: nothing to revert, nothing lost
		}
		if m := merges[fc.Path]; m != nil && now != fc.After {
			ch, ok, err := mergeBack(kept, m, fc, cur, exists, before)
			if err != nil {
				return nil, err
			}
			if ok {
				if ch != nil {
					plan.Changes = append(plan.Changes, *ch)
				}
				continue
			}
		}
		if now != fc.After {
			c := Conflict{Path: fc.Path, Wrote: fc.After, Now: now}
			if wrote, ok, err := content(kept, fc.Path, fc.After); err != nil {
				return nil, err
			} else if ok {
				c.Diff = Unified(fc.Path, wrote, fc.After == "", cur, !exists)
			}
			plan.Conflicts = append(plan.Conflicts, c)
		}
		ch := Change{Path: fc.Path, Guard: true, Expect: now}
		if fc.Before == "" {
			ch.Remove = true
		} else {
			ch.Data = before
		}
		plan.Changes = append(plan.Changes, ch)
	}
	return plan, nil
}

// mergeBack is the change that takes back what fc changed in a file
// devlearn keeps as its own record, keeping what changed since: nil when
// the file is right as it is. ok is false when that cannot be done (what
// fc wrote is no longer kept, or the merge fails): the file is then a
// conflict like any other.
func mergeBack(kept *copies, m Merge, fc FileChange, cur []byte, exists bool, before []byte) (*Change, bool, error) {
	wrote, ok, err := content(kept, fc.Path, fc.After)
	if err != nil || !ok {
		return nil, false, err
	}
	ours := cur
	if !exists {
		ours = nil
	}
	if fc.Before == "" {
		before = nil
	}
	data, err := m(wrote, ours, before)
	if err != nil {
		return nil, false, nil
	}
	if data == nil && !exists || data != nil && exists && bytes.Equal(data, cur) {
		return nil, true, nil
	}
	now := ""
	if exists {
		now = BlobHash(cur)
	}
	return &Change{Path: fc.Path, Guard: true, Expect: now, Data: data, Remove: data == nil}, true, nil
}

// Revert writes a plan, with extra changes in the same batch (the manifest
// that follows the restored artifacts), as one entry of its own that names
// the entry it reverts. A file written since the plan was made refuses the
// whole batch (ChangedError). Nothing to write returns nil.
func (w *Writer) Revert(ctx context.Context, plan *RevertPlan, extra ...Change) (*Entry, error) {
	reason := Reason{
		Text:         fmt.Sprintf("revert %s (%s): %s", plan.Entry.ID, plan.Entry.Trigger.Command, plan.Entry.Reason.Text),
		Observations: plan.Entry.Reason.Observations,
		Reverts:      plan.Entry.ID,
	}
	changes := append(append([]Change{}, plan.Changes...), extra...)
	if len(changes) == 0 {
		return nil, nil
	}
	return w.Apply(ctx, reason, changes...)
}
