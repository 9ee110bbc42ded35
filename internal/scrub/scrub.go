// Package scrub removes what a person names (a string, or a regular
// expression) from every file devlearn keeps, for the secret that slipped
// past redaction: the observation log, the task logs and the audit log,
// the artifacts and knowledge files, and the per-clone state, where the
// kept copies of replaced files are exactly where a secret would survive.
//
// Project files change through the one writer (evolve), in one batch,
// while the logs' appenders are locked out; the audit log through the
// writer's RewriteLog. Nothing scrubbed is kept: the batch keeps no copy
// of what it replaces, and every kept copy (and cache) in the per-clone
// state that holds a match is deleted. Files a person wrote and owns (the
// project config) and file names are reported, not changed.
package scrub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// What was done where something was found.
const (
	Scrubbed = "scrubbed"
	Deleted  = "deleted"
	Reported = "reported" // found and left: the person must act
)

// Found is one file where something was found.
type Found struct {
	// Path is relative to the project root (forward slashes), or absolute
	// for per-clone state outside the working tree (a linked worktree's).
	Path   string `json:"path"`
	Lines  []int  `json:"lines,omitempty"` // 1-based; none for a binary file or a file name
	Count  int    `json:"count"`
	Action string `json:"action"` // scrubbed, deleted, reported; "would ..." in a dry run
	Note   string `json:"note,omitempty"`
}

// Result is what a scrub found and did.
type Result struct {
	DryRun  bool     `json:"dry_run"`
	Found   []Found  `json:"found"`
	Total   int      `json:"total"`         // matches in all
	Entries []string `json:"audit_entries"` // audit log entries that record the scrub
}

// Options say what to scrub where.
type Options struct {
	Proj   *project.Project
	Match  *Matcher
	Writer *evolve.Writer
	DryRun bool
	// LockWait bounds the wait for a log's lock; 0 means 30 seconds.
	LockWait time.Duration
}

