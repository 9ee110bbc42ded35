package hook

import (
	"os/exec"
	"strings"
	"testing"
)

// Every hook is a process of its own, on the agent's clock: the hook path
// links nothing heavy (a TUI, git's root package or its transports, an
// HTTP stack, the command-line framework, the MCP SDK). The phrase
// tables, the keep detector and the inference words it reads for a
// prompt are parsed on first use, not at start. A structural guard, not a
// timed one.
func TestHookImportsStayLight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"net/http", "github.com/charmbracelet/", "github.com/spf13/cobra", "github.com/modelcontextprotocol/", "github.com/go-git/go-git/v5/plumbing/transport"} {
			if dep == heavy || strings.HasPrefix(dep, heavy) {
				t.Errorf("internal/hook depends on %s", dep)
			}
		}
		if dep == "github.com/go-git/go-git/v5" {
			t.Errorf("internal/hook depends on go-git's root package")
		}
	}
}
