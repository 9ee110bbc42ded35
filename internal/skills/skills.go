// Package skills holds ClawFlow's tiered skills (docs/gates.md): one folder per
// skill under $DEVLEARN_HOME/skills/, a core.md the agent is always given
// at its stage and an extended.md it reads on demand. The seven defaults
// are embedded and seeded there without ever overwriting a person's
// edits; for Claude Code they are rendered as skills whose SKILL.md is the
// core, with the extended file beside it.
package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/textkey"
	"github.com/devlearn/devlearn/templates"
)

// Tiers of a skill.
const (
	Core     = "core"
	Extended = "extended"
)

// Limits: ClawFlow has a core at 200 to 500 tokens and an extended part at
// 1,000 to 3,000; these leave room, and keep one file from eating a prompt.
const (
	MaxCore     = 16 << 10
	MaxExtended = 64 << 10
	MaxName     = 64
)

// Dir is the skills folder of a devlearn home.
func Dir(home string) string { return filepath.Join(home, "skills") }

// ValidName checks a skill's name: it is a folder name, so lower case
// ASCII letters, digits and inner dashes only.
func ValidName(name string) error {
	if name == "" || len(name) > MaxName {
		return fmt.Errorf("skill name %q must be 1 to %d characters", name, MaxName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0 && i < len(name)-1) {
			return fmt.Errorf("skill name %q may hold only a-z, 0-9 and inner dashes", name)
		}
	}
	if textkey.Reserved(name) {
		return fmt.Errorf("skill name %q is a name Windows keeps for a device; add a word (%s-skill)", name, name)
	}
	return nil
}

// ValidTier checks a tier name.
func ValidTier(tier string) error {
	if tier != Core && tier != Extended {
		return fmt.Errorf("tier %q is not core or extended", tier)
	}
	return nil
}

// file is where a skill's tier lives.
func file(home, name, tier string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	if err := ValidTier(tier); err != nil {
		return "", err
	}
	if home == "" {
		return "", errors.New("no devlearn home ($DEVLEARN_HOME or $HOME) to keep skills in")
	}
	return filepath.Join(Dir(home), name, tier+".md"), nil
}

