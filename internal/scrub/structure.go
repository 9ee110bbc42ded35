package scrub

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/gitx"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// structuralWords are the words devlearn's own file formats are made of:
// the names of every field of the logs, the audit log, the manifest and
// entry front matter, the ops, types and statuses, and the labels of the
// knowledge files. A scrub that matched one would rewrite the structure
// of those files, not a secret, and no copy of what it replaced is kept.
var structuralWords = sync.OnceValue(func() []string {
	words := map[string]bool{}
	for _, v := range []any{observe.Event{}, observe.Mark{}, evolve.Entry{}, manifest.Manifest{}, knowledge.Entry{}, gitx.TaskEvent{}} {
		fieldNames(reflect.TypeOf(v), words, map[reflect.Type]bool{})
	}
	for _, list := range [][]string{
		lesson.Names(),
		{observe.OpObserve, observe.OpSnapshot, observe.OpIntent, observe.OpCreated, observe.OpPenalize, observe.OpDeprecate,
			observe.OpRestore, observe.OpPromote, observe.OpFlag, observe.OpCount, observe.OpTombstone},
		{observe.Observing, observe.Ready, observe.Created, observe.Deprecated, observe.FlagStale, observe.FlagSoftCap, observe.FlagReview},
		knowledge.Kinds, knowledge.Categories, knowledge.Priorities, knowledge.Statuses, knowledge.Origins,
		{knowfile.SourcePrefix, "ADR-", "PF-", "Area", "Consequences", "Context", "Date", "Decision", "Impact", "Iron Law",
			"Issue", "Resolution", "Source", "Status", "Accepted", "Active", "description", "name",
			project.MemoryDir, project.CommandsDir, project.SkillsDir, "SKILL.md", "[REDACTED:"},
	} {
		for _, w := range list {
			words[w] = true
		}
	}
	out := make([]string, 0, len(words))
	for w := range words {
		if w != "" && w != "-" {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
})

// fieldNames adds the JSON and YAML names of t's fields, and of the
// structs they hold, to words.
func fieldNames(t reflect.Type, words map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		for _, tag := range []string{"json", "yaml"} {
			if name, _, _ := strings.Cut(f.Tag.Get(tag), ","); name != "" {
				words[name] = true
			}
		}
		fieldNames(f.Type, words, seen)
	}
}

// Structural returns a word of devlearn's own file formats that the scrub
// would match, or "": asking to scrub "observe" or "status" is a mistake
// that would break every log and knowledge file, not a secret to remove.
func (m *Matcher) Structural() string {
	for _, w := range structuralWords() {
		if len(m.find(w)) > 0 {
			return w
		}
	}
	return ""
}
