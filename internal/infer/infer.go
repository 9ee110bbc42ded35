// Package infer gives a lesson stated in words the priority, kind and
// triggers of a knowledge entry, by the triads design's rules (docs/capture.md, "Priority, kind and
// triggers"): priority from who corrected whom, how often and at what stake;
// kind from how the lesson is phrased; triggers from what it names (files,
// commands, tools), so that it is served before the calls it is about and
// not only where it was said. The words it looks for are data
// (words.yaml), in every language devlearn's tables know.
package infer

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/words"
)

//go:embed words.yaml
var wordsYAML []byte

// wordTables is words.yaml, read on first use: the hooks that never infer
// anything do not pay for it.
type wordTables struct {
	Impact struct {
		Production []string `yaml:"production"`
		Quality    []string `yaml:"quality"`
		Style      []string `yaml:"style"`
	} `yaml:"impact"`
	ExplicitCritical []string            `yaml:"explicit_critical"`
	Kind             map[string][]string `yaml:"kind"`
	Actions          []string            `yaml:"actions"`
	Commands         map[string][]string `yaml:"commands"`
	Tools            []string            `yaml:"tools"`
}

var (
	loadOnce sync.Once
	table    *wordTables
)

func tables() *wordTables {
	loadOnce.Do(func() {
		w := &wordTables{}
		if err := yaml.Unmarshal(wordsYAML, w); err != nil {
			panic(fmt.Sprintf("infer: words.yaml: %v", err)) // embedded: a test reads it
		}
		table = w
	})
	return table
}

// text is a lesson prepared for matching: its words (Latin scripts) and
// its lower-cased text (Chinese and Japanese, matched anywhere).
type text struct {
	hay   *words.Haystack
	lower string
}

func prepare(s string) text {
	return text{hay: words.NewHaystack(s), lower: strings.ToLower(s)}
}

// has reports whether a phrase of the tables is in t.
func (t text) has(phrase string) bool {
	if strings.IndexFunc(phrase, cjk) >= 0 {
		return strings.Contains(t.lower, strings.ToLower(phrase))
	}
	return t.hay.Has(words.Phrase(phrase))
}

func (t text) any(phrases []string) bool {
	return slices.ContainsFunc(phrases, t.has)
}

