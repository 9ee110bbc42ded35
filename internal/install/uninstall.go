package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/cleanup"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
)

// UninstallOptions say how far uninstall goes.
type UninstallOptions struct {
	// PurgeKnowledge also removes what devlearn learned and made here.
	PurgeKnowledge bool
	DryRun         bool
	// UserSettings finds the person's Claude Code settings, to take
	// devlearn's hooks and status line out of them too (--global); nil
	// leaves them alone.
	UserSettings func() (string, error)
}

// Uninstall is the plan of taking devlearn out of a repository: its steps
// in the order they are shown, made by PlanUninstall, carried out by
// Apply.
type Uninstall struct {
	Project  string
	DryRun   bool
	Steps    []Step
	Problems []string
	// Audit is the audit entry that recorded the removals, once applied.
	Audit string

	p       *project.Project
	changes Changes           // project files, in one batch of the writer
	outside map[string][]byte // files outside the project
	purge   *cleanup.Plan     // what --purge-knowledge removes; nil without it
	driver  int               // the step that unregisters the merge driver; -1: none
}

// devlearnFiles are the files devlearn keeps in .memory/ besides the
// artifacts, removed by --purge-knowledge.
var devlearnFiles = []string{project.LogFile, project.ConfigFile, project.SchemaFile, project.MigrationsFile}

// driverConfig is where the merge driver is registered.
const driverConfig = "git config merge.devlearn"

// PlanUninstall decides what uninstall removes, reading but writing
// nothing. A file it cannot read or parse is a failed step (and a
// problem), left untouched; an error is returned only when the plan
// cannot be made at all.
func PlanUninstall(p *project.Project, opts UninstallOptions) (*Uninstall, error) {
	u := &Uninstall{Project: p.Root, DryRun: opts.DryRun, Steps: []Step{}, Problems: []string{}, p: p, outside: map[string][]byte{}, driver: -1}
	u.claudeHooks()
	u.agentMCP()
	u.agentHooks()
	if opts.UserSettings != nil {
		u.userSettings(opts.UserSettings)
	}
	u.mcpServer()
	u.attributes()
	if opts.PurgeKnowledge {
		if err := u.knowledge(); err != nil {
			return nil, err
		}
	}
	u.mergeDriver()
	return u, nil
}

func (u *Uninstall) add(action, path, note string) {
	u.Steps = append(u.Steps, Step{Action: action, Path: path, Note: note})
}

func (u *Uninstall) fail(path string, err error) {
	u.add("failed", path, err.Error())
	u.Problems = append(u.Problems, err.Error())
}

// claudeHooks takes devlearn's hooks out of the project's Claude Code
// settings.
func (u *Uninstall) claudeHooks() {
	const rel = project.SettingsFile
	d, err := ReadHookFile(u.p.Path(rel), rel, settings.Claude)
	if err != nil {
		u.fail(rel, fmt.Errorf("%w (left untouched)", err))
		return
	}
	removed := d.File.Disable()
	switch {
	case len(removed) == 0:
		u.add("unchanged", rel, "no devlearn hooks")
	case d.File.Empty() && created(u.p, rel):
		u.changes.Set(rel, nil, true)
		u.add("removed", rel, "init created it for devlearn's hooks alone")
	default:
		u.changes.Set(rel, d.File.Bytes(), false)
		u.add("updated", rel, fmt.Sprintf("removed %s; everything else kept", plural(len(removed), "devlearn hook", "devlearn hooks")))
	}
}

// agentMCP takes devlearn's MCP server out of each agent's own file; a
// file init created for it alone goes.
func (u *Uninstall) agentMCP() {
	for _, a := range agent.All() {
		if a.MCPFile == "" {
			continue
		}
		data, existed, err := u.changes.Read(u.p, a.MCPFile)
		if err != nil || !existed {
			continue
		}
		out, changed, _, err := EditMCP(a.MCPFile, data, true)
		switch {
		case err != nil:
			u.fail(a.MCPFile, fmt.Errorf("%w (left untouched)", err))
		case !changed:
		case emptyFile(a.MCPFile, out) && created(u.p, a.MCPFile):
			u.changes.Set(a.MCPFile, nil, true)
			u.add("removed", a.MCPFile, a.Title+": init created it for devlearn alone")
		default:
			u.changes.Set(a.MCPFile, out, false)
			u.add("updated", a.MCPFile, a.Title+": removed devlearn's MCP server; everything else kept")
		}
	}
}