// Defaults lists the embedded default skills, by name.
func Defaults() []string {
	ents, _ := fs.ReadDir(templates.Skills, "skills")
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func defaultText(name, tier string) ([]byte, bool) {
	data, err := templates.Skills.ReadFile(path.Join("skills", name, tier+".md"))
	return data, err == nil
}

// seededFile records the hash of each file as devlearn last seeded it, so
// that a file still as seeded can take a newer default, and one a person
// edited never is.
const seededFile = ".seeded.json"

type seeded struct {
	Files map[string]string `json:"files"` // "<name>/<tier>.md" → sha256
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// SeedResult is what Seed did.
type SeedResult struct {
	Created []string `json:"created"` // files written for the first time
	Updated []string `json:"updated"` // unedited files brought to a newer default
	Kept    []string `json:"kept"`    // files a person changed: left as they are
}

// Seed writes the default skills into home's skills folder (ClawFlow's
// first-run seeding): a missing file is written; a file still exactly as
// devlearn last seeded it takes the current default; a file a person
// edited is kept. It is cheap when nothing changed, so every command that
// reads skills calls it.
func Seed(ctx context.Context, home string) (*SeedResult, error) {
	if home == "" {
		return nil, errors.New("no devlearn home ($DEVLEARN_HOME or $HOME) to keep skills in")
	}
	res := &SeedResult{Created: []string{}, Updated: []string{}, Kept: []string{}}
	dir := Dir(home)
	state := seeded{Files: map[string]string{}}
	if data, err := os.ReadFile(filepath.Join(dir, seededFile)); err == nil {
		_ = json.Unmarshal(data, &state)
		if state.Files == nil {
			state.Files = map[string]string{}
		}
	}
	type plan struct {
		rel  string
		data []byte
	}
	var todo []plan
	for _, name := range Defaults() {
		for _, tier := range []string{Core, Extended} {
			def, ok := defaultText(name, tier)
			if !ok {
				continue
			}
			rel := name + "/" + tier + ".md"
			cur, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				todo = append(todo, plan{rel, def})
				res.Created = append(res.Created, rel)
			case err != nil:
				return nil, err
			case bytes.Equal(cur, def):
				if state.Files[rel] != sum(def) {
					todo = append(todo, plan{rel, nil}) // only the record
				}
			case state.Files[rel] == sum(cur):
				todo = append(todo, plan{rel, def})
				res.Updated = append(res.Updated, rel)
			default:
				res.Kept = append(res.Kept, rel)
			}
		}
	}
	if len(todo) == 0 {
		return res, nil
	}
	unlock, err := jsonl.Lock(ctx, filepath.Join(home, "locks", "skills.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, t := range todo {
		def, _ := defaultText(path.Dir(t.rel), strings.TrimSuffix(path.Base(t.rel), ".md"))
		if t.data != nil {
			p := filepath.Join(dir, filepath.FromSlash(t.rel))
			if err := safefile.MkdirAll(home, filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := jsonl.WriteFileAtomic(home, p, t.data, 0o644); err != nil {
				return nil, err
			}
		}
		state.Files[t.rel] = sum(def)
	}
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return nil, err
	}
	return res, jsonl.WriteFileAtomic(home, filepath.Join(dir, seededFile), append(data, '\n'), 0o644)
}

// Skill is one skill as read.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Core is core.md without its front matter: what the agent is given.
	Core           string `json:"core"`
	Extended       string `json:"extended,omitempty"`
	CoreTokens     int    `json:"core_tokens"`
	ExtendedTokens int    `json:"extended_tokens"`
	// Default: one of the seven; Edited: its files differ from the
	// defaults (a person's version).
	Default bool   `json:"default"`
	Edited  bool   `json:"edited"`
	Dir     string `json:"dir"`
	// Directives are the filtered directive types an agent at the skill's
	// stage is given in full (its front matter's directives).
	Directives []string `json:"directives"`
	// Problems are declarations not taken (file:line: why), for doctor
	// and 'skill list' to show.
	Problems []string `json:"problems,omitempty"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// tokens estimates tokens as the knowledge store does: characters / 4.
func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// Load reads a skill. A skill without a core.md does not exist.
func Load(home, name string) (*Skill, error) {
	corePath, err := file(home, name, Core)
	if err != nil {
		return nil, err
	}
	core, err := readRegular(corePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no skill %q (%s does not exist; 'devlearn skill list' lists them): %w", name, corePath, fs.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	fm, body, err := parseCore(corePath, core)
	if err != nil {
		return nil, err
	}
	s := &Skill{Name: name, Description: fm.Description, Core: body, CoreTokens: tokens(body), Dir: filepath.Dir(corePath),
		Directives: nonNil(fm.Directives), Problems: fm.Problems}
	extPath, _ := file(home, name, Extended)
	ext, err := readRegular(extPath)
	switch {
	case err == nil:
		s.Extended = string(ext)
		s.ExtendedTokens = tokens(s.Extended)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if def, ok := defaultText(name, Core); ok {
		s.Default = true
		defExt, _ := defaultText(name, Extended)
		s.Edited = !bytes.Equal(def, core) || !bytes.Equal(defExt, ext)
	}
	return s, nil
}

// readRegular reads a file that must be a plain file: a symbolic link
// could have a skill serve any file of the machine to the agent.
func readRegular(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a plain file (a symbolic link?): refused", p)
	}
	return os.ReadFile(p)
}

// List reads every skill of the home's folder, by name. A folder that is
// not a valid skill is reported in problems, never fatal.
func List(home string) ([]*Skill, []error, error) {
	ents, err := os.ReadDir(Dir(home))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var out []*Skill
	var probs []error
	for _, e := range ents {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		s, err := Load(home, e.Name())
		if err != nil {
			probs = append(probs, err)
			continue
		}
		out = append(out, s)
	}
	return out, probs, nil
}

// front is what a core.md's front matter says.
type front struct {
	Description string
	// Directives are the filtered directive types the skill loads
	// (as the engine's directives do), each once, in the order written.
	Directives []string
	// Problems are declarations that were not taken, each "FILE:LINE:
	// what is wrong: what to write": the skill still works, declaring the
	// rest.
	Problems []string
}

// Front matter keys of a core.md.
const (
	keyDescription = "description"
	keyDirectives  = "directives"
)

// parseCore splits a core.md into its front matter and its body. The
// front matter holds description, one line saying when to use the skill
// (Claude Code chooses skills by it), and, optionally, directives: the
// filtered directive types (TESTING.md, PITFALLS.md, CONTRIBUTING.md,
// TEMPLATE.md, CHECKLIST.md) an agent at the skill's stage is given in
// full instead of by name.
func parseCore(name string, data []byte) (front, string, error) {
	var fm front
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return fm, "", fmt.Errorf("%s:1: a core.md starts with front matter: '---', 'description: when to use the skill', '---'", name)
	}
	meta, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if meta, ok = strings.CutSuffix(rest, "\n---"); !ok {
			return fm, "", fmt.Errorf("%s:1: the front matter is not closed with a '---' line", name)
		}
		body = ""
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(meta), &doc); err != nil {
		return fm, "", fmt.Errorf("%s: the front matter is not valid YAML: %v", name, err)
	}
	if len(doc.Content) == 1 {
		m := doc.Content[0]
		if m.Kind != yaml.MappingNode {
			return fm, "", fmt.Errorf("%s:2: the front matter is not a set of 'key: value' lines", name)
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			switch k.Value {
			case keyDescription:
				if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
					fm.Description = strings.TrimSpace(v.Value)
				}
			case keyDirectives:
				fm.Directives, fm.Problems = declarations(name, v)
			default:
				return fm, "", fmt.Errorf("%s:%d: unknown front matter key %q (allowed: %s, %s)", name, k.Line+1, k.Value, keyDescription, keyDirectives)
			}
		}
	}
	d := fm.Description
	switch {
	case d == "":
		return fm, "", fmt.Errorf("%s: description is missing: one line saying when to use the skill", name)
	case strings.ContainsAny(d, "\n\r"):
		return fm, "", fmt.Errorf("%s: description must be one line", name)
	case utf8.RuneCountInString(d) > 1024:
		return fm, "", fmt.Errorf("%s: description is longer than 1,024 characters", name)
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return fm, "", fmt.Errorf("%s: the core is empty after its front matter", name)
	}
	return fm, body + "\n", nil
}

// declarations reads the directives key: a list of filtered type names.
// Lines are the file's: the front matter starts on its second line.
func declarations(name string, v *yaml.Node) (types, problems []string) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, []string{fmt.Sprintf("%s:%d: directives is a list of directive types, such as 'directives: [TESTING.md, CHECKLIST.md]': nothing is declared until it is one", name, v.Line+1)}
	}
	for _, item := range v.Content {
		if item.Kind != yaml.ScalarNode {
			problems = append(problems, fmt.Sprintf("%s:%d: each entry of directives is a file name such as TESTING.md: ignored", name, item.Line+1))
			continue
		}
		n := strings.TrimSpace(item.Value)
		if err := directives.CheckDeclared(n); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v (ignored until fixed)", name, item.Line+1, err))
			continue
		}
		if !slices.Contains(types, n) {
			types = append(types, n)
		}
	}
	return types, problems
}

// Validate checks a tier's new content before it is saved.
func Validate(name, tier string, data []byte) error {
	if err := ValidTier(tier); err != nil {
		return err
	}
	label := name + "/" + tier + ".md"
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return fmt.Errorf("%s: not UTF-8 text", label)
	}
	max := MaxCore
	if tier == Extended {
		max = MaxExtended
	}
	if len(data) > max {
		return fmt.Errorf("%s: %d bytes; at most %d", label, len(data), max)
	}
	if tier == Core {
		fm, _, err := parseCore(label, data)
		if err == nil && len(fm.Problems) > 0 {
			err = errors.New(strings.Join(fm.Problems, "\n"))
		}
		return err
	}
	if strings.TrimSpace(string(data)) == "" {
		return fmt.Errorf("%s: empty", label)
	}
	return nil
}

// Save writes a tier of a skill, checked first. A new skill starts with
// its core.
func Save(ctx context.Context, home, name, tier string, data []byte) (string, error) {
	p, err := file(home, name, tier)
	if err != nil {
		return "", err
	}
	if err := Validate(name, tier, data); err != nil {
		return "", err
	}
	if tier == Extended {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), Core+".md")); err != nil {
			return "", fmt.Errorf("skill %q has no core.md: write its core first", name)
		}
	}
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a plain file: refused", p)
	}
	if err := safefile.MkdirRoot(home, 0o755); err != nil {
		return "", err
	}
	if err := safefile.MkdirAll(home, filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	unlock, err := jsonl.Lock(ctx, filepath.Join(home, "locks", "skills.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	return p, jsonl.WriteFileAtomic(home, p, data, 0o644)
}

// Read returns one tier's text as the file holds it.
func Read(home, name, tier string) (string, error) {
	p, err := file(home, name, tier)
	if err != nil {
		return "", err
	}
	data, err := readRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("skill %q has no %s.md (%s): %w", name, tier, p, fs.ErrNotExist)
	}
	return string(data), err
}

// Declaration is what the skill of a task's stage declares of the
// directive system: the filtered types an agent at that stage is given in
// full.
type Declaration struct {
	Stage      string   `json:"stage"`
	Skill      string   `json:"skill,omitempty"`
	Directives []string `json:"directives"`
	// Problems are declarations not taken (file:line: why).
	Problems []string `json:"problems,omitempty"`
}

// Declared reads what the skill of stage declares (skills.stages names
// it). It reads core.md's front matter and nothing else, since the
// post-tool-use hook asks on every call of a session with a task; a
// default skill not seeded yet declares what its default does, as the
// seeding would write it. A stage without a skill (the Stop hook's, or
// one devlearn does not know) declares nothing.
func Declared(home string, stages *config.SkillStages, stage string) (*Declaration, error) {
	d := &Declaration{Stage: stage, Directives: []string{}}
	name, ok := stages.For(stage)
	if !ok || name == "" {
		return d, nil
	}
	d.Skill = name
	p, err := file(home, name, Core)
	if err != nil {
		return d, err
	}
	data, err := readRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		def, ok := defaultText(name, Core)
		if !ok {
			return d, fmt.Errorf("no skill %q for the %s stage (%s does not exist): its directives are named only", name, stage, p)
		}
		data, err = def, nil
	}
	if err != nil {
		return d, err
	}
	fm, _, err := parseCore(p, data)
	if err != nil {
		return d, err
	}
	d.Directives = nonNil(fm.Directives)
	d.Problems = fm.Problems
	return d, nil
}
