package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/doctor"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/migrate"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/settings"
	"github.com/devlearn/devlearn/templates"
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
	Wrote    []string          `json:"wrote"`
	Versions []doctor.Check    `json:"versions"` // what each agent's installed version receives
	changes  install.Changes   // project files to write, in one batch
	outside  map[string][]byte // files outside the project
}

// defaultConfig is the learning.json init writes: every other key takes
// its default (see the schema beside it), so later defaults still apply.
const defaultConfig = `{
  "$schema": "./learning.schema.json",
  "enabled": true
}
`

// SchemaFile is the config's JSON Schema, beside it for editors.
const SchemaFile = project.SchemaFile

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
	if found := p.Links(); len(found) > 0 {
		var where []string
		for _, le := range found {
			where = append(where, "  "+le.Where())
		}
		return exitcode.RefusedError(fmt.Errorf("not set up: this repository has symbolic links where devlearn writes, and devlearn never writes through one (a link can carry its writes out of the repository):\n%s", strings.Join(where, "\n")), doctor.LinksFix+"; then run devlearn init again")
	}
	res := &initResult{Project: p.Root, DryRun: opts.dryRun, Steps: []step{}, Migrations: []migrate.Result{}, Problems: []string{}, outside: map[string][]byte{}}
	if df, err := migrate.DetectDevflow(p); err != nil {
		return err
	} else if df.Found() {
		res.Devflow = df
	}

	res.planConfig(p)
	if !opts.dryRun && !opts.json && env.interactive() {
		if err := res.offerCurator(env); err != nil {
			return err
		}
	}
	res.planFile(p, SchemaFile, templates.ConfigSchema, "the config's JSON Schema, for editors")
	res.planAttributes(p)
	res.planLocalIgnore(p)
	res.planHooks(p)
	res.planMCP(p)
	installed := withInstalled(p, agents)
	for _, a := range installed {
		res.planAgentHooks(p, a)
		res.planAgentMCP(p, a)
	}
	versions := res.planVersions(env, p, installed)
	if opts.statusLine {
		res.planStatusLine(env, opts.replaceStatusLine)
	}

	w := evolve.New(p, now, evolve.Trigger{Command: "init"})
	if !opts.dryRun {
		if len(res.changes) > 0 {
			e, err := w.Apply(env.Context(), evolve.Reason{Text: "init: set devlearn up in this repository"}, res.changes...)
			if err != nil {
				return err
			}
			if e != nil {
				res.Audit = e.ID
			}
		}
		for path, data := range res.outside {
			if err := install.WriteOutside(path, data); err != nil {
				return err
			}
		}
	}
	res.registerDriver(p, opts.dryRun)
	if !opts.dryRun {
		if err := versions.record(p, now); err != nil {
			res.Problems = append(res.Problems, "recording the agents' versions for the hooks: "+err.Error())
		}
	}

	r := &migrate.Runner{Ctx: migrate.Context{Proj: p, Home: env.Home(), Now: now}, Migrations: migrate.All(), Writer: w, DryRun: opts.dryRun}
	if res.Migrations, err = r.Run(env.Context()); err != nil {
		return err
	}
	res.Wrote = append([]string{}, w.Touched()...)
	for _, m := range res.Migrations {
		if m.Status == migrate.Failed {
			res.Problems = append(res.Problems, fmt.Sprintf("migration %s failed: %s", m.ID, m.Error))
		}
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

func (r *initResult) fail(path string, err error) {
	r.Steps = append(r.Steps, step{Action: "failed", Path: path, Note: err.Error()})
	r.Problems = append(r.Problems, err.Error())
}

// planConfig creates learning.json unless there is one; an existing one is
// never touched, only checked.
func (r *initResult) planConfig(p *project.Project) {
	data, err := os.ReadFile(p.Path(project.ConfigFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.changes = append(r.changes, evolve.Change{Path: project.ConfigFile, Data: []byte(defaultConfig)})
		r.Steps = append(r.Steps, step{Action: "created", Path: project.ConfigFile, Note: "defaults; see 'devlearn learn --configure'"})
	case err != nil:
		r.fail(project.ConfigFile, err)
	default:
		if _, err := config.Parse(project.ConfigFile, data); err != nil {
			r.Steps = append(r.Steps, step{Action: "kept", Path: project.ConfigFile, Note: "yours, but it has an error: " + err.Error()})
			r.Problems = append(r.Problems, err.Error())
			return
		}
		if devlearnWrote(p, project.ConfigFile, data) {
			r.Steps = append(r.Steps, step{Action: "unchanged", Path: project.ConfigFile})
			return
		}
		r.Steps = append(r.Steps, step{Action: "kept", Path: project.ConfigFile, Note: "yours; not overwritten"})
	}
}

// planFile writes a file devlearn owns (like the schema): created when
// missing, updated when it is still what devlearn last wrote, kept when
// someone changed it.
func (r *initResult) planFile(p *project.Project, rel string, want []byte, what string) {
	data, err := os.ReadFile(p.Path(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.changes = append(r.changes, evolve.Change{Path: rel, Data: want})
		r.Steps = append(r.Steps, step{Action: "created", Path: rel, Note: what})
	case err != nil:
		r.fail(rel, err)
	case bytes.Equal(data, want):
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: rel})
	case devlearnWrote(p, rel, data):
		r.changes = append(r.changes, evolve.Change{Path: rel, Data: want})
		r.Steps = append(r.Steps, step{Action: "updated", Path: rel, Note: "this devlearn's version"})
	default:
		r.Steps = append(r.Steps, step{Action: "kept", Path: rel, Note: "you changed it; not overwritten (remove it and run init to get devlearn's)"})
	}
}

// planAttributes adds the lines that route devlearn's files to its merge
// driver to .gitattributes, keeping everything else in it.
func (r *initResult) planAttributes(p *project.Project) {
	data, err := os.ReadFile(p.Path(register.AttributesFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.fail(register.AttributesFile, err)
		return
	}
	next, added := register.WithRoutes(data)
	switch {
	case len(added) == 0:
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: register.AttributesFile, Note: "devlearn's files already routed to its merge driver"})
	default:
		action := "updated"
		if data == nil {
			action = "created"
		}
		r.changes = append(r.changes, evolve.Change{Path: register.AttributesFile, Data: next})
		r.Steps = append(r.Steps, step{Action: action, Path: register.AttributesFile, Note: fmt.Sprintf("%s devlearn's files to its merge driver", plural(len(added), "line routes", "lines route"))})
	}
}

