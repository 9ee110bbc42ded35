package render

import (
	"bytes"
	"fmt"
	"github.com/devlearn/devlearn/internal/textcase"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/observe"
)

// artifactData is what a template sees: learned text, already made safe
// for where it goes (one line in headings and fields, escaped YAML in
// front matter).
type artifactData struct {
	ID, Anchor, Date string
	Pattern, Lower   string
	FrontMatter      string
	Body             string
	Steps            []string
	Evidence         []string
	fields           map[string]string
}

// Field returns a details field ("context", "area", ...), on one line.
func (d artifactData) Field(k string) string { return d.fields[k] }

func newData(o observe.Observation, now time.Time) artifactData {
	d := artifactData{
		ID:       o.ID,
		Date:     now.UTC().Format("2006-01-02"),
		Pattern:  oneLine(o.Pattern),
		Evidence: make([]string, 0, len(o.Evidence)),
		fields:   detailFields(o.Details),
	}
	d.Lower = textcase.LowerFirst(d.Pattern)
	for _, e := range o.Evidence {
		d.Evidence = append(d.Evidence, oneLine(e))
	}
	return d
}

// defuse makes learned text inert where Claude Code reads a file as a
// prompt (slash commands and skills): !`cmd` would run cmd when the command
// or skill is used, and @path would pull a file into the context. A space
// after the ! and a full-width ＠ keep the text readable and inert.
// Invisible formatting characters (bidirectional overrides) are dropped.
func defuse(s string) string {
	if inert(s) {
		return s
	}
	return defuseAll(s)
}

// defuseAll is defuse without its shortcut for inert text.
func defuseAll(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prev := ' '
	for _, r := range s {
		switch {
		case r == '`' && prev == '!':
			b.WriteString(" `")
		case r == '@' && (unicode.IsSpace(prev) || strings.ContainsRune("([{\"'<,;:", prev)):
			b.WriteRune('＠')
		case r != '\u200d' && unicode.Is(unicode.Cf, r):
			continue
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	// A fence opened as ```! is a shell block in the same files.
	return strings.ReplaceAll(b.String(), "```!", "``` !")
}

// inert is whether defuse would leave s as it is: ASCII (which has no
// format characters) with no @ and no ! next to a backtick.
func inert(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '@' {
			return false
		}
	}
	return !strings.Contains(s, "!`") && !strings.Contains(s, "`!")
}

// defused is the observation with its learned text made inert (defuse).
func defused(o observe.Observation) observe.Observation {
	o.Pattern, o.Details = defuse(o.Pattern), defuse(o.Details)
	ev := make([]string, len(o.Evidence))
	for i, e := range o.Evidence {
		ev[i] = defuse(e)
	}
	o.Evidence = ev
	return o
}

// The templates a lesson type names (lesson.Type.Template). A file
// template is given the artifact's slug, a section template its anchor.
type (
	fileTemplate    func(o observe.Observation, slug string, now time.Time) []byte
	sectionTemplate func(o observe.Observation, anchor string, now time.Time) string
)

var (
	fileTemplates = map[string]fileTemplate{
		"command": func(o observe.Observation, _ string, now time.Time) []byte { return renderCommand(o, now) },
		"skill":   renderSkill,
	}
	sectionTemplates = map[string]sectionTemplate{
		"adr":     renderADR,
		"pitfall": renderPitfall,
	}
)

// renderCommand is a workflow's slash command.
func renderCommand(o observe.Observation, now time.Time) []byte {
	o = defused(o)
	d := newData(o, now)
	d.FrontMatter = frontMatter(text("description", d.Pattern), text("source", sourceOf(o.ID)))
	d.Body = bodyText(o.Details, d.Pattern, len(d.fields))
	return execute("command.md.tmpl", d)
}

// renderSkill is a procedural observation's skill.
func renderSkill(o observe.Observation, slug string, now time.Time) []byte {
	o = defused(o)
	d := newData(o, now)
	d.FrontMatter = frontMatter(
		text("name", slug),
		text("description", "This skill should be used when "+d.Lower),
		field{key: "user-invocable", value: "false", literal: true},
		text("allowed-tools", "Read, Grep, Glob"),
		text("source", sourceOf(o.ID)))
	d.Steps = steps(o.Details, d.Pattern)
	return execute("skill.md.tmpl", d)
}

// renderADR is a decision's section of decisions.md.
func renderADR(o observe.Observation, anchor string, now time.Time) string {
	d := newData(o, now)
	d.Anchor = anchor
	fill(d.fields, "context", "Came up again and again in working sessions.")
	fill(d.fields, "decision", d.Pattern)
	if _, ok := d.fields["consequences"]; !ok {
		d.fields["consequences"] = d.fields["rationale"]
	}
	fill(d.fields, "consequences", "-")
	return string(execute("adr.md.tmpl", d))
}

// renderPitfall is a pitfall's section of pitfalls.md.
func renderPitfall(o observe.Observation, anchor string, now time.Time) string {
	d := newData(o, now)
	d.Anchor = anchor
	fill(d.fields, "area", "-")
	fill(d.fields, "issue", d.Pattern)
	fill(d.fields, "impact", "-")
	fill(d.fields, "resolution", "-")
	return string(execute("pitfall.md.tmpl", d))
}

func sourceOf(id string) string { return "self-learning:" + id }

func execute(name string, d artifactData) []byte {
	var buf bytes.Buffer
	buf.Grow(1024)
	if err := walk(artifactTemplates()[name], &d, &buf); err != nil {
		panic(fmt.Sprintf("template %s: %v", name, err)) // the templates are ours and tested
	}
	return append(bytes.TrimRight(buf.Bytes(), "\n"), '\n')
}

// detailFields reads devflow's "key: value; key: value" details.
func detailFields(details string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(details, ";") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if v = oneLine(v); k != "" && v != "" && !strings.ContainsAny(k, " \t") {
			out[k] = v
		}
	}
	return out
}

