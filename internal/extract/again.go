package extract

import (
	"strings"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A person who says again, in another session, what they taught in an
// earlier one is the surest sign the lesson recurs, and the second time
// is often said without what let a rule read the first (no "always", no
// "you're right" after it: "em portugues" where the first was a
// correction, a prompt log that holds no replies). One session cannot
// tell; the log can. SaidAgain offers the turns no rule kept, and the
// ingest joins each to the lesson of the person's words it is the same as
// (identity.Same), or drops it.

// minAgainWords and maxAgainWords bound a turn offered: fewer words say
// too little to be one lesson rather than another ("yes, do it"); more
// are a task's description, which holds many things.
const (
	minAgainWords = 4
	maxAgainWords = maxRequestWords
)

// SaidAgain are the person's turns of a session that none of kept came
// from, as sightings to be joined to a known lesson (Observation.Again).
// Questions are not offered: asking whether is not saying so.
func SaidAgain(ch *transcript.Channels, kept []Observation) []Observation {
	from := map[string]bool{}
	for _, o := range kept {
		if o.RecordUUID != "" {
			from[o.RecordUUID] = true
		}
	}
	var out []Observation
	seen := map[string]bool{}
	for _, u := range ch.UserSignals {
		own := strings.TrimSpace(u.Own)
		if own == "" || from[u.UUID] || seen[own] {
			continue
		}
		if n := words(own); n < minAgainWords || n > maxAgainWords || lang.EndsAsking(own) {
			continue
		}
		seen[own] = true
		out = append(out, Observation{
			Pattern:    clip(own, maxPattern),
			Evidence:   []string{quote("user", own)},
			QualityOK:  true,
			SessionID:  u.SessionID,
			RecordUUID: u.UUID,
			Timestamp:  u.Timestamp,
			Extractor:  ExtractorSaidAgain,
			Class:      ClassRepeated,
			Again:      true,
		})
	}
	return out
}

// Narrows reports a turn that says a lesson for now, or for one thing,
// where the lesson says it for good or for everything: "For now, write
// the commit messages in English" is not the standing rule said again,
// nor is "This page must work on mobile" for "Every page must work on
// mobile". The rules kept such a turn out for that; joining it to the
// lesson by its words would put it back.
func Narrows(turn, lesson string) bool {
	t, l := lang.Fold(strings.TrimSpace(turn)), lang.Fold(lesson)
	has := func(x *lang.Text, kinds ...string) bool {
		for _, k := range kinds {
			if hasKind(x, k, 0, len(x.Low())) {
				return true
			}
		}
		return false
	}
	if has(t, lang.Temporary) && !has(l, lang.Temporary) {
		return true
	}
	return has(l, lang.General, lang.Always) && !has(t, lang.General, lang.Always) && (has(t, lang.ThisFile) || opens(t, lang.Referent))
}

// opens reports a text whose first words are a phrase of kind: "This
// page …", not "… hand it back".
func opens(x *lang.Text, kind string) bool {
	for _, tb := range lang.Tables() {
		if m := tb.Find(x, kind, 0, len(x.Low())); len(m) > 0 && m[0].Start == 0 {
			return true
		}
	}
	return false
}

// SameStance reports whether two texts both say something is not (or is
// not to be done), or neither does: "uploads no longer go through the
// slow queue" holds the words of "uploads go through the slow queue" and
// takes it back.
func SameStance(a, b string) bool { return denies(a) == denies(b) }

// A denying word counts in the language the text reads as: Spanish "no"
// is Portuguese for "in the" ("juntos no checkout").
func denies(s string) bool {
	x := lang.Fold(s)
	foreign := lang.ForeignTo(x, 0, len(x.Low()))
	for _, tb := range lang.Tables() {
		if tb.Has(x, lang.Denies, 0, len(x.Low())) && !foreign(tb) {
			return true
		}
	}
	return false
}
