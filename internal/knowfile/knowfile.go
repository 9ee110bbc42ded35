// Package knowfile reads and writes the two devflow-format knowledge files,
// .memory/knowledge/decisions.md (ADR-NNN sections) and pitfalls.md
// (PF-NNN sections). Rendering, reconciliation, the index and the merge
// driver all read sections through this one parser, so that what render
// hashes is exactly what reconcile reads back (devflow defect 3).
package knowfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/project"
)

// Kind is a knowledge file: the central file of a lesson type rendered as
// sections (lesson.Type.Central), or an area's directive file.
type Kind lesson.File

// The two kinds devlearn has always had.
var (
	Decisions = central(lesson.Decision)
	Pitfalls  = central(lesson.Pitfall)
)

func central(typ string) Kind {
	t, _ := lesson.Get(typ)
	return Kind(t.Central)
}

// Kinds lists the central file of every type rendered as sections, in the
// lesson table's order (decisions first), for whatever walks every
// knowledge file.
func Kinds() []Kind {
	var out []Kind
	for _, t := range lesson.Sections() {
		out = append(out, Kind(t.Central))
	}
	return out
}

// ReadAll reads and parses every central knowledge file of the project,
// keyed by path; a file that does not exist yet is an empty Doc.
func ReadAll(p *project.Project) (map[string]*Doc, error) {
	kinds := Kinds()
	docs := make(map[string]*Doc, len(kinds))
	for _, k := range kinds {
		data, err := os.ReadFile(p.Path(k.Path))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		docs[k.Path] = Parse(k, data)
	}
	return docs, nil
}

// SourcePrefix marks a section as machine-made; what follows is the
// observation id.
const SourcePrefix = "self-learning:"

// Statuses known in knowledge files. Entries with the last two are no
// longer in force.
var (
	KnownStatuses    = []string{"Accepted", "Active", "Proposed", "Deprecated", "Superseded"}
	InactiveStatuses = []string{"Deprecated", "Superseded"}
)

// Doc is a parsed knowledge file: what precedes the first section, and the
// sections in file order.
type Doc struct {
	Kind     Kind
	Preamble string // everything before the first "## " heading, TL;DR line removed
	Sections []*Section

	bySource, byAnchor map[string]*Section // built on first lookup
}

// Section is one "## " section, kept byte for byte.
type Section struct {
	Anchor string // "ADR-003"; "" for a heading that is not a numbered entry
	Number int
	Title  string
	Body   string // from the heading line to the next heading, trailing blank lines trimmed
	Fields []Field
}

// Field is one "- **Key**: value" line.
type Field struct{ Key, Value string }

// The patterns compile on first use: every devlearn process links this
// package, and compiling them at start cost each hook about 0.15 ms.
var (
	headingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^## (ADR|PF)-(\d+):\s*(.*?)\s*$`) })
	fieldRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*[-*]\s+\*\*([^*]+)\*\*:\s?(.*)$`) })
	tldrRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<!--\s*TL;DR:.*-->\s*$`) })
)

// Parse reads a knowledge file. It never fails on content: text it does not
// recognise is kept as it is.
func Parse(kind Kind, data []byte) *Doc {
	d := &Doc{Kind: kind}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	var pre strings.Builder
	var cur *strings.Builder
	flush := func() {
		if cur != nil {
			d.Sections = append(d.Sections, parseSection(cur.String()))
		}
	}
	for i, line := range lines {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			flush()
			cur = &strings.Builder{}
		}
		if cur == nil {
			if i == 0 && tldrRe().MatchString(strings.TrimRight(line, "\n")) {
				continue // rebuilt on every write
			}
			pre.WriteString(line)
			continue
		}
		cur.WriteString(line)
	}
	flush()
	d.Preamble = pre.String()
	return d
}

func parseSection(raw string) *Section {
	s := &Section{Body: trimBlank(raw)}
	first, _, _ := strings.Cut(s.Body, "\n")
	if kind, number, title, ok := heading(first); ok {
		s.Number, _ = strconv.Atoi(number)
		s.Anchor = fmt.Sprintf("%s-%03d", kind, s.Number)
		s.Title = title
	} else {
		s.Title = strings.TrimSpace(strings.TrimPrefix(first, "## "))
	}
	for _, line := range strings.Split(s.Body, "\n")[1:] {
		if key, value, ok := field(line); ok {
			s.Fields = append(s.Fields, Field{Key: strings.TrimSpace(key), Value: strings.TrimSpace(value)})
		}
	}
	return s
}

