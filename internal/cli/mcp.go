package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/mcp"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
)

func newMCPCmd(env *Env) *cobra.Command {
	var role string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "The MCP server of the agent tools: fetch, save, list and update knowledge, read and edit skills",
		Long: `Serve the agent tools over stdio (the Model Context Protocol), for Claude Code
and any MCP client: fetch_knowledge, save_knowledge, list_knowledge,
update_knowledge, fetch_skill_detail, view_skill, edit_skill (docs/serve.md).

Which tools are offered depends on the role (--role, else mcp.role):
workshop, where a person takes part (every tool by default), or pipeline, an
agent on its own (fetch_knowledge, save_knowledge, fetch_skill_detail by
default): mcp.tools.workshop and mcp.tools.pipeline choose. save_knowledge
writes a candidate for review; an active entry only from a workshop session
when mcp.supervised is on. Everything saved is redacted and written through
the same audited writer as the commands.

'devlearn init' registers it in the project's .mcp.json.`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var p *project.Project
			if found, err := project.Find(env.Dir); err == nil && found.HasMemory() {
				p = found
			}
			l, err := env.Config(p)
			if err != nil {
				return err
			}
			if role == "" {
				role = l.MCP.Role
			}
			if _, err := mcp.Tools(l.Config, role); err != nil {
				return exitcode.UsageError(err)
			}
			if _, err := env.Now(); err != nil {
				return err
			}
			return mcp.Serve(c.Context(), mcp.Options{
				Proj: p, Home: env.Home(), Cfg: l.Config, Role: role,
				Now: func() time.Time {
					t, _ := env.Now()
					return t
				},
				Redact: redact.Text, Version: Version(), SourceID: env.Getenv("DEVLEARN_TASK"),
			}, env.In, env.Out)
		},
	}
	cmd.Flags().StringVar(&role, "role", "", fmt.Sprintf("%s or %s (default mcp.role)", mcp.RoleWorkshop, mcp.RolePipeline))
	return cmd
}