// emptyFile reports a file left with nothing in it.
func emptyFile(rel string, data []byte) bool {
	t := strings.TrimSpace(string(data))
	return t == "" || (strings.HasSuffix(rel, ".json") && strings.Join(strings.Fields(t), "") == "{}")
}

// agentHooks takes devlearn's hooks out of every agent's hook file,
// keeping everything else; a file that init created for them alone (or
// devlearn's own) goes.
func (u *Uninstall) agentHooks() {
	for _, a := range agent.All() {
		data, existed, err := u.changes.Read(u.p, a.HookFile)
		if err != nil {
			u.fail(a.HookFile, fmt.Errorf("%w (left untouched)", err))
			continue
		}
		if !existed {
			continue
		}
		f, err := settings.ParseAs(a.HookFile, data, a.Profile)
		if err != nil {
			u.fail(a.HookFile, fmt.Errorf("%w (left untouched)", err))
			continue
		}
		removed := f.Disable()
		if len(removed) == 0 {
			continue
		}
		if f.Empty() && (a.Own || created(u.p, a.HookFile)) {
			u.changes.Set(a.HookFile, nil, true)
			u.add("removed", a.HookFile, a.Title+": init created it for devlearn's hooks alone")
			continue
		}
		u.changes.Set(a.HookFile, f.Bytes(), false)
		u.add("updated", a.HookFile, fmt.Sprintf("%s: removed %s; everything else kept", a.Title, plural(len(removed), "devlearn hook", "devlearn hooks")))
	}
}

// userSettings takes devlearn's hooks and status line out of the person's
// Claude Code settings (--global).
func (u *Uninstall) userSettings(find func() (string, error)) {
	path, err := find()
	if err != nil {
		u.fail("user settings", err)
		return
	}
	d, err := ReadHookFile(path, path, settings.Claude)
	if err != nil {
		u.fail(path, fmt.Errorf("%w (left untouched)", err))
		return
	}
	removed := d.File.Disable()
	line := d.File.RemoveStatusLine()
	if !d.Changed() {
		u.add("unchanged", path, "no devlearn hooks or status line")
		return
	}
	var parts []string
	if len(removed) > 0 {
		parts = append(parts, plural(len(removed), "devlearn hook", "devlearn hooks"))
	}
	if line {
		parts = append(parts, "devlearn's status line")
	}
	u.outside[path] = d.File.Bytes()
	u.add("updated", path, "removed "+strings.Join(parts, " and "))
}

// mcpServer takes devlearn's entry out of .mcp.json, and only it.
func (u *Uninstall) mcpServer() {
	const rel = settings.MCPFile
	data, err := os.ReadFile(u.p.Path(rel))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			u.fail(rel, err)
		}
		return
	}
	f, err := settings.ParseMCP(rel, data)
	switch {
	case err != nil:
		u.fail(rel, fmt.Errorf("%w (left untouched)", err))
	case !f.Unregister():
		u.add("unchanged", rel, "no devlearn MCP server")
	case f.Empty() && created(u.p, rel):
		u.changes.Set(rel, nil, true)
		u.add("removed", rel, "init created it for devlearn's server alone")
	default:
		u.changes.Set(rel, f.Bytes(), false)
		u.add("updated", rel, "removed devlearn's MCP server; the other servers kept")
	}
}

