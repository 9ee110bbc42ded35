package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/hud"
	"github.com/devlearn/devlearn/internal/project"
)

type hudOptions struct {
	stdin, json bool
}

func newHudCmd(env *Env) *cobra.Command {
	opts := &hudOptions{}
	cmd := &cobra.Command{
		Use:   "hud",
		Short: "Print one line about what was learned, for a status bar",
		Long: `Print one line for a status bar:

  Learning: 2 workflows, 1 skill, 3 decisions, 1 pitfall  ⚠ 1 needs review

Nothing is printed when nothing has been learned and nothing needs review,
or outside a repository set up with 'devlearn init'. The answer is cached
in the per-clone state until the log, the manifest, the knowledge entries'
folder or the config change, and for a minute at most (an entry edited in
place), so it is cheap to run every second.

--stdin reads Claude Code's status line JSON on stdin and reports on the
session's folder ('devlearn init --statusline' registers it that way).`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runHud(env, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.stdin, "stdin", false, "read Claude Code's status line JSON on stdin for the session's folder")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the counts as JSON")
	return cmd
}

// statusInput is the part of Claude Code's status line JSON hud reads.
type statusInput struct {
	Cwd       string `json:"cwd"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
}

func runHud(env *Env, opts *hudOptions) error {
	dir := env.Dir
	if opts.stdin {
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
		if opts.json {
			return printJSON(env.Out, hud.Counts{})
		}
		return nil // not set up here: a status line shows nothing
	}
	now, err := env.Now()
	if err != nil {
		return err
	}
	global := ""
	if h := env.Home(); h != "" {
		global = filepath.Join(h, config.GlobalFile)
	}
	cfgKey := hud.StampFiles(global, p.Path(project.ConfigFile))
	counts, err := hud.Cached(p, cfgKey, func() (*config.Config, error) {
		l, err := env.Config(p)
		if err != nil {
			return nil, err
		}
		return l.Config, nil
	}, now)
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, counts)
	}
	warn := func(s string) string { return env.colour(yellow, s) }
	if line := hud.Line(counts, warn); line != "" {
		fmt.Fprintln(env.Out, line)
	}
	return nil
}
