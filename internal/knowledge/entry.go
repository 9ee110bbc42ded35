// Package knowledge holds what devlearn serves back to the agent: knowledge
// entries (one markdown file each, YAML front matter), the ADR and pitfall
// sections read through knowfile, the compact index of all of them, and the
// relevance engine that picks what to inject before a tool call. It reads
// entries and writes only its own cache; writing an entry is
// internal/knowledge/entrystore's.
package knowledge

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/mdfront"
	"github.com/devlearn/devlearn/internal/words"
)

// Entry is one knowledge entry: its front matter and its markdown body.
type Entry struct {
	Key         string   `yaml:"key" json:"key"`
	Summary     string   `yaml:"summary" json:"summary"`
	Kind        string   `yaml:"kind" json:"kind"`
	Category    string   `yaml:"category,omitempty" json:"category,omitempty"`
	Priority    string   `yaml:"priority" json:"priority"`
	Status      string   `yaml:"status" json:"status"`
	Source      string   `yaml:"source" json:"source"`
	Observation string   `yaml:"observation,omitempty" json:"observation,omitempty"`
	Ask         bool     `yaml:"ask,omitempty" json:"ask,omitempty"`
	Tags        []string `yaml:"tags,flow,omitempty" json:"tags,omitempty"`
	Triggers    Triggers `yaml:"triggers,omitempty" json:"triggers"`
	// SourceID is the session or task that made the entry (ClawFlow's source_id).
	SourceID string `yaml:"source_id,omitempty" json:"source_id,omitempty"`
	// Evidence is what made it: one line each (a task's rejection, a
	// failed gate, a session).
	Evidence []string `yaml:"evidence,omitempty" json:"evidence,omitempty"`
	// TokenEstimate is the body's size in tokens (characters / 4), set
	// whenever devlearn writes the file.
	TokenEstimate int `yaml:"token_estimate,omitempty" json:"token_estimate,omitempty"`
	// CreatedAt and UpdatedAt are RFC 3339 times (UTC), set by devlearn's
	// writes; a candidate ages from CreatedAt.
	CreatedAt string `yaml:"created_at,omitempty" json:"created_at,omitempty"`
	UpdatedAt string `yaml:"updated_at,omitempty" json:"updated_at,omitempty"`
	// Accepted records that a person read a lesson held for review (one
	// that reads as an order to fetch and run code, or to ignore other
	// instructions) and let it be served: the hash of the text they
	// accepted (inject.Hash), so that an edit holds it again.
	Accepted string `yaml:"accepted,omitempty" json:"accepted,omitempty"`
	// Clone is the clone whose agent wrote a draft (project.CloneID): a
	// draft is served there only, until a person promotes it.
	Clone   string `yaml:"clone,omitempty" json:"clone,omitempty"`
	Process `yaml:",inline"`
	Body    string `yaml:"-" json:"body"`
}

// Triggers say when an entry is relevant to a tool call. A trigger left
// empty is neutral: it neither helps nor hurts the score.
type Triggers struct {
	Tools   []string `yaml:"tools,flow,omitempty" json:"tools,omitempty"`
	Files   []string `yaml:"files,flow,omitempty" json:"files,omitempty"`
	Actions []string `yaml:"actions,flow,omitempty" json:"actions,omitempty"`
	Context []string `yaml:"context,flow,omitempty" json:"context,omitempty"`
	// Commands are programs, with their subcommand, whose run the entry
	// is about ("rg", "git push", "Get-Content"): a Bash call that runs
	// one matches. devlearn writes the command that failed into the
	// drafts it learns from a failure (internal/observed).
	Commands []string `yaml:"commands,flow,omitempty" json:"commands,omitempty"`
}

// The values each enumerated field accepts (docs/serve.md).
var (
	Kinds      = []string{"checklist", "pattern", "warning", "requirement", "note"}
	Categories = []string{"business_rule", "architecture", "api_quirk", "lesson_learned", "convention"}
	Priorities = []string{"CRITICAL", "HIGH", "MEDIUM", "LOW"}
	Statuses   = []string{StatusCandidate, StatusDraft, StatusActive, StatusArchived}
	// Origins: ClawFlow's sources (workshop, pipeline, manual, fdrl) and
	// devlearn's own (prompt, transcript, stop-hook, gate, llm).
	Origins = []string{"manual", "prompt", "transcript", "stop-hook", "fdrl", "gate", "llm", "workshop", "pipeline"}
)

