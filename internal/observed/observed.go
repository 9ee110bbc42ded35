// Package observed serves what the log knows before it is ready. A
// failure and its fix, or a person's instruction, seen once is worth
// telling the agent the next time its moment comes, long before the
// thresholds make it an artifact: thresholds decide what is rendered and
// committed, not whether the agent hears it. Sync writes each such lesson
// as a draft entry in the working tree's own state
// (.memory/.local/observed/, never committed), where the hooks find it as
// they find every entry (knowledge.Sources), ranked below what a person
// accepted and marked as learned, not reviewed. It is the one writer of
// that folder: every file there is derived from the log and rewritten
// from it.
package observed

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Max is how many lessons are served this way at most, the most
// confident and most recently seen first: a hook's cost stays bounded
// whatever the log holds.
const Max = 300

// Tag marks an entry written here.
const Tag = "observed"

// Key is the entry key of an observation: obs_3f9a... is obs-3f9a...
func Key(id string) string { return "obs-" + strings.TrimPrefix(id, "obs_") }

// Servable reports an observation worth serving before it is ready: one
// still observing, or ready but not rendered yet, whose quality is
// confirmed. What was rendered is served as its artifact; what a person
// turned down is not served at all.
func Servable(o *observe.Observation) bool {
	return o.QualityOK && (o.Status == observe.Observing || o.Status == observe.Ready)
}

// OnlySomeSee reports a lesson rendered as a slash command or a skill:
// files only the agents that load them read (Claude Code). Every agent's
// hooks serve a knowledge section, but Codex, Gemini CLI and the others
// would never hear of the command or the skill again, so its lesson stays
// served here, as its artifact now says it.
func OnlySomeSee(o *observe.Observation) bool {
	return o.QualityOK && o.Status == observe.Created && o.Artifact != "" &&
		(lesson.Is(o.Type, lesson.Skill) || lesson.Is(o.Type, lesson.Command))
}

