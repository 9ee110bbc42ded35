// Package lessons is the one list of what devlearn has learned in a
// project. Underneath there are two stores: knowledge entries (a lesson a
// person asked to keep, the agent's drafts, entries written by hand) and
// the observation log (what was seen in sessions, and the artifacts
// rendered from it). One lesson is often in both: a correction is kept as
// an entry and observed in the log, and an observation is served as a
// draft entry and later rendered as an ADR or pitfall section. This
// package joins the parts that are the same lesson and gives each lesson
// one status, in one vocabulary, with the reason for it, so that a person
// reads and decides without knowing there are two stores.
package lessons

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
)

// The statuses of a lesson: learned and waiting for a person (or for the
// thresholds), served as what the project knows, or no longer served.
const (
	Draft   = "draft"
	InForce = "in force"
	Retired = "retired"
)

// Statuses are the statuses in the order they are listed: what the agent
// is given first, then what waits, then what was turned down.
var Statuses = []string{InForce, Draft, Retired}

// Lesson is one thing devlearn learned, whatever stores hold it.
type Lesson struct {
	// ID names the lesson: the entry's key when there is an entry (what a
	// person kept is named by its words), else the observation's id, else
	// the section's anchor. Every other name of a part finds it too.
	ID     string `json:"id"`
	Status string `json:"status"`
	// Why says what put it in its status, in words.
	Why   string `json:"why"`
	Kind  string `json:"kind"` // rule, note, warning… of an entry; workflow, skill, decision, pitfall of an observation
	Text  string `json:"text"`
	Scope string `json:"scope"` // project or global
	// Served: the agent is given it now (in force, or a draft served
	// below what is in force).
	Served bool `json:"served"`
	// Review lists what a person should look at (stale, held).
	Review []string `json:"review,omitempty"`
	// Held says why the lesson is held for a person's review and not
	// served: it reads as an order to fetch and run code, or to ignore
	// other instructions. Accepting it serves it.
	Held string `json:"held,omitempty"`

	// The parts. Entry is the key of the knowledge entry; Observation the
	// id in the log; Artifact the file rendered from it (with Anchor for
	// an ADR or pitfall section).
	Entry       string `json:"entry,omitempty"`
	EntryStatus string `json:"entry_status,omitempty"`
	EntryPath   string `json:"entry_path,omitempty"`
	Observation string `json:"observation,omitempty"`
	ObsStatus   string `json:"observation_status,omitempty"`
	Artifact    string `json:"artifact,omitempty"`
	Anchor      string `json:"anchor,omitempty"`

	obs  *observe.Observation
	item *knowledge.Item
}

// Kinds an observation type is shown as: what it becomes.
var obsKind = map[string]string{
	observe.Workflow:   "workflow",
	observe.Procedural: "skill",
	observe.Decision:   "decision",
	observe.Pitfall:    "pitfall",
}

