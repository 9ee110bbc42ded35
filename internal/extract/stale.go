package extract

import (
	"path"
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A path the agent reads in one session after another and never finds is
// a reference gone stale: named by its instructions (a CLAUDE.md listing
// documents since moved) or by habit. Within one session a file not found
// teaches nothing, since agents look where they guess; looked for again
// in another session, it is a lesson: the path does not exist, and the
// agent will look for it again. Like a repeated request, one session
// cannot tell: each keeps its paths not found (Result.Missing), and
// StalePaths turns those of several sessions into observations.

// Missing is a path in the project a session's reads looked for and did
// not find, and never found later in that session.
type Missing struct {
	Path       string `json:"path"` // relative to the project, in its general form
	Command    string `json:"command"`
	Error      string `json:"error"`
	SessionID  string `json:"session_id"`
	RecordUUID string `json:"record_uuid"`
	Timestamp  string `json:"timestamp,omitempty"`
}

// ExtractorStalePath names the cross-session extractor of paths not found.
const ExtractorStalePath = "stale-path"

// missingPaths are the project paths the session's reads did not find,
// each once. A path a later call of the session found (created, or
// written otherwise) is left out, and so is one outside the project
// (a temporary file, a home folder): only the project's paths are
// references its instructions may hold.
func missingPaths(ch *transcript.Channels, in identity.Instance) []Missing {
	var out []Missing
	seen := map[string]bool{}
	for i := range ch.Tools {
		t := &ch.Tools[i]
		fs, ok := failure(t)
		if !ok || !fs.misplaced {
			continue
		}
		for _, w := range fs.words[1:] {
			p := bare(unquote(w))
			if strings.HasPrefix(p, "-") || !absent(fs.err, p) {
				continue
			}
			if strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$") {
				continue
			}
			if repopath.IsAbs(p) {
				if _, inside := repopath.Under(t.Cwd, p); !inside {
					continue // a temporary file, a home folder: not the project's
				}
			}
			rel := strings.TrimSuffix(relative(p, t.Cwd), "/")
			if rel == "" || rel == "." || repopath.IsAbs(rel) || strings.HasPrefix(rel, "..") {
				continue
			}
			if seen[rel] || foundLater(ch.Tools[i+1:], p, rel) {
				continue
			}
			seen[rel] = true
			m := Missing{
				Path: identity.Generalize(rel, in), Command: identity.Generalize(oneLine(t.Command), in), Error: identity.Generalize(fs.err, in),
				SessionID: t.SessionID, RecordUUID: t.ResultUUID, Timestamp: t.Timestamp,
			}
			if m.RecordUUID == "" {
				m.RecordUUID = t.UUID
			}
			out = append(out, m)
		}
	}
	return out
}

// foundLater reports a later call that passed and named the path p
// (rel relative to the project), or a file of its name elsewhere: it was
// there after all, was made, or was found where it is (the lesson of a
// file read where it is not is the session's own).
func foundLater(calls []transcript.ToolCall, p, rel string) bool {
	base := path.Base(rel)
	for _, c := range calls {
		if c.Failed() || c.Command != "" && !c.HasResult {
			continue
		}
		if strings.Contains(c.Command, p) || strings.Contains(c.Command, rel) || strings.Contains(c.Command, "/"+base) {
			return true
		}
		for _, q := range c.Paths {
			if q = repopath.Slash(q); q == p || q == rel || path.Base(q) == base {
				return true
			}
		}
	}
	return false
}

// StalePaths turns the paths not found in at least Options.MinSessions
// distinct sessions into pitfalls, one per session, so that the log counts
// the sessions as its sources. The pattern is the same in every session:
// the path is its identity.
func StalePaths(ms []Missing, opt Options) []Observation {
	groups := map[string][]Missing{}
	var order []string
	for _, m := range ms {
		if _, ok := groups[m.Path]; !ok {
			order = append(order, m.Path)
		}
		if !sessionIn(groups[m.Path], m.SessionID) {
			groups[m.Path] = append(groups[m.Path], m)
		}
	}
	var out []Observation
	for _, p := range order {
		g := groups[p]
		if len(g) < opt.minSessions() {
			continue
		}
		pattern := "`" + clip(p, 120) + "` does not exist: earlier sessions looked for it there too; look elsewhere, or mend what names it."
		for _, m := range g {
			details := "area: " + field(p) + "; issue: `" + field(clip(m.Command, 160)) + "` fails with \"" + field(clip(m.Error, 100)) + "\"" +
				"; impact: the agent looks for it in session after session; resolution: list the folder above it, or correct the instructions that name it; sessions: " + strconv.Itoa(len(g))
			out = append(out, Observation{
				Type:       Pitfall,
				Pattern:    clip(pattern, maxPattern),
				Details:    details,
				Evidence:   []string{quote("tool", "`"+m.Command+"` → "+m.Error)},
				QualityOK:  true,
				SessionID:  m.SessionID,
				RecordUUID: m.RecordUUID,
				Timestamp:  m.Timestamp,
				Extractor:  ExtractorStalePath,
				Class:      ClassFailureFix,
			})
		}
	}
	return out
}

func sessionIn(ms []Missing, id string) bool {
	for _, m := range ms {
		if m.SessionID == id {
			return true
		}
	}
	return false
}