// Entry statuses.
const (
	StatusCandidate = "candidate" // waiting for a person's review; never served
	// StatusDraft is a lesson the agent wrote about itself: served at once,
	// marked as a draft and ranked below active entries, until a person
	// promotes or archives it (the triads design's drafts to review).
	StatusDraft    = "draft"
	StatusActive   = "active"
	StatusArchived = "archived" // kept for history; never served
)

// Limits on what an entry may hold, so that one entry cannot eat the
// output budget of a hook or hide a second document in a field.
const (
	MaxSummary = 200
	maxListLen = 50
	MaxItemLen = 200
	maxBody    = 64 * 1024
	maxFile    = 128 * 1024
)

// Defaults for keys a file leaves out.
const (
	defaultKind     = "note"
	defaultPriority = "MEDIUM"
	defaultSource   = "manual"
)

// ParseError is a problem in an entry file, with the line it is on.
type ParseError struct {
	Path string
	Line int // 1-based line in the file; 0 when it is about the whole file
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// ParseEntry reads an entry file. path names it in errors; the key, when
// the front matter gives one, must be the file's own name without ".md".
// Every problem is reported with its line; nothing is guessed.
func ParseEntry(path string, data []byte) (*Entry, error) { return parseFile(path, data, true) }

// ParseDraft reads an entry written anywhere (a draft given to `knowledge
// add`): its file name says nothing about its key, which may be missing.
func ParseDraft(path string, data []byte) (*Entry, error) { return parseFile(path, data, false) }

func parseFile(path string, data []byte, named bool) (*Entry, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) > maxFile {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("is %d bytes; an entry file holds at most %d", len(data), maxFile)}
	}
	if !utf8.Valid(data) {
		return nil, &ParseError{Path: path, Msg: "not UTF-8 text"}
	}
	yamlText, rest, offset, found := mdfront.Split(data)
	if !found {
		return nil, &ParseError{Path: path, Line: 1, Msg: "no front matter: an entry starts with a '---' line, its YAML keys, and a closing '---' line"}
	}
	var node yaml.Node
	if err := yaml.Unmarshal(yamlText, &node); err != nil {
		_, msg := yamlLine(err)
		return nil, &ParseError{Path: path, Line: offset + yamlErrorLine(yamlText, err) - 1, Msg: "not valid YAML: " + msg}
	}
	e := &Entry{}
	keyLine, err := e.decodeWith(&node, path, offset, false)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(path), ".md")
	switch {
	case !named:
	case e.Key == "" && ValidKey(stem) == nil:
		e.Key = stem
	case e.Key == "":
		return nil, &ParseError{Path: path, Line: offset, Msg: fmt.Sprintf("no key, and the file name %q is not a valid key: %v", stem, ValidKey(stem))}
	case e.Key != stem:
		return nil, &ParseError{Path: path, Line: keyLine, Msg: fmt.Sprintf("key %q is not the file's name (%s.md): rename the file or change the key", e.Key, stem)}
	}
	e.Body = normalizeBody(string(rest))
	if len(e.Body) > maxBody {
		return nil, &ParseError{Path: path, Msg: fmt.Sprintf("body is %d bytes; at most %d", len(e.Body), maxBody)}
	}
	// Derived, whatever the file says: a body edited by hand is measured
	// as it is now.
	e.TokenEstimate = Tokens(e.Body)
	return e, nil
}

// ParseBlock reads an entry written as one YAML mapping whose "body" key
// holds the markdown, the shape of a [PROCESS_KNOWLEDGE] block in a
// transcript. name labels errors; line numbers count from the block's
// first line.
func ParseBlock(name string, data []byte) (*Entry, error) {
	if len(data) > maxFile {
		return nil, &ParseError{Path: name, Msg: fmt.Sprintf("is %d bytes; an entry holds at most %d", len(data), maxFile)}
	}
	if !utf8.Valid(data) {
		return nil, &ParseError{Path: name, Msg: "not UTF-8 text"}
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		_, msg := yamlLine(err)
		return nil, &ParseError{Path: name, Line: yamlErrorLine(data, err), Msg: "not valid YAML: " + msg}
	}
	fromTriads(&node)
	e := &Entry{}
	if _, err := e.decodeWith(&node, name, 1, true); err != nil {
		return nil, err
	}
	if len(e.Body) > maxBody {
		return nil, &ParseError{Path: name, Msg: fmt.Sprintf("body is %d bytes; at most %d", len(e.Body), maxBody)}
	}
	e.TokenEstimate = Tokens(e.Body)
	return e, nil
}

