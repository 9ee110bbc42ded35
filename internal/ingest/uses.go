package ingest

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// How an artifact shows up in use in a transcript (observed in the
// transcripts of testdata/transcripts, Claude Code 1.0.x to 2.1.x, and in
// the Skill tool's published description):
//
//   - A slash command the person runs is a user record whose text holds
//     <command-name>/NAME</command-name> (after a <command-message> line,
//     so not always at the start; 1.0.x wrote the name without the slash).
//     A command in a subfolder, like devlearn's
//     .claude/commands/self-learning/SLUG.md, has been named /SLUG,
//     /self-learning:SLUG and /project:self-learning:SLUG across versions:
//     the part after the last colon is the command.
//   - A skill the agent loads is an assistant tool_use block named "Skill"
//     whose input is {"skill": "NAME"} (2.0.x wrote {"command": "NAME"});
//     NAME may be qualified ("plugin:NAME"). A person can also run a skill
//     as /NAME, which is the first case.
//   - An ADR or a pitfall is in use when the agent cites its number
//     (ADR-003, PF-12) in what it writes (text blocks of assistant
//     records; thinking is not shown, so it does not count).
//
// None of the test transcripts loads a skill; their slash commands are all
// built in (/init, /clear, /model, ...).

// Use kinds.
const (
	UseCommand  = "command"
	UseSkill    = "skill"
	UseCitation = "citation"
)

// Use is one sign in a transcript that something is in use.
type Use struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"` // command or skill name (lower case, unqualified); ADR-3 / PF-12 for citations
	SessionID string `json:"session_id"`
	Record    string `json:"record"`
	Timestamp string `json:"timestamp,omitempty"`
}

// The patterns compile on first use: every hook process links this
// package, and only the worker and `ingest` scan for uses.
var (
	commandName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<command-name>\s*([^<\s]+)\s*</command-name>`)
	})
	citation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(` + lesson.Anchors() + `)-0*(\d{1,5})\b`) })
)

// ScanUses reads transcript files for commands run, skills loaded and
// ADR/PF numbers cited. Unreadable lines are skipped (the channels report
// them).
func ScanUses(paths []string) ([]Use, error) {
	var out []Use
	for _, p := range paths {
		f, err := safefile.OpenRegular(p)
		if err != nil {
			return nil, err
		}
		_, err = transcript.Records(f, func(r *transcript.Record) error {
			user, assistant := r.Type.Is("user"), r.Type.Is("assistant")
			if !user && !assistant || r.Content == nil {
				return nil
			}
			base := Use{SessionID: r.SessionID.String(), Record: r.UUID.String(), Timestamp: r.Timestamp.String()}
			return transcript.ParseBlocks(r.Content, func(b *transcript.Block) error {
				switch {
				case user && b.Type.Is("text"):
					for _, m := range commandName().FindAllStringSubmatch(b.Text.String(), -1) {
						u := base
						u.Kind, u.Name = UseCommand, unqualified(m[1])
						out = append(out, u)
					}
				case assistant && b.Type.Is("tool_use") && b.Name.Is("Skill"):
					if name := skillName(b.Input); name != "" {
						u := base
						u.Kind, u.Name = UseSkill, name
						out = append(out, u)
					}
				case assistant && b.Type.Is("text"):
					for _, m := range citation().FindAllStringSubmatch(b.Text.String(), -1) {
						n, _ := strconv.Atoi(m[2])
						u := base
						u.Kind, u.Name = UseCitation, m[1]+"-"+strconv.Itoa(n)
						out = append(out, u)
					}
				}
				return nil
			})
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return out, nil
}

// unqualified is a command or skill name without its slash and without
// what qualifies it (plugin:, project:self-learning:), in lower case.
func unqualified(name string) string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}

func skillName(input []byte) string {
	var in struct {
		Skill   string `json:"skill"`
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	if in.Skill != "" {
		return unqualified(in.Skill)
	}
	return unqualified(in.Command)
}

// Artifact is a created artifact and the names it is used by.
type Artifact struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Path   string `json:"path"`
	Anchor string `json:"anchor,omitempty"`
}

// Artifacts lists the observations whose artifact is in force.
func Artifacts(obs []observe.Observation) []Artifact {
	var out []Artifact
	for _, o := range obs {
		if o.Status == observe.Created && o.Artifact != "" {
			out = append(out, Artifact{ID: o.ID, Type: o.Type, Path: o.Artifact, Anchor: o.Anchor})
		}
	}
	return out
}

// matches reports whether u is a use of a.
func (a Artifact) matches(u Use) bool {
	t, _ := lesson.Get(a.Type)
	switch t.Artifact {
	case lesson.Command:
		// .claude/commands/self-learning/<slug>.md runs as /<slug>.
		return u.Kind == UseCommand && u.Name == unqualified(strings.TrimSuffix(path.Base(a.Path), ".md"))
	case lesson.Skill:
		// .claude/skills/<slug>/SKILL.md loads as skill <slug>, or runs as /<slug>.
		return (u.Kind == UseSkill || u.Kind == UseCommand) && u.Name == unqualified(path.Base(path.Dir(a.Path)))
	case lesson.Section:
		return u.Kind == UseCitation && a.Anchor != "" && u.Name == normalAnchor(a.Anchor)
	}
	return false
}

// normalAnchor writes ADR-003 as ADR-3, the form Use names citations in.
func normalAnchor(anchor string) string {
	kind, num, ok := strings.Cut(anchor, "-")
	if !ok {
		return anchor
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return anchor
	}
	return kind + "-" + strconv.Itoa(n)
}

// Usage is an artifact found in use in a session: one per (session,
// artifact), the first sign of it.
type Usage struct {
	ID        string `json:"id"`
	Artifact  string `json:"artifact"`
	How       string `json:"how"` // "ran /NAME", "loaded skill NAME", "cited ADR-3"
	SessionID string `json:"session_id"`
	Timestamp string `json:"timestamp,omitempty"`
}

// Match pairs uses with the artifacts they are uses of, once per session
// and artifact. session names uses whose record carries no session id.
func Match(uses []Use, arts []Artifact, session string) []Usage {
	var out []Usage
	seen := map[[2]string]bool{}
	for _, u := range uses {
		sid := u.SessionID
		if sid == "" {
			sid = session
		}
		for _, a := range arts {
			if !a.matches(u) || seen[[2]string{sid, a.ID}] {
				continue
			}
			seen[[2]string{sid, a.ID}] = true
			how := map[string]string{UseCommand: "ran /", UseSkill: "loaded skill ", UseCitation: "cited "}[u.Kind] + u.Name
			out = append(out, Usage{ID: a.ID, Artifact: a.Path, How: how, SessionID: sid, Timestamp: u.Timestamp})
		}
	}
	return out
}

// Counter is the counter a use adds to.
const Counter = "used"

// UseEvent is the count event of a usage: its id derives from the session
// and the observation only, so one session counts once however often it
// used the artifact, and ingesting it again adds nothing.
func UseEvent(u Usage, at time.Time) *observe.Event {
	e := observe.NewEvent(observe.OpCount, u.ID, at, u.SessionID, func(e *observe.Event) { e.Counter = Counter })
	e.EID = UseEventID(u.SessionID, u.ID)
	return e
}

// UseEventID is the event id of a session's use of an observation's
// artifact.
func UseEventID(session, id string) string {
	return observe.StableID(Counter + "\x00" + session + "\x00" + id)
}
