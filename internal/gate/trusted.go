package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/trust"
)

// InForce is the gates that may run for a project (the trust rule, docs/architecture.md). Every gate
// runs this folder's own code (its tests, its scripts), the global
// config's as much as the project's, so none runs in a folder nobody
// trusted on this machine: a fresh clone runs no gate until a person has
// read it and run 'devlearn trust'.
type InForce struct {
	Gates config.Gates
	// Untrusted is empty when the gates are in force (or there are none);
	// otherwise why none runs, and what to do about it.
	Untrusted string
	// Held are the gates that would run once the folder is trusted.
	Held *config.Gates `json:",omitempty"`
}

// Trusted returns the gates in force for the project at root, given its
// config as loaded (global, then project). home is $DEVLEARN_HOME.
func Trusted(home, root string, cfg *config.Config) (*InForce, error) {
	if len(All(cfg.Gates)) == 0 {
		return &InForce{Gates: cfg.Gates}, nil
	}
	path := filepath.Join(root, filepath.FromSlash(project.ConfigFile))
	ok, why, err := trust.CheckFiles(home, path, Files(root, cfg.Gates))
	if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
		// trust.Check needs no trust for a missing file, which names no
		// command; the gates here come from elsewhere and still run the
		// folder's code.
		ok, why = false, fmt.Sprintf("it has no %s to trust: run 'devlearn init', then 'devlearn trust'", project.ConfigFile)
	}
	if err != nil {
		return nil, err
	}
	if ok {
		return &InForce{Gates: cfg.Gates}, nil
	}
	held := cfg.Gates
	return &InForce{
		Held:      &held,
		Untrusted: "the gates were not run: this folder is not trusted on this machine (" + why + ")",
	}, nil
}

// All lists every gate of g: the stages' before and after, then stop.
func All(g config.Gates) []config.Gate {
	var out []config.Gate
	for _, s := range config.Stages {
		pre, _ := g.Pre.For(s)
		post, _ := g.Post.For(s)
		out = append(append(out, pre...), post...)
	}
	return append(out, g.Stop...)
}

// CheckWorktree says why the gates may not run in worktree, the folder a
// task's log names for them, when it is not the project's own root. The
// log is committed and merged, so it is no decision of this machine's
// person: the folder must be a working tree of this clone (git's own list),
// and each script the gates name must be there as it was trusted in the
// project, or the gates would run what nobody trusted.
func CheckWorktree(root, worktree string, g config.Gates) error {
	if filepath.Clean(worktree) == filepath.Clean(root) {
		return nil
	}
	p, err := project.Find(root)
	if err != nil {
		return err
	}
	known := false
	for _, t := range p.Worktrees() {
		known = known || sameDir(t.Root, worktree)
	}
	if !known {
		return fmt.Errorf("the task's worktree %s is not a working tree of this repository ('git worktree list'); its gates run only in one", worktree)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	realTree, err := filepath.EvalSymlinks(worktree)
	if err != nil {
		return err
	}
	for _, f := range Files(worktree, g) {
		rel, err := filepath.Rel(realTree, f)
		if err != nil {
			continue
		}
		there, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		trusted, err := os.ReadFile(filepath.Join(realRoot, rel))
		if err != nil || !bytes.Equal(there, trusted) {
			return fmt.Errorf("%s in the task's worktree is not the one trusted in %s: review the change, bring it into the project, then 'devlearn trust'", filepath.ToSlash(rel), root)
		}
	}
	return nil
}

func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}
