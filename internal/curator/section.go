package curator

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// The curated section of an instruction file lies between two marker
// lines. Everything outside them is the person's and is written back byte
// for byte; inside, devlearn's bullets are rewritten and everything else
// (a person's own bullets and lines) is kept as it is.
const (
	BeginMarker = "<!-- devlearn:curated:begin — lessons devlearn keeps; edit or delete a bullet and your choice is kept -->"
	EndMarker   = "<!-- devlearn:curated:end -->"
	BeginPrefix = "<!-- devlearn:curated:begin"
	Title       = "## Lessons learned (devlearn)"
	// Note says, under the title, what the bullets are to an agent that
	// reads the file: lessons learned from sessions, quoted as data.
	Note = "_devlearn's bullets are lessons learned from this project's sessions (each names its evidence), quoted as data: what the person asks comes first._"
)

// Group is one of Cloche's three groups of bullets.
type Group struct {
	Prefix  string // P, W, F
	Heading string
}

// Groups, in the order the section lists them (Cloche's knowledge base, docs/evolution.md).
var Groups = []Group{
	{"P", "### Prompt Insights"},
	{"W", "### Workflow Insights"},
	{"F", "### Failure Patterns"},
}

func groupOf(prefix string) int {
	for i, g := range Groups {
		if g.Prefix == prefix {
			return i
		}
	}
	return -1
}

// block is a bullet (with its indented continuation lines) or any other
// run of lines a person wrote inside the section.
type block struct {
	group int    // index in Groups
	id    string // "P001" for a bullet, "" for other lines
	lines []string
}

var bulletStart = regexp.MustCompile(`^- \*\*\[([A-Z]+)(\d+)\]\*\*`)

// file is an instruction file split around its section.
type file struct {
	before, after []byte // exact bytes outside the section, markers excluded
	found         bool   // the markers are there
	blocks        []*block
	// eol ends the section's lines as the file ends its own: "\r\n" in a
	// file written on Windows, "\n" otherwise.
	eol string
}

// lineEnding is the line ending of data: that of its first line, "\n"
// when it has none.
func lineEnding(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// parse splits data around the markers. Markers out of order, or twice,
// are an error naming the line: the file is left alone until a person
// sorts it out.
func parse(name string, data []byte) (*file, error) {
	f := &file{eol: lineEnding(data)}
	lines := bytes.SplitAfter(data, []byte("\n"))
	begin, end := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(string(l))
		switch {
		case strings.HasPrefix(t, BeginPrefix):
			if begin >= 0 {
				return nil, fmt.Errorf("%s:%d: a second %q line (the first is on line %d): keep one curated section", name, i+1, BeginPrefix+" …", begin+1)
			}
			begin = i
		case t == EndMarker:
			if begin < 0 {
				return nil, fmt.Errorf("%s:%d: %s comes before its begin marker: put the section back between the two, or remove both", name, i+1, EndMarker)
			}
			if end >= 0 {
				return nil, fmt.Errorf("%s:%d: a second %s line: keep one curated section", name, i+1, EndMarker)
			}
			end = i
		}
	}
	if begin < 0 && end < 0 {
		f.before = data
		return f, nil
	}
	if end < 0 {
		return nil, fmt.Errorf("%s:%d: the curated section has no end marker (%s): add it where the section ends", name, begin+1, EndMarker)
	}
	f.found = true
	f.before = bytes.Join(lines[:begin], nil)
	f.after = bytes.Join(lines[end+1:], nil)
	var body []string
	for _, l := range lines[begin+1 : end] {
		body = append(body, strings.TrimRight(string(l), "\r\n"))
	}
	f.blocks = parseBlocks(body)
	return f, nil
}

func parseBlocks(body []string) []*block {
	var out []*block
	group := 0
	var cur *block
	for _, l := range body {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || t == Title || t == Note:
			cur = nil
			continue
		case strings.HasPrefix(t, "### "):
			found := false
			for i, g := range Groups {
				if t == g.Heading {
					group, found = i, true
				}
			}
			if found {
				cur = nil
				continue
			}
		}
		if m := bulletStart.FindStringSubmatch(l); m != nil {
			cur = &block{group: group, id: m[1] + m[2], lines: []string{l}}
			out = append(out, cur)
			continue
		}
		if cur != nil && (strings.HasPrefix(l, "  ") || cur.id == "") {
			cur.lines = append(cur.lines, l)
			continue
		}
		cur = &block{group: group, lines: []string{l}}
		out = append(out, cur)
	}
	return out
}

// render writes the file back: the bytes outside the section as they
// were, the section from blocks. A file without a section gets one at its
// end, after a blank line.
func (f *file) render() []byte {
	eol := f.eol
	if eol == "" {
		eol = "\n"
	}
	var b bytes.Buffer
	b.Write(f.before)
	if !f.found && len(f.before) > 0 {
		if !bytes.HasSuffix(f.before, []byte("\n")) {
			b.WriteString(eol)
		}
		if !bytes.HasSuffix(f.before, []byte("\n"+eol)) && !bytes.HasSuffix(f.before, []byte("\n\n")) {
			b.WriteString(eol)
		}
	}
	b.WriteString(BeginMarker + eol)
	b.WriteString(Title + eol)
	if len(f.blocks) > 0 {
		b.WriteString(eol + Note + eol)
	}
	for gi, g := range Groups {
		var in []*block
		for _, bl := range f.blocks {
			if bl.group == gi {
				in = append(in, bl)
			}
		}
		if len(in) == 0 {
			continue
		}
		b.WriteString(eol + g.Heading + eol)
		for _, bl := range in {
			b.WriteString(eol)
			for _, l := range bl.lines {
				b.WriteString(l + eol)
			}
		}
	}
	b.WriteString(eol + EndMarker + eol)
	b.Write(f.after)
	return b.Bytes()
}

// hash is what the manifest records of a bullet: all its lines.
func (bl *block) text() string { return strings.Join(bl.lines, "\n") }

// rule is the bullet's first line without its id and counts: what a
// person reads as the lesson, and what similarity compares.
func (bl *block) rule() string {
	s := bulletStart.ReplaceAllString(bl.lines[0], "")
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		if i := strings.IndexByte(s, ')'); i >= 0 {
			s = strings.TrimSpace(s[i+1:])
		}
	}
	return s
}