func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Impact levels (the triads design's classify_impact_level).
const (
	Production = "production"
	Quality    = "quality"
	Style      = "style"
	Info       = "info"
)

// Impact classifies what is at stake in a lesson's context.
func Impact(context string) string {
	t, w := prepare(context), tables()
	switch {
	case t.any(w.Impact.Production):
		return Production
	case t.any(w.Impact.Quality):
		return Quality
	case t.any(w.Impact.Style):
		return Style
	}
	return Info
}

// Origins of a lesson, for its priority (the triads design's correction types).
const (
	// Correction: the person had to correct the agent, or asked it to
	// keep a rule.
	Correction = "user_correction"
	// Explicit: the agent stated a lesson of its own (a Stop block).
	Explicit = "explicit_lesson"
)

// Lesson is what priority is inferred from.
type Lesson struct {
	Origin string // Correction or Explicit
	// Context is the lesson and the words around it.
	Context string
	// Sessions is how many sessions the person gave this lesson in (this
	// one included).
	Sessions int
}

// Priority is the triads design's decision tree: a lesson the person gives again in
// another session is CRITICAL, so is one the person calls critical; a
// correction is CRITICAL when production is at stake, HIGH for quality,
// MEDIUM otherwise; the agent's own lesson is HIGH for production,
// MEDIUM otherwise.
func Priority(l Lesson) string {
	if l.Sessions >= 2 {
		return "CRITICAL"
	}
	if l.Origin == Correction && prepare(l.Context).any(tables().ExplicitCritical) {
		return "CRITICAL"
	}
	impact := Impact(l.Context)
	if l.Origin == Correction {
		switch impact {
		case Production:
			return "CRITICAL"
		case Quality:
			return "HIGH"
		}
		return "MEDIUM"
	}
	if impact == Production {
		return "HIGH"
	}
	return "MEDIUM"
}

// Kind is infer_process_type: a checklist when the lesson lists what else
// needs doing, a pattern for "when X, do Y", a warning for a risk, a
// requirement for a must; a pattern when nothing says otherwise.
func Kind(lesson string) string {
	t, w := prepare(lesson), tables()
	for _, k := range []string{"checklist", "pattern", "warning", "requirement"} {
		if t.any(w.Kind[k]) {
			return k
		}
	}
	return "pattern"
}

// notFiles are names that look like files and are products.
var notFiles = []string{"node.js", "next.js", "vue.js", "react.js", "nuxt.js", "express.js", "three.js", "d3.js", "asp.net", "vue.config"}

// Triggers are infer_trigger_conditions on a lesson's own words: the
// files it names (generalised, so that "plugin.json" is any plugin.json),
// the commands it names ("git push", or "git" when no subcommand is
// named), the tools it names, and the triads design's action verbs. A lesson that
// names none of them gets none: it is listed in the index, not served by
// relevance.
func Triggers(lesson string) knowledge.Triggers {
	var tr knowledge.Triggers
	w := tables()
	add := func(list *[]string, s string) {
		if s != "" && !slices.Contains(*list, s) && len(*list) < 10 {
			*list = append(*list, s)
		}
	}
	for _, f := range filesNamed(lesson) {
		add(&tr.Files, GeneralizePath(f))
	}
	for _, c := range commandsNamed(lesson) {
		add(&tr.Actions, c)
	}
	t := prepare(lesson)
	for _, a := range w.Actions {
		if t.has(a) {
			add(&tr.Actions, a)
		}
	}
	for _, tool := range w.Tools {
		if toolNamed(lesson, tool) {
			add(&tr.Tools, tool)
		}
	}
	if len(tr.Files) > 0 {
		for _, tool := range []string{"Write", "Edit", "MultiEdit"} {
			add(&tr.Tools, tool)
		}
	}
	if len(commandsNamed(lesson)) > 0 {
		add(&tr.Tools, "Bash")
	}
	return tr
}

// toolNamed: the tool's name as a word of its own, in its own case ("the
// Edit tool"), not the verb ("edit the file").
func toolNamed(s, tool string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], tool)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(s[j-1])
		after := j+len(tool) == len(s) || !isWordByte(s[j+len(tool)])
		if before && after {
			return true
		}
		i = j + len(tool)
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// The patterns are compiled on first use, with the tables: every devlearn
// process links this package, and most never infer anything.
var (
	// token splits text into the words paths and commands are found in.
	token = lazyRegexp("[^\\s\"'`()<>\\[\\]{},;，。、；：（）「」『』]+")
	// codeSpan is text in backticks.
	codeSpan = lazyRegexp("`([^`\n]+)`")
)