// heading matches a section's first line (no newline in it) as headingRe
// does, by hand: the regexp's lazy title and trailing spaces made it
// backtrack through every title, two thirds of parsing a decisions file.
func heading(line string) (kind, number, title string, ok bool) {
	rest, found := strings.CutPrefix(line, "## ")
	if !found {
		return "", "", "", false
	}
	types := lesson.All()
	for i := range types { // the anchors of every section type
		if t := &types[i]; t.Artifact == lesson.Section && anchored(rest, t.Central.Prefix) {
			kind, rest = t.Central.Prefix, rest[len(t.Central.Prefix)+1:]
			break
		}
	}
	if kind == "" {
		return "", "", "", false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ':' {
		return "", "", "", false
	}
	number, title = rest[:i], rest[i+1:]
	for title != "" && isSpace(title[0]) {
		title = title[1:]
	}
	for title != "" && isSpace(title[len(title)-1]) {
		title = title[:len(title)-1]
	}
	return kind, number, title, true
}

// anchored reports whether s starts with prefix and a dash.
func anchored(s, prefix string) bool {
	return len(s) > len(prefix) && s[len(prefix)] == '-' && strings.HasPrefix(s, prefix)
}

// field matches a line (no newline in it) as fieldRe does, by hand: every
// line of every section is asked, on each of reconcile's full checks, and
// the regexp was a millisecond of it for a few hundred sections.
func field(line string) (key, value string, ok bool) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i == len(line) || (line[i] != '-' && line[i] != '*') {
		return "", "", false
	}
	i++
	j := i
	for j < len(line) && isSpace(line[j]) {
		j++
	}
	if j == i || !strings.HasPrefix(line[j:], "**") {
		return "", "", false
	}
	rest := line[j+2:]
	k := strings.IndexByte(rest, '*')
	if k <= 0 || !strings.HasPrefix(rest[k:], "**:") {
		return "", "", false
	}
	key, value = rest[:k], rest[k+3:]
	if value != "" && isSpace(value[0]) {
		value = value[1:]
	}
	return key, value, true
}

// isSpace is the regexp package's \s: ASCII space, tab, newline, form feed
// and carriage return.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// trimBlank drops trailing blank lines and ends the text with one newline:
// the form a section is stored, hashed and compared in.
func trimBlank(s string) string {
	s = strings.TrimRight(s, " \t\n")
	if s == "" {
		return ""
	}
	return s + "\n"
}

// Field returns the value of a "- **Key**:" line.
func (s *Section) Field(key string) string {
	for _, f := range s.Fields {
		if strings.EqualFold(f.Key, key) {
			return f.Value
		}
	}
	return ""
}

// Source returns the observation id of a machine-made section, or "".
func (s *Section) Source() string {
	v := s.Field("Source")
	if id, ok := strings.CutPrefix(v, SourcePrefix); ok {
		return strings.TrimSpace(id)
	}
	return ""
}

// AlsoField is the field a section gains for each near-duplicate lesson
// merged into it: "- **Also**: self-learning:<id> (<date>): <its words>".
const AlsoField = "Also"

// Sources returns the observation ids a section was made from: its
// Source, then each lesson merged into it (AlsoField), so that every one
// of them finds the section by its id.
func (s *Section) Sources() []string {
	var out []string
	if src := s.Source(); src != "" {
		out = append(out, src)
	}
	for _, f := range s.Fields {
		if !strings.EqualFold(f.Key, AlsoField) {
			continue
		}
		if rest, ok := strings.CutPrefix(f.Value, SourcePrefix); ok {
			if id, _, _ := strings.Cut(rest, " "); id != "" {
				out = append(out, id)
			}
		}
	}
	return out
}

// AddLine appends one line to the end of a section (before its trailing
// blank lines) and reads its fields again.
func (d *Doc) AddLine(s *Section, line string) {
	*s = *parseSection(s.Body + line + "\n")
	// The heading is unchanged and the section keeps its place, so the
	// index only gains what the line adds (an Also line's id): rebuilding
	// it made a run that merges many lessons quadratic in the file's size.
	if d.bySource != nil {
		for _, src := range s.Sources() {
			if _, dup := d.bySource[src]; !dup {
				d.bySource[src] = s
			}
		}
	}
}

