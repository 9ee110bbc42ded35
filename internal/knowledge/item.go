package knowledge

import (
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devlearn/devlearn/internal/knowfile"
)

// Item types: what an index line or an injected item came from.
const (
	TypeDecision = "decision" // an ADR section of decisions.md
	TypePitfall  = "pitfall"  // a PF section of pitfalls.md
	TypeEntry    = "entry"    // a knowledge entry file
)

// Scopes: where an item is kept.
const (
	ScopeProject = "project"
	ScopeGlobal  = "global"
)

// Item is anything devlearn serves, in one shape: ADR and pitfall sections
// and entries alike, so the index and the relevance engine treat them the
// same way. What scoring needs is in the Item itself, the rest in its
// Detail: the cache stores the Detail apart, so that reading an item to
// score it does not decode its text.
type Item struct {
	ID       string `json:"id"` // ADR-003, PF-001, or the entry's key
	Priority string `json:"priority"`
	// Active: in force, so listed in the index and served by relevance.
	Active bool  `json:"active"`
	Match  Match `json:"-"`
	*Detail
}

// Detail is the rest of an item.
type Detail struct {
	Type        string `json:"type"` // decision, pitfall, entry
	Kind        string `json:"kind,omitempty"`
	Scope       string `json:"scope"`
	Title       string `json:"title"`
	Status      string `json:"status"`
	Area        string `json:"area,omitempty"`
	Observation string `json:"observation,omitempty"`
	Ask         bool   `json:"ask,omitempty"`
	// Path is the file: relative to the project root for project items,
	// absolute for global ones.
	Path string `json:"path"`
	// Text is the full section of an ADR or a pitfall. An entry's body is
	// read from its file when it is shown or injected, so that what is
	// served is what the file says now.
	Text string `json:"-"`
	// TextRunes is the length of the full item, for the index's token
	// estimate.
	TextRunes int `json:"-"`
}

// Match is an item's triggers in the form the relevance engine uses.
type Match struct {
	Tools   []string // as written; compared case-insensitively
	Files   []Glob
	Actions []string // Phrase form
	Context []string // Phrase form
}

// Empty reports whether nothing can make the item relevant to a tool call.
func (m *Match) Empty() bool {
	return len(m.Tools) == 0 && len(m.Files) == 0 && len(m.Actions) == 0 && len(m.Context) == 0
}

// Ref is the key of the item's counters in the observation log
// (contract 8): "entry:<key>" for entries, "obs:<id>" for a machine-made
// section, else the section's anchor.
func (it *Item) Ref() string {
	switch {
	case it.Type == TypeEntry:
		return "entry:" + it.ID
	case it.Observation != "":
		return "obs:" + it.Observation
	}
	return it.ID
}

// matchOf prepares triggers for scoring.
func matchOf(t Triggers) Match {
	m := Match{Tools: t.Tools}
	for _, f := range t.Files {
		m.Files = append(m.Files, CompileGlob(f))
	}
	for _, a := range t.Actions {
		m.Actions = append(m.Actions, Phrase(a))
	}
	for _, c := range t.Context {
		m.Context = append(m.Context, Phrase(c))
	}
	return m
}

// FromEntry is the item of an entry kept at path.
func FromEntry(e *Entry, scope, path string) *Item {
	return &Item{
		ID: e.Key, Priority: e.Priority, Active: e.Active(), Match: matchOf(e.Triggers),
		Detail: &Detail{
			Type: TypeEntry, Kind: e.Kind, Scope: scope, Title: e.Summary, Status: e.Status,
			Observation: e.Observation, Ask: e.Ask, Path: path,
			TextRunes: utf8.RuneCountInString(e.Summary) + utf8.RuneCountInString(e.Process.Text()) + utf8.RuneCountInString(e.Body) + 40,
		},
	}
}

// Default priorities of sections, which carry none of their own: a
// pitfall warns of a known way to fail, so it ranks above a decision.
const (
	PitfallPriority  = "HIGH"
	DecisionPriority = "MEDIUM"
)

// FromSection is the item of an ADR or pitfall section of a file at path.
// A pitfall's Area becomes its file trigger.
func FromSection(kind knowfile.Kind, s *knowfile.Section, path string) *Item {
	it := &Item{
		ID: s.Anchor, Active: s.Active(),
		Detail: &Detail{
			Scope: ScopeProject, Title: s.Title, Status: s.Status(), Observation: s.Source(),
			Path: path, Text: s.Body, TextRunes: utf8.RuneCountInString(s.Body),
		},
	}
	if it.ID == "" {
		it.ID = s.Title
	}
	switch kind.Prefix {
	case knowfile.Pitfalls.Prefix:
		it.Type, it.Priority = TypePitfall, PitfallPriority
		it.Area = s.Field("Area")
		for _, g := range AreaGlobs(it.Area) {
			it.Match.Files = append(it.Match.Files, CompileGlob(g))
		}
	default:
		it.Type, it.Priority = TypeDecision, DecisionPriority
	}
	if p := strings.ToUpper(s.Field("Priority")); contains(Priorities, p) {
		it.Priority = p
	}
	return it
}

// AreaGlobs reads the file patterns in a pitfall's Area: every word that
// looks like a path ("scripts/hooks/", "internal/observe/fold.go",
// "**/*.sql"). A folder covers everything under it. Words that are not
// paths ("error handling") give no trigger.
func AreaGlobs(area string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(area, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '`' || r == '"' || r == '\'' || r == '(' || r == ')'
	}) {
		w = strings.TrimPrefix(w, "./")
		w = strings.TrimLeft(w, "/")
		w = strings.TrimRight(w, ".:")
		if w == "" || !PathLike(w) {
			continue
		}
		var globs []string
		switch {
		case strings.ContainsAny(w, "*?[{"):
			globs = []string{w}
		case strings.HasSuffix(w, "/"):
			globs = []string{w + "**"}
		default:
			globs = []string{w, w + "/**"}
		}
		for _, g := range globs {
			if doublestar.ValidatePattern(g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// PathLike reports whether a word looks like a path or a file name
// ("scripts/hooks/", "config.yaml"), not a version or an abbreviation.
func PathLike(w string) bool {
	if strings.ContainsAny(w, "/*") {
		return true
	}
	// "config.yaml", not "e.g" or "v1.2".
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 {
		return false
	}
	ext := w[dot+1:]
	if len(ext) > 5 {
		return false
	}
	letters := 0
	for _, c := range ext {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters > 0 && len(w[:dot]) > 1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PriorityRank orders priorities, most important first.
func PriorityRank(p string) int {
	for i, x := range Priorities {
		if x == p {
			return i
		}
	}
	return len(Priorities)
}

// Multiplier is the weight of a priority in a relevance score.
func Multiplier(p string) float64 {
	switch p {
	case "CRITICAL":
		return 2.0
	case "HIGH":
		return 1.5
	case "LOW":
		return 0.5
	}
	return 1.0
}

// Label is how an item's kind and status read in the index and in
// injected text: "[Accepted]", "[Active, area: scripts/]",
// "[CRITICAL checklist]".
func (it *Item) Label() string {
	switch it.Type {
	case TypeEntry:
		l := it.Priority + " " + it.Kind
		if it.Status != StatusActive {
			l += ", " + it.Status
		}
		if it.Scope == ScopeGlobal {
			l += ", global"
		}
		return l
	default:
		st := it.Status
		if st == "" {
			st = "no status"
		}
		return st
	}
}
