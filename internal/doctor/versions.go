package doctor

import (
	"path/filepath"

	"github.com/devlearn/devlearn/internal/agent/codex/configtoml"
	"github.com/devlearn/devlearn/internal/agentver"
)

// claudeVersion says what the installed Claude Code receives; its hooks
// are always registered, so the check is always there.
func claudeVersion(in Inputs) Check { return AgentVersion(in, agentver.Claude, "Claude Code") }

// AgentVersion says what the installed version of an agent will and will
// not receive of what devlearn gives (internal/agentver's table), with
// the fix; init says the same. A version whose hooks do not run at all
// fails; one that drops part of it is a note, as is a gap whose versions
// are not known.
func AgentVersion(in Inputs, agent, title string) Check {
	var f agentver.Found
	if in.Version != nil {
		f = in.Version(agent)
	}
	optFile := ""
	if agent == "codex" {
		if on, file := configtoml.OptedIn(in.Proj.Path(configtoml.File), filepath.Join(in.CodexHome, "config.toml")); on {
			optFile = file
		}
	}
	detail, fix, level := agentver.Effect(agent, f, optFile)
	return VersionCheck(title, detail, fix, level)
}

// VersionCheck is the check of what an agent's installed version
// receives (agentver.Effect), as doctor and init show it.
func VersionCheck(title, detail, fix string, level agentver.Level) Check {
	name := title + " version"
	switch {
	case level == agentver.Nothing:
		return fail(name, detail, fix)
	case fix != "":
		return note(name, detail, fix)
	}
	return ok(name, detail)
}
