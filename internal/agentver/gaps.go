package agentver

// Gap is what the versions of an agent before a release do not give the
// model at one of its events, though devlearn prints it. docs/agents.md
// ("What each version receives") has the whole table per agent with the
// source of every cell; Gaps holds the rows init, doctor and the hooks act
// on.
type Gap struct {
	// Agent is devlearn's name for it: claude, codex, gemini, cursor,
	// copilot.
	Agent string
	// Event is the agent's own name for the event; "" is every event
	// (no hook runs at all).
	Event string
	// Since is the first release that takes it; "" when which versions
	// lose it is not confirmed upstream (the gap is then named, never
	// acted on).
	Since string
	// Lost is what the model does not receive there.
	Lost string
	// Fix is what the person can do about it.
	Fix string
	// Once: what is lost there is given at that event only, not at the
	// next one this version takes context at (a failure's fix is for its
	// error).
	Once bool
	// OptIn is the setting that makes an older version run hooks after
	// all (Codex's [features] codex_hooks), "" when there is none to
	// check; Or is how to set it, the fix short of upgrading.
	OptIn, Or string
	// Source is where the row comes from.
	Source string
}

// Gaps is the table. Keep it in step with docs/agents.md.
var Gaps = []Gap{
	{
		Agent: "claude", Event: "SessionStart", Since: "1.0.62",
		Lost:   "session start's context (no SessionStart event)",
		Fix:    "upgrade Claude Code to 1.0.62 or later",
		Source: "anthropics/claude-code CHANGELOG.md 1.0.62",
	},
	{
		Agent: "claude", Event: "UserPromptSubmit", Since: "1.0.59",
		Lost:   "a prompt's knowledge (UserPromptSubmit additionalContext)",
		Fix:    "upgrade Claude Code to 1.0.59 or later",
		Source: "anthropics/claude-code CHANGELOG.md 1.0.59",
	},
	{
		Agent: "claude", Event: "PreToolUse", Since: "2.1.9",
		Lost:   "the knowledge for a tool call before it runs (PreToolUse additionalContext is ignored)",
		Fix:    "upgrade Claude Code to 2.1.9 or later",
		Source: "anthropics/claude-code CHANGELOG.md 2.1.9; anthropics/claude-code#15664",
	},
	{
		// The event's first release is not confirmed upstream: 2.1.50 is
		// the first known to run it. Before 2.1.101, a release that does
		// not know an event named in settings.json skips the whole file.
		Agent: "claude", Event: "PostToolUseFailure", Since: "2.1.50", Once: true,
		Lost:   "a failure met before, with its fix, when its error comes back (PostToolUseFailure); a release before 2.1.101 that does not know that event skips the settings file naming it, and devlearn's other hooks with it",
		Fix:    "upgrade Claude Code to 2.1.101 or later",
		Source: "anthropics/claude-code#27886 (PostToolUseFailure run by 2.1.50); CHANGELOG.md 2.1.101: \"an unrecognized hook event name in `settings.json` no longer causes the entire file to be ignored\"",
	},
	{
		Agent: "codex", Event: "", Since: "0.124.0",
		Lost:   "anything: hooks are an opt-in feature, off by default, and no hook runs",
		Fix:    "upgrade Codex to 0.124.0 or later",
		OptIn:  "codex_hooks",
		Or:     "set [features] codex_hooks = true in ~/.codex/config.toml (or the project's .codex/config.toml)",
		Source: "openai/codex#19012 (codex_hooks stable and on by default), released in 0.124.0 (openai/codex#19385)",
	},
	{
		Agent: "codex", Event: "PreToolUse", Since: "0.129.0",
		Lost:   "the knowledge for a tool call before it runs: Codex marks the hook failed (\"PreToolUse hook returned unsupported additionalContext\") and drops it",
		Fix:    "upgrade Codex to 0.129.0 or later",
		Source: "openai/codex#20692, in Codex CLI 0.129.0 (developers.openai.com/codex/changelog, 2026-05-07)",
	},
	{
		Agent: "gemini", Event: "", Since: "0.26.0",
		Lost:   "anything unless hooks were switched on (tools.enableHooks before 0.24, hooks.enabled in 0.24 and 0.25): hooks are off by default",
		Fix:    "upgrade Gemini CLI to 0.26.0 or later",
		Source: "google-gemini/gemini-cli packages/cli/src/config/settingsSchema.ts at v0.23.0, v0.25.0, v0.26.0",
	},
	{
		Agent: "gemini", Event: "SessionStart", Since: "0.24.0",
		Lost:   "session start's context (the CLI does not read it)",
		Fix:    "upgrade Gemini CLI to 0.24.0 or later",
		Source: "google-gemini/gemini-cli packages/cli/src/ui/AppContainer.tsx at v0.23.0 and v0.24.0",
	},
	{
		Agent: "cursor", Event: "sessionStart", Since: "",
		Lost:   "session start's context, the one thing Cursor is served: some versions reject sessionStart as an unknown hook type, and which ones is not confirmed upstream",
		Fix:    "if Cursor's hooks output says \"Unknown hook type\" for sessionStart, upgrade Cursor",
		Source: "a forum report (forum.cursor.com/t/unknown-hook-type-sessionstart/149566), not confirmed upstream",
	},
	{
		Agent: "copilot", Event: "sessionStart", Since: "1.0.11",
		Lost:   "session start's context (the hook's result is discarded)",
		Fix:    "upgrade Copilot CLI to 1.0.11 or later",
		Source: "github/copilot-cli changelog.md 1.0.11; github/copilot-cli#2142",
	},
	{
		Agent: "copilot", Event: "postToolUse", Since: "1.0.49",
		Lost:   "the knowledge for a tool call and the directives, both served after the call (postToolUse additionalContext is discarded)",
		Fix:    "upgrade Copilot CLI to 1.0.49 or later",
		Source: "github/copilot-cli changelog.md 1.0.49",
	},
	{
		Agent: "copilot", Event: "userPromptSubmitted", Since: "1.0.65",
		Lost:   "a prompt's knowledge (userPromptSubmitted additionalContext is not in the prompt)",
		Fix:    "upgrade Copilot CLI to 1.0.65 or later",
		Source: "github/copilot-cli changelog.md 1.0.65",
	},
}

