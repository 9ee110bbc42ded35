package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/project"
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
		r.changes = append(r.changes, evolve.Change{Path: a.HookFile, Data: d.file.Bytes()})
	}
	r.Steps = append(r.Steps, step{Action: d.action(), Path: a.HookFile, Note: note})
}

// uninstallAgentHooks takes devlearn's hooks out of every agent's hook
// file, keeping everything else; a file that init created for them alone
// (or devlearn's own) goes.
func (r *initResult) uninstallAgentHooks(p *project.Project) {
	for _, a := range agent.All() {
		d, err := readHookFile(p.Path(a.HookFile), a.HookFile, a.Profile)
		if err != nil {
			r.fail(a.HookFile, fmt.Errorf("%w (left untouched)", err))
			continue
		}
		if !d.exists {
			continue
		}
		removed := d.file.Disable()
		if len(removed) == 0 {
			continue
		}
		if d.file.Empty() && (a.Own || devlearnCreated(p, a.HookFile)) {
			r.changes = append(r.changes, evolve.Change{Path: a.HookFile, Remove: true})
			r.Steps = append(r.Steps, step{Action: "removed", Path: a.HookFile, Note: a.Title + ": init created it for devlearn's hooks alone"})
			continue
		}
		r.changes = append(r.changes, evolve.Change{Path: a.HookFile, Data: d.file.Bytes()})
		r.Steps = append(r.Steps, step{Action: "updated", Path: a.HookFile, Note: fmt.Sprintf("%s: removed %s; everything else kept", a.Title, plural(len(removed), "devlearn hook", "devlearn hooks"))})
	}
}

// agentHookFiles are the agents' hook files, for removing the folders
// uninstall leaves empty.
func agentHookFiles() []string {
	var out []string
	for _, a := range agent.All() {
		out = append(out, a.HookFile)
	}
	return out
}