// Status is the section's status, or "" if it has none.
func (s *Section) Status() string { return s.Field("Status") }

// Active reports whether the entry is in force (not deprecated or superseded).
func (s *Section) Active() bool {
	st := s.Status()
	for _, x := range InactiveStatuses {
		if strings.EqualFold(st, x) {
			return false
		}
	}
	return true
}

// Hash is the sha256 of the section as stored: what render records and
// reconcile compares.
func (s *Section) Hash() string { return HashText(s.Body) }

// HashText hashes section text in its stored form. Reconcile compares it
// with the manifest's hashes (contenthash.Matches), so it is contenthash.Hash.
func HashText(body string) string {
	return contenthash.Hash([]byte(trimBlank(body)))
}

// BySource finds the section made from an observation (the first, if a
// hand edit duplicated one).
func (d *Doc) BySource(id string) *Section {
	d.index()
	return d.bySource[id]
}

// ByAnchor finds a numbered section.
func (d *Doc) ByAnchor(anchor string) *Section {
	d.index()
	return d.byAnchor[anchor]
}

// index builds the lookup maps once: lookups run once per manifest entry,
// and a scan each time made reconciling 10,000 entries quadratic.
func (d *Doc) index() {
	if d.bySource != nil {
		return
	}
	d.bySource = make(map[string]*Section, len(d.Sections))
	d.byAnchor = make(map[string]*Section, len(d.Sections))
	for _, s := range d.Sections {
		for _, src := range s.Sources() {
			if _, dup := d.bySource[src]; !dup {
				d.bySource[src] = s
			}
		}
		if s.Anchor != "" {
			if _, dup := d.byAnchor[s.Anchor]; !dup {
				d.byAnchor[s.Anchor] = s
			}
		}
	}
}

// Changed must be called after a section's Body is edited in place, so
// lookups see the edit.
func (d *Doc) Changed() { d.bySource, d.byAnchor = nil, nil }

// NextNumber is one more than the highest number in the file.
func (d *Doc) NextNumber() int {
	n := 0
	for _, s := range d.Sections {
		if s.Number > n {
			n = s.Number
		}
	}
	return n + 1
}

// ActiveCount counts the numbered entries in force.
func (d *Doc) ActiveCount() int {
	n := 0
	for _, s := range d.Sections {
		if s.Anchor != "" && s.Active() {
			n++
		}
	}
	return n
}

// Anchor formats the anchor of entry number n.
func (k Kind) Anchor(n int) string { return fmt.Sprintf("%s-%03d", k.Prefix, n) }

// TLDR is the first line of the file: how many entries are in force and
// the most recent ones, so an agent can decide whether to read on.
func (d *Doc) TLDR() string {
	var active []string
	for _, s := range d.Sections {
		if s.Anchor != "" && s.Active() {
			active = append(active, s.Anchor)
		}
	}
	noun := d.Kind.Nouns
	if len(active) == 1 {
		noun = d.Kind.Noun
	}
	if len(active) == 0 {
		return fmt.Sprintf("<!-- TL;DR: 0 %s. -->", d.Kind.Nouns)
	}
	key := active
	if len(key) > 5 {
		key = key[len(key)-5:]
	}
	return fmt.Sprintf("<!-- TL;DR: %d %s. Key: %s -->", len(active), noun, strings.Join(key, ", "))
}

// Bytes writes the document: the TL;DR line, the preamble (the title if it
// had none), and the sections separated by one blank line.
func (d *Doc) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString(d.TLDR())
	b.WriteString("\n")
	pre := trimBlank(d.Preamble)
	if strings.TrimSpace(pre) == "" {
		pre = d.Kind.Title + "\n"
	}
	b.WriteString(pre)
	for _, s := range d.Sections {
		b.WriteString("\n")
		b.WriteString(s.Body)
	}
	return b.Bytes()
}

// Append adds a section at the end.
func (d *Doc) Append(body string) *Section {
	s := parseSection(body)
	d.Sections = append(d.Sections, s)
	if d.bySource != nil {
		for _, src := range s.Sources() {
			if d.bySource[src] == nil {
				d.bySource[src] = s
			}
		}
		if s.Anchor != "" && d.byAnchor[s.Anchor] == nil {
			d.byAnchor[s.Anchor] = s
		}
	}
	return s
}
