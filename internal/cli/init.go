package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/doctor"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/migrate"
	"github.com/devlearn/devlearn/internal/project"
)

type initOptions struct {
	dryRun            bool
	json              bool
	statusLine        bool
	replaceStatusLine bool
	agents            []string
}

func newInitCmd(env *Env) *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set devlearn up in this repository",
		Long:  initLong(),
		Example: `  devlearn init --dry-run
  devlearn init
  devlearn init --statusline
  devlearn init --agent codex --agent cursor`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runInit(env, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.dryRun, "dry-run", false, "show the plan; change nothing")
	f.BoolVar(&opts.json, "json", false, "print what was done as JSON")
	f.BoolVar(&opts.statusLine, "statusline", false, "show 'devlearn hud' in Claude Code's status line (user settings)")
	f.BoolVar(&opts.replaceStatusLine, "replace-statusline", false, "with --statusline: replace a status line that is not devlearn's")
	f.StringSliceVar(&opts.agents, "agent", nil, "also register devlearn's hooks for `AGENT`: codex, gemini, cursor, copilot or all (repeatable)")
	return cmd
}

// initLong is init's help. It names every file init may write: the
// agents' files come from the agents' own table, so a new agent's files
// are named with it.
func initLong() string {
	var agentFiles []string
	for _, a := range agent.All() {
		switch a.MCPFile {
		case "":
			agentFiles = append(agentFiles, fmt.Sprintf("  %-28s  %s: devlearn's hooks", a.HookFile, a.Title))
		case a.HookFile:
			agentFiles = append(agentFiles, fmt.Sprintf("  %-28s  %s: devlearn's hooks and MCP server", a.HookFile, a.Title))
		default:
			agentFiles = append(agentFiles, fmt.Sprintf("  %-28s  %s: devlearn's hooks", a.HookFile, a.Title),
				fmt.Sprintf("  %-28s  %s: devlearn's MCP server", a.MCPFile, a.Title))
		}
	}
	return `Set devlearn up in this repository. What it may write:

  .memory/learning.json         the project's config (never overwritten once there)
  .memory/learning.schema.json  the config's JSON Schema, for editors
  .memory/.gitignore            keeps session state (.memory/.local/) out of git
  .gitattributes                routes devlearn's logs, manifest and knowledge
                                files to its merge driver (merge=devlearn)
  .claude/settings.json         devlearn's hooks, guarded so that a teammate
                                without devlearn sees nothing fail
  .mcp.json                     devlearn's MCP server (the agent tools)
  .memory/migrations.json       the migrations applied (pending ones are run,
                                each reported)
  .memory/evolution/log.jsonl   the audit log: every change above, revertible
  git config merge.devlearn.*   registers the driver in this clone (not a
                                file to commit); where devlearn is missing it
                                falls back to a normal conflict (git merge-file)

It ends by naming the files it wrote, as a 'git add' line to commit them.
Running it again changes nothing. A file you changed is never overwritten:
init says what it kept. An existing devflow installation is adopted with
nothing lost: its log, manifest, knowledge files and skills keep working,
the manifest is rewritten with relative paths, and devflow's learning hooks
are disabled. Run with --dry-run first to see the plan.

--agent ` + strings.Join(agent.Names(), "|") + `|all also registers devlearn's hooks (and
MCP server) for those agents, in their own files, merged the same way (see
docs/agents.md for what each agent is served):

` + strings.Join(agentFiles, "\n") + `

An agent installed before is kept current by every 'devlearn init'. init
says what the installed version of Claude Code and of each of those agents
will not receive, with the fix.

--statusline also shows devlearn's one-line summary (devlearn hud) in
Claude Code's status line, in your user settings (~/.claude/settings.json).`
}

