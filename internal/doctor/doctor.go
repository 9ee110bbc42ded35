// Package doctor checks a devlearn installation end to end, one check per
// thing that can be wrong, each failure with the command that fixes it.
package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agentver"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/migrate"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/settings"
	"github.com/devlearn/devlearn/internal/skills"
	"github.com/devlearn/devlearn/internal/trust"
	"github.com/devlearn/devlearn/internal/worker"
)

// Check is the outcome of one check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
	// Note marks a passed check that has something to say, with Fix as the
	// next step: nothing is wrong yet (no session has run here, say).
	Note bool `json:"note,omitempty"`
}

// Inputs is everything the checks look at; nothing is read from the
// process environment.
type Inputs struct {
	Proj      *project.Project
	Home      string // $DEVLEARN_HOME
	ClaudeDir string // $CLAUDE_CONFIG_DIR or ~/.claude
	// LookPath finds a command on the PATH the hooks run with.
	LookPath func(name string) (string, error)
	Now      time.Time
	// Schema is the config schema this devlearn writes.
	Schema []byte
	// Git runs git in the repository (for its config and attributes).
	Git register.Git
	// Version reads an agent's installed version (internal/agentver);
	// nil reads none, and every version is unknown.
	Version func(agent string) agentver.Found
	// CodexHome is Codex's folder ($CODEX_HOME, else ~/.codex), whose
	// config.toml can switch an older Codex's hooks on.
	CodexHome string
}

// Run runs every check in order.
func Run(in Inputs) []Check {
	checks := []Check{
		links(in),
		onPath(in),
		hooks(in),
		claudeVersion(in),
		driver(in),
		routes(in),
		configValid(in),
		logReadable(in),
		manifestReadable(in),
		knowledgeReadable(in),
		servedText(in),
		schemaAndMigrations(in),
		stateWritable(in),
		merges(in),
		dropped(in),
		transcripts(in),
		model(in),
		skillDeclarations(in),
	}
	return append(checks, agents(in)...)
}

func ok(name, detail string) Check { return Check{Name: name, OK: true, Detail: detail} }
func note(name, detail, next string) Check {
	return Check{Name: name, OK: true, Note: true, Detail: detail, Fix: next}
}
func fail(name, detail, fix string) Check {
	return Check{Name: name, Detail: detail, Fix: fix}
}

// links names every symbolic link where devlearn writes: every write
// refuses them, so each stops devlearn's learning there; one committed to
// a repository may be an attempt to make devlearn write elsewhere.
func links(in Inputs) Check {
	const name = "no symbolic links where devlearn writes"
	found := in.Proj.Links(agent.Files()...)
	if len(found) == 0 {
		return ok(name, "none in .memory, .claude, .gitattributes or the per-clone state")
	}
	var where []string
	for _, le := range found {
		where = append(where, le.Where())
	}
	return fail(name, strings.Join(where, "; ")+": devlearn refuses to write through them", LinksFix)
}

// LinksFix is what to do about links where devlearn writes.
const LinksFix = "remove each link ('git rm PATH' for a committed one; check where it pointed first) and commit; devlearn then writes a real file there"

func onPath(in Inputs) Check {
	const name = "devlearn on the PATH"
	p, err := in.LookPath("devlearn")
	if err != nil {
		return fail(name, "not found on the PATH the hooks run with: every hook silently does nothing",
			"install devlearn on the PATH ('go install ./cmd/...' in devlearn's source, as its README says), or start Claude Code from a shell whose PATH has it")
	}
	if _, err := in.LookPath("devlearn-hook"); err != nil {
		return note(name, p+"; devlearn-hook is not: the hooks run through devlearn, which takes several times longer to start",
			"install devlearn-hook beside it ('go install ./cmd/...' in devlearn's source, or 'make build' and copy bin/devlearn-hook)")
	}
	return ok(name, p)
}

