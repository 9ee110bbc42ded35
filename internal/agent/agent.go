// Package agent lists the coding agents besides Claude Code whose hooks
// devlearn serves: for each, its adapter (internal/agent/<name>), where
// its hook file lives and how devlearn's hooks are laid out in it, and
// what it cannot do, for doctor. It is on the hook path: it imports the
// adapters and nothing heavy.
package agent

import (
	"path/filepath"
	"slices"

	"github.com/devlearn/devlearn/internal/agent/codex"
	"github.com/devlearn/devlearn/internal/agent/copilot"
	"github.com/devlearn/devlearn/internal/agent/cursor"
	"github.com/devlearn/devlearn/internal/agent/gemini"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/settings"
)

// Agent is one agent devlearn serves besides Claude Code.
type Agent struct {
	Name  string // on the command line: devlearn hook NAME EVENT
	Title string
	Codec hook.Codec
	// HookFile is the project file (from the repository's root) that
	// registers the agent's hooks; Profile lays devlearn's out in it.
	HookFile string
	Profile  settings.Profile
	// Own: devlearn owns HookFile and removes it whole on uninstall
	// (Copilot reads every file in .github/hooks/).
	Own bool
	// MCPFile is where the agent reads a project's MCP servers, when not
	// the .mcp.json init always writes (Copilot reads that one).
	MCPFile string
	// Cannot names the moments at which the agent cannot be given
	// context, with what devlearn does instead (shown by doctor).
	Cannot string
	// Enable is what a person must still do for the installed hooks to
	// run (trust, a setting), "" when nothing.
	Enable string
}

var all = []*Agent{
	{
		Name: codex.Name, Title: "Codex CLI", Codec: codex.Codec{},
		HookFile: codex.HookFile, Profile: codex.Profile, MCPFile: ".codex/config.toml",
		Cannot: "Stop and SessionEnd take no context; PreToolUse cannot ask the person (devlearn's question goes to the agent as context); SessionEnd exists only from Codex 0.145 (older ones spool nothing at the end)",
		Enable: "trust the project, then review and trust devlearn's hooks in Codex's /hooks (Codex runs no hook it has not been told to trust)",
	},
	{
		Name: gemini.Name, Title: "Gemini CLI", Codec: gemini.Codec{},
		HookFile: gemini.HookFile, Profile: gemini.Profile, MCPFile: gemini.HookFile,
		Cannot: "BeforeTool takes no context: knowledge for a tool call is served after it, with its result (AfterTool); SessionEnd is not waited for",
		Enable: "trust the folder (Gemini CLI runs no project hook in an untrusted one); hooks must not be off (hooksConfig.enabled)",
	},
	{
		Name: cursor.Name, Title: "Cursor", Codec: cursor.Codec{},
		HookFile: cursor.HookFile, Profile: cursor.Profile, MCPFile: ".cursor/mcp.json",
		Cannot: "sessionStart is the one moment that takes context: nothing is served per prompt or per tool call; stop only sends a follow-up message",
		Enable: "trust the workspace (Cursor runs project hooks only there)",
	},
	{
		Name: copilot.Name, Title: "GitHub Copilot CLI", Codec: copilot.Codec{},
		HookFile: copilot.HookFile, Profile: copilot.Profile, Own: true,
		Cannot: "no context before a tool call: knowledge for a call is served after it (postToolUse); versions before 1.0.65 drop userPromptSubmitted's context, some drop sessionStart's; devlearn registers no preToolUse, where a failing hook denies the call",
		Enable: "trust the folder (Copilot CLI loads a repository's hooks only in a folder it trusts)",
	},
}

// All lists the agents, in the order init --agent all installs them.
func All() []*Agent { return all }

// For is the agent's adapter as it runs on this machine: getenv gives
// the folders an agent's input does not name (Copilot's session logs).
func (a *Agent) For(getenv func(string) string) hook.Codec {
	if a.Name == copilot.Name {
		home := getenv("COPILOT_HOME")
		if h := getenv("HOME"); home == "" && h != "" {
			home = filepath.Join(h, ".copilot")
		}
		return copilot.Codec{Home: home}
	}
	return a.Codec
}

// Files lists the project files init writes for the agents besides
// Claude Code's (project.Written has those): each one's hooks and MCP
// servers, and the .mcp.json Claude Code reads. A symbolic link at one is
// refused before anything is written, as at every file devlearn writes.
func Files() []string {
	out := []string{settings.MCPFile}
	for _, a := range all {
		for _, f := range []string{a.HookFile, a.MCPFile} {
			if f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Lookup finds an agent by its command-line name.
func Lookup(name string) (*Agent, bool) {
	for _, a := range all {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// Names lists the agents' command-line names.
func Names() []string {
	var out []string
	for _, a := range all {
		out = append(out, a.Name)
	}
	return out
}

// Serves reports whether devlearn registers event for the agent: an
// event it does not register (Cursor's pre-tool-use, say) is not served
// even when run by hand, lest entries count as given that the agent
// could not show.
func (a *Agent) Serves(event string) bool {
	for _, h := range a.Profile.Hooks {
		if h.Sub == event {
			return true
		}
	}
	return false
}

// Events lists the devlearn events registered for the agent, once each.
func (a *Agent) Events() []string {
	var out []string
	for _, h := range a.Profile.Hooks {
		if !slices.Contains(out, h.Sub) {
			out = append(out, h.Sub)
		}
	}
	return out
}
