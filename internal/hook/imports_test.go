package hook

import (
	"os/exec"
	"strings"
	"testing"
)

// Every hook event runs this package and what it imports, the Stop gates
// included: none of it may bring in the MCP SDK (the agent tools live
// behind 'devlearn mcp', not here), an HTTP stack, a TUI, cobra, or
// go-git's root package and transports. A structural guard, not a timed
// one.
func TestImportsStayLight(t *testing.T) {
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
			strings.HasPrefix(dep, "github.com/charmbracelet/"),
			strings.HasPrefix(dep, "github.com/spf13/cobra"):
			t.Errorf("internal/hook depends on %s", dep)
		}
	}
}
