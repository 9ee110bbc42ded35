package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptParams is the environment every script starts from: a private home,
// a fixed clock unless the script sets its own, and git that never reads the
// machine's config.
func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, ".home")
			e.Setenv("HOME", home)
			e.Setenv("DEVLEARN_HOME", filepath.Join(home, ".devlearn"))
			e.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			e.Setenv("GIT_AUTHOR_NAME", "Test")
			e.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			e.Setenv("GIT_COMMITTER_NAME", "Test")
			e.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			e.Setenv("NO_COLOR", "1")
			return nil
		},
	}
}
