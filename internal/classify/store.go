package classify

import (
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

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// The classes of a clone's sessions are kept in its per-clone state, like
// the ingest history: they describe this machine's sessions, are rebuilt
// by ingesting again, and are never committed.

// Session is one classified session.
type Session struct {
	Result
	// Request is the start of the first request, redacted, for a person
	// checking a class.
	Request string `json:"request,omitempty"`
	At      string `json:"at"` // when the session's last message was written
}

// Store is a clone's classified sessions.
type Store struct {
	root       string // the clone's git folder: no link below it is followed
	path, lock string
}

// StoreOf is p's store.
func StoreOf(p *project.Project) *Store {
	return &Store{root: p.CommonDir, path: p.StatePath("classify", "sessions.json"), lock: p.StatePath("locks", "classify.lock")}
}

// MaxSessions bounds the store: the most recent are kept.
const MaxSessions = 2000

type file struct {
	Sessions map[string]Session `json:"sessions"`
}

// Load reads every classified session; a missing store is empty.
func (s *Store) Load() (map[string]Session, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Session{}, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		// Rebuilt by ingesting again: a torn store is not worth an error.
		return map[string]Session{}, nil
	}
	if f.Sessions == nil {
		f.Sessions = map[string]Session{}
	}
	return f.Sessions, nil
}

// Put records sessions' classes, under the store's lock.
func (s *Store) Put(ctx context.Context, add map[string]Session) error {
	if len(add) == 0 {
		return nil
	}
	unlock, err := jsonl.Lock(ctx, s.lock)
	if err != nil {
		return err
	}
	defer unlock()
	all, err := s.Load()
	if err != nil {
		return err
	}
	for id, c := range add {
		all[id] = c
	}
	if len(all) > MaxSessions {
		ids := make([]string, 0, len(all))
		for id := range all {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b string) int {
			if c := strings.Compare(all[b].At, all[a].At); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		for _, id := range ids[MaxSessions:] {
			delete(all, id)
		}
	}
	data, err := json.MarshalIndent(file{Sessions: all}, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(s.root, filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return jsonl.WriteFileRename(s.root, s.path, append(data, '\n'), 0o600)
}

// Counts tallies sessions by class, those at or after since (zero: all).
func Counts(sessions map[string]Session, since time.Time) map[string]int {
	out := map[string]int{}
	for _, s := range sessions {
		if !since.IsZero() {
			if t, err := time.Parse(time.RFC3339, s.At); err == nil && t.Before(since) {
				continue
			}
		}
		out[s.Class]++
	}
	return out
}

// Summary writes counts as "bug 3, feedback 1, feature 5".
func Summary(counts map[string]int) string {
	var parts []string
	for _, c := range append(slices.Clone(Classes), Unclassified) {
		if n := counts[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	return strings.Join(parts, ", ")
}
