package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/install"
)

type uninstallOptions struct {
	purgeKnowledge, global, dryRun, json bool
}

func newUninstallCmd(env *Env) *cobra.Command {
	opts := &uninstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Undo init: hooks, MCP server, merge driver, .gitattributes lines",
		Long: `Undo 'devlearn init' in this repository: devlearn's hooks leave
.claude/settings.json, its MCP server leaves .mcp.json, its lines leave
.gitattributes, and the merge driver leaves this clone's git config; so do
devlearn's hooks in the other agents' files (.codex/hooks.json,
.gemini/settings.json, .cursor/hooks.json, .github/hooks/devlearn.json).
Everything else in those files is kept.

What devlearn learned stays (.memory/ and the artifacts) unless
--purge-knowledge is given: then the observation log, the manifest, the
config, the task logs, every artifact devlearn made and the per-clone state
go too. Your own files, and knowledge entries without devlearn's Source
marker, are always kept. --global also removes devlearn's hooks and status
line from your user settings (~/.claude/settings.json).`,
		Example: `  devlearn uninstall --dry-run
  devlearn uninstall
  devlearn uninstall --purge-knowledge`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runUninstall(env, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.purgeKnowledge, "purge-knowledge", false, "also remove what devlearn learned and made here")
	f.BoolVar(&opts.global, "global", false, "also remove devlearn's hooks and status line from your user settings")
	f.BoolVar(&opts.dryRun, "dry-run", false, "show what would be removed; change nothing")
	f.BoolVar(&opts.json, "json", false, "print what was done as JSON")
	return cmd
}

func runUninstall(env *Env, opts *uninstallOptions) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	uo := install.UninstallOptions{PurgeKnowledge: opts.purgeKnowledge, DryRun: opts.dryRun}
	if opts.global {
		uo.UserSettings = env.userSettingsPath
	}
	plan, err := install.PlanUninstall(p, uo)
	if err != nil {
		return err
	}
	if err := plan.Apply(env.Context(), now); err != nil {
		return err
	}

	if opts.json {
		res := &initResult{Project: plan.Project, DryRun: plan.DryRun, Steps: plan.Steps, Problems: plan.Problems, Audit: plan.Audit}
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		verb := "Taking devlearn out of"
		if opts.dryRun {
			verb = "Plan (dry run, nothing is changed) for taking devlearn out of"
		}
		fmt.Fprintf(env.Out, "%s %s\n", verb, p.Root)
		printSteps(env.Out, plan.Steps, opts.dryRun)
		if !opts.purgeKnowledge {
			fmt.Fprintln(env.Out, "Kept what devlearn learned (.memory/ and its artifacts); 'devlearn uninstall --purge-knowledge' removes it too.")
		} else if !opts.dryRun {
			fmt.Fprintf(env.Out, "Copies of every removed file stay in %s until you delete them.\n", filepath.Join(stateDirName(p), "objects"))
		}
	}
	if n := len(plan.Problems); n > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return exitcode.WithHint(fmt.Errorf("uninstall finished with %s", plural(n, "problem", "problems")), "fix what is named above, then run 'devlearn uninstall' again")
	}
	return nil
}
