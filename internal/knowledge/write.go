package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Store is one folder of entries and the way to write into it: a
// project's through its audited writer (every project file devlearn
// writes goes through evolve), the global one directly, atomically.
type Store struct {
	Scope  string
	Proj   *project.Project // project scope
	Writer *evolve.Writer   // project scope
	Dir    string           // global scope: the absolute folder
	// Now stamps created_at and updated_at; the zero time leaves them as
	// they are.
	Now time.Time
}

// ProjectStore is the entries folder of a project, stamped with the
// writer's clock.
func ProjectStore(p *project.Project, w *evolve.Writer) *Store {
	return &Store{Scope: ScopeProject, Proj: p, Writer: w, Now: w.Now()}
}

// GlobalStore is the global entries folder under a devlearn home.
func GlobalStore(home string) *Store {
	return &Store{Scope: ScopeGlobal, Dir: GlobalEntriesDir(home)}
}

// File returns the path of key's file: project-relative for a project
// store (as the audit log records it), absolute for the global one. A key
// that could name anything but a direct child of the folder is refused.
func (s *Store) File(key string) (string, error) {
	if s.Scope == ScopeProject {
		return EntryFile(project.EntriesDir, key)
	}
	if s.Dir == "" {
		return "", fmt.Errorf("no global store: set DEVLEARN_HOME or HOME")
	}
	return EntryFile(s.Dir, key)
}

func (s *Store) abs(rel string) string {
	if s.Scope == ScopeProject {
		return s.Proj.Path(rel)
	}
	return rel
}

// Read returns the entry with this key, or an error wrapping
// fs.ErrNotExist when there is none.
func (s *Store) Read(key string) (*Entry, string, error) {
	rel, err := s.File(key)
	if err != nil {
		return nil, "", err
	}
	e, err := ReadEntry(s.abs(rel), rel)
	return e, rel, err
}

