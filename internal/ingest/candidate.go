package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	pathpkg "path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/infer"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
)

// Entry sources for candidates (knowledge.Origins).
const (
	SourceTranscript = "transcript"
	SourceStopHook   = "stop-hook"
)

// CandidateEntry turns a [PROCESS_KNOWLEDGE] block into the entry it
// proposes, checked by the knowledge package's rules. The block's parsed
// (and redacted) values are written back as YAML rather than its raw text:
// redaction placeholders in the raw text could change what the YAML means.
// The Stop hook and the worker both come through here, so the same block
// gives the same entry, the same content hash and one candidate file
// (the entries and counters rule, docs/architecture.md).
func CandidateEntry(b extract.KnowledgeBlock, source string) (*knowledge.Entry, error) {
	data, err := yaml.Marshal(b.Entry)
	if err != nil {
		return nil, fmt.Errorf("knowledge block: %v", err)
	}
	e, err := knowledge.ParseBlock("[PROCESS_KNOWLEDGE] block", data)
	if err != nil {
		return nil, err
	}
	e.Source = source
	infer.Complete(e, b.Entry)
	return e, nil
}

// SavedCandidate is a candidate entry written (or found already there).
type SavedCandidate struct {
	Summary string `json:"summary"`
	Path    string `json:"path"`
	Created bool   `json:"created"` // false: the same block was saved before
	// Status is the entry's status now: draft when saved by this run; a
	// person may have promoted or archived one saved before.
	Status string `json:"status"`
	// TakenBack: devlearn saved this draft before and a person deleted
	// or reverted it since: not saved again.
	TakenBack bool   `json:"taken_back,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// TakenBack reports whether a draft is a person's "no": devlearn wrote
// its file before (written: the entry files of the audit log) and it is
// gone now, deleted or reverted. Read again from a transcript, the block
// is then not saved again.
func TakenBack(p *project.Project, store *entrystore.Store, e *knowledge.Entry, written func() map[string]bool) (string, bool, error) {
	c := *e
	c.Status = knowledge.StatusDraft
	key := knowledge.CandidateKey(&c)
	if store != nil {
		key = store.DraftKey(e)
	}
	rel, err := knowledge.EntryFile(project.EntriesDir, key)
	if err != nil || !written()[rel] {
		return rel, false, err
	}
	_, err = os.Stat(p.Path(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return rel, true, nil
	}
	return rel, false, err
}

// SaveCandidate saves one block as a candidate entry through store. In a
// dry run (store nil) it says where the entry would go.
func SaveCandidate(ctx context.Context, store *entrystore.Store, b extract.KnowledgeBlock, source, why string) (SavedCandidate, error) {
	e, err := CandidateEntry(b, source)
	if err != nil {
		return SavedCandidate{}, err
	}
	if store == nil {
		c := *e
		c.Status = knowledge.StatusDraft
		path, err := knowledge.EntryFile(project.EntriesDir, knowledge.CandidateKey(&c))
		return SavedCandidate{Summary: e.Summary, Path: path, Created: true, Status: knowledge.StatusDraft}, err
	}
	path, created, err := store.SaveDraft(ctx, e, why)
	if err != nil {
		return SavedCandidate{}, err
	}
	sc := SavedCandidate{Summary: e.Summary, Path: path, Created: created, Status: knowledge.StatusDraft}
	if !created {
		saved, _, err := store.Read(strings.TrimSuffix(pathpkg.Base(path), ".md"))
		if err != nil {
			return SavedCandidate{}, err
		}
		sc.Status = saved.Status
	}
	return sc, nil
}
