package observe

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sort"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
)

// Store is the observation log on disk and the lock that guards it.
type Store struct {
	// Root is the working tree the log belongs to: no symbolic link below
	// it is followed when the log is written.
	Root     string
	Path     string
	LockPath string
	// Cache, when its Path is set, keeps the folded state between runs
	// (see foldcache.go): only what was appended since is folded.
	Cache FoldCache
}

// ProjectStore is the project's observation log, read through the fold
// cache kept per working tree in the clone's devlearn folder.
func ProjectStore(p *project.Project) Store {
	return Store{Root: p.Root, Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile),
		Cache: FoldCache{Root: p.CommonDir, Path: p.StatePath("cache", p.WorktreeID(), "fold")}}
}

// Load folds the log as it is now. Readers take no lock: appends are whole
// lines, and a line still being written is reported as torn, not misread.
func (st Store) Load() (*Log, error) {
	if st.Cache.Path != "" {
		return LoadCached(st.Path, st.Cache)
	}
	return LoadFile(st.Path)
}

// Append writes events under the lock, one line each.
func (st Store) Append(ctx context.Context, events ...*Event) error {
	lines, err := encodeAll(events)
	if err != nil {
		return err
	}
	return jsonl.Append(ctx, st.Root, st.Path, st.LockPath, lines...)
}

func encodeAll(events []*Event) ([][]byte, error) {
	lines := make([][]byte, 0, len(events))
	for _, e := range events {
		b, err := marshalEvent(e)
		if err != nil {
			return nil, err
		}
		lines = append(lines, b)
	}
	return lines, nil
}

// CompactStats says what a compaction did.
type CompactStats struct {
	LinesBefore  int      `json:"lines_before"`
	LinesAfter   int      `json:"lines_after"`
	Observations int      `json:"observations"`
	Forgotten    []string `json:"forgotten,omitempty"` // weakest observing ones beyond log.max_observing
	Unknown      int      `json:"unknown_kept"`        // lines of unknown ops, kept as they are
	Corrupt      int      `json:"corrupt_kept"`        // corrupt lines, kept for `learn --purge`
}

// Compact rewrites the log as one snapshot line per observation, under the
// lock and atomically. Unknown ops and corrupt lines are carried over
// verbatim. Observations still observing beyond cfg.Log.MaxObserving are
// forgotten (a tombstone), weakest first; ready, created and deprecated ones
// never are (devflow defect 5).
func (st Store) Compact(ctx context.Context, now time.Time, cfg *config.Config) (*CompactStats, error) {
	unlock, err := jsonl.Lock(ctx, st.LockPath)
	if err != nil {
		return nil, err
	}
	defer unlock()
	log, err := st.Load()
	if err != nil {
		return nil, err
	}
	if log.Lines == 0 {
		return &CompactStats{}, nil // nothing to fold, and no file to create
	}
	var stats *CompactStats
	err = jsonl.WriteAtomic(st.Root, st.Path, 0o644, func(w *bufio.Writer) error {
		stats, err = log.WriteCompacted(w, now, cfg)
		return err
	})
	if err != nil {
		return nil, err
	}
	return stats, nil
}

// WriteCompacted writes the compacted form of the log to w: the snapshots
// sorted by id, then the kept lines in their original order.
func (l *Log) WriteCompacted(w io.Writer, now time.Time, cfg *config.Config) (*CompactStats, error) {
	stats := &CompactStats{LinesBefore: l.Lines}
	stats.Forgotten = l.forgetWeakest(now, cfg)
	bw := bufio.NewWriter(w)
	for _, id := range l.IDs() {
		b, err := json.Marshal(l.all()[id].snapshot())
		if err != nil {
			return nil, err
		}
		bw.Write(b)
		bw.WriteByte('\n')
		stats.Observations++
	}
	for _, k := range l.Kept {
		bw.Write(k.Raw)
		bw.WriteByte('\n')
		if k.Corrupt {
			stats.Corrupt++
		} else {
			stats.Unknown++
		}
	}
	stats.LinesAfter = stats.Observations + stats.Unknown + stats.Corrupt
	return stats, bw.Flush()
}

// forgetWeakest tombstones the observing observations beyond the cap.
func (l *Log) forgetWeakest(now time.Time, cfg *config.Config) []string {
	var observing []Observation
	for _, o := range l.Observations(now, cfg) {
		if o.Status == Observing {
			observing = append(observing, o)
		}
	}
	if len(observing) <= cfg.Log.MaxObserving {
		return nil
	}
	SortByConfidence(observing)
	var gone []string
	for _, o := range observing[cfg.Log.MaxObserving:] {
		// The tombstone forgets what this log knew of the observation, up
		// to its latest event, not up to now: a branch that went on
		// sighting it (or rendered it) meanwhile keeps what it added when
		// the two merge.
		st := l.all()[o.ID]
		st.join(&State{ID: o.ID, tomb: st.latest()})
		l.changed()
		gone = append(gone, o.ID)
	}
	sort.Strings(gone)
	return gone
}