// yamlLine splits a yaml.v3 error into its line and message. yaml.v3
// reports some errors on the line before the one at fault (a flow list
// left open gives the 0-based line of its start).
func yamlLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				return max(l, 1), after
			}
		}
	}
	return 1, msg
}

// yamlErrorLine finds the line a syntax error starts on: the first line
// at which the text read so far fails with the same message. It corrects
// yaml.v3's off-by-one reports; for long texts, or when no prefix fails
// the same way, yaml.v3's own line stands.
func yamlErrorLine(data []byte, err error) int {
	line, msg := yamlLine(err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 200 || len(data) > 16*1024 {
		return line
	}
	var n yaml.Node
	for k := 1; k <= len(lines); k++ {
		perr := yaml.Unmarshal(bytes.Join(lines[:k], nil), &n)
		if perr == nil {
			continue
		}
		if _, m := yamlLine(perr); m == msg {
			return k
		}
	}
	return line
}

// decodeWith walks the front matter's mapping key by key, so that an
// unknown key or a bad value is reported on its own line. It returns the
// line of the key, if one is given.
func (e *Entry) decodeWith(doc *yaml.Node, path string, offset int, withBody bool) (keyLine int, err error) {
	keyLine = offset
	err = e.decodeNode(doc, path, offset, withBody, &keyLine)
	return keyLine, err
}

func (e *Entry) decodeNode(doc *yaml.Node, path string, offset int, withBody bool, keyLine *int) error {
	at := func(n *yaml.Node, format string, args ...any) error {
		return &ParseError{Path: path, Line: offset + n.Line - 1, Msg: fmt.Sprintf(format, args...)}
	}
	m := doc
	if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	if m.Kind == 0 {
		return &ParseError{Path: path, Line: offset, Msg: "the front matter is empty: at least 'summary' is needed"}
	}
	if m.Kind != yaml.MappingNode {
		return at(m, "the front matter must be YAML keys (key: value), not a %s", nodeKind(m))
	}
	allowed := "key, summary, kind, category, priority, status, source, observation, ask, tags, triggers, source_id, evidence, token_estimate, created_at, updated_at, accepted, clone, " + strings.Join(processKeys, ", ")
	if withBody {
		allowed += ", body"
	}
	seen := map[string]bool{}
	var summaryNode *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			return at(k, "key %q appears twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "key":
			*keyLine = offset + v.Line - 1
			e.Key, err = scalar(v, at)
			if err == nil && e.Key != "" {
				if kerr := ValidKey(e.Key); kerr != nil {
					err = at(v, "%v", kerr)
				}
			}
		case "summary":
			summaryNode = v
			e.Summary, err = scalar(v, at)
		case "kind":
			e.Kind, err = enum(v, at, "kind", Kinds, false)
		case "category":
			e.Category, err = enum(v, at, "category", Categories, false)
		case "priority":
			e.Priority, err = enum(v, at, "priority", Priorities, true)
		case "status":
			e.Status, err = enum(v, at, "status", Statuses, false)
		case "source":
			e.Source, err = enum(v, at, "source", Origins, false)
		case "observation":
			e.Observation, err = scalar(v, at)
			if err == nil && e.Observation != "" && !validObservation(e.Observation) {
				err = at(v, "observation %q is not an observation id (obs_ and hex digits)", e.Observation)
			}
		case "ask":
			if v.Kind != yaml.ScalarNode || (v.Value != "true" && v.Value != "false") {
				err = at(v, "ask must be true or false")
			}
			e.Ask = v.Value == "true"
		case "tags":
			e.Tags, err = list(v, at, "tags")
		case "triggers":
			err = e.Triggers.decode(v, at)
		case "checklist", "pattern", "warning", "requirement":
			err = e.Process.decode(k.Value, v, at)
		case "source_id":
			e.SourceID, err = scalar(v, at)
			if err == nil && (strings.ContainsAny(e.SourceID, "\n\r") || utf8.RuneCountInString(e.SourceID) > MaxItemLen) {
				err = at(v, "source_id must be one line of at most %d characters", MaxItemLen)
			}
		case "evidence":
			e.Evidence, err = list(v, at, "evidence")
		case "token_estimate":
			var s string
			if s, err = scalar(v, at); err == nil && s != "" {
				n, cerr := strconv.Atoi(s)
				if cerr != nil || n < 0 {
					err = at(v, "token_estimate must be a whole number of tokens, not %q", s)
				}
				e.TokenEstimate = n
			}
		case "created_at":
			e.CreatedAt, err = timestamp(v, at, "created_at")
		case "updated_at":
			e.UpdatedAt, err = timestamp(v, at, "updated_at")
		case "accepted":
			e.Accepted, err = scalar(v, at)
		case "clone":
			e.Clone, err = scalar(v, at)
		case "body":
			if withBody {
				var b string
				b, err = text(v, at)
				e.Body = normalizeBody(b)
				break
			}
			fallthrough
		default:
			err = at(k, "unknown key %q (allowed: %s)", k.Value, allowed)
		}
		if err != nil {
			return err
		}
	}
	if strings.TrimSpace(e.Summary) == "" && withBody {
		// A block may say what it is about in its content alone.
		e.Summary = Cut(e.Process.Title(), MaxSummary)
	}
	if strings.TrimSpace(e.Summary) == "" {
		n := m
		if summaryNode != nil {
			n = summaryNode
		}
		return at(n, "summary is missing: one line saying what the entry is about")
	}
	e.Summary = strings.TrimSpace(e.Summary)
	if strings.ContainsAny(e.Summary, "\n\r") {
		return at(summaryNode, "summary must be one line")
	}
	if utf8.RuneCountInString(e.Summary) > MaxSummary {
		return at(summaryNode, "summary is %d characters; at most %d (put the rest in the body)", utf8.RuneCountInString(e.Summary), MaxSummary)
	}
	e.fillDefaults()
	return nil
}

