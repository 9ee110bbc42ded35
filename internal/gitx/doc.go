// Package gitx merges a finished task into its base branch with go-git, so
// that what an agent learned in a task branch or linked worktree comes home
// with its code.
//
// It never runs git: the merge is computed on go-git's object model (merge
// base, tree changes on each side, per-file merges), written as a merge
// commit, published with a compare-and-swap on the base ref, and then
// carried into the checked-out files of the worktree that has the base, path
// by path. What go-git cannot do safely (filters such as Git LFS, repository
// formats it does not know, criss-cross histories) is refused before
// anything is written.
//
// devlearn's own files are merged by meaning, by one function (MergeFile)
// shared by devlearn merge (DefaultMergers) and the git merge driver
// (Drive, RunDriver, registered by DriverSettings and GitAttributes): the
// JSONL logs as sets of lines (MergeLog, MergeLines), the manifest by
// observation (MergeManifest), decisions.md and pitfalls.md by entry
// (MergeKnowledge). Resolve repairs those files when a merge ran without the
// driver, and SettleAnchors brings the manifest's anchors back in line with
// renumbered entries. See docs/merging.md.
package gitx
