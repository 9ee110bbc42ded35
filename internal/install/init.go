package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agent/codex/configtoml"
	"github.com/devlearn/devlearn/internal/agentver"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/migrate"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/settings"
	"github.com/devlearn/devlearn/templates"
)

// InitOptions say what init sets up besides the project's own files, and
// where it finds what lies outside the repository: nothing is read from
// the process environment.
type InitOptions struct {
	// Agents are the agents asked for (--agent); those whose hook files
	// already hold devlearn's hooks are added, to keep them current.
	Agents []*agent.Agent
	DryRun bool
	// UserSettings finds the person's Claude Code settings, to show
	// devlearn's status line there (--statusline); nil leaves them alone.
	UserSettings func() (string, error)
	// ReplaceStatusLine replaces a status line that is not devlearn's.
	ReplaceStatusLine bool
	// Version reads an agent's installed version; each is read once, and
	// what was read is recorded for the hooks when the plan is applied.
	Version func(agent string) agentver.Found
	// CodexHome is Codex's folder, whose config.toml may switch its hooks
	// on.
	CodexHome string
	// Home is $DEVLEARN_HOME, where the machine's migrations are kept.
	Home string
}

// Init is the plan of setting devlearn up in a repository: its steps in
// the order they are shown, made by PlanInit, carried out by Apply.
type Init struct {
	Project string
	DryRun  bool
	// Devflow is the devflow installation found, adopted; nil when none.
	Devflow  *migrate.Devflow
	Steps    []Step
	Problems []string
	// Trust is what the person must still do in an agent before it runs
	// the hooks registered for it (trust the project, say).
	Trust []string
	// Versions is what the installed version of Claude Code and of each
	// agent registered receives of what devlearn gives.
	Versions []Version
	// Migrations, Audit and Wrote are known once applied: the migrations
	// run (or, in a dry run, to run), the audit entry of init's own
	// writes, and the project's files written, to commit.
	Migrations []migrate.Result
	Audit      string
	Wrote      []string

	p       *project.Project
	opts    InitOptions
	changes Changes           // project files, in one batch of the writer
	outside map[string][]byte // files outside the project
	found   map[string]agentver.Found
	driver  int // the step that registers the merge driver; -1: none
}

// Version is what an agent's installed version receives
// (agentver.Effect).
type Version struct {
	Agent, Title string
	Detail, Fix  string
	Level        agentver.Level
}

// defaultConfig is the learning.json init writes: every other key takes
// its default (see the schema beside it), so later defaults still apply.
const defaultConfig = `{
  "$schema": "./learning.schema.json",
  "enabled": true
}
`

// PlanInit decides what init writes, reading but writing nothing. A file
// it cannot read or parse is a failed step (and a problem), left
// untouched; an error is returned only when the plan cannot be made at
// all.
func PlanInit(p *project.Project, opts InitOptions) (*Init, error) {
	in := &Init{Project: p.Root, DryRun: opts.DryRun, Steps: []Step{}, Problems: []string{}, p: p, opts: opts, outside: map[string][]byte{}, found: map[string]agentver.Found{}, driver: -1}
	df, err := migrate.DetectDevflow(p)
	if err != nil {
		return nil, err
	}
	if df.Found() {
		in.Devflow = df
	}
	in.config()
	in.file(project.SchemaFile, templates.ConfigSchema, "the config's JSON Schema, for editors")
	in.attributes()
	in.localIgnore()
	in.claudeHooks()
	in.mcpServer()
	agents := installedToo(p, opts.Agents)
	for _, a := range agents {
		in.agentHooks(a)
		in.agentMCP(a)
	}
	in.versions(agents)
	if opts.UserSettings != nil {
		in.statusLine(opts.UserSettings, opts.ReplaceStatusLine)
	}
	in.mergeDriver()
	return in, nil
}

func (in *Init) add(action, path, note string) {
	in.Steps = append(in.Steps, Step{Action: action, Path: path, Note: note})
}

func (in *Init) fail(path string, err error) {
	in.add("failed", path, err.Error())
	in.Problems = append(in.Problems, err.Error())
}

