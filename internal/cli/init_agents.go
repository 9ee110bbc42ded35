package cli

import (
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/exitcode"
)

// agentsNamed resolves init's --agent values: names, or "all".
func agentsNamed(names []string) ([]*agent.Agent, error) {
	var out []*agent.Agent
	for _, n := range names {
		for _, one := range strings.Split(n, ",") {
			one = strings.ToLower(strings.TrimSpace(one))
			switch a, ok := agent.Lookup(one); {
			case one == "all":
				for _, a := range agent.All() {
					if !slices.Contains(out, a) {
						out = append(out, a)
					}
				}
			case one == "claude" || one == "claude-code":
				// Claude Code's hooks are always registered.
			case !ok:
				return nil, exitcode.Usagef("--agent %q: devlearn knows %s, all (Claude Code's hooks are always registered)", one, strings.Join(agent.Names(), ", "))
			case !slices.Contains(out, a):
				out = append(out, a)
			}
		}
	}
	return out, nil
}
