// Package hud computes devlearn's one-line summary for a status bar:
// what is in force (the lessons served as entries, and the artifacts, by
// kind) and how much needs a person's review. A status line runs it every second or so, so the
// answer is cached in the per-clone state and recomputed when one of the
// files it depends on changed (by size and modification time) or a minute
// has passed (an entry edited in place; decay).
package hud

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/review"
)

// Counts is what the line says. In JSON each lesson type's count is named
// by its plural noun ("workflows", "skills"), in the table's order, then
// "needs_review".
type Counts struct {
	// Lessons are the entries in force: kept at a person's request,
	// written or accepted by one, in the project or for every project.
	// Drafts wait for a person and are not counted; what needs their
	// review is.
	Lessons     int
	Artifacts   map[string]int // in force, by lesson type
	NeedsReview int
}

// Learned reports whether anything learned is in force.
func (c Counts) Learned() bool {
	if c.Lessons > 0 {
		return true
	}
	for _, n := range c.Artifacts {
		if n > 0 {
			return true
		}
	}
	return false
}

// MarshalJSON writes every type of the lesson table, zero or not.
func (c Counts) MarshalJSON() ([]byte, error) {
	b := []byte(`{"lessons":`)
	b = strconv.AppendInt(b, int64(c.Lessons), 10)
	b = append(b, ',')
	for _, t := range lesson.All() {
		b = strconv.AppendQuote(b, t.Nouns)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(c.Artifacts[t.Name]), 10)
		b = append(b, ',')
	}
	b = append(b, `"needs_review":`...)
	b = strconv.AppendInt(b, int64(c.NeedsReview), 10)
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Counts) UnmarshalJSON(data []byte) error {
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*c = Counts{Lessons: m["lessons"], NeedsReview: m["needs_review"]}
	for _, t := range lesson.All() {
		if n := m[t.Nouns]; n != 0 {
			c.count(t.Name, n)
		}
	}
	return nil
}

func (c *Counts) count(typ string, n int) {
	if c.Artifacts == nil {
		c.Artifacts = map[string]int{}
	}
	c.Artifacts[typ] += n
}

// Line is the status line: "Learning: 2 lessons, 1 skill  ⚠ 1 needs
// review". Empty when nothing is learned and nothing needs review. warn
// wraps the warning (colour on a terminal; identity elsewhere).
func Line(c Counts, warn func(string) string) string {
	if warn == nil {
		warn = func(s string) string { return s }
	}
	var parts []string
	add := func(n int, one, many string) {
		if n == 1 {
			parts = append(parts, "1 "+one)
		} else if n > 1 {
			parts = append(parts, strconv.Itoa(n)+" "+many)
		}
	}
	add(c.Lessons, "lesson", "lessons")
	for _, t := range lesson.All() {
		add(c.Artifacts[t.Name], t.Noun, t.Nouns)
	}
	var b strings.Builder
	if len(parts) > 0 {
		b.WriteString("Learning: " + strings.Join(parts, ", "))
	}
	if c.NeedsReview > 0 {
		if b.Len() > 0 {
			b.WriteString("  ")
		}
		verb := "needs"
		if c.NeedsReview > 1 {
			verb = "need"
		}
		b.WriteString(warn(fmt.Sprintf("⚠ %d %s review", c.NeedsReview, verb)))
	}
	return b.String()
}