// config creates learning.json unless there is one; an existing one is
// never touched, only checked.
func (in *Init) config() {
	data, err := os.ReadFile(in.p.Path(project.ConfigFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		in.changes = append(in.changes, evolve.Change{Path: project.ConfigFile, Data: []byte(defaultConfig)})
		in.add("created", project.ConfigFile, "defaults; see 'devlearn learn --configure'")
	case err != nil:
		in.fail(project.ConfigFile, err)
	default:
		if _, err := config.Parse(project.ConfigFile, data); err != nil {
			in.add("kept", project.ConfigFile, "yours, but it has an error: "+err.Error())
			in.Problems = append(in.Problems, err.Error())
			return
		}
		if wrote(in.p, project.ConfigFile, data) {
			in.add("unchanged", project.ConfigFile, "")
			return
		}
		in.add("kept", project.ConfigFile, "yours; not overwritten")
	}
}

// CreatesConfig reports whether the plan creates learning.json: only
// then is the person asked which files the curator keeps a section in.
func (in *Init) CreatesConfig() bool {
	_, ok := in.changes.Pending(project.ConfigFile)
	return ok
}

// ChooseCurator puts the instruction files the person chose into the
// config the plan creates, as curator.files; a config that is there is
// theirs, and left alone.
func (in *Init) ChooseCurator(files []string) error {
	i := slices.IndexFunc(in.changes, func(c evolve.Change) bool { return c.Path == project.ConfigFile })
	s := slices.IndexFunc(in.Steps, func(s Step) bool { return s.Path == project.ConfigFile })
	if i < 0 || s < 0 {
		return nil
	}
	if len(files) == 0 {
		in.Steps[s].Note += "; curator.files: none chosen ('devlearn learn --configure' sets it later)"
		return nil
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(in.changes[i].Data, &cfg); err != nil {
		return err
	}
	cfg["curator"] = map[string]any{"files": files}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	in.changes[i].Data = append(data, '\n')
	in.Steps[s].Note += "; curator.files: " + strings.Join(files, ", ")
	return nil
}

// file writes a file devlearn owns (like the schema): created when
// missing, updated when it is still what devlearn last wrote, kept when
// someone changed it.
func (in *Init) file(rel string, want []byte, what string) {
	data, err := os.ReadFile(in.p.Path(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		in.changes = append(in.changes, evolve.Change{Path: rel, Data: want})
		in.add("created", rel, what)
	case err != nil:
		in.fail(rel, err)
	case bytes.Equal(data, want):
		in.add("unchanged", rel, "")
	case wrote(in.p, rel, data):
		in.changes = append(in.changes, evolve.Change{Path: rel, Data: want})
		in.add("updated", rel, "this devlearn's version")
	default:
		in.add("kept", rel, "you changed it; not overwritten (remove it and run init to get devlearn's)")
	}
}

// attributes adds the lines that route devlearn's files to its merge
// driver to .gitattributes, keeping everything else in it.
func (in *Init) attributes() {
	const rel = register.AttributesFile
	data, err := os.ReadFile(in.p.Path(rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.fail(rel, err)
		return
	}
	next, added := register.WithRoutes(data)
	if len(added) == 0 {
		in.add("unchanged", rel, "devlearn's files already routed to its merge driver")
		return
	}
	in.changes = append(in.changes, evolve.Change{Path: rel, Data: next})
	in.add(createdOr(data), rel, fmt.Sprintf("%s devlearn's files to its merge driver", plural(len(added), "line routes", "lines route")))
}

// localIgnore lists the directive session state (.memory/.local/) in
// .memory/.gitignore, keeping every other line of it.
func (in *Init) localIgnore() {
	const rel = directives.GitignoreFile
	data, err := os.ReadFile(in.p.Path(rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.fail(rel, err)
		return
	}
	next, changed := directives.WithLocalIgnored(data)
	if !changed {
		in.add("unchanged", rel, "session state (.memory/.local/) already ignored")
		return
	}
	in.changes = append(in.changes, evolve.Change{Path: rel, Data: next})
	in.add(createdOr(data), rel, "session state (.memory/.local/) is never committed")
}

// createdOr is the action of writing a file that held data: created
// when there was none.
func createdOr(data []byte) string {
	if data == nil {
		return "created"
	}
	return "updated"
}

// claudeHooks registers devlearn's hooks in the project's Claude Code
// settings, merged into what is there.
func (in *Init) claudeHooks() {
	const rel = project.SettingsFile
	d, err := ReadHookFile(in.p.Path(rel), rel, settings.Claude)
	if err != nil {
		in.fail(rel, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init' again)", err))
		return
	}
	d.File.Enable()
	note := "devlearn's hooks already registered"
	if d.Changed() {
		note = "registered devlearn's hooks (guarded: harmless without devlearn)"
		in.changes = append(in.changes, evolve.Change{Path: rel, Data: d.File.Bytes()})
	}
	in.add(d.Action(), rel, note)
}

// mcpServer registers devlearn's MCP server (the agent tools) in the
// project's .mcp.json, keeping every other server.
func (in *Init) mcpServer() {
	const rel = settings.MCPFile
	data, err := os.ReadFile(in.p.Path(rel))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.fail(rel, err)
		return
	}
	f, err := settings.ParseMCP(rel, data)
	if err != nil {
		in.fail(rel, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init' again)", err))
		return
	}
	changed, kept := f.Register()
	switch {
	case kept:
		in.add("kept", rel, "a server named devlearn that is not devlearn's is there; devlearn's agent tools are not registered")
	case !changed:
		in.add("unchanged", rel, "devlearn's MCP server already registered")
	default:
		in.changes = append(in.changes, evolve.Change{Path: rel, Data: f.Bytes()})
		in.add(createdOr(data), rel, "devlearn's MCP server (the agent tools: 'devlearn mcp'), other servers kept")
	}
}

// installedToo adds to the agents asked for those whose hook files
// already hold devlearn's hooks, so that a plain 'devlearn init' keeps
// them current too.
func installedToo(p *project.Project, agents []*agent.Agent) []*agent.Agent {
	agents = slices.Clone(agents)
	for _, a := range agent.All() {
		if slices.Contains(agents, a) {
			continue
		}
		if d, err := ReadHookFile(p.Path(a.HookFile), a.HookFile, a.Profile); err == nil && d.File.Any() {
			agents = append(agents, a)
		}
	}
	return agents
}

// agentHooks registers devlearn's hooks in an agent's hook file, merged
// into what is there, exactly as for Claude Code's settings.
func (in *Init) agentHooks(a *agent.Agent) {
	d, err := ReadHookFile(in.p.Path(a.HookFile), a.HookFile, a.Profile)
	if data, ok := in.changes.Pending(a.HookFile); ok && err == nil {
		d.Before, d.Exists = data, true
		d.File, err = settings.ParseAs(a.HookFile, data, a.Profile)
	}
	if err != nil {
		in.fail(a.HookFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init --agent %s' again)", err, a.Name))
		return
	}
	d.File.Enable()
	note := a.Title + ": devlearn's hooks already registered"
	if d.Changed() {
		note = a.Title + ": registered devlearn's hooks (guarded: harmless without devlearn)"
		if a.Enable != "" {
			note += "; then " + a.Enable
			in.Trust = append(in.Trust, a.Title+": "+a.Enable)
		}
		in.changes.Set(a.HookFile, d.File.Bytes(), false)
	}
	in.add(d.Action(), a.HookFile, note)
}

// agentMCP registers devlearn's MCP server (the agent tools) in the
// agent's own file.
func (in *Init) agentMCP(a *agent.Agent) {
	if a.MCPFile == "" {
		return
	}
	data, existed, err := in.changes.Read(in.p, a.MCPFile)
	if err != nil {
		in.fail(a.MCPFile, err)
		return
	}
	out, changed, kept, err := EditMCP(a.MCPFile, data, false)
	switch {
	case err != nil:
		in.fail(a.MCPFile, fmt.Errorf("%w (left untouched; fix it, then run 'devlearn init --agent %s' again)", err, a.Name))
	case kept:
		in.add("kept", a.MCPFile, a.Title+": a server named devlearn that is not devlearn's is there; devlearn's agent tools are not registered")
	case !changed:
		in.add("unchanged", a.MCPFile, a.Title+": devlearn's MCP server already registered")
	default:
		in.changes.Set(a.MCPFile, out, false)
		action := "updated"
		if !existed {
			action = "created"
		}
		in.add(action, a.MCPFile, a.Title+": devlearn's MCP server ('devlearn mcp'), other servers kept")
	}
}

// versions says what the installed version of Claude Code and of each
// agent registered will and will not receive, as doctor does.
func (in *Init) versions(agents []*agent.Agent) {
	in.version(agentver.Claude, "Claude Code")
	for _, a := range agents {
		in.version(a.Name, a.Title)
	}
}

func (in *Init) version(name, title string) {
	f, ok := in.found[name]
	if !ok && in.opts.Version != nil {
		f = in.opts.Version(name)
		in.found[name] = f
	}
	optFile := ""
	if name == "codex" {
		if on, file := configtoml.OptedIn(in.p.Path(configtoml.File), filepath.Join(in.opts.CodexHome, "config.toml")); on {
			optFile = file
		}
	}
	detail, fix, level := agentver.Effect(name, f, optFile)
	in.Versions = append(in.Versions, Version{Agent: name, Title: title, Detail: detail, Fix: fix, Level: level})
}

// statusLine shows 'devlearn hud' in the person's Claude Code status
// line; one of theirs is kept unless replace is set.
func (in *Init) statusLine(find func() (string, error), replace bool) {
	path, err := find()
	if err != nil {
		in.fail("user settings", err)
		return
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Said here, as a step of the plan: refused by the writer, it
		// stopped init halfway, the merge driver unregistered.
		in.fail(path, fmt.Errorf("%s is a symbolic link, and devlearn never writes through one: set its \"statusLine\" command yourself to %q", path, settings.StatusLineCommand))
		return
	}
	d, err := ReadHookFile(path, path, settings.Claude)
	if err != nil {
		in.fail(path, fmt.Errorf("%w (left untouched)", err))
		return
	}
	changed, kept := d.File.SetStatusLine(replace)
	switch {
	case kept != "":
		if strings.Contains(kept, "devlearn hud") {
			in.add("kept", path, fmt.Sprintf("your status line %q, which calls devlearn's HUD", kept))
		} else {
			in.add("kept", path, fmt.Sprintf("your status line %q; add 'devlearn hud' to it, or run 'devlearn init --statusline --replace-statusline'", kept))
		}
	case changed:
		in.outside[path] = d.File.Bytes()
		in.add(d.Action(), path, "status line: devlearn hud")
	default:
		in.add("unchanged", path, "status line already devlearn hud")
	}
}

// mergeDriver names the merge driver in the clone's git config, when it
// is not. Without it (a fresh clone), git merges these files line by
// line: a normal conflict at worst (the registration rule,
// docs/architecture.md).
func (in *Init) mergeDriver() {
	cur, err := register.Settings(register.ExecGit, in.p.Root)
	if err != nil {
		in.fail(driverConfig, err)
		return
	}
	if register.Registered(cur) {
		in.add("unchanged", driverConfig, "merge driver registered in this clone")
		return
	}
	in.driver = len(in.Steps)
	in.add("updated", driverConfig, "merge driver registered in this clone (each clone runs 'devlearn init' once)")
}

// Apply carries the plan out: the project's files through the one
// writer, recorded as one audit entry, the user's settings, the merge
// driver, the agents' versions read (for the hooks), then the pending
// migrations through the same writer. A dry run writes nothing and says
// which migrations would apply. An error stops it; a merge driver that
// cannot be registered, or versions that cannot be recorded, are
// problems.
func (in *Init) Apply(ctx context.Context, now time.Time) error {
	p := in.p
	w := evolve.New(p, now, evolve.Trigger{Command: "init"})
	if !in.DryRun {
		if len(in.changes) > 0 {
			e, err := w.Apply(ctx, evolve.Reason{Text: "init: set devlearn up in this repository"}, in.changes...)
			if err != nil {
				return err
			}
			if e != nil {
				in.Audit = e.ID
			}
		}
		for path, data := range in.outside {
			if err := WriteOutside(path, data); err != nil {
				return err
			}
		}
		if in.driver >= 0 {
			if _, err := register.Register(register.ExecGit, p.Root); err != nil {
				in.Steps[in.driver] = Step{Action: "failed", Path: driverConfig, Note: err.Error()}
				in.Problems = append(in.Problems, err.Error())
			}
		}
		if err := agentver.Save(p.CommonDir, p.StateDir(), in.found, now.UTC().Format(time.RFC3339)); err != nil {
			in.Problems = append(in.Problems, "recording the agents' versions for the hooks: "+err.Error())
		}
	}
	r := &migrate.Runner{Ctx: migrate.Context{Proj: p, Home: in.opts.Home, Now: now}, Migrations: migrate.All(), Writer: w, DryRun: in.DryRun}
	var err error
	if in.Migrations, err = r.Run(ctx); err != nil {
		return err
	}
	in.Wrote = append([]string{}, w.Touched()...)
	for _, m := range in.Migrations {
		if m.Status == migrate.Failed {
			in.Problems = append(in.Problems, fmt.Sprintf("migration %s failed: %s", m.ID, m.Error))
		}
	}
	return nil
}

// wrote reports whether the file at rel is exactly what devlearn last
// wrote there, by the audit log: such a file may be updated; anything
// else is the person's and is kept.
func wrote(p *project.Project, rel string, data []byte) bool {
	entries, _, err := evolve.ReadLog(p)
	if err != nil {
		return false
	}
	last := ""
	for _, e := range entries {
		for _, f := range e.Files {
			if f.Path == rel {
				last = f.After
			}
		}
	}
	return last != "" && last == evolve.BlobHash(data)
}