func (e *Entry) fillDefaults() {
	if e.Kind == "" {
		e.Kind = cmp.Or(e.Process.Kind(), defaultKind)
	}
	if e.Priority == "" {
		e.Priority = defaultPriority
	}
	if e.Status == "" {
		e.Status = StatusActive
	}
	if e.Source == "" {
		e.Source = defaultSource
	}
}

func (t *Triggers) decode(v *yaml.Node, at func(*yaml.Node, string, ...any) error) error {
	if v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "") {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return at(v, "triggers must be keys (tools, files, actions, context, commands), not a %s", nodeKind(v))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if seen[k.Value] {
			return at(k, "key \"triggers.%s\" appears twice", k.Value)
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "tools":
			t.Tools, err = list(val, at, "triggers.tools")
		case "files":
			t.Files, err = list(val, at, "triggers.files")
			for _, g := range t.Files {
				if err == nil && !doublestar.ValidatePattern(g) {
					err = at(val, "triggers.files: %q is not a valid glob (use * within a folder, ** across folders)", g)
				}
			}
		case "actions":
			t.Actions, err = keywords(val, at, "triggers.actions")
		case "context":
			t.Context, err = keywords(val, at, "triggers.context")
		case "commands":
			t.Commands, err = list(val, at, "triggers.commands")
			for _, c := range t.Commands {
				if _, ok := CommandTrigger(c); err == nil && !ok {
					err = at(val, "triggers.commands: %q is not a program to run (write the program, then its subcommand: \"git push\", \"rg\")", c)
				}
			}
		default:
			err = at(k, "unknown key \"triggers.%s\" (allowed: tools, files, actions, context, commands)", k.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type atFunc = func(*yaml.Node, string, ...any) error

// timestamp reads an RFC 3339 time and keeps it in UTC.
func timestamp(v *yaml.Node, at atFunc, key string) (string, error) {
	s, err := scalar(v, at)
	if err != nil || s == "" {
		return s, err
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "", at(v, "%s %q is not an RFC 3339 time (such as 2026-05-10T09:00:00Z)", key, s)
	}
	return FormatTime(t), nil
}

// FormatTime is how entry times are written: RFC 3339, UTC, seconds.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func scalar(v *yaml.Node, at atFunc) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", at(v, "want a single value, not a %s", nodeKind(v))
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	if strings.ContainsRune(v.Value, 0) {
		return "", at(v, "value holds a NUL character")
	}
	return strings.TrimSpace(v.Value), nil
}

func text(v *yaml.Node, at atFunc) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", at(v, "body must be text, not a %s", nodeKind(v))
	}
	return v.Value, nil
}

