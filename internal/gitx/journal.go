package gitx

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/crashpoint"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// A merge that writes anything first writes its journal, one per base, in
// the clone's state folder. The journal names every lock the merge takes
// (each holds the journal's nonce, or for a ref the hash it moves to), so
// that whoever holds the base's merge lock next knows that a lock with
// that content is a dead merge's and can finish the merge or undo it; and
// its phase says which: docs/merging.md has the table of every write point.
const (
	// phaseLearning: the task worktree's learned files are being
	// committed on the task branch. Undone: the learned files stay staged
	// or committed, both harmless.
	phaseLearning = "learning"
	// phasePrepared: the merge is computed and its objects written; the
	// checkout may be locked, nothing else changed. Undone.
	phasePrepared = "prepared"
	// phaseMoving: the base ref's lock is held with the merge's tip and the
	// base was at From under it; from here on the merge is finished:
	// the ref moved, the checkout brought to To, the merge recorded.
	phaseMoving = "moving"
	// phaseRemoving: the merge is verified and the task's worktree was
	// found clean; its removal is finished.
	phaseRemoving = "removing"
)

type journal struct {
	Nonce  string `json:"nonce"`
	Phase  string `json:"phase"`
	Task   string `json:"task"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Kind   string `json:"kind,omitempty"`
	// From and To are the base's tip before and after.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Learned is the task branch's move by the learned commit.
	LearnedFrom string `json:"learned_from,omitempty"`
	LearnedTo   string `json:"learned_to,omitempty"`
	// Checkout is the worktree with the base checked out; TaskWorktree
	// the task's own, with its git folder.
	Checkout       string `json:"checkout,omitempty"`
	CheckoutGitDir string `json:"checkout_git_dir,omitempty"`
	TaskWorktree   string `json:"task_worktree,omitempty"`
	TaskGitDir     string `json:"task_git_dir,omitempty"`
	KeepWorktree   bool   `json:"keep_worktree,omitempty"`
	Started        string `json:"started"`

	path string
}

func journalDir(common string) string {
	return (&project.Project{CommonDir: common}).StatePath(project.MergeJournals)
}

func journalPath(common, base string) string {
	return filepath.Join(journalDir(common), TaskName(base)+".json")
}

func newNonce() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// save writes the journal whole (a crash leaves the old one or the new),
// at phase.
func (j *journal) save(common, phase string) error {
	j.Phase = phase
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(common, filepath.Dir(j.path), 0o755); err != nil {
		return err
	}
	if err := jsonl.WriteFileAtomic(common, j.path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record the merge's journal %s: %w", j.path, err)
	}
	crashpoint.Hit("merge:journal-" + phase)
	return nil
}

// remove deletes the journal: the merge is over.
func (j *journal) remove(common string) error {
	if err := safefile.Remove(common, j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return jsonl.SyncDir(filepath.Dir(j.path))
}

func readJournal(path string) (*journal, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	j := &journal{}
	if err := json.Unmarshal(b, j); err != nil || j.Nonce == "" || j.Base == "" {
		return nil, fmt.Errorf("%s: not a merge journal (remove it once no devlearn merge runs)", path)
	}
	j.path = path
	return j, nil
}

// journals lists the journals of the clone's interrupted (or running)
// merges.
func journals(common string) ([]*journal, error) {
	ents, err := os.ReadDir(journalDir(common))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*journal
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		j, err := readJournal(filepath.Join(journalDir(common), e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // finished meanwhile
		}
		if err != nil {
			return out, err
		}
		out = append(out, j)
	}
	return out, nil
}

// lockMarker is what devlearn writes in an index.lock it holds: no git
// command reads a lock's content, and the nonce ties it to one journal.
func lockMarker(nonce string) []byte { return []byte(lockPrefix + nonce + "\n") }

const lockPrefix = "devlearn merge "

// createLock creates the lock file at path holding content, exclusively
// and whole: the content goes into a file of its own that is then linked
// at path (link(2) fails if path exists), so that a crash never leaves a
// lock whose content does not say whose it is. root is the git folder
// path is in; common the clone's, whose state folder holds the file.
func createLock(common, root, path string, content []byte, nonce string) error {
	tmp := lockTemp(common, path, nonce)
	if err := safefile.MkdirAll(common, filepath.Dir(tmp), 0o755); err != nil {
		return err
	}
	if err := safefile.WriteFile(common, tmp, content, 0o644); err != nil {
		return err
	}
	defer safefile.Remove(common, tmp)
	// path is below common too: the git folder of a linked worktree is
	// common/worktrees/NAME.
	err := safefile.Link(common, tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: an exclusive create, then the
	// content (a crash between the two leaves an empty lock, which is
	// never taken for ours).
	f, err := safefile.OpenFile(root, path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lockTemp is where createLock writes a lock's content first: in the
// clone's state folder (the git folder's file system, so it can be
// linked), never beside a ref, where git would read a stray file as a
// branch.
func lockTemp(common, path, nonce string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(journalDir(common), "."+nonce+"-"+hex.EncodeToString(sum[:6])+".lock-tmp")
}

// ownLock reports whether the lock at path holds exactly content: a lock
// the journal's merge took.
func ownLock(path string, content []byte) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, content)
}

// dropLock removes the lock at path when it is ours, and the file its
// content was written to if a crash left it.
func dropLock(common, root, path string, content []byte, nonce string) {
	if ownLock(path, content) {
		safefile.Remove(root, path)
	}
	safefile.Remove(common, lockTemp(common, path, nonce))
}