// registerDriver names the merge driver in the clone's git config. Without
// it (a fresh clone), git merges these files line by line: a normal
// conflict at worst (the registration rule, docs/architecture.md).
func (r *initResult) registerDriver(p *project.Project, dry bool) {
	const where = "git config merge.devlearn"
	cur, err := register.Settings(register.ExecGit, p.Root)
	if err != nil {
		r.fail(where, err)
		return
	}
	if register.Registered(cur) {
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: where, Note: "merge driver registered in this clone"})
		return
	}
	if !dry {
		if _, err := register.Register(register.ExecGit, p.Root); err != nil {
			r.fail(where, err)
			return
		}
	}
	r.Steps = append(r.Steps, step{Action: "updated", Path: where, Note: "merge driver registered in this clone (each clone runs 'devlearn init' once)"})
}

func (r *initResult) planHooks(p *project.Project) {
	d, err := readSettings(p.Path(project.SettingsFile), project.SettingsFile)
	if err != nil {
		r.fail(project.SettingsFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init' again)", err))
		return
	}
	d.file.Enable()
	note := "devlearn's hooks already registered"
	if d.changed() {
		note = "registered devlearn's hooks (guarded: harmless without devlearn)"
		r.changes = append(r.changes, evolve.Change{Path: project.SettingsFile, Data: d.file.Bytes()})
	}
	r.Steps = append(r.Steps, step{Action: d.action(), Path: project.SettingsFile, Note: note})
}

// planMCP registers devlearn's MCP server (the agent tools) in the
// project's .mcp.json, keeping every other server.
func (r *initResult) planMCP(p *project.Project) {
	data, err := os.ReadFile(p.Path(settings.MCPFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.fail(settings.MCPFile, err)
		return
	}
	f, err := settings.ParseMCP(settings.MCPFile, data)
	if err != nil {
		r.fail(settings.MCPFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init' again)", err))
		return
	}
	changed, kept := f.Register()
	switch {
	case kept:
		r.Steps = append(r.Steps, step{Action: "kept", Path: settings.MCPFile, Note: "a server named devlearn that is not devlearn's is there; devlearn's agent tools are not registered"})
	case !changed:
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: settings.MCPFile, Note: "devlearn's MCP server already registered"})
	default:
		action := "updated"
		if data == nil {
			action = "created"
		}
		r.changes = append(r.changes, evolve.Change{Path: settings.MCPFile, Data: f.Bytes()})
		r.Steps = append(r.Steps, step{Action: action, Path: settings.MCPFile, Note: "devlearn's MCP server (the agent tools: 'devlearn mcp'), other servers kept"})
	}
}

func (r *initResult) planStatusLine(env *Env, replace bool) {
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
	changed, kept := d.file.SetStatusLine(replace)
	switch {
	case kept != "":
		r.Steps = append(r.Steps, step{Action: "kept", Path: path, Note: fmt.Sprintf("your status line %q; add 'devlearn hud' to it, or run 'devlearn init --statusline --replace-statusline'", kept)})
	case changed:
		r.outside[path] = d.file.Bytes()
		r.Steps = append(r.Steps, step{Action: d.action(), Path: path, Note: "status line: devlearn hud"})
	default:
		r.Steps = append(r.Steps, step{Action: "unchanged", Path: path, Note: "status line already devlearn hud"})
	}
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
