package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/settings"
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

// withInstalled adds the agents whose hook files already hold devlearn's
// hooks, so that a plain 'devlearn init' keeps them current too.
func withInstalled(p *project.Project, agents []*agent.Agent) []*agent.Agent {
	for _, a := range agent.All() {
		if slices.Contains(agents, a) {
			continue
		}
		if d, err := readHookFile(p.Path(a.HookFile), a.HookFile, a.Profile); err == nil && d.file.Any() {
			agents = append(agents, a)
		}
	}
	return agents
}

// planAgentHooks registers devlearn's hooks in an agent's hook file,
// merged into what is there, exactly as for Claude Code's settings.
func (r *initResult) planAgentHooks(p *project.Project, a *agent.Agent) {
	d, err := readHookFile(p.Path(a.HookFile), a.HookFile, a.Profile)
	if data, ok := r.changes.Pending(a.HookFile); ok && err == nil {
		d.before, d.exists = data, true
		d.file, err = settings.ParseAs(a.HookFile, data, a.Profile)
	}
	if err != nil {
		r.fail(a.HookFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init --agent %s' again)", err, a.Name))
		return
	}
	d.file.Enable()
	note := a.Title + ": devlearn's hooks already registered"
	if d.changed() {
		note = a.Title + ": registered devlearn's hooks (guarded: harmless without devlearn)"
		if a.Enable != "" {
			note += "; then " + a.Enable
		}
		r.changes.Set(a.HookFile, d.file.Bytes(), false)
	}
	r.Steps = append(r.Steps, step{Action: d.action(), Path: a.HookFile, Note: note})
}

// planAgentMCP registers devlearn's MCP server (the agent tools) in the
// agent's own file.
func (r *initResult) planAgentMCP(p *project.Project, a *agent.Agent) {
	if a.MCPFile == "" {
		return
	}
	data, existed, err := r.changes.Read(p, a.MCPFile)
	if err != nil {
		r.fail(a.MCPFile, err)
		return
	}
	out, changed, kept, err := install.EditMCP(a.MCPFile, data, false)
	switch {
	case err != nil:
		r.fail(a.MCPFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init --agent %s' again)", err, a.Name))
	case kept:
		r.Steps = append(r.Steps, step{Action: "kept", Path: a.MCPFile, Note: a.Title + ": a server named devlearn that is not devlearn's is there; devlearn's agent tools are not registered"})
	case !changed:
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: a.MCPFile, Note: a.Title + ": devlearn's MCP server already registered"})
	default:
		r.changes.Set(a.MCPFile, out, false)
		action := "updated"
		if !existed {
			action = "created"
		}
		r.Steps = append(r.Steps, step{Action: action, Path: a.MCPFile, Note: a.Title + ": devlearn's MCP server ('devlearn mcp'), other servers kept"})
	}
}
