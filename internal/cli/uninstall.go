package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/cleanup"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
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

// devlearnFiles are the files devlearn keeps in .memory/ besides the
// artifacts, removed by --purge-knowledge.
var devlearnFiles = []string{project.LogFile, project.ConfigFile, SchemaFile, project.MigrationsFile}

func runUninstall(env *Env, opts *uninstallOptions) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	res := &initResult{Project: p.Root, DryRun: opts.dryRun, Steps: []step{}, Problems: []string{}, outside: map[string][]byte{}}

	// Hooks.
	if d, err := readSettings(p.Path(project.SettingsFile), project.SettingsFile); err != nil {
		res.fail(project.SettingsFile, fmt.Errorf("%w (left untouched)", err))
	} else if removed := d.file.Disable(); len(removed) > 0 {
		note := fmt.Sprintf("removed %s; everything else kept", plural(len(removed), "devlearn hook", "devlearn hooks"))
		if d.file.Empty() && devlearnCreated(p, project.SettingsFile) {
			res.changes = append(res.changes, evolve.Change{Path: project.SettingsFile, Remove: true})
			res.Steps = append(res.Steps, step{Action: "removed", Path: project.SettingsFile, Note: "init created it for devlearn's hooks alone"})
		} else {
			res.changes = append(res.changes, evolve.Change{Path: project.SettingsFile, Data: d.file.Bytes()})
			res.Steps = append(res.Steps, step{Action: "updated", Path: project.SettingsFile, Note: note})
		}
	} else {
		res.Steps = append(res.Steps, step{Action: "unchanged", Path: project.SettingsFile, Note: "no devlearn hooks"})
	}
	res.uninstallAgentMCP(p)
	res.uninstallAgentHooks(p)
	if opts.global {
		res.uninstallUser(env)
	}

	// The MCP server: devlearn's entry only.
	if data, err := os.ReadFile(p.Path(settings.MCPFile)); err == nil {
		f, perr := settings.ParseMCP(settings.MCPFile, data)
		switch {
		case perr != nil:
			res.fail(settings.MCPFile, fmt.Errorf("%w (left untouched)", perr))
		case !f.Unregister():
			res.Steps = append(res.Steps, step{Action: "unchanged", Path: settings.MCPFile, Note: "no devlearn MCP server"})
		case f.Empty() && devlearnCreated(p, settings.MCPFile):
			res.changes = append(res.changes, evolve.Change{Path: settings.MCPFile, Remove: true})
			res.Steps = append(res.Steps, step{Action: "removed", Path: settings.MCPFile, Note: "init created it for devlearn's server alone"})
		default:
			res.changes = append(res.changes, evolve.Change{Path: settings.MCPFile, Data: f.Bytes()})
			res.Steps = append(res.Steps, step{Action: "updated", Path: settings.MCPFile, Note: "removed devlearn's MCP server; the other servers kept"})
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		res.fail(settings.MCPFile, err)
	}

	// .gitattributes.
	data, err := os.ReadFile(p.Path(register.AttributesFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		res.fail(register.AttributesFile, err)
	default:
		next, removed := register.WithoutRoutes(data)
		switch {
		case len(removed) == 0:
			res.Steps = append(res.Steps, step{Action: "unchanged", Path: register.AttributesFile, Note: "no devlearn lines"})
		case len(next) == 0:
			res.changes = append(res.changes, evolve.Change{Path: register.AttributesFile, Remove: true})
			res.Steps = append(res.Steps, step{Action: "removed", Path: register.AttributesFile, Note: "it held only devlearn's lines"})
		default:
			res.changes = append(res.changes, evolve.Change{Path: register.AttributesFile, Data: next})
			res.Steps = append(res.Steps, step{Action: "updated", Path: register.AttributesFile, Note: fmt.Sprintf("removed devlearn's %s; everything else kept", plural(len(removed), "line", "lines"))})
		}
	}

	// Knowledge: kept unless asked.
	var purge *cleanup.Plan
	if opts.purgeKnowledge {
		if purge, err = cleanup.Artifacts(p); err != nil {
			return err
		}
		for _, f := range devlearnFiles {
			if _, err := os.Stat(p.Path(f)); err == nil {
				purge.Changes = append(purge.Changes, evolve.Change{Path: f, Remove: true})
				purge.Removed = append(purge.Removed, f)
			}
		}
		tasks, _ := filepath.Glob(p.Path(project.TasksDir + "/*.jsonl"))
		for _, t := range tasks {
			rel, _ := p.Rel(t)
			purge.Changes = append(purge.Changes, evolve.Change{Path: rel, Remove: true})
			purge.Removed = append(purge.Removed, rel)
		}
		res.changes = append(res.changes, purge.Changes...)
		for _, r := range purge.Removed {
			res.Steps = append(res.Steps, step{Action: "removed", Path: r})
		}
		for _, k := range purge.Kept {
			res.Steps = append(res.Steps, step{Action: "kept", Path: k, Note: "yours"})
		}
		if _, err := os.Stat(p.Path(evolve.LogPath)); err == nil {
			res.Steps = append(res.Steps, step{Action: "removed", Path: evolve.LogPath, Note: "the audit trail, removed last"})
		}
	}

	if !opts.dryRun {
		if len(res.changes) > 0 {
			w := evolve.New(p, now, evolve.Trigger{Command: "uninstall"})
			e, err := w.Apply(env.Context(), evolve.Reason{Text: "uninstall: devlearn taken out of this repository"}, res.changes...)
			if err != nil {
				return err
			}
			if e != nil {
				res.Audit = e.ID
			}
		}
		for path, data := range res.outside {
			if err := writeOutside(path, data); err != nil {
				return err
			}
		}
		cleanup.RemoveEmptyDirs(p, append([]string{project.SettingsFile}, agentHookFiles()...))
		if purge != nil {
			// The audit log goes last: it recorded the removals above, and
			// the copies of what they removed stay in the per-clone objects.
			safefile.Remove(p.Root, p.Path(evolve.LogPath))
			cleanup.RemoveEmptyDirs(p, append(purge.Removed, evolve.LogPath))
			if _, err := cleanup.ClearState(p); err != nil {
				return err
			}
		}
	}
	res.unregisterDriver(p, opts.dryRun)

	if opts.json {
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		verb := "Taking devlearn out of"
		if opts.dryRun {
			verb = "Plan (dry run, nothing is changed) for taking devlearn out of"
		}
		fmt.Fprintf(env.Out, "%s %s\n", verb, p.Root)
		printSteps(env.Out, res.Steps, opts.dryRun)
		if !opts.purgeKnowledge {
			fmt.Fprintln(env.Out, "Kept what devlearn learned (.memory/ and its artifacts); 'devlearn uninstall --purge-knowledge' removes it too.")
		} else if !opts.dryRun {
			fmt.Fprintf(env.Out, "Copies of every removed file stay in %s until you delete them.\n", filepath.Join(stateDirName(p), "objects"))
		}
	}
	if n := len(res.Problems); n > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return exitcode.WithHint(fmt.Errorf("uninstall finished with %s", plural(n, "problem", "problems")), "fix what is named above, then run 'devlearn uninstall' again")
	}
	return nil
}

