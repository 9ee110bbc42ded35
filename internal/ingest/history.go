package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// A request is "repeated", and a path not found is stale, only across
// sessions, and sessions are ingested one batch at a time, days apart: the
// history keeps each recent session's part of the cross-session extractors
// (its normalised requests, its project paths not found) in the per-clone
// state, so that a request seen in three sessions over three days becomes a
// workflow observation although no batch held more than one of them. It is
// bounded: the sessions of the last HistoryMaxAge, at most
// HistoryMaxSessions of them, each with at most HistoryMaxRequests requests
// and HistoryMaxMissing paths. It is per clone (like the spool), never
// committed: what it derives is committed, as observations. (A failure and
// its fix are learned within one session; their recurrence is the
// observation's count.)
const (
	HistoryMaxSessions = 300
	HistoryMaxAge      = 60 * 24 * time.Hour
	HistoryMaxRequests = 50
	HistoryMaxMissing  = 50
	HistoryMaxPassed   = 300
)

// HistoryPath is where a clone keeps its history.
func HistoryPath(p *project.Project) string { return p.StatePath("ingest", "history.json") }

// History is the requests and paths not found of recent sessions.
type History struct {
	Version  int              `json:"version"`
	Sessions []HistorySession `json:"sessions"`
}

// HistorySession is one session's part.
type HistorySession struct {
	ID string `json:"id"`
	At string `json:"at"` // its latest record's time
	// Read is when this clone last read the session: a session months old,
	// read today (a backlog ingested), is kept as long as a recent one, or
	// what Extracted and Passed remember of it would be forgotten at once,
	// and the next ingest would ask the model again and record its
	// rewording as new lessons.
	Read     string            `json:"read,omitempty"`
	Requests []extract.Request `json:"requests,omitempty"`
	// Missing are the project paths its reads did not find: one not found
	// in several sessions is a reference gone stale (extract.StalePaths).
	Missing []extract.Missing `json:"missing,omitempty"`
	// Extracted maps an extractor beyond the rules (the LLM's) to the At
	// it last read this session at: asked again about the same records, a
	// model words its answer differently, and every rewording would be a
	// new observation.
	Extracted map[string]string `json:"extracted,omitempty"`
	// Passed are the records of the person's turns a model read and found
	// no lesson in: the rules' readings of them give way (GiveWay) at every
	// ingestion of the session, the ones that do not ask the model again
	// included.
	Passed []string `json:"passed,omitempty"`
}

const historyVersion = 1

// LoadHistory reads the history at path; a missing file is an empty
// history. A file that cannot be read as one is reported and replaced by
// an empty history: it only ever delays a repeated lesson.
func LoadHistory(path string) (*History, error) {
	h := &History{Version: historyVersion}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	var got History
	if err := json.Unmarshal(data, &got); err != nil || got.Version != historyVersion {
		if err == nil {
			err = fmt.Errorf("version %d, want %d", got.Version, historyVersion)
		}
		return h, fmt.Errorf("%s: %v (starting a new history)", path, err)
	}
	return &got, nil
}

// Put records a session's requests and paths not found, replacing what
// an earlier ingestion of the same session recorded.
func (h *History) Put(id string, at, now time.Time, r extract.Result) {
	s := HistorySession{
		ID:       id,
		At:       at.UTC().Format(time.RFC3339),
		Read:     now.UTC().Format(time.RFC3339),
		Requests: r.Requests[:min(len(r.Requests), HistoryMaxRequests)],
		Missing:  r.Missing[:min(len(r.Missing), HistoryMaxMissing)],
	}
	if i := slices.IndexFunc(h.Sessions, func(x HistorySession) bool { return x.ID == id }); i >= 0 {
		s.Extracted, s.Passed = h.Sessions[i].Extracted, h.Sessions[i].Passed
		h.Sessions[i] = s
		return
	}
	h.Sessions = append(h.Sessions, s)
}

// ExtractedAt is the At at which extractor name last read session id, or "".
func (h *History) ExtractedAt(id, name string) string {
	if i := slices.IndexFunc(h.Sessions, func(x HistorySession) bool { return x.ID == id }); i >= 0 {
		return h.Sessions[i].Extracted[name]
	}
	return ""
}

// PassedTurns are the records of session id's turns a model found no
// lesson in.
func (h *History) PassedTurns(id string) []string {
	if i := slices.IndexFunc(h.Sessions, func(x HistorySession) bool { return x.ID == id }); i >= 0 {
		return h.Sessions[i].Passed
	}
	return nil
}

// MarkPassed adds turns a model found no lesson in to session id's, which
// must have been Put; the latest HistoryMaxPassed are kept.
func (h *History) MarkPassed(id string, turns []string) {
	i := slices.IndexFunc(h.Sessions, func(x HistorySession) bool { return x.ID == id })
	if i < 0 || len(turns) == 0 {
		return
	}
	s := &h.Sessions[i]
	for _, t := range turns {
		if !slices.Contains(s.Passed, t) {
			s.Passed = append(s.Passed, t)
		}
	}
	if len(s.Passed) > HistoryMaxPassed {
		s.Passed = s.Passed[len(s.Passed)-HistoryMaxPassed:]
	}
}

// MarkExtracted records that extractor name read session id at its At;
// the session must have been Put.
func (h *History) MarkExtracted(id, name string) {
	if i := slices.IndexFunc(h.Sessions, func(x HistorySession) bool { return x.ID == id }); i >= 0 {
		s := &h.Sessions[i]
		if s.Extracted == nil {
			s.Extracted = map[string]string{}
		}
		s.Extracted[name] = s.At
	}
}

// Results is each session's part of the cross-session extractors, for
// extract.Across.
func (h *History) Results() []extract.Result {
	out := make([]extract.Result, len(h.Sessions))
	for i, s := range h.Sessions {
		out[i] = extract.Result{Requests: s.Requests, Missing: s.Missing}
	}
	return out
}

// Prune keeps the sessions active or read in the last HistoryMaxAge before
// now, the most recent HistoryMaxSessions of them, oldest first.
func (h *History) Prune(now time.Time) {
	cutoff := now.Add(-HistoryMaxAge).UTC().Format(time.RFC3339)
	h.Sessions = slices.DeleteFunc(h.Sessions, func(s HistorySession) bool { return s.recent() < cutoff })
	if n := len(h.Sessions); n > HistoryMaxSessions {
		// The ones read or active last are kept.
		slices.SortStableFunc(h.Sessions, func(a, b HistorySession) int { return strings.Compare(a.recent(), b.recent()) })
		h.Sessions = h.Sessions[n-HistoryMaxSessions:]
	}
	slices.SortStableFunc(h.Sessions, func(a, b HistorySession) int {
		if a.At != b.At {
			if a.At < b.At {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
}

// recent is the later of a session's last record and its last reading.
func (s HistorySession) recent() string { return max(s.At, s.Read) }

// Save writes the history atomically, below root (the clone's git folder).
// Callers hold the worker lock.
func (h *History) Save(root, path string) error {
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if err := safefile.MkdirAll(root, filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(root, path, append(data, '\n'), 0o600)
}
