// Package project finds the project a command or hook works on (the roots rule, docs/architecture.md)
// and names every file devlearn keeps in it, so that no other package builds
// these paths by hand.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/safefile"
)

// ErrNoRepo is returned when no ancestor of the starting folder holds .git.
var ErrNoRepo = errors.New("not inside a git repository")

// Project is a git working tree and the clone it belongs to.
type Project struct {
	Root      string // the working tree: the nearest ancestor holding .git
	GitDir    string // this working tree's git folder (differs per linked worktree)
	CommonDir string // the clone's shared git folder (the same for every worktree)
}

// Find returns the project whose working tree contains dir. It reads .git
// files itself instead of running git, because hooks call it on every tool
// use and a process start costs more than the whole hook budget allows.
func Find(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			p := &Project{Root: d}
			if fi.IsDir() {
				p.GitDir, p.CommonDir = dotgit, dotgit
				return p, nil
			}
			if err := p.readGitFile(dotgit); err != nil {
				return nil, err
			}
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w", abs, ErrNoRepo)
		}
		d = parent
	}
}

// readGitFile follows a .git file ("gitdir: <path>") to the worktree's git
// folder and, through its commondir file, to the clone's shared one.
func (p *Project) readGitFile(dotgit string) error {
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return err
	}
	line := strings.TrimSpace(string(b))
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return fmt.Errorf("%s: not a gitdir file (expected \"gitdir: <path>\")", dotgit)
	}
	gitdir := strings.TrimSpace(target)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(dotgit), gitdir)
	}
	p.GitDir = filepath.Clean(gitdir)
	p.CommonDir = p.GitDir
	if c, err := os.ReadFile(filepath.Join(p.GitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(p.GitDir, common)
		}
		p.CommonDir = filepath.Clean(common)
	}
	return nil
}

// Names of the files devlearn keeps, relative to the project root. They
// match devflow's, so an existing installation is read where it lies.
const (
	MemoryDir      = ".memory"
	ConfigFile     = ".memory/learning.json"
	LogFile        = ".memory/learning-log.jsonl"
	ManifestFile   = ".memory/.learning-manifest.json"
	DecisionsFile  = ".memory/knowledge/decisions.md"
	PitfallsFile   = ".memory/knowledge/pitfalls.md"
	EntriesDir     = ".memory/knowledge/entries"
	TasksDir       = ".memory/tasks"
	EvolutionLog   = ".memory/evolution/log.jsonl"
	MigrationsFile = ".memory/migrations.json"
	CommandsDir    = ".claude/commands/self-learning"
	SkillsDir      = ".claude/skills"
	SettingsFile   = ".claude/settings.json"
	SchemaFile     = ".memory/learning.schema.json"
	// LocalDir holds the state of one working tree, never committed.
	LocalDir = ".memory/.local"
	// ObservedDir holds the lessons the log knows but has not made ready,
	// as draft entries the hooks serve (internal/observed writes them).
	ObservedDir    = ".memory/.local/observed"
	AttributesFile = ".gitattributes"
)

// Written is every file and folder above that devlearn writes into: init
// and doctor refuse a symbolic link at any of them (a test keeps the list
// complete).
var Written = []string{
	ConfigFile, SchemaFile, LogFile, ManifestFile, DecisionsFile, PitfallsFile,
	EntriesDir, TasksDir, EvolutionLog, MigrationsFile, CommandsDir, SkillsDir,
	SettingsFile, LocalDir, ObservedDir, AttributesFile,
}

// Links finds every symbolic link where devlearn writes: at the files and
// folders of Written (or a folder on the way to them), anywhere under
// .memory/, and anywhere in the per-clone state. A repository can commit
// such a link to carry devlearn's writes out of it; every write refuses
// them, and this names them all at once, for init and doctor.
//
// also names more files devlearn writes, relative to the root (the other
// agents' hook and MCP files, which this package does not know).
func (p *Project) Links(also ...string) []*safefile.LinkError {
	var out []*safefile.LinkError
	seen := map[string]bool{}
	add := func(err error) {
		var le *safefile.LinkError
		if errors.As(err, &le) && !seen[le.Link] {
			seen[le.Link] = true
			out = append(out, le)
		}
	}
	for _, rel := range append(slices.Clone(Written), also...) {
		add(safefile.CheckNoLink(p.Root, p.Path(rel)))
	}
	walk := func(root, dir string) {
		add(safefile.CheckNoLink(root, dir))
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink != 0 {
				add(safefile.CheckNoLink(root, path))
			}
			return nil
		})
	}
	walk(p.Root, p.Path(MemoryDir))
	walk(p.CommonDir, p.StateDir())
	return out
}

// Path joins a project-relative name (one of the constants above, or a path
// under them) onto the root.
func (p *Project) Path(rel string) string { return filepath.Join(p.Root, filepath.FromSlash(rel)) }

// HasMemory reports whether the project has been set up for devlearn; hooks
// do nothing in a project without it.
func (p *Project) HasMemory() bool {
	fi, err := os.Stat(p.Path(MemoryDir))
	return err == nil && fi.IsDir()
}