func enum(v *yaml.Node, at atFunc, key string, allowed []string, upper bool) (string, error) {
	s, err := scalar(v, at)
	if err != nil || s == "" {
		return s, err
	}
	for _, a := range allowed {
		if s == a || (upper && strings.EqualFold(s, a)) {
			return a, nil
		}
	}
	return "", at(v, "%s %q is not one of %s", key, s, strings.Join(allowed, ", "))
}

// list reads a YAML sequence of strings; a single value is a list of one.
func list(v *yaml.Node, at atFunc, key string) ([]string, error) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		items = v.Content
	case yaml.ScalarNode:
		if v.Tag == "!!null" || v.Value == "" {
			return nil, nil
		}
		items = []*yaml.Node{v}
	default:
		return nil, at(v, "%s must be a list ([a, b]), not a %s", key, nodeKind(v))
	}
	if len(items) > maxListLen {
		return nil, at(v, "%s has %d items; at most %d", key, len(items), maxListLen)
	}
	var out []string
	for _, it := range items {
		if it.Kind != yaml.ScalarNode {
			return nil, at(it, "%s: each item must be a single value, not a %s", key, nodeKind(it))
		}
		s := strings.TrimSpace(it.Value)
		if s == "" {
			return nil, at(it, "%s: an item is empty", key)
		}
		if strings.ContainsAny(s, "\x00\n\r") {
			return nil, at(it, "%s: an item must be one line", key)
		}
		if utf8.RuneCountInString(s) > MaxItemLen {
			return nil, at(it, "%s: an item is longer than %d characters", key, MaxItemLen)
		}
		out = append(out, s)
	}
	return out, nil
}

// keywords is a list whose items must hold at least one word: a keyword
// of punctuation alone could never match.
func keywords(v *yaml.Node, at atFunc, key string) ([]string, error) {
	l, err := list(v, at, key)
	if err != nil {
		return nil, err
	}
	for _, k := range l {
		if len(words.Words(k)) == 0 {
			return nil, at(v, "%s: %q has no words to match", key, k)
		}
	}
	return l, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "set of keys"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}

func validObservation(s string) bool {
	hex, ok := strings.CutPrefix(s, "obs_")
	if !ok || len(hex) < 6 || len(hex) > 64 {
		return false
	}
	for _, c := range hex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// normalizeBody drops the blank lines around the body and ends it with one
// newline: the form it is stored and hashed in.
func normalizeBody(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Trim(s, "\n")
	s = strings.TrimRight(s, " \t\n")
	if s == "" {
		return ""
	}
	return s + "\n"
}

// Validate checks an entry built in code (by `knowledge add` or from a
// transcript block) against the same rules as a parsed file, and fills the
// defaults of the keys left out.
func (e *Entry) Validate() error {
	data, err := e.Marshal()
	if err != nil {
		return err
	}
	back, err := ParseEntry(e.Key+".md", data)
	if err != nil {
		return err
	}
	*e = *back
	return nil
}

// Marshal writes the entry file: front matter in a fixed key order, then
// the body.
func (e *Entry) Marshal() ([]byte, error) {
	c := *e
	c.TokenEstimate = Tokens(normalizeBody(c.Body))
	return c.marshal()
}

// marshal writes the entry as it is, with no derived field filled in.
func (e *Entry) marshal() ([]byte, error) {
	c := *e
	c.fillDefaults()
	var fm bytes.Buffer
	enc := yaml.NewEncoder(&fm)
	enc.SetIndent(2)
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(fm.Bytes())
	b.WriteString("---\n")
	b.WriteString(normalizeBody(c.Body))
	return b.Bytes(), nil
}

// Active reports whether the entry is served (in the index and by
// relevance): active, or a draft; not a candidate waiting for review, not
// archived.
func (e *Entry) Active() bool { return e.Status == StatusActive || e.Status == StatusDraft }
