package knowledge

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/stamp"
	"github.com/devlearn/devlearn/internal/words"
)

// Item types: what an index line or an injected item came from. A
// section's type is its lesson type (lesson.ByPrefix).
const (
	typeDecision = lesson.Decision // an ADR section of decisions.md
	typePitfall  = lesson.Pitfall  // a PF section of pitfalls.md
	TypeEntry    = "entry"         // a knowledge entry file
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
	// Held says why the item is held for a person's review and not
	// served (heldReason); "" when it is served.
	Held string `json:"held,omitempty"`
	// Clone is the clone whose agent wrote a draft.
	Clone string `json:"clone,omitempty"`
	// Updated is when an entry last changed (its updated_at): for a
	// learned draft, the last session its lesson was seen in.
	Updated string `json:"-"`
	// Process is an entry's process block as shown (Process.Text), and
	// File the stamp of the entry's file when it was read, zero when the
	// stamp proved nothing (racy): while the file still has that stamp,
	// the item is what the file says, and a hook serving it reads only its
	// body (Sources.Shown).
	Process string      `json:"-"`
	File    stamp.Stamp `json:"-"`
}

// Match is an item's triggers in the form the relevance engine uses: the
// ones its author wrote, and the ones its own text gives it (derive.go),
// read once when the cache is built.
type Match struct {
	Tools   []string // as written; compared case-insensitively
	Files   []Glob
	Actions []string // Phrase form
	Context []string // Phrase form
	// Commands are the programs the lesson warns against or reports as
	// failing ("npm", "git push"), matched against a Bash call's commands
	// and those a request names.
	Commands []Command
	// Topics are names the lesson is about (a package, a component), in
	// Phrase form: matched against a person's request only.
	Topics []string
}

// Empty reports whether nothing can make the item relevant to a tool call.
func (m *Match) Empty() bool {
	return len(m.Tools) == 0 && len(m.Files) == 0 && len(m.Actions) == 0 && len(m.Context) == 0 && len(m.Commands) == 0 && len(m.Topics) == 0
}

// derive adds the triggers an item's own text gives it. learned: the
// text is a lesson devlearn wrote from a session, whose one line reads as
// a title and tells how it was learned, so a program it only names
// (without a subcommand, and no word against it) is no trigger: "git has
// no author identity here: git commit fails" is for `git commit`, not
// for every `git status`.
func (m *Match) derive(title, body string, learned bool) {
	d := deriveTriggers(title, body)
	if !learned {
		for _, c := range d.named {
			d.commands = uniqueCommands(d.commands, c)
		}
	}
	for _, f := range d.files {
		if !slices.ContainsFunc(m.Files, func(g Glob) bool { return g.Shown == f }) {
			g := compileGlob(f)
			g.Derived = true
			m.Files = append(m.Files, g)
		}
	}
	for _, c := range d.commands {
		m.Commands = uniqueCommands(m.Commands, c)
	}
	m.Topics = append(m.Topics, d.topics...)
}

// Ref is the key of the item's counters in the observation log
// (the entries and counters rule, docs/architecture.md): "entry:<key>" for entries, "obs:<id>" for a machine-made
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
		m.Files = append(m.Files, compileGlob(f))
	}
	for _, a := range t.Actions {
		m.Actions = append(m.Actions, words.Phrase(a))
	}
	for _, c := range t.Context {
		m.Context = append(m.Context, words.Phrase(c))
	}
	for _, s := range t.Commands {
		if c, ok := CommandTrigger(s); ok {
			m.Commands = uniqueCommands(m.Commands, c)
		}
	}
	return m
}

// FromEntry is the item of an entry kept at path. Its summary and body add
// the triggers they name to those its author wrote.
func FromEntry(e *Entry, scope, path string) *Item {
	m := matchOf(e.Triggers)
	if learnedAt(path) {
		// A learned draft's body is how it was learned (the tools the
		// agent had just used, the command as it ran): its triggers are
		// what its lesson says.
		m.derive(e.Summary, "", true)
		issue := bodyField(e.Body, "issue")
		for i := range m.Commands {
			m.Commands[i].Args = failedArgs(m.Commands[i], issue, bodyField(e.Body, "resolution"), e.Summary)
			m.Commands[i].Outside = refusedOutside(issue)
		}
		if len(e.Triggers.Commands) > 0 {
			m.namedByFailure()
		}
		if len(e.Triggers.Files) > 0 && len(e.Triggers.Commands) == 0 {
			// Its area is a file ("`a/utils.py` does not exist: use
			// `a/views/utils.py` instead (`sed` fails with …)"): the
			// lesson is for when that file comes up again, not for every
			// run of the program its summary quotes failing on it.
			m.Commands = nil
		}
	} else {
		m.derive(e.Summary, e.Body, false)
	}
	return &Item{
		ID: e.Key, Priority: e.Priority, Active: e.Active(), Match: m,
		Detail: &Detail{
			Type: TypeEntry, Kind: e.Kind, Scope: scope, Title: e.Summary, Status: e.Status,
			Observation: e.Observation, Ask: e.Ask, Path: path,
			TextRunes: utf8.RuneCountInString(e.Summary) + utf8.RuneCountInString(e.Process.Text()) + utf8.RuneCountInString(e.Body) + 40,
			Held:      heldReason(EntryText(e), e.Accepted), Clone: e.Clone, Process: e.Process.Text(), Updated: e.UpdatedAt,
		},
	}
}

