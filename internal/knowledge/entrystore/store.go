// Package entrystore is the one writer of knowledge entries: it creates,
// updates and edits an entry file, saves an agent's draft, changes one
// front matter line in place, and ages candidates and drafts out. What
// reads entries (parsing, the cache, the index, ranking) is
// internal/knowledge's, which the hooks serve from; this package imports
// it, never the other way, so what serves entries does not depend on how
// they are written (internal/layering holds the arrow).
package entrystore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
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
	// Lock is the global scope's lock file, held around each write so a
	// check of what the folder holds and the write that depends on it
	// are one step against another process (the project's writer has
	// its own lock).
	Lock string
	// Now stamps created_at and updated_at; the zero time leaves them as
	// they are.
	Now time.Time
	// Redact scrubs an entry's text before Create or Update writes it,
	// whoever made the entry (a person, an agent's tool call, a
	// rejection); nil means redact.Text.
	Redact func(string) string
}

func (s *Store) redact() func(string) string {
	if s.Redact == nil {
		return redact.Text
	}
	return s.Redact
}

// Redacted is e as Create and Update would write it: its text redacted.
// A caller that derives a key or a message from the entry redacts it
// first, so that neither holds what the file will not.
func (s *Store) Redacted(e *knowledge.Entry) *knowledge.Entry { return redacted(e, s.redact()) }

// Project is the entries folder of a project, stamped with the writer's
// clock.
func Project(p *project.Project, w *evolve.Writer) *Store {
	return &Store{Scope: knowledge.ScopeProject, Proj: p, Writer: w, Now: w.Now()}
}

// Global is the global entries folder under a devlearn home.
func Global(home string) *Store {
	s := &Store{Scope: knowledge.ScopeGlobal, Dir: knowledge.GlobalEntriesDir(home)}
	if home != "" {
		s.Lock = filepath.Join(home, "locks", "knowledge.lock")
	}
	return s
}

// File returns the path of key's file: project-relative for a project
// store (as the audit log records it), absolute for the global one. A key
// that could name anything but a direct child of the folder is refused.
func (s *Store) File(key string) (string, error) {
	if s.Scope == knowledge.ScopeProject {
		return knowledge.EntryFile(project.EntriesDir, key)
	}
	if s.Dir == "" {
		return "", fmt.Errorf("no global store: set DEVLEARN_HOME or HOME")
	}
	return knowledge.EntryFile(s.Dir, key)
}

func (s *Store) abs(rel string) string {
	if s.Scope == knowledge.ScopeProject {
		return s.Proj.Path(rel)
	}
	return rel
}