// Compute works the counts out from the files: the entries and the
// artifacts in force and what needs review, from the knowledge cache the
// hooks keep, the folded log and the candidate entries. home is the
// devlearn home whose global entries are in force here too ("" for
// none). Artifacts are counted, not observations: a pitfall observed
// again in other words is adopted by the section already there (render's
// dedup), and two observations created into one section are one pitfall.
func Compute(p *project.Project, cfg *config.Config, home string, now time.Time) (Counts, error) {
	var c Counts
	c.Lessons = entriesInForce(p, home)
	log, err := observe.LoadFile(p.Path(project.LogFile))
	if err != nil {
		return c, err
	}
	obs := log.Observations(now, cfg)
	seen := map[observe.Target]bool{}
	for _, o := range obs {
		if o.Status != observe.Created {
			continue
		}
		if o.Artifact != "" {
			t := observe.Target{Path: o.Artifact, Anchor: o.Anchor}
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		if observe.ValidType(o.Type) {
			c.count(o.Type, 1)
		}
	}
	r := &review.Reviewer{Proj: p, Now: now, Config: cfg}
	items, err := r.ItemsOf(log, obs)
	if err != nil {
		return c, err
	}
	c.NeedsReview = len(items)
	return c, nil
}

// entriesInForce counts the entries served as what the project knows:
// active and not held for review, the learned and the agent's drafts
// left out. It reads them as the hooks do, through their cache, which
// parses only the entries changed since (each file's stamp is checked:
// an entry accepted by an edit in place counts once the cached counts
// expire); the sections of decisions.md and pitfalls.md are counted from
// the log, as artifacts.
func entriesInForce(p *project.Project, home string) int {
	src := knowledge.Sources{Root: p.Root, GlobalDir: knowledge.GlobalEntriesDir(home), State: p.CommonDir}
	// An error is only about the cache: the set is complete either way.
	set, _ := knowledge.Load(src, knowledge.CachePath(p), knowledge.Full)
	n := 0
	for _, it := range set.Items {
		if it.Type == knowledge.TypeEntry && it.Active && it.Status == knowledge.StatusActive && it.Held == "" {
			n++
		}
	}
	return n
}

// CachePath is where the counts are cached, in the per-clone state.
func CachePath(p *project.Project) string {
	return p.StatePath("cache", "hud-"+p.WorktreeID()+".json")
}

type cached struct {
	Key    string    `json:"key"`
	At     time.Time `json:"at"`
	Counts Counts    `json:"counts"`
}

// Key describes, by size and modification time, the files the counts
// depend on; it changes whenever one of them may have. The entries (the
// project's and the global ones under home) are stamped by their folder, which changes when one is added, removed or
// replaced (devlearn and most editors write a new file and rename it):
// stamping each of a thousand entries was a third of the process's time.
// An entry edited in place changes no folder; MaxAge bounds how long
// that goes unseen.
func Key(p *project.Project, home, configKey string) string {
	b := make([]byte, 0, 160)
	b = append(b, configKey...)
	for _, rel := range []string{project.LogFile, project.ManifestFile, project.EntriesDir} {
		b = appendStamp(b, p.Path(rel))
	}
	if dir := knowledge.GlobalEntriesDir(home); dir != "" {
		b = appendStamp(b, dir)
	}
	return string(b)
}

// MaxAge is how long cached counts are trusted whatever the stamps say.
const MaxAge = time.Minute

// appendStamp appends the size and modification time of a file, or "-"
// if it cannot be stat'ed.
func appendStamp(b []byte, path string) []byte {
	fi, err := os.Stat(path)
	if err != nil {
		return append(b, "-|"...)
	}
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
	return append(b, '|')
}

// Cached returns the counts, from the cache when nothing they depend on
// changed, else computed and cached. configKey names the config in force
// (its files' stamps), which decides the thresholds behind "needs review";
// home is the devlearn home of the global entries.
func Cached(p *project.Project, home, configKey string, load func() (*config.Config, error), now time.Time) (Counts, error) {
	key := Key(p, home, configKey)
	path := CachePath(p)
	if data, err := os.ReadFile(path); err == nil {
		var c cached
		if json.Unmarshal(data, &c) == nil && c.Key == key && now.Sub(c.At) < MaxAge && !now.Before(c.At) {
			return c.Counts, nil
		}
	}
	cfg, err := load()
	if err != nil {
		return Counts{}, err
	}
	counts, err := Compute(p, cfg, home, now)
	if err != nil {
		return Counts{}, err
	}
	// A cache that cannot be written only costs speed.
	if data, err := json.Marshal(cached{Key: key, At: now, Counts: counts}); err == nil {
		_ = jsonl.WriteFileRename(p.CommonDir, path, data, 0o644)
	}
	return counts, nil
}

// StampFiles is the stamp part of Key for arbitrary files (the config
// files), for the configKey argument.
func StampFiles(paths ...string) string {
	var b []byte
	for _, path := range paths {
		b = appendStamp(b, path)
	}
	return string(b)
}
