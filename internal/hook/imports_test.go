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
		switch {
		case dep == "net/http", dep == "github.com/go-git/go-git/v5",
			strings.HasPrefix(dep, "github.com/go-git/go-git/v5/plumbing/transport"),
			strings.HasPrefix(dep, "github.com/modelcontextprotocol/"),
			strings.HasPrefix(dep, "github.com/devlearn/devlearn/internal/mcp"),
			strings.HasPrefix(dep, "github.com/google/jsonschema-go/"),
			strings.HasPrefix(dep, "github.com/charmbracelet/"), strings.HasPrefix(dep, "charm.land/"),
			strings.HasPrefix(dep, "github.com/spf13/cobra"):
			t.Errorf("internal/hook depends on %s", dep)
		}
	}
}