// Read returns the entry with this key, or an error wrapping
// fs.ErrNotExist when there is none.
func (s *Store) Read(key string) (*knowledge.Entry, string, error) {
	rel, err := s.File(key)
	if err != nil {
		return nil, "", err
	}
	e, err := knowledge.ReadEntry(s.abs(rel), rel)
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
// false when one was there. The entry is validated first. The absence is
// checked again under the writer's lock, so of two processes creating
// the same key at once one creates it and the other is told it exists:
// neither overwrites the other.
func (s *Store) Create(ctx context.Context, e *knowledge.Entry, why string) (path string, created bool, err error) {
	if err := checkKeySecret(e.Key); err != nil {
		return "", false, err
	}
	// In place, as Validate fills defaults in: the caller reports what
	// was written.
	*e = *s.Redacted(e)
	e = s.storedFiles(e)
	if e.CreatedAt == "" && !s.Now.IsZero() {
		e.CreatedAt = knowledge.FormatTime(s.Now)
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
	data, err := e.Marshal()
	if err != nil {
		return "", false, err
	}
	absent := ""
	err = s.writeBytes(ctx, rel, data, e.Observation, why, &absent)
	if changed := (*evolve.ChangedError)(nil); errors.As(err, &changed) {
		return rel, false, nil
	}
	return rel, err == nil, err
}

// storedFiles is the entry with its file triggers as lessons store paths
// (repopath.Stored): a glob written with backslashes, or as an absolute
// path of this project (an agent's block often names files that way),
// becomes relative to the root with forward slashes, so that it matches
// in every clone. Globs are otherwise kept as written.
func (s *Store) storedFiles(e *knowledge.Entry) *knowledge.Entry {
	root := ""
	if s.Scope == knowledge.ScopeProject && s.Proj != nil {
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

func (s *Store) write(ctx context.Context, rel string, e *knowledge.Entry, why string) error {
	data, err := e.Marshal()
	if err != nil {
		return err
	}
	return s.writeBytes(ctx, rel, data, e.Observation, why, nil)
}

// writeBytes writes data at rel. With expect, only if the file still
// holds the content of that blob hash ("" = absent), checked under the
// lock of the write; otherwise nothing is written and the error is an
// *evolve.ChangedError.
func (s *Store) writeBytes(ctx context.Context, rel string, data []byte, observation, why string, expect *string) error {
	if s.Scope == knowledge.ScopeProject {
		// The reason is committed in the audit log, and often quotes
		// the entry's summary, which a hand-written file may not have
		// had redacted.
		why = s.redact()(why)
		var obs []string
		if observation != "" {
			obs = []string{observation}
		}
		c := evolve.Change{Path: rel, Data: data}
		if expect != nil {
			c.Guard, c.Expect = true, *expect
		}
		_, err := s.Writer.Apply(ctx, evolve.Reason{Text: why, Observations: obs}, c)
		return err
	}
	// The global folder is the person's: links above it are theirs, links
	// below it are refused like the project's.
	if err := safefile.MkdirRoot(s.Dir, 0o755); err != nil {
		return err
	}
	lock := s.Lock
	if lock == "" {
		lock = s.Dir + ".lock"
	}
	unlock, err := jsonl.Lock(ctx, lock)
	if err != nil {
		return err
	}
	defer unlock()
	if expect != nil {
		cur, err := os.ReadFile(rel)
		current := ""
		if err == nil {
			current = evolve.BlobHash(cur)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if current != *expect {
			return &evolve.ChangedError{Path: rel, Expected: *expect, Current: current}
		}
	}
	return jsonl.WriteFileAtomic(s.Dir, rel, data, 0o644)
}

// SaveDraft records a lesson the agent wrote about itself (a
// [PROCESS_KNOWLEDGE] block): status draft, served at once below active
// entries until a person promotes or archives it, keyed by its content
// hash and written only if absent (the entries and counters rule, docs/architecture.md), so the Stop hook and the
// worker seeing the same block write one file between them.
func (s *Store) SaveDraft(ctx context.Context, e *knowledge.Entry, why string) (path string, created bool, err error) {
	c := *s.Redacted(e) // before its key is made of its summary
	c.Status = knowledge.StatusDraft
	c.Key = knowledge.CandidateKey(&c)
	if s.Proj != nil {
		id, err := s.Proj.CloneID()
		if err != nil {
			return "", false, fmt.Errorf("this clone's id, which a draft records: %w", err)
		}
		c.Clone = id
	}
	return s.Create(ctx, &c, why)
}

// DraftKey is the key SaveDraft gives e.
func (s *Store) DraftKey(e *knowledge.Entry) string {
	c := *s.Redacted(e)
	c.Status = knowledge.StatusDraft
	return knowledge.CandidateKey(&c)
}

// SetStatus changes the status of an entry, keeping every other byte of
// its file, and returns the entry and the file as saved.
func (s *Store) SetStatus(ctx context.Context, key, status, why string) (*knowledge.Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, "status", status, func(e *knowledge.Entry) *string { return &e.Status })
}

// SetField sets one top-level front matter key of an entry (accepted,
// say), keeping every other byte of its file.
func (s *Store) SetField(ctx context.Context, key, name, value, why string) (*knowledge.Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, name, value, func(e *knowledge.Entry) *string {
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
func (s *Store) SetPriority(ctx context.Context, key, priority, why string) (*knowledge.Entry, []byte, string, error) {
	return s.setTop(ctx, key, why, "priority", priority, func(e *knowledge.Entry) *string { return &e.Priority })
}

// setTop sets the top-level front matter key name of an entry to value
// (and updated_at), keeping every other byte of its file; slot is the
// parsed entry's own copy of it.
func (s *Store) setTop(ctx context.Context, key, why, name, value string, slot func(*knowledge.Entry) *string) (*knowledge.Entry, []byte, string, error) {
	rel, err := s.File(key)
	if err != nil {
		return nil, nil, "", err
	}
	data, err := os.ReadFile(s.abs(rel))
	if err != nil {
		return nil, nil, "", err
	}
	e, err := knowledge.ParseEntry(rel, data)
	if err != nil {
		return nil, nil, "", err
	}
	if *slot(e) == value {
		return e, data, rel, nil
	}
	fields := []field{{name, value}}
	if !s.Now.IsZero() {
		e.UpdatedAt = knowledge.FormatTime(s.Now)
		fields = append(fields, field{"updated_at", e.UpdatedAt})
	}
	if data, err = withFields(rel, data, fields...); err != nil {
		return nil, nil, "", err
	}
	*slot(e) = value
	return e, data, rel, s.writeBytes(ctx, rel, data, e.Observation, why, nil)
}

// Copy writes an entry file's bytes under the same key in this store, only
// if it has no such entry or has the same one (by content hash).
func (s *Store) Copy(ctx context.Context, e *knowledge.Entry, data []byte, why string) (string, error) {
	rel, err := s.File(e.Key)
	if err != nil {
		return "", err
	}
	// What was read is what may be replaced: a different entry written
	// after the read is not overwritten either.
	seen := ""
	if cur, err := os.ReadFile(s.abs(rel)); err == nil {
		other, err := knowledge.ParseEntry(rel, cur)
		if err == nil && knowledge.ContentHash(other) != knowledge.ContentHash(e) {
			return rel, fmt.Errorf("%s already holds a different entry %q", rel, e.Key)
		}
		seen = evolve.BlobHash(cur)
	}
	return rel, s.writeBytes(ctx, rel, data, e.Observation, why, &seen)
}

// Update rewrites an existing entry with new content: the key, created_at
// and the file's name stay, updated_at is stamped. The entry is validated
// first; a key with no file is an error wrapping fs.ErrNotExist.
func (s *Store) Update(ctx context.Context, e *knowledge.Entry, why string) (string, error) {
	old, rel, err := s.Read(e.Key)
	if err != nil {
		return rel, err
	}
	c := *s.Redacted(e)
	if c.CreatedAt == "" {
		c.CreatedAt = old.CreatedAt
	}
	if !s.Now.IsZero() {
		c.UpdatedAt = knowledge.FormatTime(s.Now)
	}
	if err := c.Validate(); err != nil {
		return rel, err
	}
	*e = c
	return rel, s.write(ctx, rel, &c, why)
}

// Edit changes an existing entry with change, applied to the entry as the
// file holds it, and writes the result only if the file still holds what
// change was applied to; when another writer got in between, change is
// applied again to what that one wrote, so two edits of one entry at once
// both land (each field an edit sets is its, the rest is the other's)
// and none is lost. updated_at is stamped; a key with no file is an error
// wrapping fs.ErrNotExist.
func (s *Store) Edit(ctx context.Context, key, why string, change func(*knowledge.Entry) error) (*knowledge.Entry, string, error) {
	rel, err := s.File(key)
	if err != nil {
		return nil, "", err
	}
	const tries = 16
	for try := 1; ; try++ {
		if try > 1 {
			// Another writer changed the entry between this read and the
			// write. Two that keep meeting so (two sessions updating one
			// entry in a loop, on a loaded machine) take turns sooner when
			// each waits a random while.
			time.Sleep(time.Duration(rand.Int64N(int64(try) * int64(time.Millisecond))))
		}
		data, err := os.ReadFile(s.abs(rel))
		if err != nil {
			return nil, rel, err
		}
		e, err := knowledge.ParseEntry(rel, data)
		if err != nil {
			return nil, rel, err
		}
		if err := change(e); err != nil {
			return nil, rel, err
		}
		if !s.Now.IsZero() {
			e.UpdatedAt = knowledge.FormatTime(s.Now)
		}
		if err := e.Validate(); err != nil {
			return nil, rel, err
		}
		next, err := e.Marshal()
		if err != nil {
			return nil, rel, err
		}
		seen := evolve.BlobHash(data)
		err = s.writeBytes(ctx, rel, next, e.Observation, why, &seen)
		if changed := (*evolve.ChangedError)(nil); errors.As(err, &changed) && try < tries {
			continue
		}
		return e, rel, err
	}
}