// StateDir is the per-clone state folder: locks, spool, counters, caches,
// worker log and snapshots. It sits in the git folder so that it is shared
// by every worktree of the clone and can never be committed.
func (p *Project) StateDir() string { return filepath.Join(p.CommonDir, "devlearn") }

// StatePath names a file or folder inside the per-clone state folder.
func (p *Project) StatePath(elem ...string) string {
	return filepath.Join(append([]string{p.StateDir()}, elem...)...)
}

// WorktreeID names this working tree among the clone's: "main" for the
// main one, the linked worktree's name otherwise.
func (p *Project) WorktreeID() string {
	if p.GitDir != p.CommonDir {
		return filepath.Base(p.GitDir)
	}
	return "main"
}

// LockPath is the lock file guarding the project file rel. Locks are per
// working tree (each worktree has its own copy of the file) and live in the
// per-clone state so that they are never committed.
func (p *Project) LockPath(rel string) string {
	name := strings.NewReplacer("/", "_", "\\", "_", ".", "_").Replace(filepath.ToSlash(rel))
	return p.StatePath("locks", p.WorktreeID(), name+".lock")
}

// AppendLock is the lock the appenders of the project file rel take (the
// learning log, a task's log), "" for a file nobody appends to: whoever
// replaces such a file whole (a revert, a merge's checkout) takes it too,
// so that no line appended meanwhile is lost. The audit log is the one
// writer's, under that writer's own lock.
func (p *Project) AppendLock(rel string) string {
	if rel == LogFile || path.Dir(rel) == TasksDir && strings.HasSuffix(rel, ".jsonl") {
		return p.LockPath(rel)
	}
	return ""
}

// Rel returns path relative to the root with forward slashes, as stored in
// the manifest and the audit log.
func (p *Project) Rel(path string) (string, error) {
	r, err := filepath.Rel(p.Root, path)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(r), nil
}

// operations are the git operations during which the working tree is in
// flux, by the file that marks each in the worktree's git folder.
var operations = []struct{ marker, name string }{
	{"rebase-merge", "a rebase"},
	{"rebase-apply", "a rebase"},
	{"MERGE_HEAD", "a merge"},
	{"CHERRY_PICK_HEAD", "a cherry-pick"},
	{"REVERT_HEAD", "a revert"},
	{"BISECT_LOG", "a bisect"},
}

// Operation names the git operation in progress in this working tree ("a
// rebase", "a merge", ...) and the file that shows it, or "" when none is.
// Files missing during one are not a person's decision (the checkout states rule, docs/architecture.md).
func (p *Project) Operation() (name, marker string) {
	for _, op := range operations {
		if _, err := os.Stat(filepath.Join(p.GitDir, op.marker)); err == nil {
			return op.name, op.marker
		}
	}
	return "", ""
}

// EnsureLocal creates LocalDir, ignoring itself, so that its files never
// show in git status even in a project set up before init listed it in
// .memory/.gitignore. safefile refuses a symbolic link on the way: a
// committed link would send devlearn's writes out of the repository.
func EnsureLocal(root string) error {
	local := filepath.Join(root, filepath.FromSlash(LocalDir))
	_, err := os.Lstat(local)
	fresh := errors.Is(err, fs.ErrNotExist)
	if err := safefile.MkdirAll(root, local, 0o755); err != nil {
		return err
	}
	if fresh {
		return safefile.WriteFile(root, filepath.Join(local, ".gitignore"), []byte(localIgnore), 0o644)
	}
	return nil
}

// localIgnore is LocalDir's .gitignore: everything in it, itself included.
var localIgnore = "# devlearn: per-working-tree session state, never committed\n*\n"

// Worktrees lists the working trees of p's clone that are on disk, p's
// own first: the main one and those git registered as linked (their
// admin folders under the common folder name where each lives).
func (p *Project) Worktrees() []*Project {
	out := []*Project{p}
	seen := map[string]bool{p.GitDir: true}
	add := func(root, gitdir string) {
		if seen[gitdir] {
			return
		}
		seen[gitdir] = true
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return
		}
		out = append(out, &Project{Root: root, GitDir: gitdir, CommonDir: p.CommonDir})
	}
	// The main working tree holds the common folder as its .git.
	if filepath.Base(p.CommonDir) == ".git" {
		add(filepath.Dir(p.CommonDir), p.CommonDir)
	}
	linked, _ := os.ReadDir(filepath.Join(p.CommonDir, "worktrees"))
	for _, l := range linked {
		gitdir := filepath.Join(p.CommonDir, "worktrees", l.Name())
		b, err := os.ReadFile(filepath.Join(gitdir, "gitdir"))
		if err != nil {
			continue
		}
		dotgit := strings.TrimSpace(string(b))
		if !filepath.IsAbs(dotgit) {
			dotgit = filepath.Join(gitdir, dotgit)
		}
		add(filepath.Dir(dotgit), gitdir)
	}
	return out
}
