package cli

import (
	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

func newHudCmd(env *Env) *cobra.Command {
	opts := &hookcmd.HudOptions{}
	cmd := &cobra.Command{
		Use:   "hud",
		Short: "Print one line about what is in force, for a status bar",
		Long: `Print one line for a status bar:

  Learning: 2 lessons, 1 skill, 3 decisions, 1 pitfall  ⚠ 1 needs review

It counts what is in force: the lessons kept as entries (the project's and
the global ones, 'devlearn lessons' lists them), then the artifacts by
kind; then what needs a person's review (drafts included). Nothing is
printed when nothing is in force and nothing needs review, or outside a
repository set up with 'devlearn init'. The answer is cached in the
per-clone state until the log, the manifest, the project's or the global
entries folder or the config change, and for a minute at most (an entry
edited in place), so it is cheap to run every second.

--stdin reads Claude Code's status line JSON on stdin and reports on the
session's folder ('devlearn init --statusline' registers it that way).`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return hookcmd.Hud(env.hookCmd(c.Context()), *opts)
		},
	}
	opts.Define(cmd.Flags())
	return cmd
}
