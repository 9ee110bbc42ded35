// Package demo holds devlearn's demo: the sample project it starts from and
// the scripted days of sessions it replays through the real commands.
package demo

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/templates"
)

// WriteSample writes the embedded sample project into dir (which must be
// empty or missing) as a git repository with one commit, made with go-git
// so the demo needs no git on the PATH.
func WriteSample(dir string, at time.Time) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; give the demo an empty or new folder", dir)
	}
	if err := safefile.MkdirRoot(dir, 0o755); err != nil {
		return err
	}
	err := fs.WalkDir(templates.Demo, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := templates.Demo.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "demo/")))
		if err := safefile.MkdirAll(dir, filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Ext(p) == ".sh" {
			mode = 0o755
		}
		return safefile.WriteFile(dir, dst, data, mode)
	})
	if err != nil {
		return err
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return err
	}
	sig := &object.Signature{Name: "devlearn demo", Email: "demo@devlearn.invalid", When: at}
	_, err = wt.Commit("acme-notes: initial import", &git.CommitOptions{Author: sig, Committer: sig})
	return err
}
