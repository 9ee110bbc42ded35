package knowledge

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
	"github.com/devlearn/devlearn/internal/project"
)

// Aged is what AgeCandidates did.
type Aged struct {
	// Archived lists the keys of candidates archived for their age.
	Archived []string `json:"archived"`
	// Started lists candidates that had no created_at: their clock starts
	// now (it is written in), so an old file is never archived at once.
	Started []string `json:"started"`
}

// AgeCandidates archives the store's candidates that have waited longer
// than maxAge for a person (ClawFlow's candidate review: reviewed, else archived; never
// deleted, so 'knowledge index --all' still lists them). A candidate
// without a created_at gets one, the store's clock. It writes nothing
// when nothing is due, and needs the store's Now.
func (s *Store) AgeCandidates(ctx context.Context, maxAge time.Duration) (*Aged, error) {
	out := &Aged{Archived: []string{}, Started: []string{}}
	if maxAge <= 0 {
		return out, nil
	}
	if s.Now.IsZero() {
		return nil, errors.New("ageing candidates needs the time")
	}
	dir := s.Dir
	if s.Scope == ScopeProject {
		dir = s.Proj.Path(project.EntriesDir)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	now := FormatTime(s.Now)
	var changes []evolve.Change
	for _, de := range ents {
		key, ok := strings.CutSuffix(de.Name(), ".md")
		if !ok || !de.Type().IsRegular() || ValidKey(key) != nil {
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
		e, err := ParseEntry(rel, data)
		if err != nil || e.Status != StatusCandidate {
			continue // a broken file is 'knowledge list''s to report
		}
		var fields []Field
		if e.CreatedAt == "" {
			fields = append(fields, Field{"created_at", now})
			out.Started = append(out.Started, key)
		} else if t, err := time.Parse(time.RFC3339, e.CreatedAt); err == nil && s.Now.Sub(t) > maxAge {
			fields = append(fields, Field{"status", StatusArchived}, Field{"updated_at", now})
			out.Archived = append(out.Archived, key)
		}
		if len(fields) == 0 {
			continue
		}
		next, err := WithFields(rel, data, fields...)
		if err != nil {
			return nil, err
		}
		changes = append(changes, evolve.Change{Path: rel, Data: next})
	}
	if len(changes) == 0 {
		return out, nil
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	why := fmt.Sprintf("candidates not promoted within %d days archived (%d); clocks started (%d)", int(maxAge.Hours()/24), len(out.Archived), len(out.Started))
	if s.Scope == ScopeProject {
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
