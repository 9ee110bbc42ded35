package knowledge

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Process is an entry's type-specific content, in the triads design's shape
// (docs/capture.md): a checklist's items, a pattern's situation and action, a
// warning's risk and mitigation, a requirement's constraint and how to
// check it. It is kept in the front matter as the agent wrote it, and
// shown when the entry is served.
type Process struct {
	Checklist   *ChecklistContent   `yaml:"checklist,omitempty" json:"checklist,omitempty"`
	Pattern     *PatternContent     `yaml:"pattern,omitempty" json:"pattern,omitempty"`
	Warning     *WarningContent     `yaml:"warning,omitempty" json:"warning,omitempty"`
	Requirement *RequirementContent `yaml:"requirement,omitempty" json:"requirement,omitempty"`
}

// ChecklistContent is a procedure done item by item.
type ChecklistContent struct {
	Title  string   `yaml:"title,omitempty" json:"title,omitempty"`
	Items  []string `yaml:"items,omitempty" json:"items,omitempty"`
	Format string   `yaml:"format,omitempty" json:"format,omitempty"` // checkbox | numbered | bulleted
}

// PatternContent is "when X, do Y".
type PatternContent struct {
	Situation string `yaml:"situation,omitempty" json:"situation,omitempty"`
	Action    string `yaml:"action,omitempty" json:"action,omitempty"`
	Rationale string `yaml:"rationale,omitempty" json:"rationale,omitempty"`
	Example   string `yaml:"example,omitempty" json:"example,omitempty"`
}

// WarningContent is a risk to keep in mind.
type WarningContent struct {
	Risk       string `yaml:"risk,omitempty" json:"risk,omitempty"`
	Severity   string `yaml:"severity,omitempty" json:"severity,omitempty"` // low | medium | high | critical
	Detection  string `yaml:"detection,omitempty" json:"detection,omitempty"`
	Mitigation string `yaml:"mitigation,omitempty" json:"mitigation,omitempty"`
}

// RequirementContent is a hard constraint.
type RequirementContent struct {
	Constraint string `yaml:"constraint,omitempty" json:"constraint,omitempty"`
	Rationale  string `yaml:"rationale,omitempty" json:"rationale,omitempty"`
	Validation string `yaml:"validation,omitempty" json:"validation,omitempty"`
}

// processKeys are the front matter keys Process holds.
var processKeys = []string{"checklist", "pattern", "warning", "requirement"}

// The values a checklist's format and a warning's severity take.
var (
	checklistFormats = []string{"checkbox", "numbered", "bulleted"}
	severities       = []string{"low", "medium", "high", "critical"}
)

// maxProcessField bounds one text of a Process: enough for a rationale,
// not for a second document.
const maxProcessField = 1000

// Empty reports whether no type-specific content is set.
func (p *Process) Empty() bool {
	return p.Checklist == nil && p.Pattern == nil && p.Warning == nil && p.Requirement == nil
}

// textField is one text of a content mapping and where it goes.
type textField struct {
	name string
	dst  *string
}

// decode reads the content under key (one of processKeys).
func (p *Process) decode(key string, v *yaml.Node, at atFunc) error {
	if v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "") {
		return nil
	}
	switch key {
	case "checklist":
		c := &ChecklistContent{}
		if v.Kind == yaml.SequenceNode {
			// A bare list of items is a checklist without a title.
			items, err := checklistItems(v, at)
			c.Items = items
			p.Checklist = c
			return err
		}
		err := decodeContent(v, at, key, []textField{{"title", &c.Title}, {"items", nil}, {"format", &c.Format}}, func(k string, n *yaml.Node) (bool, error) {
			switch k {
			case "items":
				items, err := checklistItems(n, at)
				c.Items = items
				return true, err
			case "format":
				var err error
				c.Format, err = oneOf(n, at, "checklist.format", checklistFormats)
				return true, err
			}
			return false, nil
		})
		p.Checklist = c
		return err
	case "pattern":
		c := &PatternContent{}
		p.Pattern = c
		return decodeContent(v, at, key, []textField{{"situation", &c.Situation}, {"action", &c.Action}, {"rationale", &c.Rationale}, {"example", &c.Example}}, nil)
	case "warning":
		c := &WarningContent{}
		err := decodeContent(v, at, key, []textField{{"risk", &c.Risk}, {"severity", &c.Severity}, {"detection", &c.Detection}, {"mitigation", &c.Mitigation}}, func(k string, n *yaml.Node) (bool, error) {
			if k != "severity" {
				return false, nil
			}
			var err error
			c.Severity, err = oneOf(n, at, "warning.severity", severities)
			return true, err
		})
		p.Warning = c
		return err
	case "requirement":
		c := &RequirementContent{}
		p.Requirement = c
		return decodeContent(v, at, key, []textField{{"constraint", &c.Constraint}, {"rationale", &c.Rationale}, {"validation", &c.Validation}}, nil)
	}
	return fmt.Errorf("not a process key: %s", key)
}

// decodeContent reads a mapping of texts; other lets a caller take keys
// that are not texts (a checklist's items).
func decodeContent(v *yaml.Node, at atFunc, key string, fields []textField, other func(string, *yaml.Node) (bool, error)) error {
	if v.Kind != yaml.MappingNode {
		return at(v, "%s must be keys (%s), not a %s", key, contentKeys(fields), nodeKind(v))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if seen[k.Value] {
			return at(k, "key \"%s.%s\" appears twice", key, k.Value)
		}
		seen[k.Value] = true
		if other != nil {
			if done, err := other(k.Value, val); done || err != nil {
				if err != nil {
					return err
				}
				continue
			}
		}
		var dst *string
		for _, f := range fields {
			if f.name == k.Value && f.dst != nil {
				dst = f.dst
			}
		}
		if dst == nil {
			return at(k, "unknown key \"%s.%s\" (allowed: %s)", key, k.Value, contentKeys(fields))
		}
		s, err := processText(val, at, key+"."+k.Value)
		if err != nil {
			return err
		}
		*dst = s
	}
	return nil
}

