package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the package's tests a home of their own: SystemEnv reads
// the process's $HOME and $DEVLEARN_HOME, and no test may reach the real
// ones.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "devlearn-cli-test-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", dir)
	os.Setenv("DEVLEARN_HOME", filepath.Join(dir, ".devlearn"))
	os.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(dir, ".claude"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