// Entry is the draft entry an observation is served as.
func Entry(o *observe.Observation) *knowledge.Entry {
	kind := "note"
	t, known := lesson.Get(o.Type)
	if known {
		kind = t.Entry
	}
	e := &knowledge.Entry{
		Key:         Key(o.ID),
		Summary:     summary(o.Pattern),
		Kind:        kind,
		Category:    "lesson_learned",
		Priority:    "MEDIUM",
		Status:      knowledge.StatusDraft,
		Source:      "transcript",
		Observation: o.ID,
		Tags:        []string{Tag},
		CreatedAt:   knowledge.FormatTime(o.FirstSeen),
		UpdatedAt:   knowledge.FormatTime(o.LastSeen),
	}
	if area := field(o.Details, "area"); area != "" && t.Area {
		// A failure's area is the command that failed, in its general
		// form ("rg", "git push", "get-content"): it ran, so it is a
		// program whatever list knows it, and its next run is the
		// moment the lesson is for.
		files, c, ok := knowledge.AreaTriggers(area, field(o.Details, "issue"), true)
		e.Triggers.Files = files
		if ok {
			e.Triggers.Commands = []string{c.String()}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Seen in %s, last on %s: %s.\n",
		knowledge.Plural(o.Count, "session", "sessions"), o.LastSeen.Format("2006-01-02"), how(o))
	if rest := detailLines(o.Details); rest != "" {
		b.WriteString("\n" + rest)
	}
	e.Body = b.String()
	return e
}

// how says where a lesson came from: the agent's own records by the
// details' source field, which a lesson's words cannot fake (a field's
// value holds no ";"), then what the details say happened.
func how(o *observe.Observation) string {
	switch src := field(o.Details, "source"); {
	case strings.HasPrefix(src, "the agent's recap"):
		return "the agent's recap of a session says the person corrected it"
	case strings.HasPrefix(src, "the agent wrote it into"):
		return "the agent wrote it into its instructions when the person asked"
	case strings.HasPrefix(src, "the agent kept it in its memory"):
		return "the agent kept it in its memory"
	}
	switch {
	case strings.Contains(o.Details, "impact: the command fails"):
		return "a command failed and this is what made it pass"
	case strings.Contains(o.Details, "impact: the harness refuses the call"):
		return "the agent's harness refused the call and said what to do instead"
	case strings.Contains(o.Details, "impact: the error comes back until it is fixed"):
		return "the person reported this error and this is what fixed it"
	case strings.Contains(o.Details, "impact: the search reports the file missing"):
		return "a search for the file found nothing and the agent then read it where the search had not looked"
	case strings.Contains(o.Details, "impact: the agent looks for it in session after session"):
		return "the agent looked for this path in several sessions and never found it"
	case strings.Contains(o.Details, "request: "):
		return "the person asked for it in several sessions"
	}
	return "the person said it"
}

// summary is a pattern as an entry's one-line summary.
func summary(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	if utf8.RuneCountInString(p) <= knowledge.MaxSummary {
		return p
	}
	r := []rune(p)
	return string(r[:knowledge.MaxSummary-1]) + "…"
}

// field is the value of key in "key: value; key: value" details.
func field(details, key string) string {
	for _, part := range strings.Split(details, "; ") {
		if k, v, ok := strings.Cut(part, ": "); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// detailLines shows the details as a list, one field a line.
func detailLines(details string) string {
	var lines []string
	for _, part := range strings.Split(details, "; ") {
		if k, v, ok := strings.Cut(part, ": "); ok && strings.TrimSpace(v) != "" {
			lines = append(lines, "- "+strings.TrimSpace(k)+": "+strings.TrimSpace(v))
		}
	}
	return strings.Join(lines, "\n")
}

// Sync makes root's observed folder hold exactly the servable
// observations of obs (at most Max), each as its draft entry, writing
// only the files whose content changed and removing the others. It
// returns how many files it wrote or removed.
func Sync(root string, obs []observe.Observation) (int, error) {
	var keep []*observe.Observation
	titles := map[string]string{} // a rendered lesson's title, as its artifact now says it
	for i := range obs {
		o := &obs[i]
		switch {
		case Servable(o):
			keep = append(keep, o)
		case OnlySomeSee(o):
			// The artifact is the person's once they edit it: its title
			// is what is served. One deleted is a "no" reconcile records.
			title, ok := artifactTitle(root, o.Artifact)
			if !ok {
				continue
			}
			titles[o.ID] = title
			keep = append(keep, o)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool {
		if keep[i].Confidence != keep[j].Confidence {
			return keep[i].Confidence > keep[j].Confidence
		}
		return keep[i].LastSeen.After(keep[j].LastSeen)
	})
	if len(keep) > Max {
		keep = keep[:Max]
	}
	dir := filepath.Join(root, filepath.FromSlash(project.ObservedDir))
	existing, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if len(keep) == 0 && len(existing) == 0 {
		return 0, nil
	}
	if err := project.EnsureLocal(root); err != nil {
		return 0, err
	}
	if err := safefile.MkdirAll(root, dir, 0o755); err != nil {
		return 0, err
	}
	changed := 0
	want := map[string]bool{}
	for _, o := range keep {
		e := Entry(o)
		if title, ok := titles[o.ID]; ok {
			rendered(e, o, title)
		}
		data, err := e.Marshal()
		if err != nil {
			return changed, fmt.Errorf("%s: %v", o.ID, err)
		}
		name := e.Key + ".md"
		want[name] = true
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
			continue
		}
		// Renamed into place: a hook reading the folder meanwhile sees
		// the old file or the new one, never half of one.
		if err := jsonl.WriteFileRename(root, path, data, 0o644); err != nil {
			return changed, err
		}
		changed++
	}
	for _, de := range existing {
		if name := de.Name(); strings.HasSuffix(name, ".md") && !want[name] {
			if err := safefile.Remove(root, filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return changed, err
			}
			changed++
		}
	}
	return changed, nil
}

// rendered makes e the entry of a lesson rendered as a command or a
// skill: its title is the artifact's, and it says where the artifact is.
func rendered(e *knowledge.Entry, o *observe.Observation, title string) {
	if title != "" {
		e.Summary = summary(title)
	}
	what := "skill"
	if lesson.Is(o.Type, lesson.Command) {
		what = "slash command"
	}
	e.Body = fmt.Sprintf("Rendered as the %s `%s`, which only some agents load.\n", what, o.Artifact) + e.Body
}

// maxArtifactRead bounds what is read of an artifact for its title.
const maxArtifactRead = 64 << 10

// artifactTitle is the first heading of the artifact at rel under root,
// "" when it has none, and false when it is not there (or not a regular
// file inside root).
func artifactTitle(root, rel string) (string, bool) {
	f, err := safefile.OpenFile(root, filepath.Join(root, filepath.FromSlash(rel)), os.O_RDONLY, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, maxArtifactRead)
	n, _ := io.ReadFull(f, buf)
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t), true
		}
	}
	return "", true
}

// Drop removes the drafts of observations that are no longer servable
// (rendered, or turned down by a person), without reading the log: render
// and review know which they changed. The next Sync agrees.
func Drop(root string, ids ...string) error {
	dir := filepath.Join(root, filepath.FromSlash(project.ObservedDir))
	for _, id := range ids {
		if err := safefile.Remove(root, filepath.Join(dir, Key(id)+".md")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