// Join builds the one list from the observations (every status) and the
// knowledge items (entries of every status and the sections of the
// knowledge files). source gives an entry's source (manual, prompt,
// transcript…; nil: unknown), which says who put it in force. In force
// first, then drafts, then what was retired.
func Join(obs []observe.Observation, items []*knowledge.Item, source func(*knowledge.Item) string) []*Lesson {
	byObs := map[string]*Lesson{}
	var out []*Lesson
	for i := range obs {
		o := &obs[i]
		l := &Lesson{ID: o.ID, Observation: o.ID, ObsStatus: o.Status, Kind: obsKind[o.Type], Text: o.Pattern, Scope: knowledge.ScopeProject,
			Artifact: o.Artifact, Anchor: o.Anchor, obs: o}
		byObs[o.ID] = l
		out = append(out, l)
	}
	var loose []*knowledge.Item // entries that name no observation
	for _, it := range items {
		l := byObs[it.Observation]
		switch {
		case it.Type != knowledge.TypeEntry && l != nil:
			// The section rendered from the observation: its artifact,
			// already named by the observation.
			if l.Artifact == "" {
				l.Artifact, l.Anchor = it.Path, it.ID
			}
		case it.Type != knowledge.TypeEntry:
			// A section written by hand.
			out = append(out, &Lesson{ID: it.ID, Kind: it.Type, Text: it.Title, Scope: it.Scope, Artifact: it.Path, Anchor: it.ID, item: it})
		case it.Learned():
			// An observation served as a draft (internal/observed): a view
			// of the log, not a lesson of its own.
			if l != nil {
				l.Served = true
			}
		case l != nil && l.item == nil:
			l.attach(it)
		default:
			loose = append(loose, it)
		}
	}
	// An entry that names no observation is joined to the one that says
	// the same lesson: a correction the person asked to keep is an entry
	// at once and an observation of the same words.
	for _, it := range loose {
		var match *Lesson
		if it.Scope == knowledge.ScopeProject {
			for _, l := range out {
				if l.obs != nil && l.item == nil && sameLesson(it.Title, l.obs.Pattern) {
					match = l
					break
				}
			}
		}
		if match == nil {
			match = &Lesson{Scope: it.Scope}
			out = append(out, match)
		}
		match.attach(it)
	}
	for _, l := range out {
		src := ""
		if l.item != nil && source != nil && l.item.Type == knowledge.TypeEntry {
			src = source(l.item)
		}
		l.decide(src)
	}
	slices.SortStableFunc(out, func(a, b *Lesson) int {
		if c := cmp.Compare(slices.Index(Statuses, a.Status), slices.Index(Statuses, b.Status)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// sameLesson reports whether an entry's summary and an observation's
// pattern state one lesson: the same words, or each about the other as
// keep tells a lesson already kept.
func sameLesson(summary, pattern string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.Join(strings.Fields(strings.TrimRight(s, ".。!！ ")), " "))
	}
	if norm(summary) == norm(pattern) {
		return true
	}
	return keep.Restates(pattern, summary) && keep.About(summary, pattern)
}

// attach makes an entry part of the lesson: its key names the lesson.
func (l *Lesson) attach(it *knowledge.Item) {
	l.item = it
	l.ID, l.Entry, l.EntryStatus, l.EntryPath = it.ID, it.ID, it.Status, it.Path
	l.Text, l.Kind, l.Scope = it.Title, it.Kind, it.Scope
}

// part is what one store says of a lesson.
type part struct {
	status, why string
	served      bool
}

// decide works the lesson's status out from its parts: in force if one
// part is, else a draft if one part is, else retired. The reasons given
// are those of the parts with that status.
func (l *Lesson) decide(source string) {
	var parts []part
	if l.item != nil {
		parts = append(parts, itemPart(l.item, source))
	}
	if l.obs != nil {
		p := obsPart(l.obs, l.Served)
		parts = append(parts, p)
		if o := l.obs; o.Stale != "" {
			l.Review = append(l.Review, "stale: "+o.Stale)
		}
		if l.obs.SoftCap {
			l.Review = append(l.Review, "held back: its knowledge file is over the soft cap")
		}
	}
	if l.item != nil && l.item.Held != "" && l.item.Status != knowledge.StatusArchived {
		l.Held = l.item.Held
		l.Review = append(l.Review, "held for review: it "+l.item.Held)
	}
	for _, st := range Statuses {
		var whys []string
		for _, p := range parts {
			if p.status == st && !slices.Contains(whys, p.why) {
				whys = append(whys, p.why)
			}
		}
		if len(whys) > 1 {
			// The observation's reason says who retired it; "archived"
			// says nothing more.
			whys = slices.DeleteFunc(whys, func(w string) bool { return w == archived })
		}
		if len(whys) > 0 {
			l.Status, l.Why = st, strings.Join(whys, "; ")
			break
		}
	}
	for _, p := range parts {
		l.Served = l.Served || p.served
	}
}

// archived is why an archived entry is retired: by a person, or aged out
// as a candidate nobody reviewed.
const archived = "archived"

// itemPart is what an entry or a hand-written section says.
func itemPart(it *knowledge.Item, source string) part {
	if it.Held != "" && it.Status != knowledge.StatusArchived && it.Active {
		return part{Draft, "held: it " + it.Held + "; accept serves it", false}
	}
	if it.Type != knowledge.TypeEntry {
		if it.Active {
			return part{InForce, "written by hand in " + it.Path, true}
		}
		return part{Retired, "Status: " + it.Status + " in " + it.Path, false}
	}
	switch it.Status {
	case knowledge.StatusActive:
		return part{InForce, entrySource(it, source), true}
	case knowledge.StatusDraft:
		why := "the agent's draft, served below what is in force until a person accepts it"
		if it.Clone != "" {
			why = "the agent's draft, served below what is in force in the clone that wrote it until a person accepts it"
		}
		return part{Draft, why, true}
	case knowledge.StatusCandidate:
		return part{Draft, "proposed: not served until a person accepts it", false}
	}
	return part{Retired, archived, false}
}

// entrySource says who put an entry in force.
func entrySource(it *knowledge.Item, source string) string {
	var who string
	switch source {
	case "prompt", "transcript":
		who = "the person asked to keep it"
	case "manual", "":
		who = "written by a person"
	default:
		// A draft or a candidate (the agent's, its tools', a gate's, the
		// extractor's) is active only once a person accepted it.
		who = "accepted by a person"
	}
	if it.Scope == knowledge.ScopeGlobal {
		who += "; in force in every project"
	}
	return who
}

// obsPart is what the log says of an observation.
func obsPart(o *observe.Observation, servedDraft bool) part {
	switch o.Status {
	case observe.Created:
		where := o.Artifact
		if o.Anchor != "" {
			where = o.Anchor + " in " + o.Artifact
		}
		return part{InForce, "rendered as " + where, true}
	case observe.Deprecated:
		return part{Retired, retiredWhy(o.DeprecatedReason), false}
	case observe.Ready:
		return part{Draft, "ready: the next render makes it a " + obsKind[o.Type] + servedNote(o, servedDraft), servedDraft}
	}
	seen := "seen " + knowledge.Plural(o.Count, "time", "times")
	if len(o.Why) > 0 {
		seen += " (" + strings.Join(o.Why, "; ") + ")"
	}
	return part{Draft, seen + servedNote(o, servedDraft), servedDraft}
}

func servedNote(o *observe.Observation, served bool) string {
	switch {
	case served:
		return "; served as a draft meanwhile"
	case !o.QualityOK:
		return "; not served until a person accepts it"
	}
	return ""
}

// retiredWhy says why an observation was deprecated.
func retiredWhy(reason string) string {
	switch reason {
	case "review":
		return "retired by a person"
	case "deleted":
		return "its artifact was deleted: a \"no\" that sticks"
	case "reverted":
		return "its render was reverted: a \"no\" that sticks"
	case "":
		return "retired"
	}
	return "retired: " + reason
}

// Find returns the lesson id names: the lesson's id, its entry's key
// (also as "entry:KEY"), its observation's id (or the draft key obs-…
// it is served as), or its section's anchor.
func Find(list []*Lesson, id string) (*Lesson, error) {
	id = strings.TrimSpace(id)
	key := strings.TrimPrefix(id, "entry:")
	for _, l := range list {
		switch {
		case l.ID == id, l.Entry != "" && l.Entry == key,
			l.Observation != "" && (l.Observation == id || observed.Key(l.Observation) == id),
			l.Anchor != "" && strings.EqualFold(l.Anchor, id):
			return l, nil
		}
	}
	return nil, fmt.Errorf("no lesson %q here (list them with 'devlearn lessons')", id)
}

// Subjects are the ids of a lesson's parts as review decides about them:
// "entry:KEY" and the observation's id.
func (l *Lesson) Subjects() (entry, observation string) {
	if l.Entry != "" && l.Scope == knowledge.ScopeProject {
		entry = "entry:" + l.Entry
	}
	return entry, l.Observation
}

// WithoutEntries returns the observations that are no entry's lesson:
// those the one list does not join to an entry of the project. The rest
// are served as their entry, once.
func WithoutEntries(obs []observe.Observation, items []*knowledge.Item) []observe.Observation {
	joined := map[string]bool{}
	for _, l := range Join(obs, items, nil) {
		if l.Entry != "" && l.Observation != "" {
			joined[l.Observation] = true
		}
	}
	if len(joined) == 0 {
		return obs
	}
	out := make([]observe.Observation, 0, len(obs)-len(joined))
	for _, o := range obs {
		if !joined[o.ID] {
			out = append(out, o)
		}
	}
	return out
}
