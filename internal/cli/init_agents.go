package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agent/codex/configtoml"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
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
	if data, ok := r.pendingData(a.HookFile); ok && err == nil {
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
		r.setChange(a.HookFile, d.file.Bytes(), false)
	}
	r.Steps = append(r.Steps, step{Action: d.action(), Path: a.HookFile, Note: note})
}

// uninstallAgentHooks takes devlearn's hooks out of every agent's hook
// file, keeping everything else; a file that init created for them alone
// (or devlearn's own) goes.
func (r *initResult) uninstallAgentHooks(p *project.Project) {
	for _, a := range agent.All() {
		data, existed, err := r.readAgentFile(p, a.HookFile)
		if err != nil {
			r.fail(a.HookFile, fmt.Errorf("%w (left untouched)", err))
			continue
		}
		if !existed {
			continue
		}
		f, err := settings.ParseAs(a.HookFile, data, a.Profile)
		if err != nil {
			r.fail(a.HookFile, fmt.Errorf("%w (left untouched)", err))
			continue
		}
		removed := f.Disable()
		if len(removed) == 0 {
			continue
		}
		if f.Empty() && (a.Own || devlearnCreated(p, a.HookFile)) {
			r.setChange(a.HookFile, nil, true)
			r.Steps = append(r.Steps, step{Action: "removed", Path: a.HookFile, Note: a.Title + ": init created it for devlearn's hooks alone"})
			continue
		}
		r.setChange(a.HookFile, f.Bytes(), false)
		r.Steps = append(r.Steps, step{Action: "updated", Path: a.HookFile, Note: fmt.Sprintf("%s: removed %s; everything else kept", a.Title, plural(len(removed), "devlearn hook", "devlearn hooks"))})
	}
}

// agentHookFiles are the agents' hook and MCP files, for removing the
// folders uninstall leaves empty.
func agentHookFiles() []string {
	var out []string
	for _, a := range agent.All() {
		out = append(out, a.HookFile)
		if a.MCPFile != "" {
			out = append(out, a.MCPFile)
		}
	}
	return out
}

// pendingData is what the batch will write to rel, if it writes it: an
// agent whose hooks and MCP server share a file (Gemini CLI's settings)
// edits it twice, the second edit on the first.
func (r *initResult) pendingData(rel string) ([]byte, bool) {
	for i := len(r.changes) - 1; i >= 0; i-- {
		if c := r.changes[i]; c.Path == rel && !c.Remove {
			return c.Data, true
		}
	}
	return nil, false
}

// setChange writes data to rel in the batch, replacing an earlier edit of
// it.
func (r *initResult) setChange(rel string, data []byte, remove bool) {
	for i, c := range r.changes {
		if c.Path == rel {
			r.changes[i] = evolve.Change{Path: rel, Data: data, Remove: remove}
			return
		}
	}
	r.changes = append(r.changes, evolve.Change{Path: rel, Data: data, Remove: remove})
}

// readAgentFile is rel as the batch leaves it: an earlier edit, else the
// file (nil when there is none).
func (r *initResult) readAgentFile(p *project.Project, rel string) ([]byte, bool, error) {
	if data, ok := r.pendingData(rel); ok {
		return data, true, nil
	}
	data, err := os.ReadFile(p.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// editMCP registers (or, with remove, unregisters) devlearn's MCP server
// in an agent's own server list: the person's other servers and settings
// are kept; a server named devlearn that is not devlearn's is left alone.
func editMCP(rel string, data []byte, remove bool) (out []byte, changed, kept bool, err error) {
	if rel == configtoml.File {
		if remove {
			out, changed, err = configtoml.Unregister(data)
			return out, changed, false, err
		}
		return configtoml.Register(data)
	}
	f, err := settings.ParseMCP(rel, data)
	if err != nil {
		return data, false, false, err
	}
	f.Untyped = true
	if remove {
		changed = f.Unregister()
		return f.Bytes(), changed, false, nil
	}
	changed, kept = f.Register()
	return f.Bytes(), changed, kept, nil
}

// planAgentMCP registers devlearn's MCP server (the agent tools) in the
// agent's own file.
func (r *initResult) planAgentMCP(p *project.Project, a *agent.Agent) {
	if a.MCPFile == "" {
		return
	}
	data, existed, err := r.readAgentFile(p, a.MCPFile)
	if err != nil {
		r.fail(a.MCPFile, err)
		return
	}
	out, changed, kept, err := editMCP(a.MCPFile, data, false)
	switch {
	case err != nil:
		r.fail(a.MCPFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init --agent %s' again)", err, a.Name))
	case kept:
		r.Steps = append(r.Steps, step{Action: "kept", Path: a.MCPFile, Note: a.Title + ": a server named devlearn that is not devlearn's is there; devlearn's agent tools are not registered"})
	case !changed:
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: a.MCPFile, Note: a.Title + ": devlearn's MCP server already registered"})
	default:
		r.setChange(a.MCPFile, out, false)
		action := "updated"
		if !existed {
			action = "created"
		}
		r.Steps = append(r.Steps, step{Action: action, Path: a.MCPFile, Note: a.Title + ": devlearn's MCP server ('devlearn mcp'), other servers kept"})
	}
}

// uninstallAgentMCP takes devlearn's MCP server out of each agent's own
// file; a file init created for it alone goes.
func (r *initResult) uninstallAgentMCP(p *project.Project) {
	for _, a := range agent.All() {
		if a.MCPFile == "" {
			continue
		}
		data, existed, err := r.readAgentFile(p, a.MCPFile)
		if err != nil || !existed {
			continue
		}
		out, changed, _, err := editMCP(a.MCPFile, data, true)
		switch {
		case err != nil:
			r.fail(a.MCPFile, fmt.Errorf("%w (left untouched)", err))
		case !changed:
		case emptyFile(a.MCPFile, out) && devlearnCreated(p, a.MCPFile):
			r.setChange(a.MCPFile, nil, true)
			r.Steps = append(r.Steps, step{Action: "removed", Path: a.MCPFile, Note: a.Title + ": init created it for devlearn alone"})
		default:
			r.setChange(a.MCPFile, out, false)
			r.Steps = append(r.Steps, step{Action: "updated", Path: a.MCPFile, Note: a.Title + ": removed devlearn's MCP server; everything else kept"})
		}
	}
}

// emptyFile reports a file left with nothing in it.
func emptyFile(rel string, data []byte) bool {
	t := strings.TrimSpace(string(data))
	return t == "" || (strings.HasSuffix(rel, ".json") && strings.Join(strings.Fields(t), "") == "{}")
}
