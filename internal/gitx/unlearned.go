package gitx

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Unlearned lists devlearn's own files (LearnedDirs, the folder's session
// state aside) in the working tree around dir that differ from its HEAD:
// what a merge commits itself in a task's worktree before removing it,
// and what is left for a person to commit in their own checkout. It reads
// only; a tree with no commit yet, or a detached HEAD, lists nothing.
func Unlearned(dir string) ([]string, error) {
	r, err := openRepo(dir)
	if err != nil {
		return nil, err
	}
	w := r.worktreeAt(dir)
	if w == nil || w.Branch == "" {
		return nil, nil
	}
	tip, err := r.branchHash(w.Branch)
	if err != nil {
		return nil, nil
	}
	c, err := object.GetCommit(r.Storer, tip)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	// The overlay is never flushed: the blobs hashed to compare stay in
	// memory.
	edits, err := learnedEdits(newOverlay(r.Storer), w.Root, r.common, tree)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(edits))
	for _, e := range edits {
		out = append(out, e.path)
	}
	sort.Strings(out)
	return out, nil
}
