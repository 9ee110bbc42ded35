package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// init's help names every file init writes: the run with every agent
// writes them all, and its own list of what it wrote is the one to check.
func TestInitHelpNamesEveryFileItWrites(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	var out bytes.Buffer
	root := NewRoot(testEnv(dir, &out))
	root.SetArgs([]string{"init", "--agent", "all", "--json"})
	if err := root.Execute(); err != nil {
		t.Fatalf("init: %v\n%s", err, out.String())
	}
	var res struct {
		Wrote []string `json:"wrote"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Wrote) == 0 {
		t.Fatalf("init --json: %v\n%s", err, out.String())
	}
	help := run(t, "init", "--help")
	for _, f := range res.Wrote {
		if !strings.Contains(help, f) {
			t.Errorf("init wrote %s, which its help does not name:\n%s", f, help)
		}
	}
}
