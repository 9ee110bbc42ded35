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
	name := title + " version"
	var f agentver.Found
	if in.Version != nil {
		f = in.Version(agent)
	}
	optIn, optFile := false, ""
	if agent == "codex" {
		optIn, optFile = configtoml.OptedIn(in.Proj.Path(configtoml.File), filepath.Join(in.CodexHome, "config.toml"))
	}
	r := agentver.Assess(agent, f, func(agentver.Gap) bool { return optIn })
	detail, fix, level := r.Says()
	for _, g := range agentver.Of(agent) {
		if optIn && g.OptIn != "" && g.Applies(f.Version) {
			detail += "; hooks switched on by [features] " + g.OptIn + " = true in " + optFile
		}
	}
	switch {
	case level == agentver.Nothing:
		return fail(name, detail, fix)
	case fix != "":
		return note(name, detail, fix)
	}
	return ok(name, detail)
}
