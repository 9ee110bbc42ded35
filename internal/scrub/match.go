package scrub

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/mdfront"
	"github.com/devlearn/devlearn/internal/redact"
)

// Matcher finds and replaces what a person asked to scrub, and only that:
// the built-in rules of package redact run (they share the engine) but
// their findings are left alone, so a scrub never rewrites text nobody
// asked about. Where a built-in finding overlaps the person's, the merged
// span is replaced whole.
type Matcher struct {
	r *redact.Redactor
	// literals, when the scrub is of literals only: a line holding none
	// of them and no escape cannot hold a match, and is skipped unread.
	literals [][]byte
}

// NewMatcher compiles the literals and patterns to scrub.
func NewMatcher(extra redact.Extra) (*Matcher, error) {
	r, err := redact.New(extra)
	if err != nil {
		return nil, err
	}
	m := &Matcher{r: r}
	if len(extra.Patterns) == 0 {
		for _, l := range extra.Literals {
			m.literals = append(m.literals, []byte(l))
		}
	}
	return m, nil
}

// cannotMatch reports a line that is sure to hold no match: the scrub is
// of literals, none is in the line, and the line has no backslash (an
// escape that could spell one).
func (m *Matcher) cannotMatch(line []byte) bool {
	return bytes.IndexByte(line, '\\') < 0 && m.noLiteral(line)
}

// noLiteral reports text that holds none of the literals of a scrub of
// literals only.
func (m *Matcher) noLiteral(text []byte) bool {
	if m.literals == nil {
		return false
	}
	for _, l := range m.literals {
		if bytes.Contains(text, l) {
			return false
		}
	}
	return true
}

func (m *Matcher) find(s string) []redact.Finding {
	var out []redact.Finding
	for _, f := range m.r.Find(s) {
		if f.Rule == redact.RuleLiteral || f.Rule == redact.RulePattern {
			out = append(out, f)
		}
	}
	return out
}

// Text returns s with every match replaced by its placeholder, and how
// many were replaced. Like redact.Text it looks again after replacing (a
// replacement can make a new match), a bounded number of times.
func (m *Matcher) Text(s string) (string, int) {
	n := 0
	for range 8 {
		found := m.find(s)
		if len(found) == 0 {
			break
		}
		n += len(found)
		var b strings.Builder
		at := 0
		for _, f := range found {
			b.WriteString(s[at:f.Start])
			b.WriteString(redact.Placeholder(f.Rule))
			at = f.End
		}
		b.WriteString(s[at:])
		s = b.String()
	}
	return s, n
}

// Count is how many matches s holds.
func (m *Matcher) Count(s string) int {
	if m.noLiteral([]byte(s)) {
		return 0
	}
	return len(m.find(s))
}

// scrubbed is what scrubbing a file gave: its new content, the lines
// (1-based) where something was found and how many matches in all.
type scrubbed struct {
	data  []byte
	lines []int
	count int
}

// eachLine calls fn on every line of data (without its newline) and joins
// what it returns, keeping the newlines as they were.
func eachLine(data []byte, fn func(n int, line []byte) ([]byte, int)) scrubbed {
	var res scrubbed
	var out bytes.Buffer
	out.Grow(len(data))
	r := bufio.NewReader(bytes.NewReader(data))
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		body, nl := bytes.CutSuffix(line, []byte("\n"))
		newBody, c := fn(n, body)
		if c > 0 {
			res.lines = append(res.lines, n)
			res.count += c
		}
		out.Write(newBody)
		if nl {
			out.WriteByte('\n')
		}
		if err != nil {
			break
		}
	}
	res.data = out.Bytes()
	return res
}

// Lines scrubs plain text, line by line: a match never spans lines.
func (m *Matcher) Lines(data []byte) scrubbed {
	return eachLine(data, func(_ int, line []byte) ([]byte, int) {
		if m.noLiteral(line) {
			return line, 0
		}
		s, c := m.Text(string(line))
		if c == 0 {
			return line, 0
		}
		return []byte(s), c
	})
}

