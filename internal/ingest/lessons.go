package ingest

import (
	"slices"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/observe"
)

// lessonIndex finds, among the lessons the log holds, the one a sighting
// is (identity.Index): the same lesson in other words, or from another
// worktree or branch. Not one it takes back: "uploads no longer go
// through the slow queue" holds every word of "uploads go through the
// slow queue" (extract.SameStance).
type lessonIndex struct {
	x       *identity.Index
	pattern map[string]string // by id: its first words, as the index knows it
	types   []string
}

// knownLessons indexes the observations of the log by what they say.
func knownLessons(existing []observe.Observation) *lessonIndex {
	l := &lessonIndex{x: identity.NewIndex(), pattern: map[string]string{}}
	for _, o := range existing {
		l.add(o.ID, o.Type, o.Pattern)
	}
	return l
}

// saidLessons indexes the lessons the log holds in the person's own
// words, for a turn said again to join (extract.SaidAgain): a failure's
// lesson is the agent's commands, not something the person can say again.
func saidLessons(existing []observe.Observation) *lessonIndex {
	l := &lessonIndex{x: identity.NewIndex(), pattern: map[string]string{}}
	for _, o := range existing {
		if o.QualityOK && quotesPerson(o.Evidence) {
			l.add(o.ID, o.Type, o.Pattern)
		}
	}
	return l
}

func (l *lessonIndex) add(id, typ, pattern string) {
	if _, ok := l.pattern[id]; ok {
		return
	}
	l.x.Add(id, typ, pattern)
	l.pattern[id] = pattern
	if !slices.Contains(l.types, typ) {
		l.types = append(l.types, typ)
		slices.Sort(l.types)
	}
}

// same are the lessons of typ pattern is, most alike first.
func (l *lessonIndex) same(typ, pattern string) []string {
	var out []string
	for _, id := range l.x.Find(typ, pattern) {
		if extract.SameStance(pattern, l.pattern[id]) {
			out = append(out, id)
		}
	}
	return out
}

// said is the lesson a turn says again, of whatever type, and its type:
// the same lesson, and the turn saying it (identity.Says), not a fragment
// of it, nor for now or for one thing only (extract.Narrows). Every lesson of each type is scanned, which a worker run can
// afford, not a hook.
func (l *lessonIndex) said(text string) (id, typ string, ok bool) {
	k := identity.KeyOf(text)
	for _, t := range l.types {
		for _, id := range l.same(t, text) {
			if identity.Says(k, identity.KeyOf(l.pattern[id])) && !extract.Narrows(text, l.pattern[id]) {
				return id, t, true
			}
		}
	}
	return "", "", false
}
