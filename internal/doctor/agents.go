package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

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