func contentKeys(fields []textField) string {
	var names []string
	for _, f := range fields {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// processText is one text of a content mapping: a value, trimmed, within
// maxProcessField characters.
func processText(v *yaml.Node, at atFunc, key string) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", at(v, "%s must be text, not a %s", key, nodeKind(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	s := strings.TrimSpace(strings.ReplaceAll(v.Value, "\r\n", "\n"))
	if strings.ContainsRune(s, 0) {
		return "", at(v, "%s holds a NUL character", key)
	}
	if n := utf8.RuneCountInString(s); n > maxProcessField {
		return "", at(v, "%s is %d characters; at most %d (put the rest in the body)", key, n, maxProcessField)
	}
	return s, nil
}

// checklistItems reads a checklist's items. An item the agent wrote as
// "file: what to change" reads, in YAML, as a key and a value; it is
// taken back as the line it was.
func checklistItems(v *yaml.Node, at atFunc) ([]string, error) {
	if v.Kind == yaml.SequenceNode {
		for _, it := range v.Content {
			if it.Kind == yaml.MappingNode && len(it.Content) == 2 && it.Content[0].Kind == yaml.ScalarNode && it.Content[1].Kind == yaml.ScalarNode {
				*it = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it.Content[0].Value + ": " + it.Content[1].Value, Line: it.Line, Column: it.Column}
			}
		}
	}
	return list(v, at, "checklist.items")
}

// oneOf reads a value that must be one of allowed, in any case, and
// returns it as allowed writes it.
func oneOf(v *yaml.Node, at atFunc, key string, allowed []string) (string, error) {
	s, err := processText(v, at, key)
	if err != nil || s == "" {
		return s, err
	}
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a, nil
		}
	}
	return "", at(v, "%s %q is not one of %s", key, s, strings.Join(allowed, ", "))
}

// Title is what the content says the entry is about, for a block that
// gives no summary of its own: a checklist's title, a pattern's action, a
// warning's risk, a requirement's constraint.
func (p *Process) Title() string {
	for _, s := range []string{
		p.checklistTitle(), p.patternAction(), p.warningRisk(), p.requirementConstraint(),
	} {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			return s
		}
	}
	return ""
}

func (p *Process) checklistTitle() string {
	if p.Checklist == nil {
		return ""
	}
	return p.Checklist.Title
}

func (p *Process) patternAction() string {
	if p.Pattern == nil {
		return ""
	}
	return p.Pattern.Action
}

func (p *Process) warningRisk() string {
	if p.Warning == nil {
		return ""
	}
	return p.Warning.Risk
}

func (p *Process) requirementConstraint() string {
	if p.Requirement == nil {
		return ""
	}
	return p.Requirement.Constraint
}

// Kind is the kind the content says, when exactly one is set.
func (p *Process) Kind() string {
	var kinds []string
	if p.Checklist != nil {
		kinds = append(kinds, "checklist")
	}
	if p.Pattern != nil {
		kinds = append(kinds, "pattern")
	}
	if p.Warning != nil {
		kinds = append(kinds, "warning")
	}
	if p.Requirement != nil {
		kinds = append(kinds, "requirement")
	}
	if len(kinds) == 1 {
		return kinds[0]
	}
	return ""
}

// Text is the content as the agent reads it when the entry is served,
// in the triads design's display formats (docs/capture.md): a checklist's boxes, "When /
// Do / Why", "Risk / Severity / Mitigation", "Constraint / Why / Verify
// with".
func (p *Process) Text() string {
	var parts []string
	if c := p.Checklist; c != nil {
		var b strings.Builder
		if c.Title != "" {
			b.WriteString(c.Title + "\n\n")
		}
		if len(c.Items) > 0 {
			b.WriteString("Before proceeding, verify:")
		}
		for i, it := range c.Items {
			switch c.Format {
			case "numbered":
				fmt.Fprintf(&b, "\n%d. %s", i+1, it)
			case "bulleted":
				b.WriteString("\n- " + it)
			default:
				b.WriteString("\n- [ ] " + it)
			}
		}
		parts = append(parts, strings.TrimSpace(b.String()))
	}
	if c := p.Pattern; c != nil {
		parts = append(parts, labelled(
			"When", c.Situation, "Do", c.Action, "Why", c.Rationale, "Example", c.Example))
	}
	if c := p.Warning; c != nil {
		parts = append(parts, labelled(
			"Risk", c.Risk, "Severity", strings.ToUpper(c.Severity), "How to detect", c.Detection, "Mitigation", c.Mitigation))
	}
	if c := p.Requirement; c != nil {
		parts = append(parts, labelled(
			"Constraint", c.Constraint, "Why", c.Rationale, "Verify with", c.Validation))
	}
	var out []string
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}

// labelled writes "Label: value" lines for the values that are set.
func labelled(pairs ...string) string {
	var lines []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := strings.TrimSpace(pairs[i+1]); v != "" {
			lines = append(lines, pairs[i]+": "+v)
		}
	}
	return strings.Join(lines, "\n")
}