// JSONLines scrubs a JSON Lines file. In a line that is JSON, each string
// (names included) is decoded, scrubbed and quoted again, and only the
// strings that changed are rewritten: escapes such as \" or \u0073 hide a
// secret from a search of the raw text, and re-encoding a whole line would
// change bytes nobody asked about. A line that is not JSON (a torn line,
// kept for 'learn --purge') is scrubbed as text.
func (m *Matcher) JSONLines(data []byte) scrubbed {
	return eachLine(data, func(_ int, line []byte) ([]byte, int) {
		if m.cannotMatch(line) {
			return line, 0
		}
		if out, c, ok := m.jsonValue(line); ok {
			return out, c
		}
		s, c := m.Text(string(line))
		if c == 0 {
			return line, 0
		}
		return []byte(s), c
	})
}

var readOpts = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// jsonValue scrubs the strings of one JSON value in place; ok is false
// when data is not one JSON value.
func (m *Matcher) jsonValue(data []byte) (out []byte, count int, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), readOpts...)
	var edits []edit
	for {
		if dec.PeekKind() == '"' {
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, 0, false
			}
			end := int(dec.InputOffset())
			// The decoder has checked the string; the one error left is
			// invalid UTF-8, replaced by U+FFFD in what is returned, which
			// is what a match is looked for in.
			s, _ := jsontext.AppendUnquote(nil, raw)
			clean, c := m.Text(string(s))
			if c == 0 {
				continue
			}
			q, err := jsontext.AppendQuote(nil, clean)
			if err != nil {
				return nil, 0, false
			}
			edits = append(edits, edit{start: end - len(raw), end: end, with: q})
			count += c
			continue
		}
		if _, err := dec.ReadToken(); err == io.EOF {
			break
		} else if err != nil {
			return nil, 0, false
		}
	}
	if count == 0 {
		return data, 0, true
	}
	return apply(data, edits), count, true
}

type edit struct {
	start, end int
	with       []byte
}

func apply(data []byte, edits []edit) []byte {
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(data[at:e.start])
		out.Write(e.with)
		at = e.end
	}
	out.Write(data[at:])
	return out.Bytes()
}

// Markdown scrubs a markdown file whose YAML front matter, if it has one,
// is scrubbed as YAML: a placeholder starts with "[", which at the start
// of a plain value, or inside a flow list, would change what the YAML
// means. Each changed value is written double-quoted; the rest of the
// front matter keeps its form as far as yaml.v3 can write it back. Front
// matter that does not parse is scrubbed as text.
func (m *Matcher) Markdown(data []byte) scrubbed {
	res := m.Lines(data)
	if res.count == 0 {
		return res
	}
	fm, body, _, ok := mdfront.Split(data)
	if !ok || m.Count(string(fm)) == 0 {
		return res
	}
	newFM, ok := m.yaml(fm)
	if !ok || m.Count(string(newFM)) > 0 {
		return res // a match the YAML values do not hold (across a key and its value): scrubbed as text
	}
	out := append([]byte("---\n"), newFM...)
	out = append(out, "---\n"...)
	out = append(out, m.Lines(body).data...)
	res.data = out
	return res
}

func (m *Matcher) yaml(fm []byte) ([]byte, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil || doc.Kind != yaml.DocumentNode {
		return nil, false
	}
	// Anchor names and tags cannot hold a placeholder's characters: one
	// that holds a match is renamed, the same way wherever it is used.
	renamed := map[string]string{}
	rename := func(name string) string {
		if m.Count(name) == 0 {
			return name
		}
		if _, ok := renamed[name]; !ok {
			renamed[name] = fmt.Sprintf("redacted%d", len(renamed)+1)
		}
		return renamed[name]
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		for _, c := range []*string{&n.HeadComment, &n.LineComment, &n.FootComment} {
			*c, _ = m.Text(*c)
		}
		n.Anchor = rename(n.Anchor)
		if n.Kind == yaml.AliasNode {
			n.Value = rename(n.Value)
			return // its target is walked where it is defined
		}
		if m.Count(n.Tag) > 0 {
			n.Tag = ""
		}
		if n.Kind == yaml.ScalarNode {
			if v, c := m.Text(n.Value); c > 0 {
				n.Value = v
				n.Style = yaml.DoubleQuotedStyle
				n.Tag = "!!str"
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, false
	}
	if err := enc.Close(); err != nil {
		return nil, false
	}
	return b.Bytes(), true
}