func hooks(in Inputs) Check {
	const name = "hooks registered"
	var notes, problems []string
	registered, unreadable := false, false
	for _, f := range []struct{ path, display string }{
		{in.Proj.Path(project.SettingsFile), project.SettingsFile},
		{filepath.Join(in.ClaudeDir, "settings.json"), filepath.Join(in.ClaudeDir, "settings.json")},
	} {
		data, err := os.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		s, err := settings.Parse(f.display, data)
		if err != nil {
			problems = append(problems, err.Error())
			unreadable = true
			continue
		}
		for _, e := range s.Devflow() {
			if settings.IsDevflowLearning(e.Command) {
				problems = append(problems, fmt.Sprintf("%s: devflow's learning hook %q would rewrite the log", f.display, e.Command))
			}
		}
		if !s.Any() {
			continue
		}
		if p := s.Problems(); len(p) > 0 {
			for _, x := range p {
				problems = append(problems, f.display+": "+x)
			}
			continue
		}
		registered = true
		notes = append(notes, f.display)
	}
	// Claude Code's switch for every hook, in any of its settings files
	// (the local one included): registered or not, none runs.
	for _, f := range []string{in.Proj.Path(project.SettingsFile), in.Proj.Path(".claude/settings.local.json"), filepath.Join(in.ClaudeDir, "settings.json")} {
		var s struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &s) == nil && s.DisableAllHooks {
			return fail(name, f+" sets disableAllHooks: Claude Code runs no hook, devlearn's neither", "remove disableAllHooks from "+f)
		}
	}
	switch {
	case unreadable:
		// learn --enable cannot edit a file it cannot read.
		return fail(name, strings.Join(problems, "; "), "fix the JSON at the place named, then run devlearn doctor again")
	case len(problems) > 0:
		return fail(name, strings.Join(problems, "; "), "devlearn learn --enable (or --global); for devflow's hooks: devlearn init")
	case !registered:
		return fail(name, "no devlearn hooks in .claude/settings.json nor in the user settings", "devlearn learn --enable")
	}
	return ok(name, "in "+strings.Join(notes, " and ")+", guarded")
}

func driver(in Inputs) Check {
	const name = "merge driver registered"
	cur, err := register.Settings(in.Git, in.Proj.Root)
	if err != nil {
		return fail(name, err.Error(), "")
	}
	if !register.Registered(cur) {
		var wrong []string
		for _, s := range cur {
			if s.Current != s.Want {
				state := "not set"
				if s.Current != "" {
					state = fmt.Sprintf("is %q", s.Current)
				}
				wrong = append(wrong, s.Key+" "+state)
			}
		}
		return fail(name, strings.Join(wrong, "; ")+" in this clone's git config: git merges devlearn's files line by line", "devlearn init")
	}
	return ok(name, "merge.devlearn in this clone's git config")
}

func routes(in Inputs) Check {
	const name = ".gitattributes routes"
	missing, err := register.Routed(in.Git, in.Proj.Root)
	if err != nil {
		return fail(name, err.Error(), "")
	}
	fix := "devlearn init (then commit .gitattributes)"
	if data, err := os.ReadFile(in.Proj.Path(register.AttributesFile)); err == nil {
		if _, added := register.WithRoutes(data); len(added) == 0 && len(missing) > 0 {
			// devlearn's lines are there, and something read after them
			// wins: init would change nothing.
			fix = fmt.Sprintf("a line after devlearn's in .gitattributes, or a .gitattributes in a folder of these files, gives them another merge driver: remove it ('git check-attr -a -- %s' shows what applies), then commit", missing[0])
		}
	}
	switch {
	case len(missing) == len(register.SamplePaths):
		return fail(name, "no devlearn file is routed to merge=devlearn: git merges them line by line", fix)
	case len(missing) > 0:
		return fail(name, fmt.Sprintf("%d %s not routed to merge=devlearn: %s", len(missing), pluralWord(len(missing), "file is", "files are"), strings.Join(missing, ", ")), fix)
	}
	return ok(name, fmt.Sprintf("all %d kinds of devlearn file go to merge=devlearn", len(register.SamplePaths)))
}

