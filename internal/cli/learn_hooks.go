package cli

import (
	"fmt"
	"slices"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/settings"
)

type hooksResult struct {
	Action  string           `json:"action"` // enable, disable
	Where   string           `json:"where"`  // the settings file
	Changed bool             `json:"changed"`
	Removed []settings.Entry `json:"removed,omitempty"`
	Hooks   []string         `json:"hooks"`
}

// runLearnHooks adds or removes devlearn's hooks in the project's settings
// (through the one writer) or, with --global, in the user's.
func runLearnHooks(env *Env, opts *learnOptions) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	var p *project.Project
	var path, display string
	if opts.global {
		if path, err = env.userSettingsPath(); err != nil {
			return err
		}
		display = path
	} else {
		if p, err = env.Project(); err != nil {
			return err
		}
		path, display = p.Path(project.SettingsFile), project.SettingsFile
	}
	d, err := install.ReadHookFile(path, display, settings.Claude)
	if err != nil {
		return exitcode.WithHint(err, "the file was left untouched; fix it, then run this again")
	}
	res := hooksResult{Action: "enable", Where: display, Hooks: []string{}}
	if opts.disable {
		res.Action = "disable"
		res.Removed = d.File.Disable()
	} else {
		d.File.Enable()
	}
	for _, h := range settings.Hooks {
		res.Hooks = append(res.Hooks, h.Event)
	}
	res.Changed = d.Changed()
	if res.Changed {
		if opts.global {
			err = install.WriteOutside(path, d.File.Bytes())
		} else {
			//devlearn:triggers "learn --enable" "learn --disable"
			w := evolve.New(p, now, evolve.Trigger{Command: "learn --" + res.Action})
			_, err = w.Apply(env.Context(), evolve.Reason{Text: "learn --" + res.Action + ": devlearn's hooks"},
				evolve.Change{Path: project.SettingsFile, Data: d.File.Bytes()})
		}
		if err != nil {
			return err
		}
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	switch {
	case res.Action == "enable" && res.Changed:
		fmt.Fprintf(env.Out, "Enabled: devlearn's %s registered in %s (%s).\n", plural(len(settings.Hooks), "hook", "hooks"), display, joinList(res.Hooks))
		fmt.Fprintln(env.Out, "Each is guarded: a teammate without devlearn sees nothing fail.")
	case res.Action == "enable":
		fmt.Fprintf(env.Out, "Already enabled in %s; nothing changed.\n", display)
	case res.Changed:
		fmt.Fprintf(env.Out, "Disabled: removed %s from %s; everything else in it is kept.\n", plural(len(res.Removed), "devlearn hook", "devlearn hooks"), display)
	default:
		fmt.Fprintf(env.Out, "No devlearn hooks in %s; nothing changed.\n", display)
	}
	return nil
}

func joinList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return fmt.Sprintf("%s and %s", joinComma(s[:len(s)-1]), s[len(s)-1])
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func sortedStrings(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