// Run finds every match and, unless DryRun, scrubs or deletes it.
func Run(ctx context.Context, o Options) (*Result, error) {
	s := &run{o: o, res: &Result{DryRun: o.DryRun, Found: []Found{}, Entries: []string{}}}
	if err := s.project(ctx); err != nil {
		return nil, err
	}
	if err := s.auditLog(ctx); err != nil {
		return nil, err
	}
	if err := s.state(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(s.res.Found, func(a, b Found) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range s.res.Found {
		s.res.Total += f.Count
	}
	return s.res, nil
}

type run struct {
	o   Options
	res *Result
}

func (s *run) action(a string) string {
	if s.o.DryRun {
		return "would be " + a
	}
	return a
}

func (s *run) add(f Found) { s.res.Found = append(s.res.Found, f) }

// lock takes the lock a log's appenders take, waiting at most LockWait.
func (s *run) lock(ctx context.Context, rel string) (func() error, error) {
	wait := s.o.LockWait
	if wait <= 0 {
		wait = 30 * time.Second
	}
	lctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	unlock, err := jsonl.Lock(lctx, s.o.Proj.LockPath(rel))
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s is in use by another devlearn process (waited %s); nothing was changed: try again when it is done", rel, wait)
	}
	return unlock, err
}

// project scrubs the logs devlearn appends to and the files it renders,
// in one batch through the one writer, while every log's lock is held so
// that no append is lost to the rewrite. Lock order: the logs (sorted),
// then the writer's own.
func (s *run) project(ctx context.Context) error {
	logs := append([]string{project.LogFile}, s.glob(project.TasksDir+"/*.jsonl")...)
	texts := append(append(s.glob(project.CommandsDir+"/*.md"), s.glob(project.SkillsDir+"/*/SKILL.md")...),
		project.DecisionsFile, project.PitfallsFile)
	texts = append(texts, s.glob(project.EntriesDir+"/*.md")...)
	texts = append(texts, s.learnedFiles()...)
	slices.Sort(logs)

	if !s.o.DryRun {
		for _, rel := range logs {
			unlock, err := s.lock(ctx, rel)
			if err != nil {
				return err
			}
			defer unlock()
		}
	}
	var changes []evolve.Change
	before := map[string][]byte{}
	after := map[string][]byte{}
	scrub := func(rel string, how func([]byte) scrubbed) error {
		s.name(rel)
		data, ok, err := s.read(rel)
		if err != nil || !ok {
			return err
		}
		res := how(data)
		if res.count == 0 {
			return nil
		}
		s.add(Found{Path: rel, Lines: res.lines, Count: res.count, Action: s.action(Scrubbed)})
		before[rel], after[rel] = data, res.data
		changes = append(changes, evolve.Change{Path: rel, Data: res.data, Forget: true})
		return nil
	}
	for _, rel := range logs {
		if err := scrub(rel, s.o.Match.JSONLines); err != nil {
			return err
		}
	}
	for _, rel := range texts {
		if err := scrub(rel, s.o.Match.Markdown); err != nil {
			return err
		}
	}
	// Files a person wrote, and the manifest (paths and ids): reported.
	for _, rel := range []string{project.ConfigFile, project.ManifestFile} {
		data, ok, err := s.read(rel)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if res := s.o.Match.Lines(data); res.count > 0 {
			note := "a file you wrote: edit it yourself (then run 'devlearn trust' again)"
			if rel == project.ManifestFile {
				note = "an artifact's path holds it: rename the artifact, then run 'devlearn reconcile'"
			}
			s.add(Found{Path: rel, Lines: res.lines, Count: res.count, Action: Reported, Note: note})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	man, err := s.manifest(before, after)
	if err != nil {
		return err
	}
	if man != nil {
		changes = append(changes, evolve.Change{Path: project.ManifestFile, Data: man})
	}
	if s.o.DryRun {
		return nil
	}
	e, err := s.o.Writer.Apply(ctx, evolve.Reason{Text: fmt.Sprintf("redact: scrubbed what was asked from %d files; the replaced contents are not kept", len(before))}, changes...)
	if err != nil {
		return err
	}
	if e != nil {
		s.res.Entries = append(s.res.Entries, e.ID)
	}
	return nil
}

// manifest returns the manifest with the hash of every artifact the scrub
// changed brought up to date, so reconcile does not take the scrub for a
// person's edit; nil when no entry needs it. An artifact a person had
// already edited (its hash did not match) keeps its old hash: reconcile
// still sees the person's edit, as before.
func (s *run) manifest(before, after map[string][]byte) ([]byte, error) {
	data, ok, err := s.read(project.ManifestFile)
	if err != nil || !ok {
		return nil, err
	}
	m, _, err := manifest.Parse(data, s.o.Proj.Root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (fix it, or run 'devlearn reconcile' after the scrub)", project.ManifestFile, err)
	}
	changed := false
	for i := range m.Entries {
		e := &m.Entries[i]
		old, ok := before[e.Path]
		if !ok {
			continue
		}
		if e.AnchorID == "" {
			if contenthash.Matches(e.ContentHash, old) {
				e.ContentHash = contenthash.Hash(after[e.Path])
				changed = true
			}
			continue
		}
		kind, ok := directives.KindOf(e.Path)
		if !ok {
			continue
		}
		was := knowfile.Parse(kind, old).BySource(e.ObservationID)
		now := knowfile.Parse(kind, after[e.Path]).BySource(e.ObservationID)
		if was != nil && now != nil && (contenthash.Matches(e.ContentHash, []byte(was.Body)) || e.ContentHash == was.Hash()) && e.ContentHash != now.Hash() {
			e.ContentHash = now.Hash()
			changed = true
		}
	}
	if !changed {
		return nil, nil
	}
	return m.Bytes(), nil
}

// auditLog scrubs the audit log through the writer, which holds its lock.
func (s *run) auditLog(ctx context.Context) error {
	rel := evolve.LogPath
	data, ok, err := s.read(rel)
	if err != nil || !ok {
		return err
	}
	res := s.o.Match.JSONLines(data)
	if res.count == 0 {
		return nil
	}
	s.add(Found{Path: rel, Lines: res.lines, Count: res.count, Action: s.action(Scrubbed)})
	if s.o.DryRun {
		return nil
	}
	e, err := s.o.Writer.RewriteLog(ctx, evolve.Reason{Text: "redact: scrubbed what was asked from the audit log; the replaced content is not kept"},
		func(old []byte) ([]byte, error) { return s.o.Match.JSONLines(old).data, nil })
	if err != nil {
		return err
	}
	if e != nil {
		s.res.Entries = append(s.res.Entries, e.ID)
	}
	return nil
}

// state deals with the per-clone state: kept copies and caches that hold
// a match are deleted (a copy cannot be scrubbed without ceasing to be the
// content its name, a hash, says it is; a cache is rebuilt); logs and
// session files are scrubbed in place. Locks and a batch in flight are
// left alone. The working tree's own session state (.memory/.local/) is
// state too, and scrubbed the same way.
func (s *run) state() error {
	p := s.o.Proj
	for _, at := range [][2]string{{p.CommonDir, p.StateDir()}, {p.Root, p.Path(directives.LocalDir)}} {
		if err := s.stateIn(at[0], at[1]); err != nil {
			return err
		}
	}
	return nil
}

// stateIn scrubs the files under dir; trusted is the folder below which
// no symbolic link is followed.
func (s *run) stateIn(trusted, dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if path != dir && (top == "locks" || top == "pending") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if top == "objects" && evolve.IsPack(path) {
			return s.pack(trusted, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		shown := s.show(path)
		text := utf8.Valid(data)
		switch {
		case top == "objects" || top == "cache" || !text:
			n := s.o.Match.Count(string(data))
			if n == 0 {
				return nil
			}
			var lines []int
			if text {
				lines = s.o.Match.Lines(data).lines
			}
			note := "a cache: rebuilt when needed"
			switch {
			case top == "objects":
				note = keptCopyNote
			case !text:
				note = "not text"
			}
			s.add(Found{Path: shown, Lines: lines, Count: n, Action: s.action(Deleted), Note: note})
			if !s.o.DryRun {
				if err := safefile.Remove(trusted, path); err != nil {
					return err
				}
			}
		default:
			how := s.o.Match.Lines
			if ext := filepath.Ext(path); ext == ".jsonl" || ext == ".json" {
				how = s.o.Match.JSONLines
			}
			res := how(data)
			if res.count == 0 {
				return nil
			}
			s.add(Found{Path: shown, Lines: res.lines, Count: res.count, Action: s.action(Scrubbed)})
			if !s.o.DryRun {
				fi, err := d.Info()
				if err != nil {
					return err
				}
				if err := jsonl.WriteFileAtomic(trusted, path, res.data, fi.Mode().Perm()); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return err
}

// pack deals with a pack of kept copies (several copies in one file,
// evolve) copy by copy, as with the same copies loose: each that holds a
// match is reported by the name it has loose and deleted. Deleting one
// copy explodes the pack into loose copies first, so that it is deleting
// a file, as for any other copy; a pack without a match is left as it is.
func (s *run) pack(trusted, path string) error {
	var hits []string
	err := evolve.EachPacked(path, func(hash string, data []byte) error {
		n := s.o.Match.Count(string(data))
		if n == 0 {
			return nil
		}
		loose := evolve.ObjectPath(s.o.Proj, hash)
		hits = append(hits, loose)
		shown := s.show(loose)
		if slices.ContainsFunc(s.res.Found, func(f Found) bool { return f.Path == shown }) {
			return nil // kept loose as well, and found there
		}
		var lines []int
		if utf8.Valid(data) {
			lines = s.o.Match.Lines(data).lines
		}
		s.add(Found{Path: shown, Lines: lines, Count: n, Action: s.action(Deleted), Note: keptCopyNote})
		return nil
	})
	if err != nil || len(hits) == 0 || s.o.DryRun {
		return err
	}
	if err := evolve.Explode(s.o.Proj, path); err != nil {
		return err
	}
	for _, loose := range hits {
		if err := safefile.Remove(trusted, loose); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

const keptCopyNote = "a kept copy of a replaced file: reverting the change that replaced it can no longer restore it"

// learnedFiles are the area directive files (.directives/PITFALLS.md,
// INVARIANTS.md) the manifest says devlearn rendered into.
func (s *run) learnedFiles() []string {
	data, ok, err := s.read(project.ManifestFile)
	if err != nil || !ok {
		return nil
	}
	m, _, err := manifest.Parse(data, s.o.Proj.Root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range m.Entries {
		if _, ok := directives.LearnedKind(e.Path); ok && !slices.Contains(out, e.Path) {
			out = append(out, e.Path)
		}
	}
	slices.Sort(out)
	return out
}

// name reports a path that itself holds a match: a file name is not
// changed, since moving a file is a person's decision (and reconcile's).
func (s *run) name(rel string) {
	if n := s.o.Match.Count(rel); n > 0 {
		s.add(Found{Path: rel, Count: n, Action: Reported, Note: "in the file name: rename the file, then run 'devlearn reconcile'"})
	}
}

// read returns a project file's content; ok is false when it is missing
// or not a regular file (a symbolic link is never followed).
func (s *run) read(rel string) ([]byte, bool, error) {
	path := s.o.Proj.Path(rel)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func (s *run) glob(pattern string) []string {
	matches, _ := filepath.Glob(s.o.Proj.Path(pattern))
	var out []string
	for _, m := range matches {
		if rel, err := s.o.Proj.Rel(m); err == nil {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// show names a state file relative to the root when it is inside the
// working tree (.git/devlearn/...), else by its absolute path.
func (s *run) show(path string) string {
	if rel, err := s.o.Proj.Rel(path); err == nil && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return path
}