func fill(m map[string]string, k, def string) {
	if m[k] == "" {
		m[k] = def
	}
}

// bodyText is the details as prose for a command, without the key: value
// framing when it has one.
func bodyText(details, pattern string, fields int) string {
	details = strings.TrimSpace(details)
	if details == "" {
		return pattern + "."
	}
	if fields > 0 && strings.Count(details, ":") >= fields && strings.Contains(details, ";") {
		var b strings.Builder
		b.Grow(len(details) + 16*fields)
		for part := range strings.SplitSeq(details, ";") {
			if k, v, ok := strings.Cut(part, ":"); ok && strings.TrimSpace(v) != "" {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString("- **")
				b.WriteString(textcase.UpperFirst(strings.TrimSpace(k)))
				b.WriteString("**: ")
				b.WriteString(oneLine(v))
			}
		}
		return b.String()
	}
	return details
}

// steps splits details into the numbered steps of a skill's procedure.
// The template numbers them, so a step's own mark ("1.", "2)", "Step 3:",
// "- ") is dropped: a lesson that numbered its steps read "1. 1." before.
func steps(details, pattern string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(details, func(r rune) bool { return r == ';' || r == '\n' }) {
		if s := unmarked(oneLine(part)); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []string{pattern + "."}
	}
	return out
}

// stepMarkRe is a list mark a step may start with: a bullet, or a number
// with its full stop, bracket or colon, "Step" before it or not, and a
// space after it ("1.5 GB" and "2026 is" are words, not marks).
var stepMarkRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[-*+•]|(?i:step\s+)?\d{1,3}\s*[.):])\s+`)
})

// unmarked is a step without its list mark.
func unmarked(s string) string {
	if s == "" || (s[0] < utf8.RuneSelf && !strings.ContainsRune("-*+0123456789Ss", rune(s[0]))) {
		return s
	}
	return strings.TrimSpace(stepMarkRe().ReplaceAllString(s, ""))
}

func oneLine(s string) string {
	if plainLine(s) {
		return s // nearly all learned text: nothing to collapse, no copy
	}
	// A value of devflow's details ("key: value; ...") has a space
	// before it: trimmed, it is plain too.
	if t := strings.Trim(s, " \t\n\v\f\r"); plainLine(t) {
		return t
	}
	return strings.Join(strings.Fields(s), " ")
}

// plainLine is whether s is already one line of single spaces: ASCII
// (strings.Fields splits at Unicode's spaces too, which it leaves to the
// slow path) with no white space but single inner spaces.
func plainLine(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			return false
		case c == ' ' && s[i+1] == ' ':
			return false
		}
	}
	return true
}