// fromSection is the item of an ADR or pitfall section of a file at path.
// A pitfall's Area becomes its file trigger, or its command trigger when
// it is the command that failed; the section's text adds the files,
// commands and packages it names.
func fromSection(kind knowfile.Kind, s *knowfile.Section, path string) *Item {
	it := &Item{
		ID: s.Anchor, Active: s.Active(),
		Detail: &Detail{
			Scope: ScopeProject, Title: s.Title, Status: s.Status(), Observation: s.Source(),
			Path: path, Text: s.Body, TextRunes: utf8.RuneCountInString(s.Body),
			Held: heldReason(SectionText(s.Title, s.Body), s.Field("Accepted")),
		},
	}
	if it.ID == "" {
		it.ID = s.Title
	}
	t, ok := lesson.ByPrefix(kind.Prefix)
	if !ok {
		t, _ = lesson.Get(lesson.Decision) // the ADR layout is the default
	}
	it.Type, it.Priority = t.Name, t.Priority
	// A learned failure whose area is the command that failed: the files
	// its text names are what that call passed (namedByFailure).
	failed := false
	if t.Area {
		it.Area = s.Field("Area")
		files, c, ok := AreaTriggers(it.Area, s.Field("Issue"), it.Observation != "")
		if ok {
			if it.Observation != "" {
				c.Args = failedArgs(c, s.Field("Issue"), s.Field("Resolution"), s.Title)
				c.Outside = refusedOutside(s.Field("Issue"))
				failed = true
			}
			it.Match.Commands = append(it.Match.Commands, c)
		}
		for _, g := range files {
			it.Match.Files = append(it.Match.Files, compileGlob(g))
		}
	}
	if p := strings.ToUpper(s.Field("Priority")); contains(Priorities, p) {
		it.Priority = p
	}
	it.Match.derive(s.Title, sectionText(s.Body), false)
	if failed {
		it.Match.namedByFailure()
	}
	return it
}

// namedByFailure marks the files a learned failure's text names, when its
// area is the command that failed, as evidence at a request only (a `git
// add ../CLAUDE.md` lesson was given at an edit of CLAUDE.md).
func (m *Match) namedByFailure() {
	for i := range m.Files {
		if m.Files[i].Derived {
			m.Files[i].AtRequest = true
		}
	}
}

// bodyField is the value of a "- key: value" line of a learned draft's
// body, where its observation's details are listed.
func bodyField(body, key string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "- "+key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// sectionText is what a section says, without its heading and the fields
// that only record it (Area is read apart; Source, Status, Date,
// Priority say nothing of when it applies).
func sectionText(body string) string {
	var b strings.Builder
	for i, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(t, "#") {
			continue
		}
		skip := false
		for _, f := range []string{"Area", "Source", "Status", "Date", "Priority"} {
			if strings.HasPrefix(t, "- **"+f+"**") || strings.HasPrefix(t, "**"+f+"**") {
				skip = true
			}
		}
		if !skip {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// AreaTriggers read a pitfall's Area: the files it names, or the command
// that failed. learned: devlearn wrote the Area from a failure it saw
// (the pitfall's Source is an observation, or it is the draft of one), so
// the Area is the command that ran, in its general form ("rg", "python",
// "get-content"), and counts as one whatever the program: neither a
// program outside the known list nor a bare "python" gave a trigger
// before, and such a lesson was never served at its moment. An Area a
// person wrote is read as before: a known command, else its paths. When
// the Issue says the program refused a flag ("grep: invalid option --
// P"), the command carries it (RefusedFlag): the draft and the pitfall
// rendered from it are for the calls that pass it. An Area that is the
// folder the session worked in (lesson.WorkFolderIssue) is where the
// lesson was said: as a trigger it would match every file there.
func AreaTriggers(area, issue string, learned bool) (files []string, cmd Command, ok bool) {
	if issue == lesson.WorkFolderIssue {
		return nil, Command{}, false
	}
	if cmd, ok = AreaCommand(area); !ok {
		if files = AreaGlobs(area); len(files) > 0 || !learned {
			return files, Command{}, false
		}
		cmd, ok = CommandTrigger(strings.Trim(strings.TrimSpace(area), "`"))
		cmd.Written = false
	}
	if ok && cmd.Flag == "" {
		cmd.Flag = RefusedFlag(issue)
	}
	return nil, cmd, ok
}

// refusedFlags read the flag a program refused in its error message
// ("grep: invalid option -- P", "unknown flag: --force-update", "error:
// unknown option '-y'"): programs say it in English whatever the person
// speaks. Compiled on first use: the hooks link this package, and most
// of their runs never read a failure.
var refusedFlags = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)(?:invalid|illegal) option -- '?([A-Za-z0-9])\b`),
		regexp.MustCompile(`(?i)unknown shorthand flag: '([A-Za-z0-9])'`),
		regexp.MustCompile(`(?i)(?:unknown|unrecognized|unrecognised|invalid|unexpected|no such) (?:option|flag|argument)s?:? '*(--?[A-Za-z0-9][A-Za-z0-9_-]*)`),
	}
})