// attributes takes devlearn's lines out of .gitattributes.
func (u *Uninstall) attributes() {
	const rel = register.AttributesFile
	data, err := os.ReadFile(u.p.Path(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		u.fail(rel, err)
		return
	}
	next, removed := register.WithoutRoutes(data)
	switch {
	case len(removed) == 0:
		u.add("unchanged", rel, "no devlearn lines")
	case len(next) == 0:
		u.changes.Set(rel, nil, true)
		u.add("removed", rel, "it held only devlearn's lines")
	default:
		u.changes.Set(rel, next, false)
		u.add("updated", rel, fmt.Sprintf("removed devlearn's %s; everything else kept", plural(len(removed), "line", "lines")))
	}
}

// knowledge is what --purge-knowledge removes: every artifact devlearn
// made (not the person's own files), its files in .memory/, the task
// logs, and the audit log last.
func (u *Uninstall) knowledge() error {
	purge, err := cleanup.Artifacts(u.p)
	if err != nil {
		return err
	}
	for _, f := range devlearnFiles {
		if _, err := os.Stat(u.p.Path(f)); err == nil {
			purge.Changes = append(purge.Changes, evolve.Change{Path: f, Remove: true})
			purge.Removed = append(purge.Removed, f)
		}
	}
	tasks, _ := filepath.Glob(u.p.Path(project.TasksDir + "/*.jsonl"))
	for _, t := range tasks {
		rel, _ := u.p.Rel(t)
		purge.Changes = append(purge.Changes, evolve.Change{Path: rel, Remove: true})
		purge.Removed = append(purge.Removed, rel)
	}
	u.changes = append(u.changes, purge.Changes...)
	for _, r := range purge.Removed {
		u.add("removed", r, "")
	}
	for _, k := range purge.Kept {
		u.add("kept", k, "yours")
	}
	if _, err := os.Stat(u.p.Path(evolve.LogPath)); err == nil {
		u.add("removed", evolve.LogPath, "the audit trail, removed last")
	}
	u.purge = purge
	return nil
}

// mergeDriver unregisters the merge driver from this clone's git config.
func (u *Uninstall) mergeDriver() {
	cur, err := register.Settings(register.ExecGit, u.p.Root)
	if err != nil {
		u.fail(driverConfig, err)
		return
	}
	set := false
	for _, s := range cur {
		set = set || s.Current != ""
	}
	if !set {
		u.add("unchanged", driverConfig, "no merge driver registered")
		return
	}
	u.driver = len(u.Steps)
	u.add("removed", driverConfig, "merge driver unregistered in this clone")
}

// Apply carries the plan out (nothing in a dry run): the project's files
// through the one writer, recorded as one audit entry, the user's
// settings, the folders left empty, then with --purge-knowledge the audit
// log and the per-clone state, and the merge driver last. An error stops
// it; a merge driver that cannot be unregistered is a failed step.
func (u *Uninstall) Apply(ctx context.Context, now time.Time) error {
	if u.DryRun {
		return nil
	}
	p := u.p
	if len(u.changes) > 0 {
		w := evolve.New(p, now, evolve.Trigger{Command: "uninstall"})
		e, err := w.Apply(ctx, evolve.Reason{Text: "uninstall: devlearn taken out of this repository"}, u.changes...)
		if err != nil {
			return err
		}
		if e != nil {
			u.Audit = e.ID
		}
	}
	for path, data := range u.outside {
		if err := WriteOutside(path, data); err != nil {
			return err
		}
	}
	cleanup.RemoveEmptyDirs(p, append([]string{project.SettingsFile}, agentFiles()...))
	if u.purge != nil {
		// The audit log goes last: it recorded the removals above, and
		// the copies of what they removed stay in the per-clone objects.
		safefile.Remove(p.Root, p.Path(evolve.LogPath))
		cleanup.RemoveEmptyDirs(p, append(u.purge.Removed, evolve.LogPath))
		if _, err := cleanup.ClearState(p); err != nil {
			return err
		}
	}
	if u.driver >= 0 {
		if _, err := register.Unregister(register.ExecGit, p.Root); err != nil {
			u.Steps[u.driver] = Step{Action: "failed", Path: driverConfig, Note: err.Error()}
			u.Problems = append(u.Problems, err.Error())
		}
	}
	return nil
}

// agentFiles are the agents' hook and MCP files, for removing the folders
// uninstall leaves empty.
func agentFiles() []string {
	var out []string
	for _, a := range agent.All() {
		out = append(out, a.HookFile)
		if a.MCPFile != "" {
			out = append(out, a.MCPFile)
		}
	}
	return out
}

func plural(n int, one, many string) string { return knowledge.Plural(n, one, many) }
