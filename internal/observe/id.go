// Package observe is the observation model: the events of the log, their
// fold into observations, the promotion thresholds and the status machine.
//
// The log is a set of lines, each a small piece of state; folding joins
// them. The join is commutative, associative and idempotent, so the state
// does not depend on line order, a duplicated line changes nothing, two
// branches merge as a set union of lines, and compaction (which replaces
// the lines of an observation by their join) folds to the same state.
package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/devlearn/devlearn/internal/textkey"

	"github.com/devlearn/devlearn/internal/lesson"
)

// The observation types devlearn has always had; what each becomes, and
// every other property of a type, is in the lesson table.
const (
	Workflow   = lesson.Workflow
	Procedural = lesson.Procedural
	Decision   = lesson.Decision
	Pitfall    = lesson.Pitfall
)

// IDPattern is the shape of an observation id a caller may give (contract
// 6 computes obs_ and 12 hex digits; devflow and people wrote others).
const IDPattern = `^obs_[a-z0-9]{6,40}$`

// ValidID reports whether id matches IDPattern. It is written out because
// the bounded repetition compiles into forty states, which every process
// paid for at start-up although only observe and the extractors check ids.
func ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, "obs_")
	if !ok || len(rest) < 6 || len(rest) > 40 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ValidType reports whether t is an observation type.
func ValidType(t string) bool { return lesson.Index(t) >= 0 }

// ID is the observation id of the observation ids rule (docs/architecture.md): "obs_" and the first 12 hex
// digits of sha256(type + "\n" + normalised pattern). The same lesson seen
// by any extractor on any machine gets the same id.
func ID(typ, pattern string) string {
	sum := sha256.Sum256([]byte(typ + "\n" + textkey.Normalize(pattern)))
	return "obs_" + hex.EncodeToString(sum[:6])
}

// eventID derives a stable event id from its parts, so that recording the
// same thing twice yields the same id and folds once.
func eventID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return "e_" + hex.EncodeToString(h.Sum(nil)[:8])
}

// StableID is an event id derived from a key, for events that must count
// once however often they are recorded (a deletion found twice, say).
func StableID(key string) string { return eventID(key) }
