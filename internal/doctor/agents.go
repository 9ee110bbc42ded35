package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/devlearn/devlearn/internal/agent"
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
		name := a.Title + " hooks"
		data, err := os.ReadFile(in.Proj.Path(a.HookFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			out = append(out, fail(name, err.Error(), "make "+a.HookFile+" readable"))
			continue
		}
		f, err := settings.ParseAs(a.HookFile, data, a.Profile)
		if err != nil {
			out = append(out, fail(name, err.Error(), "fix the JSON at the place named, then run devlearn doctor again"))
			continue
		}
		if !f.Any() {
			continue
		}
		if p := f.Problems(); len(p) > 0 {
			out = append(out, fail(name, a.HookFile+": "+strings.Join(p, "; "), "devlearn init --agent "+a.Name))
			continue
		}
		if off, fix := switchedOff(in, a.Name, data); off != "" {
			out = append(out, fail(name, off, fix))
			continue
		}
		detail := fmt.Sprintf("in %s, guarded; cannot inject: %s", a.HookFile, a.Cannot)
		next := a.Enable
		if a.Name == "copilot" && claudeHooksRegistered(in) {
			// Copilot CLI also runs the hooks in .claude/settings.json.
			detail += "; Copilot CLI also runs the Claude Code hooks in " + project.SettingsFile + ", so session start is served twice"
			next = "accept the repeat, or delete " + a.HookFile + " (Copilot then runs only the Claude Code hooks, whose output it may not honour)"
		}
		if next == "" {
			out = append(out, ok(name, detail))
			continue
		}
		out = append(out, note(name, detail, next))
	}
	return out
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
		data, err := os.ReadFile(in.Proj.Path(".codex/config.toml"))
		if err != nil {
			return "", ""
		}
		var c struct {
			Features map[string]any `toml:"features"`
		}
		if _, err := toml.Decode(string(data), &c); err != nil {
			return "", ""
		}
		for _, k := range []string{"hooks", "codex_hooks"} {
			if v, ok := c.Features[k].(bool); ok && !v {
				return fmt.Sprintf(".codex/config.toml sets [features] %s = false: Codex runs no hook", k), "remove it, or set it to true"
			}
		}
	}
	return "", ""
}