func lazyRegexp(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// filesNamed lists the words of s that are paths or file names.
func filesNamed(s string) []string {
	var out []string
	for _, w := range token().FindAllString(s, -1) {
		w = strings.TrimRight(w, ".:!?")
		w = strings.TrimLeft(w, "@")
		switch {
		case w == "", strings.Contains(w, "://"), strings.HasPrefix(w, "-"),
			slices.Contains(notFiles, strings.ToLower(w)), !words.PathLike(w),
			strings.HasPrefix(w, "$"), strings.Contains(w, "="):
			continue
		}
		if strings.IndexFunc(w, cjk) >= 0 {
			continue
		}
		out = append(out, w)
	}
	return out
}

// ambiguous are command names that are also everyday English words: they
// count only in backticks or before a subcommand ("go test", not "go
// ahead").
var ambiguous = []string{"go", "make", "black", "node", "swift", "bundle", "rake", "helm", "python", "python3", "make", "rails"}

// commandsNamed lists the commands a lesson names, as action keywords.
func commandsNamed(s string) []string {
	w := tables()
	var out []string
	add := func(c string) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	inCode := map[int]bool{}
	for _, m := range codeSpan().FindAllStringSubmatchIndex(s, -1) {
		fields := strings.Fields(s[m[2]:m[3]])
		for len(fields) > 0 && (fields[0] == "sudo" || strings.Contains(fields[0], "=")) {
			fields = fields[1:]
		}
		if len(fields) == 0 {
			continue
		}
		name := strings.ToLower(fields[0])
		if _, known := w.Commands[name]; !known && !plainWord(name) {
			continue
		}
		for i := m[2]; i < m[3]; i++ {
			inCode[i] = true
		}
		if len(fields) > 1 && plainWord(fields[1]) {
			add(name + " " + strings.ToLower(fields[1]))
		} else {
			add(name)
		}
	}
	lower := strings.ToLower(s)
	words := token().FindAllStringIndex(lower, -1)
	for i, loc := range words {
		if inCode[loc[0]] {
			continue
		}
		name := strings.TrimRight(lower[loc[0]:loc[1]], ".:!?")
		subs, known := w.Commands[name]
		if !known {
			continue
		}
		next := ""
		if i+1 < len(words) {
			next = strings.TrimRight(lower[words[i+1][0]:words[i+1][1]], ".:!?")
		}
		switch {
		case slices.Contains(subs, next):
			add(name + " " + next)
		case !slices.Contains(ambiguous, name):
			add(name)
		}
	}
	return out
}

// plainWord is a subcommand or a make target: letters, digits, dashes.
func plainWord(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}

// GeneralizePath is the triads design's generalize_file_path: a file is that file
// anywhere ("src/plugin.json" → "**/plugin.json"), a file whose name says
// "version" is any such file of its type ("**/*version*.py"), a folder is
// everything under it, and a glob stays as it is.
func GeneralizePath(p string) string {
	p = strings.TrimPrefix(p, "./")
	if strings.ContainsAny(p, "*?[{") {
		return p
	}
	if strings.HasSuffix(p, "/") {
		dir := strings.Trim(p, "/")
		if strings.HasPrefix(p, "/") || dir == "" {
			// An absolute folder: the project's copy of its last part.
			if i := strings.LastIndexByte(dir, '/'); i >= 0 {
				dir = dir[i+1:]
			}
			if dir == "" {
				return ""
			}
			return "**/" + dir + "/**"
		}
		return dir + "/**"
	}
	base := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
	}
	if base == "" {
		return ""
	}
	if strings.Contains(strings.ToLower(base), "version") {
		ext := ""
		if i := strings.LastIndexByte(base, '.'); i > 0 {
			ext = base[i:]
		}
		return "**/*version*" + ext
	}
	if dir := path.Base(path.Dir(p)); everyFolders(base) && dir != "." && dir != "/" {
		// A name most folders hold says which file only with its folder:
		// ".agent/README.md" is that folder's readme, not every readme.
		return "**/" + dir + "/" + base
	}
	return "**/" + base
}

// everyFolders reports a file name that most folders of a project may
// hold: a readme, an index or entry point, a package marker.
func everyFolders(base string) bool {
	name := strings.ToLower(base)
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	switch name {
	case "readme", "index", "__init__", "main", "mod":
		return true
	}
	return false
}

// Complete fills what an agent's [PROCESS_KNOWLEDGE] block left out, by
// the rules above: its priority (the agent's own lesson, at the stake its
// words say) and its triggers (what it names). written is the block as
// the agent wrote it, to tell a key left out from one given its default;
// what the block says is never changed.
func Complete(e *knowledge.Entry, written map[string]any) {
	text := strings.Join([]string{e.Summary, e.Process.Text(), e.Body}, "\n")
	if _, ok := written["priority"]; !ok {
		e.Priority = Priority(Lesson{Origin: Explicit, Context: text, Sessions: 1})
	}
	_, t1 := written["triggers"]
	_, t2 := written["trigger_conditions"]
	if !t1 && !t2 {
		e.Triggers = Triggers(text)
	}
}
