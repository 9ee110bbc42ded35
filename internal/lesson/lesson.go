// Package lesson is the vocabulary of lesson types: what each type of
// observation is called, when it is ready, what artifact it becomes and
// how that artifact is laid out and served. Every package that decides
// something by the type of a lesson asks this table rather than comparing
// the type's name, so that a new type is one row here (and, to make its
// thresholds settable, one field of config.Thresholds), not a hunt for
// switches across the tree. The package imports nothing of devlearn's so
// that any package may read it.
package lesson

import (
	"regexp"
	"slices"
	"strings"
)

// Threshold is devflow's promotion rule: ready when quality is confirmed,
// confidence has reached Promote and the sightings span SpreadDays. The
// tags drive the config's keys, schema and validation.
type Threshold struct {
	Required   int     `json:"required" min:"1" max:"1000" doc:"Sightings (distinct sessions) at which confidence is full (0.95); not the count needed to be ready, which is the first count whose confidence (count ÷ required) reaches promote."`
	SpreadDays float64 `json:"spread_days" min:"0" max:"3650" doc:"Days between the first and the last sighting."`
	Promote    float64 `json:"promote" min:"0" max:"0.95" doc:"Confidence at which the observation is ready (confidence never exceeds 0.95)."`
}

// Artifact is the shape of what a lesson becomes.
type Artifact uint8

// The shapes of artifact.
const (
	// Command is one file per lesson in the commands folder, run as /<slug>.
	Command Artifact = iota + 1
	// Skill is one folder per lesson in the skills folder, with its SKILL.md.
	Skill
	// Section is a numbered "## " section of a knowledge file, cited by
	// its anchor (ADR-003).
	Section
)

// File is a knowledge file sections are rendered into (knowfile.Kind).
type File struct {
	Path   string // slash-separated, relative to the project root; a bare name in a .directives/ folder
	Prefix string // of the anchors: "ADR" or "PF"
	Title  string // the file's heading
	Noun   string // for the TL;DR line: "decision"/"decisions"
	Nouns  string
	// Active is the status of a live entry of this kind.
	Active string
}

// Type is one lesson type.
type Type struct {
	Name        string    // in the log, config.Thresholds and the extractor's answer
	Noun, Nouns string    // what its artifacts are called in a summary: "skill", "skills"
	Threshold   Threshold // the default promotion rule
	Artifact    Artifact
	// Template names the render template its artifact is written with
	// (render's templates table).
	Template string
	// Central and Directive are, for a Section, the central knowledge
	// file and the file of an area's .directives/ folder it goes to.
	Central, Directive File
	// Area: a lesson about a place (its details carry "area"): two with
	// the same area and issue are one section, and the lesson is served
	// when that place is touched.
	Area bool
	// Priority is what a section of this type is served at unless it
	// says otherwise; Rank orders the index, lower first (entries are 0).
	Priority string
	Rank     int
	// Entry is the kind of the draft knowledge entry an observation of
	// this type is served as before it becomes an artifact.
	Entry string
	// Group is the prefix of the curated group its bullets go to
	// ("P", "W", "F").
	Group string
	// Describe and Brief say what the type is to the LLM extractor: in
	// the prompt about a whole session, and in the one about flagged turns.
	Describe, Brief string
}

// The types devlearn knows, in their display order.
const (
	Workflow   = "workflow"   // a slash command
	Procedural = "procedural" // a skill
	Decision   = "decision"   // an ADR section
	Pitfall    = "pitfall"    // a PF section
)

// WorkFolderIssue is a pitfall's issue when its area is a folder the
// session worked in, named whole: where the lesson was said, not a file
// it is about, so it gives no file trigger.
const WorkFolderIssue = "the person named the folder the session works in"