func configValid(in Inputs) Check {
	const name = "config valid and trusted"
	l, err := config.LoadProject(in.Home, in.Proj.Root)
	if err != nil {
		return fail(name, err.Error(), "fix the file at the line named; 'devlearn learn --configure --set KEY=VALUE' checks values")
	}
	path := in.Proj.Path(project.ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(name, project.ConfigFile+" is missing: defaults apply", "devlearn init")
	}
	if err != nil {
		return fail(name, err.Error(), "")
	}
	// Gates run the folder's code, the global config's too: any gate in
	// force needs the folder trusted (gate.Trusted), with the files it runs.
	gates := len(gate.All(l.Gates)) > 0
	if !trust.ConfigNeedsTrust(data) && !gates {
		return ok(name, project.ConfigFile+" is valid and sets no extractor key and no gate, and no global gate applies: nothing to trust")
	}
	var files []string
	if gates {
		files = gate.Files(in.Proj.Root, l.Gates)
	}
	trusted, why, err := trust.CheckFiles(in.Home, path, files)
	if err != nil {
		return fail(name, err.Error(), "")
	}
	if !trusted {
		return fail(name, why, "read "+project.ConfigFile+", then run 'devlearn trust'")
	}
	return ok(name, project.ConfigFile+" is valid; its commands are "+why)
}

// skillDeclarations checks what the skill of each stage declares of the
// directive system, as the post-tool-use hook reads it: a name that is not
// a filtered type is ignored there (and logged), so it is named here with
// its file and line.
func skillDeclarations(in Inputs) Check {
	const name = "stage skills' directive declarations"
	l, err := config.LoadProject(in.Home, in.Proj.Root)
	if err != nil {
		return ok(name, "not checked: the config does not load (see above)")
	}
	var probs []string
	loads := 0
	for _, stage := range config.Stages {
		d, err := skills.Declared(in.Home, &l.Config.Skills.Stages, stage)
		if err != nil {
			probs = append(probs, err.Error())
			continue
		}
		probs = append(probs, d.Problems...)
		loads += len(d.Directives)
	}
	if len(probs) > 0 {
		return fail(name, strings.Join(probs, "; "),
			"edit each line named ('devlearn skill edit NAME --tier core'): directives lists only "+strings.Join(directives.Filtered(), ", ")+"; point skills.stages at skills that exist")
	}
	return ok(name, fmt.Sprintf("%d filtered directive %s loaded in full by the %d stages' skills; no unknown name", loads, pluralWord(loads, "type", "types"), len(config.Stages)))
}

func logReadable(in Inputs) Check {
	const name = "observation log readable"
	l, err := observe.LoadFile(in.Proj.Path(project.LogFile))
	if err != nil {
		return fail(name, err.Error(), "")
	}
	if n := len(l.Problems); n > 0 {
		var lines []string
		for _, p := range l.Problems[:min(n, 5)] {
			lines = append(lines, fmt.Sprint(p.Line))
		}
		more := ""
		if n > 5 {
			more = ", ..."
		}
		return fail(name, fmt.Sprintf("%d corrupt %s skipped (line %s%s)", n, pluralWord(n, "line", "lines"), strings.Join(lines, ", "), more), "devlearn learn --purge")
	}
	return ok(name, fmt.Sprintf("%d %s, %d %s", l.Lines, pluralWord(l.Lines, "line", "lines"), len(l.IDs()), pluralWord(len(l.IDs()), "observation", "observations")))
}

func manifestReadable(in Inputs) Check {
	const name = "artifact manifest readable"
	m, _, err := manifest.LoadProject(in.Proj)
	if err != nil {
		msg := err.Error()
		var re *manifest.ReadError
		if errors.As(err, &re) {
			msg = project.ManifestFile + ": " + re.Err.Error()
		}
		return fail(name, msg, manifestFix(in))
	}
	return ok(name, fmt.Sprintf("%d %s", len(m.Entries), pluralWord(len(m.Entries), "artifact", "artifacts")))
}