// RefusedFlag is the flag a failure's program refused ("-P"), or "".
func RefusedFlag(issue string) string {
	if !strings.Contains(issue, "-") && !strings.Contains(strings.ToLower(issue), "flag") {
		return ""
	}
	for _, re := range refusedFlags() {
		if m := re.FindStringSubmatch(issue); m != nil {
			if !strings.HasPrefix(m[1], "-") {
				return "-" + m[1]
			}
			return m[1]
		}
	}
	return ""
}

// AreaCommand reads a pitfall's Area that is the command that failed
// ("go test ./...", "npm run build"), as the failure extractor records
// it.
func AreaCommand(area string) (Command, bool) {
	area = strings.Trim(strings.TrimSpace(area), "`")
	if area == "" || pathWord(area, true) {
		return Command{}, false
	}
	c, ok := commandIn(area)
	return c, ok && (knownVerbs.has(c.Verb) || strings.HasPrefix(area, "./"))
}

// AreaGlobs reads the file patterns in a pitfall's Area: every word that
// looks like a path ("scripts/hooks/", "internal/observe/fold.go",
// "**/*.sql", `web\src\App.tsx`). A folder covers everything under it.
// A file known by its name alone is one (".env", "Makefile"). Words that
// are not paths ("error handling") give no trigger. An Area is
// stored relative to the repository root, but one recorded from a
// session's sub-folder or by an older version holds only the end of the
// path: each matches wherever its path ends (a leading "**/"). An
// absolute path, from another clone or machine, stays absolute and
// matches as a tail (see compileGlob).
func AreaGlobs(area string) []string {
	var out []string
	ws := strings.FieldsFunc(area, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '`' || r == '"' || r == '\''
	})
	for _, w := range ws {
		// A file known by its name is the Area only when it is the whole
		// Area: in prose, "license" and "readme" are words.
		known := len(ws) == 1 && knownFiles.has(strings.ToLower(strings.TrimRight(w, ".:")))
		w = repopath.Slash(w)
		// A folder in parentheses is a segment of the path (Next.js's
		// route groups: src/app/(dashboard)/items/page.tsx); parentheses
		// around a path are prose. Cut at them, the path was src/app/,
		// and the lesson about one page served on every file under it.
		if !groupSegments(w) {
			w = strings.Trim(w, "()")
			if strings.ContainsAny(w, "()") {
				continue
			}
		}
		w = strings.TrimRight(w, ".:")
		if strings.Trim(w, "/*?.") == "" || !words.PathLike(w) && !known {
			// A slash between words ("lot précédent / suivant") or
			// wildcards alone name no file: as "/**" they matched
			// every path.
			continue
		}
		if repopath.IsAbs(w) {
			if !strings.HasSuffix(w, "/") && doublestar.ValidatePattern(w) {
				out = append(out, w)
			} else if doublestar.ValidatePattern(w + "**") {
				out = append(out, w+"**")
			}
			continue
		}
		if !strings.HasPrefix(w, "**") {
			w = "**/" + w
		}
		var globs []string
		switch {
		case strings.ContainsAny(w[3:], "*?[{"):
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// priorityRank orders priorities, most important first.
func priorityRank(p string) int {
	for i, x := range Priorities {
		if x == p {
			return i
		}
	}
	return len(Priorities)
}

// multiplier is the weight of a priority in a relevance score.
func multiplier(p string) float64 {
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