// table is every type, in display order. Only Register changes it, and
// only a test calls that.
var table = []Type{
	{
		Name: Workflow, Noun: "workflow", Nouns: "workflows",
		Threshold: Threshold{Required: 3, SpreadDays: 3, Promote: 0.60},
		Artifact:  Command, Template: "command", Entry: "note", Group: "W",
		Describe: "steps the person wants done the same way each time",
		Brief:    "steps the person wants done the same way each time",
	},
	{
		Name: Procedural, Noun: "skill", Nouns: "skills",
		Threshold: Threshold{Required: 4, SpreadDays: 5, Promote: 0.70},
		Artifact:  Skill, Template: "skill", Entry: "note", Group: "W",
		Describe: "how to do a kind of task in this project",
		Brief:    "how to do a kind of task here",
	},
	{
		Name: Decision, Noun: "decision", Nouns: "decisions",
		Threshold: Threshold{Required: 2, SpreadDays: 0, Promote: 0.65},
		Artifact:  Section, Template: "adr",
		Central:   File{Path: ".memory/knowledge/decisions.md", Prefix: "ADR", Title: "# Architectural Decisions", Noun: "decision", Nouns: "decisions", Active: "Accepted"},
		Directive: File{Path: "INVARIANTS.md", Prefix: "ADR", Title: "# Invariants", Noun: "invariant", Nouns: "invariants", Active: "Accepted"},
		Priority:  "MEDIUM", Rank: 2, Entry: "pattern", Group: "P",
		Describe: "a choice made for this project, and why",
		Brief:    "a choice made for this project: one tool or way over another",
	},
	{
		Name: Pitfall, Noun: "pitfall", Nouns: "pitfalls",
		Threshold: Threshold{Required: 2, SpreadDays: 0, Promote: 0.65},
		Artifact:  Section, Template: "pitfall",
		Central:   File{Path: ".memory/knowledge/pitfalls.md", Prefix: "PF", Title: "# Known Pitfalls", Noun: "pitfall", Nouns: "pitfalls", Active: "Active"},
		Directive: File{Path: "PITFALLS.md", Prefix: "PF", Title: "# Pitfalls", Noun: "pitfall", Nouns: "pitfalls", Active: "Active"},
		Area:      true, Priority: "HIGH", Rank: 1, Entry: "warning", Group: "F",
		Describe: "something that went wrong or that the person corrected, and how to avoid it",
		Brief:    "a mistake the person corrected, or a failure and its fix",
	},
}

// All returns every type in display order. The slice is the table's own:
// callers only read it.
func All() []Type { return table }

// Names lists the names of every type in display order.
func Names() []string {
	out := make([]string, len(table))
	for i := range table {
		out[i] = table[i].Name
	}
	return out
}

// Index is the position of the type named name in All, -1 for a type
// devlearn does not know.
func Index(name string) int {
	for i := range table {
		if table[i].Name == name {
			return i
		}
	}
	return -1
}

// Get returns the type named name; false for a type devlearn does not know.
func Get(name string) (Type, bool) {
	if i := Index(name); i >= 0 {
		return table[i], true
	}
	return Type{}, false
}

// Is reports whether name is a known type whose artifact has shape a.
func Is(name string, a Artifact) bool {
	t, ok := Get(name)
	return ok && t.Artifact == a
}

// Sections lists the types rendered as sections, in display order.
func Sections() []Type {
	var out []Type
	for _, t := range table {
		if t.Artifact == Section {
			out = append(out, t)
		}
	}
	return out
}

// ByCentral returns the section type whose central file is at path.
func ByCentral(path string) (Type, bool) {
	for i := range table {
		if t := &table[i]; t.Artifact == Section && t.Central.Path == path {
			return *t, true
		}
	}
	return Type{}, false
}

// ByPrefix returns the section type whose anchors start with prefix (a
// central file's: the directive files share their prefixes).
func ByPrefix(prefix string) (Type, bool) {
	for i := range table {
		if t := &table[i]; t.Artifact == Section && t.Central.Prefix == prefix {
			return *t, true
		}
	}
	return Type{}, false
}

// Anchors is a regular expression alternation of the anchor prefixes of
// every section type, "ADR|PF", for the patterns that find or read anchors.
func Anchors() string {
	var b strings.Builder
	for _, t := range Sections() {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(regexp.QuoteMeta(t.Central.Prefix))
	}
	return b.String()
}

// Register adds t to the table and returns what removes it again. It is
// for tests that show a new type flowing through the pipeline; a real
// type is a row of table.
func Register(t Type) (undo func()) {
	if Index(t.Name) >= 0 {
		panic("lesson: type " + t.Name + " registered twice")
	}
	before := table
	table = append(slices.Clip(table), t)
	return func() { table = before }
}