// Exists reports whether key has a file.
func (s *Store) Exists(key string) (bool, error) {
	rel, err := s.File(key)
	if err != nil {
		return false, err
	}
	_, err = os.Lstat(s.abs(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Create writes a new entry, only if its key has no file yet; created is
// false when one was there. The entry is validated first.
func (s *Store) Create(ctx context.Context, e *Entry, why string) (path string, created bool, err error) {
	e = s.storedFiles(e)
	if e.CreatedAt == "" && !s.Now.IsZero() {
		e.CreatedAt = FormatTime(s.Now)
	}
	if e.UpdatedAt == "" {
		e.UpdatedAt = e.CreatedAt
	}
	if err := e.Validate(); err != nil {
		return "", false, err
	}
	rel, err := s.File(e.Key)
	if err != nil {
		return "", false, err
	}
	if ok, err := s.Exists(e.Key); err != nil || ok {
		return rel, false, err
	}
	return rel, true, s.write(ctx, rel, e, why)
}

// storedFiles is the entry with its file triggers as lessons store paths
// (repopath.Stored): a glob written with backslashes, or as an absolute
// path of this project (an agent's block often names files that way),
// becomes relative to the root with forward slashes, so that it matches
// in every clone. Globs are otherwise kept as written.
func (s *Store) storedFiles(e *Entry) *Entry {
	root := ""
	if s.Scope == ScopeProject && s.Proj != nil {
		root = s.Proj.Root
	}
	var files []string
	changed := false
	for _, g := range e.Triggers.Files {
		n := g
		if strings.Contains(g, `\`) || repopath.IsAbs(g) && root != "" {
			if repopath.IsAbs(g) {
				n = repopath.Rel(root, root, g)
			} else {
				n = repopath.Slash(g)
			}
		}
		changed = changed || n != g
		files = append(files, n)
	}
	if !changed {
		return e
	}
	c := *e
	c.Triggers.Files = files
	return &c
}

func (s *Store) write(ctx context.Context, rel string, e *Entry, why string) error {
	data, err := e.Marshal()
	if err != nil {
		return err
	}
	return s.writeBytes(ctx, rel, data, e.Observation, why)
}

func (s *Store) writeBytes(ctx context.Context, rel string, data []byte, observation, why string) error {
	if s.Scope == ScopeProject {
		var obs []string
		if observation != "" {
			obs = []string{observation}
		}
		_, err := s.Writer.Apply(ctx, evolve.Reason{Text: why, Observations: obs}, evolve.Change{Path: rel, Data: data})
		return err
	}
	// The global folder is the person's: links above it are theirs, links
	// below it are refused like the project's.
	if err := safefile.MkdirRoot(s.Dir, 0o755); err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(s.Dir, rel, data, 0o644)
}

// SaveDraft records a lesson the agent wrote about itself (a
// [PROCESS_KNOWLEDGE] block): status draft, served at once below active
// entries until a person promotes or archives it, keyed by its content
// hash and written only if absent (contract 8), so the Stop hook and the
// worker seeing the same block write one file between them.
func (s *Store) SaveDraft(ctx context.Context, e *Entry, why string) (path string, created bool, err error) {
	c := *e
	c.Status = StatusDraft
	c.Key = CandidateKey(&c)
	if s.Proj != nil {
		id, err := s.Proj.CloneID()
		if err != nil {
			return "", false, fmt.Errorf("this clone's id, which a draft records: %w", err)
		}
		c.Clone = id
	}
	return s.Create(ctx, &c, why)
}

// SetStatus changes the status of an entry, keeping every other byte of
// its file, and returns the entry and the file as saved.
func (s *Store) SetStatus(ctx context.Context, key, status, why string) (*Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, "status", status, func(e *Entry) *string { return &e.Status })
}

// SetField sets one top-level front matter key of an entry (accepted,
// say), keeping every other byte of its file.
func (s *Store) SetField(ctx context.Context, key, name, value, why string) (*Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, name, value, func(e *Entry) *string {
		switch name {
		case "accepted":
			return &e.Accepted
		case "clone":
			return &e.Clone
		}
		return new(string)
	})
}

// SetPriority changes the priority of an entry (an escalation), keeping
// every other byte of its file.
func (s *Store) SetPriority(ctx context.Context, key, priority, why string) (*Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, "priority", priority, func(e *Entry) *string { return &e.Priority })
}

// setTop sets the top-level front matter key name of an entry to value
// (and updated_at), keeping every other byte of its file; field is the
// parsed entry's own copy of it.
func (s *Store) setTop(ctx context.Context, key, why, name, value string, field func(*Entry) *string) (*Entry, []byte, string, error) {
	rel, err := s.File(key)
	if err != nil {
		return nil, nil, "", err
	}
	data, err := os.ReadFile(s.abs(rel))
	if err != nil {
		return nil, nil, "", err
	}
	e, err := ParseEntry(rel, data)
	if err != nil {
		return nil, nil, "", err
	}
	if *field(e) == value {
		return e, data, rel, nil
	}
	fields := []Field{{name, value}}
	if !s.Now.IsZero() {
		e.UpdatedAt = FormatTime(s.Now)
		fields = append(fields, Field{"updated_at", e.UpdatedAt})
	}
	if data, err = WithFields(rel, data, fields...); err != nil {
		return nil, nil, "", err
	}
	*field(e) = value
	return e, data, rel, s.writeBytes(ctx, rel, data, e.Observation, why)
}

// Copy writes an entry file's bytes under the same key in this store, only
// if it has no such entry or has the same one (by content hash).
func (s *Store) Copy(ctx context.Context, e *Entry, data []byte, why string) (string, error) {
	rel, err := s.File(e.Key)
	if err != nil {
		return "", err
	}
	if other, _, err := s.Read(e.Key); err == nil && ContentHash(other) != ContentHash(e) {
		return rel, fmt.Errorf("%s already holds a different entry %q", rel, e.Key)
	}
	return rel, s.writeBytes(ctx, rel, data, e.Observation, why)
}

// Update rewrites an existing entry with new content: the key, created_at
// and the file's name stay, updated_at is stamped. The entry is validated
// first; a key with no file is an error wrapping fs.ErrNotExist.
func (s *Store) Update(ctx context.Context, e *Entry, why string) (string, error) {
	old, rel, err := s.Read(e.Key)
	if err != nil {
		return rel, err
	}
	c := *e
	if c.CreatedAt == "" {
		c.CreatedAt = old.CreatedAt
	}
	if !s.Now.IsZero() {
		c.UpdatedAt = FormatTime(s.Now)
	}
	if err := c.Validate(); err != nil {
		return rel, err
	}
	*e = c
	return rel, s.write(ctx, rel, &c, why)
}