// Applies reports whether v loses what g names: v is known and before
// g.Since. A gap whose versions are not confirmed never applies: it is
// named, not acted on.
func (g Gap) Applies(v Version) bool {
	return g.Since != "" && v.Known() && v.Less(MustParse(g.Since))
}

// Of lists the agent's rows, in the table's order.
func Of(agent string) []Gap {
	var out []Gap
	for _, g := range Gaps {
		if g.Agent == agent {
			out = append(out, g)
		}
	}
	return out
}

// Drops reports whether the agent at version v drops the context given at
// event (the agent's own name): what is given there is not seen, and must
// not be recorded as served. An unknown version drops nothing: devlearn
// serves as it always has. The rows of every event (no hook runs) are not
// asked: a hook that runs was switched on.
func Drops(agent, event string, v Version) bool {
	for _, g := range Gaps {
		if g.Agent == agent && g.Event != "" && g.Event == event && g.Applies(v) {
			return true
		}
	}
	return false
}

// Report is what one agent, at the version read, will and will not
// receive.
type Report struct {
	Agent string
	Found Found
	// Lost are the rows that apply to this version.
	Lost []Gap
	// Maybe are the rows that may apply: the version is unknown, or which
	// versions lose it is not confirmed.
	Maybe []Gap
}

// Assess sorts the agent's rows for the version found. optedIn reports
// whether the setting a row names (Gap.OptIn) is on, which makes that row
// not apply; nil: none is.
func Assess(agent string, f Found, optedIn func(Gap) bool) Report {
	r := Report{Agent: agent, Found: f}
	for _, g := range Of(agent) {
		switch {
		case g.OptIn != "" && optedIn != nil && optedIn(g):
		case g.Applies(f.Version):
			r.Lost = append(r.Lost, g)
		case g.Since == "" || !f.Version.Known():
			r.Maybe = append(r.Maybe, g)
		}
	}
	return r
}

// Concerns reports whether a row of the table names the agent's event, so
// that a hook reads the recorded version only where it can matter.
func Concerns(agent, event string) bool {
	for _, g := range Gaps {
		if g.Agent == agent && g.Event == event && g.Since != "" {
			return true
		}
	}
	return false
}
