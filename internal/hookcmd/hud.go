package hookcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/hud"
	"github.com/devlearn/devlearn/internal/project"
)

// HudOptions are hud's flags.
type HudOptions struct {
	// Stdin reads Claude Code's status line JSON for the session's folder.
	Stdin bool
	// JSON prints the counts as JSON.
	JSON bool
}

// statusInput is the part of Claude Code's status line JSON hud reads.
type statusInput struct {
	Cwd       string `json:"cwd"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
}

// Hud prints the status line (or, with JSON, the counts) for the project
// around the folder: nothing outside a project devlearn is set up in.
func Hud(env *Env, opts HudOptions) error {
	dir := env.Dir
	if opts.Stdin {
		var in statusInput
		data, err := io.ReadAll(io.LimitReader(env.In, 1<<20))
		if err == nil && json.Unmarshal(data, &in) == nil {
			for _, d := range []string{in.Workspace.CurrentDir, in.Workspace.ProjectDir, in.Cwd} {
				if d != "" {
					dir = d
					break
				}
			}
		}
	}
	p, err := project.Find(dir)
	if err != nil || !p.HasMemory() {
		if opts.JSON {
			return PrintJSON(env.Out, hud.Counts{})
		}
		return nil // not set up here: a status line shows nothing
	}
	now, err := Now(env.Getenv, env.Clock)
	if err != nil {
		return err
	}
	global := ""
	home := Home(env.Getenv)
	if home != "" {
		global = filepath.Join(home, config.GlobalFile)
	}
	cfgKey := hud.StampFiles(global, p.Path(project.ConfigFile))
	counts, err := hud.Cached(p, home, cfgKey, func() (*config.Config, error) {
		l, err := LoadConfig(env.Getenv, p.Root)
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}, now)
	if err != nil {
		return err
	}
	if opts.JSON {
		return PrintJSON(env.Out, counts)
	}
	warn := func(s string) string { return Colour(env.OutTTY, env.Getenv, "33", s) }
	if line := hud.Line(counts, warn); line != "" {
		fmt.Fprintln(env.Out, line)
	}
	return nil
}
