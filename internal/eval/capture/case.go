// Package capture measures devlearn's capture on a labelled set of
// sessions: which lessons a careful reader names in them (recall), and how
// much of what the extractors keep is not a lesson at all (noise).
//
// The set lives in testdata/eval (see its README.md): YAML files, each a
// list of cases. A case is one or more sessions, written by hand as turns
// (rendered here into Claude Code's transcript format, so that they go
// through the real transcript reader) or named as real transcript files,
// and the labels a reader gives them: the lessons to find and the noise
// that must not be kept. Files under holdout/ were written before any rule
// was tuned and are never tuned against; make eval reports them apart.
package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Lesson classes: what a person said or did that a reader would call a
// lesson.
const (
	Imperative   = "imperative"   // a plain imperative or negation: "never run git yourself"
	Contrast     = "contrast"     // "use X, not Y", "X instead of Y"
	Rejection    = "rejection"    // a bare "no" / "wrong" whose object is the agent's previous action
	Remember     = "remember"     // "remember", "from now on", "add to CLAUDE.md"
	Acknowledged = "acknowledged" // no marker in the person's words; the agent owns up right after
	Repeated     = "repeated"     // the same instruction in another session
	FailureFix   = "failure-fix"  // a command fails and the agent's next steps make it pass
)

// Noise classes: what must never be kept.
const (
	ToolProtocol = "tool-protocol" // Claude Code's own tool errors: old_string not found, read first, denied, plan mode, interrupted, hooks
	Progress     = "progress"      // INFO, progress and warning lines taken for failures
	NotPerson    = "not-person"    // tool output, wrappers, hook output, pasted logs and code, summaries, sub-agent prompts
	OneOff       = "one-off"       // "yes", "continue", a name: acknowledgements and one-off requests
)

// LessonClasses and NoiseClasses list the classes in report order.
var (
	LessonClasses = []string{Imperative, Contrast, Rejection, Remember, Acknowledged, Repeated, FailureFix}
	NoiseClasses  = []string{ToolProtocol, Progress, NotPerson, OneOff}
)

// Case is one labelled situation: its sessions and what a reader names in
// them.
type Case struct {
	Name  string `yaml:"name"`
	Lang  string `yaml:"lang"`  // the person's language: en, zh, ja, es, de, fr, pt, ...
	About string `yaml:"about"` // what the case shows, for the reader of the set
	// Sessions written by hand, or Transcripts: real files, relative to
	// the repository's root.
	Sessions    []Session `yaml:"sessions"`
	Transcripts []string  `yaml:"transcripts"`
	Lessons     []Label   `yaml:"lessons"`
	Noise       []Label   `yaml:"noise"`

	// Set is holdout or dev (from the folder), File where it was read.
	Set  string `yaml:"-"`
	File string `yaml:"-"`
}

// Label is one lesson to find, or one piece of noise not to keep.
type Label struct {
	Class string `yaml:"class"`
	// Lesson is the sentence a reader would write for it (for a noise
	// label, what the noise is).
	Lesson string `yaml:"lesson"`
	// Type lists the observation types that count (empty: any).
	Type StringList `yaml:"type"`
	// Match is how a kept observation is decided to be this label: every
	// term must be found in its normalised pattern; a term may offer
	// alternatives separated by "|". See Matches.
	Match []string `yaml:"match"`
	// Session restricts the label to observations sighted in that session
	// of the case (its id); empty means any.
	Session string `yaml:"session"`
}

// StringList reads a YAML string or list of strings.
type StringList []string

func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = StringList{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*l = s
	return nil
}

// Sets, from the folders of testdata/eval.
const (
	Dev     = "dev"
	Holdout = "holdout"
)

// Load reads every case under dir (testdata/eval): dir/dev/*.yaml and
// dir/holdout/*.yaml. root is the repository's root, against which real
// transcripts are named.
func Load(dir string) ([]*Case, error) {
	var out []*Case
	for _, set := range []string{Dev, Holdout} {
		files, err := filepath.Glob(filepath.Join(dir, set, "*.yaml"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			cases, err := loadFile(f)
			if err != nil {
				return nil, err
			}
			for _, c := range cases {
				c.Set, c.File = set, f
			}
			out = append(out, cases...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cases (want %s/*.yaml and %s/*.yaml)", dir, Dev, Holdout)
	}
	names := map[string]string{}
	for _, c := range out {
		if prev, dup := names[c.Name]; dup {
			return nil, fmt.Errorf("%s: case %q is also in %s", c.File, c.Name, prev)
		}
		names[c.Name] = c.File
	}
	return out, nil
}

func loadFile(path string) ([]*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cases []*Case
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i, c := range cases {
		if err := c.check(); err != nil {
			name := c.Name
			if name == "" {
				name = fmt.Sprintf("#%d", i+1)
			}
			return nil, fmt.Errorf("%s: case %s: %v", path, name, err)
		}
	}
	return cases, nil
}

func (c *Case) check() error {
	if c.Name == "" {
		return fmt.Errorf("no name")
	}
	if c.Lang == "" {
		return fmt.Errorf("no lang")
	}
	if len(c.Sessions) == 0 && len(c.Transcripts) == 0 {
		return fmt.Errorf("neither sessions nor transcripts")
	}
	ids := map[string]bool{}
	for i, s := range c.Sessions {
		if s.ID == "" {
			c.Sessions[i].ID = fmt.Sprintf("s%d", i+1)
		}
		if ids[c.Sessions[i].ID] {
			return fmt.Errorf("session %q twice", s.ID)
		}
		ids[c.Sessions[i].ID] = true
		if len(s.Turns) == 0 {
			return fmt.Errorf("session %s has no turns", c.Sessions[i].ID)
		}
		for j, t := range s.Turns {
			if err := t.check(); err != nil {
				return fmt.Errorf("session %s, turn %d: %v", c.Sessions[i].ID, j+1, err)
			}
		}
	}
	for _, l := range c.Lessons {
		if !slices.Contains(LessonClasses, l.Class) {
			return fmt.Errorf("lesson %q: class %q is not one of %s", l.Lesson, l.Class, strings.Join(LessonClasses, ", "))
		}
		if len(l.Match) == 0 {
			return fmt.Errorf("lesson %q: no match terms", l.Lesson)
		}
		if l.Session != "" && !ids[l.Session] {
			return fmt.Errorf("lesson %q: no session %q", l.Lesson, l.Session)
		}
	}
	for _, l := range c.Noise {
		if !slices.Contains(NoiseClasses, l.Class) {
			return fmt.Errorf("noise %q: class %q is not one of %s", l.Lesson, l.Class, strings.Join(NoiseClasses, ", "))
		}
	}
	return nil
}
