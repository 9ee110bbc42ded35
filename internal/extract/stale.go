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
	// Path is relative to the project (the repository, or the folder the
	// session ran in), in its general form; a folder ends in a slash.
	Path       string `json:"path"`
	Command    string `json:"command"`
	Error      string `json:"error"`
	SessionID  string `json:"session_id"`
	RecordUUID string `json:"record_uuid"`
	Timestamp  string `json:"timestamp,omitempty"`
}

// ExtractorStalePath names the cross-session extractor of paths not found.
const ExtractorStalePath = "stale-path"

// missingPaths are the project paths the session's reads did not find,
// each once. Left out: a path a later call of the session found (created,
// or found under its name elsewhere); one outside the project (a temporary
// file, a home folder), since only the project's paths are references its
// instructions may hold; one read after a cd in the same command (where it
// was looked for is not known); and one a trigger cannot hold whole.
func missingPaths(ch *transcript.Channels, in identity.Instance, root string) []Missing {
	var out []Missing
	seen := map[string]bool{}
	for i := range ch.Tools {
		t := &ch.Tools[i]
		paths, errs, _ := missedPaths(t)
		for k, p := range paths {
			errLine := errs[k]
			rel, inside := projectPath(root, t.Cwd, p)
			key := strings.TrimSuffix(rel, "/")
			if !inside || key == "" || unheld(key) || !strings.Contains(key, "/") && !strings.HasSuffix(p, "/") {
				continue // outside the project, or a bare name every folder may hold
			}
			if seen[key] || foundLater(ch.Tools[i+1:], p, key) {
				continue
			}
			seen[key] = true
			if strings.HasSuffix(p, "/") {
				key += "/"
			}
			m := Missing{
				Path: identity.Generalize(key, in), Command: clip(identity.Generalize(commandOf(t), in), 160), Error: clip(identity.Generalize(errLine, in), 100),
				SessionID: t.SessionID, RecordUUID: recordOf(t), Timestamp: t.Timestamp,
			}
			out = append(out, m)
		}
	}
	return out
}

// commandOf is how a call is shown: its command, or its tool and file.
func commandOf(t *transcript.ToolCall) string {
	if t.Command != "" {
		return oneLine(t.Command)
	}
	return t.Name + " " + strings.Join(t.Paths, " ")
}

// changesFolder reports a command that changes folder before its steps.
func changesFolder(cmd string) bool {
	for _, s := range stepsOf(cmd) {
		if cdWord(s.prog) {
			return true
		}
	}
	return false
}

// revision reports a word naming a file at a revision ("HEAD:docs/x.md"),
// not a path; a drive letter is a path's.
func revision(w string) bool {
	i := strings.IndexByte(w, ':')
	return i >= 0 && !(i == 1 && len(w) > 2 && (w[2] == '/' || w[2] == '\\'))
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
		k := strings.TrimSuffix(m.Path, "/") // a folder listed with or without its slash
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], m)
	}
	var out []Observation
	for _, k := range order {
		g := firstPerSession(groups[k], func(m Missing) string { return m.SessionID })
		if len(g) < opt.minSessions() {
			continue
		}
		p := g[0].Path
		pattern := "`" + clip(p, 120) + "` does not exist: earlier sessions looked for it there too; look elsewhere, or mend what names it."
		for _, m := range g {
			details := "area: " + field(p) + "; issue: `" + field(clip(m.Command, 160)) + "` fails with \"" + field(clip(m.Error, 100)) + "\"" +
				"; impact: the agent looks for it in session after session; resolution: list the folder above it, or correct the instructions that name it; sessions: " + strconv.Itoa(len(g))
			o := pitfallAt(m.SessionID, m.RecordUUID, m.Timestamp, pattern, details, quote("tool", "`"+m.Command+"` → "+m.Error))
			o.Extractor = ExtractorStalePath
			out = append(out, o)
		}
	}
	return out
}