// initResult is what init (and uninstall) did, as printed with --json.
type initResult struct {
	Project    string           `json:"project"`
	DryRun     bool             `json:"dry_run"`
	Devflow    *migrate.Devflow `json:"devflow,omitempty"`
	Steps      []step           `json:"steps"`
	Migrations []migrate.Result `json:"migrations"`
	Problems   []string         `json:"problems"`
	Audit      string           `json:"audit,omitempty"`
	// Wrote are the project's files init wrote, to commit: what its
	// writer recorded, so the list cannot leave one out.
	Wrote    []string       `json:"wrote"`
	Versions []doctor.Check `json:"versions"` // what each agent's installed version receives
}

func runInit(env *Env, opts *initOptions) error {
	if opts.replaceStatusLine && !opts.statusLine {
		return exitcode.Usagef("--replace-statusline goes with --statusline")
	}
	agents, err := agentsNamed(opts.agents)
	if err != nil {
		return err
	}
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	// A link where devlearn writes would stop every write there, or carry
	// it out of the repository: refused before anything is written.
	if found := p.Links(agent.Files()...); len(found) > 0 {
		var where []string
		for _, le := range found {
			where = append(where, "  "+le.Where())
		}
		return exitcode.RefusedError(fmt.Errorf("not set up: this repository has symbolic links where devlearn writes, and devlearn never writes through one (a link can carry its writes out of the repository):\n%s", strings.Join(where, "\n")), doctor.LinksFix+"; then run devlearn init again")
	}
	in := install.InitOptions{
		Agents:            agents,
		DryRun:            opts.dryRun,
		ReplaceStatusLine: opts.replaceStatusLine,
		Version:           newAgentVersions(env, p).read,
		CodexHome:         codexHome(env),
		Home:              env.Home(),
	}
	if opts.statusLine {
		in.UserSettings = env.userSettingsPath
	}
	plan, err := install.PlanInit(p, in)
	if err != nil {
		return err
	}
	if !opts.dryRun && !opts.json && env.interactive() && plan.CreatesConfig() {
		if err := offerCurator(env, plan); err != nil {
			return err
		}
	}
	if err := plan.Apply(env.Context(), now); err != nil {
		return err
	}

	res := &initResult{Project: plan.Project, DryRun: plan.DryRun, Devflow: plan.Devflow, Steps: plan.Steps, Migrations: plan.Migrations,
		Problems: plan.Problems, Audit: plan.Audit, Wrote: plan.Wrote}
	for _, v := range plan.Versions {
		res.Versions = append(res.Versions, doctor.VersionCheck(v.Title, v.Detail, v.Fix, v.Level))
	}
	if opts.json {
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		res.print(env.Out)
	}
	if n := len(res.Problems); n > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return exitcode.WithHint(fmt.Errorf("init finished with %s", plural(n, "problem", "problems")), "fix what is named above, then run 'devlearn init' again: what is done stays done")
	}
	return nil
}

func (r *initResult) print(w io.Writer) {
	verb := "Setting devlearn up"
	if r.DryRun {
		verb = "Plan (dry run, nothing is changed)"
	}
	fmt.Fprintf(w, "%s in %s\n", verb, r.Project)
	if df := r.Devflow; df != nil {
		fmt.Fprintln(w, "Found a devflow installation; it is adopted with nothing lost:")
		printDevflow(w, df)
	}
	printSteps(w, r.Steps, r.DryRun)
	printVersions(w, r.Versions)
	printMigrations(w, r.Migrations, r.DryRun)
	if r.Audit != "" {
		fmt.Fprintf(w, "Recorded in the audit log as %s.\n", r.Audit)
	}
	if len(r.Problems) == 0 && !r.DryRun {
		switch {
		case r.changedNothing():
			fmt.Fprintln(w, "Nothing to do: devlearn is set up here.")
		case len(r.Wrote) == 0:
			fmt.Fprintln(w, "Done: nothing to commit (the changes are outside the repository's files). 'devlearn doctor' checks the whole installation.")
		default:
			fmt.Fprintln(w, "Done. Commit what init wrote:")
			fmt.Fprintf(w, "  git add %s\n", strings.Join(shellQuoteAll(r.Wrote), " "))
			fmt.Fprintln(w, "'devlearn doctor' checks the whole installation.")
		}
	}
}