// manifestFix gets an unreadable manifest back: git's copy where HEAD has
// one; where it was never committed, git has none to give, and reconcile
// rebuilds it from the artifacts on disk (it adopts each one that exactly
// one observation claims).
func manifestFix(in Inputs) string {
	const named = ", or fix the JSON at the place named"
	if in.Git != nil {
		if _, err := in.Git(in.Proj.Root, "cat-file", "-e", "HEAD:"+project.ManifestFile); err == nil {
			return "git checkout -- " + project.ManifestFile + " (git's copy from HEAD)" + named
		}
	}
	return "rm " + project.ManifestFile + " && devlearn reconcile (it is not in git's HEAD; reconcile rebuilds it from the artifacts on disk)" + named
}

// knowledgeReadable reports the entry files (and decisions.md, pitfalls.md)
// that every command skips with a warning: the agent is never served them.
func knowledgeReadable(in Inputs) Check {
	const name = "knowledge entries readable"
	set := knowledge.ReadAll(knowledge.Sources{Root: in.Proj.Root, GlobalDir: knowledge.GlobalEntriesDir(in.Home)})
	if n := len(set.Problems); n > 0 {
		var msgs []string
		for _, p := range set.Problems {
			msgs = append(msgs, p.Error())
		}
		return fail(name, fmt.Sprintf("%d %s skipped, never served: %s", n, pluralWord(n, "file is", "files are"), strings.Join(msgs, "; ")),
			"fix each file at the line named ('devlearn knowledge show KEY' reads one back), or remove it")
	}
	return ok(name, fmt.Sprintf("%d %s", len(set.Items), pluralWord(len(set.Items), "item", "items")))
}

// dropped names the sessions the worker gave up on: their lessons are
// not learned until someone retries them.
func dropped(in Inputs) Check {
	const name = "no session dropped by the worker"
	d, err := worker.For(in.Proj).Dropped()
	if err != nil {
		return fail(name, err.Error(), "")
	}
	if len(d) == 0 {
		return ok(name, "every ended session was ingested or waits for a batch")
	}
	var ids, cmds []string
	for _, s := range d {
		ids = append(ids, s.SessionID+" ("+s.Why+")")
		cmds = append(cmds, "devlearn ingest --session "+s.SessionID)
	}
	return fail(name, fmt.Sprintf("%d %s dropped: %s", len(d), pluralWord(len(d), "session", "sessions"), strings.Join(ids, "; ")),
		"retry each: "+strings.Join(cmds, "; "))
}

