package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agent/codex/configtoml"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/settings"
)

// agents checks each other agent whose hook file registers devlearn: the
// registration exactly as init writes it, then what the person must still
// do and what that agent cannot be given (a note, not a failure). An agent
// devlearn is not installed for is not mentioned.
func agents(in Inputs) []Check {
	var out []Check
	for _, a := range agent.All() {
		c, installed := agentHooks(in, a)
		if !installed {
			continue
		}
		out = append(out, c, AgentVersion(in, a.Name, a.Title))
		if a.MCPFile == configtoml.File {
			out = append(out, codexMCP(in, a))
		}
	}
	return out
}

// agentHooks checks one agent's hook file; installed is false when it
// does not register devlearn (nothing to say).
func agentHooks(in Inputs, a *agent.Agent) (Check, bool) {
	name := a.Title + " hooks"
	data, err := os.ReadFile(in.Proj.Path(a.HookFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Check{}, false
	}
	if err != nil {
		return fail(name, err.Error(), "make "+a.HookFile+" readable"), true
	}
	f, err := settings.ParseAs(a.HookFile, data, a.Profile)
	if err != nil {
		return fail(name, err.Error(), "fix the JSON at the place named, then run devlearn doctor again"), true
	}
	if !f.Any() {
		return Check{}, false
	}
	if p := f.Problems(); len(p) > 0 {
		return fail(name, a.HookFile+": "+strings.Join(p, "; "), "devlearn init --agent "+a.Name), true
	}
	if off, fix := switchedOff(in, a.Name, data); off != "" {
		return fail(name, off, fix), true
	}
	detail := fmt.Sprintf("in %s, guarded; cannot inject: %s", a.HookFile, a.Cannot)
	next := a.Enable
	if a.Name == "copilot" && claudeHooksRegistered(in) {
		// Copilot CLI also runs the hooks in .claude/settings.json.
		detail += "; Copilot CLI also runs the Claude Code hooks in " + project.SettingsFile + ", so session start is served twice"
		next = a.Enable + "; accept the repeat, or delete " + a.HookFile + " (Copilot then runs only the Claude Code hooks, whose output it may not honour)"
	}
	if next == "" {
		return ok(name, detail), true
	}
	return note(name, detail, next), true
}

// codexMCP checks devlearn's MCP server in the project's Codex config as
// init registers it: the file parses as TOML (Codex reads none of it
// otherwise), and the server is there, devlearn's.
func codexMCP(in Inputs, a *agent.Agent) Check {
	name := a.Title + " MCP server"
	data, err := os.ReadFile(in.Proj.Path(configtoml.File))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(name, err.Error(), "make "+configtoml.File+" readable")
	}
	state, err := configtoml.ServerState(data)
	switch {
	case err != nil:
		return fail(name, err.Error()+": Codex reads none of this file", "fix the TOML at the place named, then run devlearn doctor again")
	case state == configtoml.Other:
		return fail(name, "the server named devlearn in "+configtoml.File+" is not devlearn's ('devlearn mcp')", "rename or remove it, then devlearn init --agent "+a.Name)
	case state == configtoml.Absent:
		return fail(name, "devlearn's server is not in "+configtoml.File+": Codex offers no agent tools", "devlearn init --agent "+a.Name)
	}
	return ok(name, "devlearn's server in "+configtoml.File+" ('devlearn mcp')")
}

func claudeHooksRegistered(in Inputs) bool {
	data, err := os.ReadFile(in.Proj.Path(project.SettingsFile))
	if err != nil {
		return false
	}
	f, err := settings.Parse(project.SettingsFile, data)
	return err == nil && f.Any()
}

// switchedOff names a project setting that keeps the agent from running
// any hook, with its fix: Gemini CLI's hooksConfig.enabled false (or
// devlearn's hooks in hooksConfig.disabled), Codex's [features] hooks (or
// codex_hooks) false in .codex/config.toml.
func switchedOff(in Inputs, agentName string, hookFile []byte) (string, string) {
	switch agentName {
	case "gemini":
		var s struct {
			HooksConfig struct {
				Enabled  *bool    `json:"enabled"`
				Disabled []string `json:"disabled"`
			} `json:"hooksConfig"`
		}
		if json.Unmarshal(hookFile, &s) != nil {
			return "", ""
		}
		if e := s.HooksConfig.Enabled; e != nil && !*e {
			return ".gemini/settings.json sets hooksConfig.enabled to false: Gemini CLI runs no hook", "remove it, or set it to true"
		}
		for _, d := range s.HooksConfig.Disabled {
			if strings.HasPrefix(d, "devlearn-") {
				return fmt.Sprintf(".gemini/settings.json disables %s (hooksConfig.disabled)", d), "take devlearn's hooks out of hooksConfig.disabled, or '/hooks enable' them in Gemini CLI"
			}
		}
	case "codex":
		set, err := configtoml.Features(in.Proj.Path(".codex/config.toml"))
		if err != nil {
			return "", "" // codexMCP names the place
		}
		for _, k := range configtoml.HooksFeatures {
			if v, ok := set[k]; ok && !v {
				return fmt.Sprintf(".codex/config.toml sets [features] %s = false: Codex runs no hook", k), "remove it, or set it to true"
			}
		}
	}
	return "", ""
}