// shellQuoteAll quotes the paths a shell would split or expand, so the
// printed command can be pasted as it is.
func shellQuoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if strings.ContainsFunc(p, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			p = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
		out[i] = p
	}
	return out
}

func (r *initResult) changedNothing() bool {
	for _, s := range r.Steps {
		if s.Action != "unchanged" && s.Action != "kept" {
			return false
		}
	}
	for _, m := range r.Migrations {
		if m.Status != migrate.Already {
			return false
		}
	}
	return true
}

func printDevflow(w io.Writer, df *migrate.Devflow) {
	line := func(format string, a ...any) { fmt.Fprintf(w, "  - "+format+"\n", a...) }
	if df.LogLines > 0 {
		line("%s in devflow's format in %s: read as they are", plural(df.LogLines, "log line", "log lines"), project.LogFile)
	}
	if df.ManifestAbsolute > 0 {
		line("%s with absolute paths: rewritten relative to the repository", plural(df.ManifestAbsolute, "manifest entry", "manifest entries"))
	}
	if df.Sections > 0 {
		what := plural(df.Sections, "knowledge entry", "knowledge entries") + " in decisions.md and pitfalls.md: kept"
		if df.V1Entries > 0 {
			what += fmt.Sprintf(", except %d written by devflow's first extractor (purged by migration)", df.V1Entries)
		}
		line("%s", what)
	}
	for _, s := range df.SkillFolders {
		line("skill %s: kept where it is; it keeps working", s)
	}
	for _, h := range df.LearningHooks {
		line("learning hook %s %q: disabled (its background job would rewrite the log)", h.Event, h.Command)
	}
	for _, h := range df.OtherHooks {
		line("hook %s %q: kept (not a learning hook)", h.Event, h.Command)
	}
	if df.ProjectPatterns {
		line("%s: removed by migration if devflow generated it, kept otherwise", migrate.ProjectPatternsFile)
	}
	if df.SettingsError != "" {
		line("%s", df.SettingsError)
	}
}

func printMigrations(w io.Writer, ms []migrate.Result, dry bool) {
	if len(ms) == 0 {
		return
	}
	var loud []migrate.Result
	already, quiet := 0, 0
	for _, m := range ms {
		switch {
		case m.Status == migrate.Already:
			already++
		case len(m.Did) == 0 && len(m.Kept) == 0 && m.Error == "":
			quiet++
		default:
			loud = append(loud, m)
		}
	}
	if len(loud) == 0 && quiet == 0 {
		fmt.Fprintf(w, "Migrations: all %d applied before.\n", already)
		return
	}
	fmt.Fprintln(w, "Migrations:")
	t := newTable(w)
	for _, m := range loud {
		status := m.Status
		if dry && status == migrate.Pending && m.Error == "" {
			status = "would apply"
		}
		t.row("  "+status, m.ID, m.Description)
	}
	t.flush()
	for _, m := range loud {
		if len(m.Did)+len(m.Kept) == 0 && m.Error == "" {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", m.ID)
		for _, d := range m.Did {
			fmt.Fprintf(w, "    %s\n", d)
		}
		for _, k := range m.Kept {
			fmt.Fprintf(w, "    kept: %s\n", k)
		}
		if m.Error != "" {
			fmt.Fprintf(w, "    %s\n", m.Error)
		}
		if m.Audit != "" {
			fmt.Fprintf(w, "    (what it replaced is kept in audit entry %s)\n", m.Audit)
		}
	}
	var tail []string
	if quiet > 0 {
		verb := "applied"
		if dry {
			verb = "would apply"
		}
		tail = append(tail, fmt.Sprintf("%s %s with nothing to change", plural(quiet, "migration", "migrations"), verb))
	}
	if already > 0 {
		tail = append(tail, fmt.Sprintf("%d applied before", already))
	}
	if len(tail) > 0 {
		fmt.Fprintf(w, "  (%s)\n", strings.Join(tail, "; "))
	}
}
