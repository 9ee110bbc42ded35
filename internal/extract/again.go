package extract

import (
	"strings"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A person who says again, in a later session, what they taught in an
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
		from[o.RecordUUID] = true
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
			Details:    "steps: " + field(own) + "; source: the person said again what they had taught in an earlier session",
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
