package entrystore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/project"
)

// Windows are how long an entry waits for a person before it is
// archived, by status; 0 lets it wait for ever.
type Windows struct {
	// Candidates: ClawFlow's candidate review (reviewed, else archived).
	Candidates time.Duration
	// Drafts: the triads design's draft expiry (after 30 days a draft is
	// archived unless promoted to active), so a wrong draft nobody
	// reviews is not served for ever.
	Drafts time.Duration
}

// Aged is what Age did.
type Aged struct {
	// Archived lists the keys of candidates archived for their age.
	Archived []string `json:"archived"`
	// Started lists candidates that had no created_at: their clock starts
	// now (it is written in), so an old file is never archived at once.
	Started []string `json:"started"`
	// Expired lists the keys of drafts archived for their age.
	Expired []string `json:"expired"`
	// DraftsStarted lists drafts that had no created_at, as Started.
	DraftsStarted []string `json:"drafts_started"`
}

// Age archives the store's candidates and drafts that have waited longer
// than their window for a person. They are never deleted: 'knowledge list
// --status archived' and 'knowledge index --all' still list them, and
// 'learn --review --restore entry:KEY' brings one back. An entry without
// a created_at gets one, the store's clock. It writes nothing when
// nothing is due, and needs the store's Now.
func (s *Store) Age(ctx context.Context, w Windows) (*Aged, error) {
	out := &Aged{Archived: []string{}, Started: []string{}, Expired: []string{}, DraftsStarted: []string{}}
	window := map[string]time.Duration{knowledge.StatusCandidate: w.Candidates, knowledge.StatusDraft: w.Drafts}
	if w.Candidates <= 0 && w.Drafts <= 0 {
		return out, nil
	}
	if s.Now.IsZero() {
		return nil, errors.New("ageing entries needs the time")
	}
	dir := s.Dir
	if s.Scope == knowledge.ScopeProject {
		dir = s.Proj.Path(project.EntriesDir)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	now := knowledge.FormatTime(s.Now)
	var changes []evolve.Change
	for _, de := range ents {
		key, ok := strings.CutSuffix(de.Name(), ".md")
		if !ok || !de.Type().IsRegular() || knowledge.ValidKey(key) != nil {
			continue
		}
		rel, err := s.File(key)
		if err != nil {
			continue
		}
		data, err := os.ReadFile(s.abs(rel))
		if err != nil {
			continue
		}
		e, err := knowledge.ParseEntry(rel, data)
		if err != nil || window[e.Status] <= 0 {
			continue // a broken file is 'knowledge list''s to report
		}
		draft := e.Status == knowledge.StatusDraft
		var fields []field
		if e.CreatedAt == "" {
			fields = append(fields, field{"created_at", now})
			if draft {
				out.DraftsStarted = append(out.DraftsStarted, key)
			} else {
				out.Started = append(out.Started, key)
			}
		} else if t, err := time.Parse(time.RFC3339, e.CreatedAt); err == nil && s.Now.Sub(t) > window[e.Status] {
			fields = append(fields, field{"status", knowledge.StatusArchived}, field{"updated_at", now})
			if draft {
				out.Expired = append(out.Expired, key)
			} else {
				out.Archived = append(out.Archived, key)
			}
		}
		if len(fields) == 0 {
			continue
		}
		next, err := withFields(rel, data, fields...)
		if err != nil {
			return nil, err
		}
		changes = append(changes, evolve.Change{Path: rel, Data: next})
	}
	if len(changes) == 0 {
		return out, nil
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	why := out.why(w)
	if s.Scope == knowledge.ScopeProject {
		_, err := s.Writer.Apply(ctx, evolve.Reason{Text: why}, changes...)
		return out, err
	}
	for _, c := range changes {
		if err := s.writeBytes(ctx, c.Path, c.Data, "", why, nil); err != nil {
			return out, err
		}
	}
	return out, nil
}

// why is the audit log's reason for what Age did.
func (a *Aged) why(w Windows) string {
	var parts []string
	if len(a.Archived)+len(a.Started) > 0 {
		parts = append(parts, fmt.Sprintf("candidates not promoted within %d days archived (%d); clocks started (%d)", days(w.Candidates), len(a.Archived), len(a.Started)))
	}
	if len(a.Expired)+len(a.DraftsStarted) > 0 {
		parts = append(parts, fmt.Sprintf("drafts not reviewed within %d days archived (%d); clocks started (%d)", days(w.Drafts), len(a.Expired), len(a.DraftsStarted)))
	}
	return strings.Join(parts, "; ")
}

// days is a window in whole days, as the config gives it.
func days(d time.Duration) int { return int(d.Hours() / 24) }

// DaysWindow is a config's number of days as a window.
func DaysWindow(days int) time.Duration { return time.Duration(days) * 24 * time.Hour }