func schemaAndMigrations(in Inputs) Check {
	const name = "schema and migrations"
	var problems []string
	data, err := os.ReadFile(in.Proj.Path(".memory/learning.schema.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		problems = append(problems, ".memory/learning.schema.json is missing")
	case err != nil:
		problems = append(problems, err.Error())
	case !bytes.Equal(data, in.Schema):
		problems = append(problems, ".memory/learning.schema.json is not this devlearn's")
	}
	r := &migrate.Runner{Ctx: migrate.Context{Proj: in.Proj, Home: in.Home, Now: in.Now}, Migrations: migrate.All()}
	list, err := r.List()
	if err != nil {
		problems = append(problems, err.Error())
	}
	var pending []string
	for _, m := range list {
		if m.Status == migrate.Pending {
			pending = append(pending, m.ID)
		}
	}
	if len(pending) > 0 {
		problems = append(problems, fmt.Sprintf("%d pending: %s", len(pending), strings.Join(pending, ", ")))
	}
	if len(problems) > 0 {
		return fail(name, strings.Join(problems, "; "), "devlearn init")
	}
	return ok(name, fmt.Sprintf("schema current; %d migrations applied", len(list)))
}

func stateWritable(in Inputs) Check {
	const name = "per-clone state writable"
	dir := in.Proj.StateDir()
	f, err := safefile.CreateTemp(in.Proj.CommonDir, dir, ".doctor-*")
	if errors.Is(err, safefile.ErrLink) {
		return fail(name, err.Error(), "remove the link and run devlearn doctor again")
	}
	if err != nil {
		return fail(name, err.Error(), "make "+dir+" writable by you")
	}
	f.Close()
	safefile.Remove(in.Proj.CommonDir, f.Name())
	return ok(name, dir)
}

// merges reports a merge a crash cut short (its journal), whose base may
// point at the merge while its checkout lags, and an index lock devlearn
// left: both with the command that finishes them.
func merges(in Inputs) Check {
	const name = "no merge left half done"
	list, err := gitx.Interrupted(in.Proj.Root)
	if err != nil {
		return note(name, "not checked: "+err.Error(), "")
	}
	var what, next []string
	running := 0
	for _, it := range list {
		if it.Running {
			running++
			continue
		}
		what, next = append(what, it.What), append(next, it.Next)
	}
	if len(what) > 0 {
		return fail(name, strings.Join(what, "; "), strings.Join(next, "; "))
	}
	if running > 0 {
		return ok(name, fmt.Sprintf("%d %s running", running, pluralWord(running, "merge", "merges")))
	}
	return ok(name, "no interrupted merge")
}

// model says whether a model reads the sessions beside the rules, and
// what keeps it from running when it is on. Off is no fault, but a person
// should know the rules alone read their sessions, and that a model reads
// them better (docs/capture.md measures both).
func model(in Inputs) Check {
	const name = "learning with a model"
	l, err := config.LoadProject(in.Home, in.Proj.Root)
	if err != nil {
		return note(name, "not known: the config cannot be read (above)", "")
	}
	run, why, err := llm.Permit(l.Config, in.Home, in.Proj.Path(project.ConfigFile))
	switch {
	case err != nil:
		return fail(name, err.Error(), "")
	case !l.Extractor.LLM:
		return note(name, "off: the rules alone read the sessions", `a model reads them better, once you choose to send them to one: docs/setup.md, "Learning with a model"`)
	case !run:
		return note(name, "on, but not run: "+why, "") // why says what to do
	}
	prog := l.Extractor.Command[0]
	if in.LookPath != nil {
		if _, err := in.LookPath(prog); err != nil {
			return fail(name, "on, but "+prog+" is not on the PATH the worker runs with: the rules alone read the sessions", "install "+prog+", or set extractor.command")
		}
	}
	detail := "on: " + prog
	if l.Extractor.Model != "" {
		detail += ", model " + l.Extractor.Model
	}
	return ok(name, detail+" ("+why+")")
}

// transcripts counts this project's Claude Code sessions as ingest finds
// them, so doctor's count is the sessions 'devlearn ingest --all' reads.
func transcripts(in Inputs) Check {
	const name = "Claude Code transcripts"
	projects := filepath.Join(in.ClaudeDir, "projects")
	dirs, err := filepath.Glob(filepath.Join(projects, "*"))
	if err != nil || len(dirs) == 0 {
		return note(name, "no sessions under "+projects+" yet", "run a Claude Code session in this repository (set $CLAUDE_CONFIG_DIR if Claude Code keeps its files elsewhere)")
	}
	files, err := ingest.ProjectSessions(in.ClaudeDir, in.Proj.Root)
	if err != nil {
		return fail(name, err.Error(), "")
	}
	sessions := len(files)
	if sessions == 0 {
		return note(name, "none of the sessions under "+projects+" ran in this repository yet", "run a Claude Code session here; devlearn learns from them when they end")
	}
	return ok(name, fmt.Sprintf("%d %s for this repository", sessions, pluralWord(sessions, "session", "sessions")))
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
