package cli

import (
	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/hookcmd"
)

func newRenderReadyCmd(env *Env) *cobra.Command {
	opts := &hookcmd.RenderOptions{}
	cmd := &cobra.Command{
		Use:   "render-ready",
		Short: "Turn every ready observation into its artifact",
		Long: `Render every ready observation into its artifact:

  workflow    a slash command    .claude/commands/self-learning/<slug>.md
  procedural  a skill            .claude/skills/<slug>/SKILL.md
  decision    an ADR section     .memory/knowledge/decisions.md
  pitfall     a PF section       .memory/knowledge/pitfalls.md

Every artifact carries its observation id, every write goes through the
audit log (.memory/evolution/log.jsonl), and the manifest records what was
written. A run interrupted at any point is completed by the next one: an
artifact already on disk is adopted, never written twice.`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return hookcmd.RenderReady(env.hookCmd(c.Context()), *opts)
		},
	}
	opts.Define(cmd.Flags())
	return cmd
}