func (r *initResult) uninstallUser(env *Env) {
	path, err := env.userSettingsPath()
	if err != nil {
		r.fail("user settings", err)
		return
	}
	d, err := readSettings(path, path)
	if err != nil {
		r.fail(path, fmt.Errorf("%w (left untouched)", err))
		return
	}
	removed := d.file.Disable()
	line := d.file.RemoveStatusLine()
	if !d.changed() {
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: path, Note: "no devlearn hooks or status line"})
		return
	}
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, plural(len(removed), "devlearn hook", "devlearn hooks"))
	}
	if line {
		parts = append(parts, "devlearn's status line")
	}
	note := "removed " + joinList(parts)
	r.outside[path] = d.file.Bytes()
	r.Steps = append(r.Steps, step{Action: "updated", Path: path, Note: note})
}

func (r *initResult) unregisterDriver(p *project.Project, dry bool) {
	const where = "git config merge.devlearn"
	cur, err := register.Settings(register.ExecGit, p.Root)
	if err != nil {
		r.fail(where, err)
		return
	}
	set := false
	for _, s := range cur {
		set = set || s.Current != ""
	}
	if !set {
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: where, Note: "no merge driver registered"})
		return
	}
	if !dry {
		if _, err := register.Unregister(register.ExecGit, p.Root); err != nil {
			r.fail(where, err)
			return
		}
	}
	r.Steps = append(r.Steps, step{Action: "removed", Path: where, Note: "merge driver unregistered in this clone"})
}
