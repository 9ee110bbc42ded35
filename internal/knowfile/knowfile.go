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

	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
)

// Kind is one of the two knowledge files.
type Kind struct {
	Path   string // slash-separated, relative to the project root
	Prefix string // "ADR" or "PF"
	Title  string // the file's heading
	Noun   string // for the TL;DR line: "decision"/"decisions"
	Nouns  string
	// Active is the status of a live entry of this kind.
	Active string
}

// The two kinds.
var (
	Decisions = Kind{Path: project.DecisionsFile, Prefix: "ADR", Title: "# Architectural Decisions", Noun: "decision", Nouns: "decisions", Active: "Accepted"}
	Pitfalls  = Kind{Path: project.PitfallsFile, Prefix: "PF", Title: "# Known Pitfalls", Noun: "pitfall", Nouns: "pitfalls", Active: "Active"}

	// Kinds lists both, decisions first, for whatever walks every
	// knowledge file.
	Kinds = []Kind{Decisions, Pitfalls}
)

// ReadAll reads and parses both knowledge files of the project, keyed by
// path; a file that does not exist yet is an empty Doc.
func ReadAll(p *project.Project) (map[string]*Doc, error) {
	docs := make(map[string]*Doc, len(Kinds))
	for _, k := range Kinds {
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
	if m := headingRe().FindStringSubmatch(first); m != nil {
		s.Number, _ = strconv.Atoi(m[2])
		s.Anchor = fmt.Sprintf("%s-%03d", m[1], s.Number)
		s.Title = m[3]
	} else {
		s.Title = strings.TrimSpace(strings.TrimPrefix(first, "## "))
	}
	for _, line := range strings.Split(s.Body, "\n")[1:] {
		if m := fieldRe().FindStringSubmatch(line); m != nil {
			s.Fields = append(s.Fields, Field{Key: strings.TrimSpace(m[1]), Value: strings.TrimSpace(m[2])})
		}
	}
	return s
}

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
// with the manifest's hashes (manifest.Matches), so it is manifest.Hash.
func HashText(body string) string {
	return manifest.Hash([]byte(trimBlank(body)))
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
		if src := s.Source(); src != "" {
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
		if src := s.Source(); src != "" && d.bySource[src] == nil {
			d.bySource[src] = s
		}
		if s.Anchor != "" && d.byAnchor[s.Anchor] == nil {
			d.byAnchor[s.Anchor] = s
		}
	}
	return s
}
