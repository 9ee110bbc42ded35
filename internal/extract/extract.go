// Package extract turns a session's channels into observations, offline,
// in one direction a reader can follow:
//
//  1. who said it: the transcript reader (internal/transcript) has told
//     the person's own words from what they pasted, from tool results,
//     from Claude Code's wrappers and hook output, and from the agent;
//     it has redacted every text where it entered, so nothing here
//     handles a secret (conversation.go lays the session out as turns);
//  2. signals: what the person's words and the conversation around them
//     say, in any language of the phrase tables (internal/extract/lang):
//     a request to remember, a rule, a reproach, a contrast, a rejection
//     of what the agent just did, the agent owning up right after
//     (signals.go); a command that fails and the steps that make it pass
//     (failures.go); the same instruction in another session
//     (repeated.go);
//  3. the lesson, stated as a sentence a future agent can act on, with
//     the person's words kept as evidence (lesson.go);
//  4. the observation: its type, details and id (observation.go).
//
// [PROCESS_KNOWLEDGE] blocks (knowledge.go) are read beside this pipeline.
package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/redact"
)

// Observation is one observation in the shape `devlearn observe` reads, plus
// what the event id is made of (session, record uuid, extractor).
type Observation struct {
	ID         string   `json:"id,omitempty"` // observe.ID(type, pattern)
	Type       string   `json:"type"`         // workflow | procedural | decision | pitfall
	Pattern    string   `json:"pattern"`
	Details    string   `json:"details"`
	Evidence   []string `json:"evidence"`
	QualityOK  bool     `json:"quality_ok"`
	SessionID  string   `json:"session_id"`
	RecordUUID string   `json:"record_uuid"`
	Extractor  string   `json:"extractor"`
	Timestamp  string   `json:"timestamp,omitempty"` // of the record: when it was seen, not when it was ingested
	// Class is the signal the lesson was read from (Class* constants).
	Class string `json:"class,omitempty"`
	// Explicit: the person asked for it to be kept ("remember", "from now
	// on", "always", "never", "add to CLAUDE.md"): their own decision.
	Explicit bool `json:"explicit,omitempty"`
	// Again: a turn of the person no rule kept, a sighting only of a
	// lesson the log already holds in the person's words, joined to the
	// one it says again and dropped when there is none (SaidAgain). Its
	// Type is that lesson's.
	Again bool `json:"again,omitempty"`
}

// Extractor names, recorded in each observation (and part of its event id).
const (
	ExtractorCorrection      = "correction"       // what the person said, read in the conversation
	ExtractorFailureFix      = "failure-fix"      // a command that failed and what made it pass
	ExtractorRepeatedRequest = "repeated-request" // an instruction seen in several sessions
	ExtractorKnowledgeBlock  = "knowledge-block"
	ExtractorSaidAgain       = "said-again" // a lesson the person said in an earlier session, said again
)

// Signal classes, as Observation.Class.
const (
	ClassRule         = "imperative"   // a rule, a prohibition, a reproach
	ClassContrast     = "contrast"     // one way chosen over another
	ClassRemember     = "remember"     // a request to keep a rule
	ClassRejection    = "rejection"    // no to what the agent just did
	ClassAcknowledged = "acknowledged" // the agent owned up right after
	ClassFact         = "fact"         // how things are, introduced as such ("FYI", "pour info")
	ClassRepeated     = "repeated"     // the same instruction in another session
	ClassFailureFix   = "failure-fix"  // a failing command: its fix, or a path that stays missing
)

// Observation types, as the log knows them.
const (
	Workflow   = observe.Workflow
	Procedural = observe.Procedural
	Decision   = observe.Decision
	Pitfall    = observe.Pitfall
)

// Options are shared by every extractor.
type Options struct {
	// Redact scrubs secrets from [PROCESS_KNOWLEDGE] blocks parsed from a
	// text that did not come through the transcript reader (the Stop
	// hook's message); channels are redacted where they are read. nil
	// leaves text as is.
	Redact func(string) string
	// MinSessions is how many distinct sessions make a request "repeated"
	// and a path not found stale. 0 means 2.
	MinSessions int
	// Root is the repository the sessions belong to: the files a lesson
	// names are stored relative to it ("" keeps them relative to the
	// session's folder).
	Root string
}

func (o Options) redact(s string) string {
	if o.Redact == nil {
		return s
	}
	return o.Redact(s)
}

func (o Options) minSessions() int {
	if o.MinSessions <= 0 {
		return 2
	}
	return o.MinSessions
}

const (
	maxQuote   = 160 // runes in one evidence quote
	maxPattern = 200 // runes in a pattern: a lesson is a sentence or two
	// maxLesson is how much of a lesson its details keep: told at length
	// (the tools of a job, a spec's rules), a lesson cut at the pattern's
	// length would lose its condition or its object; the pattern is the
	// headline, the details say it whole.
	maxLesson = 800
)

// dedupe keeps the first observation of each id and folds the evidence of
// later ones into it: two sightings of the same lesson in one session are
// one sighting.
func dedupe(obs []Observation) []Observation {
	seen := map[string]int{}
	var out []Observation
	for _, o := range obs {
		o.ID = observe.ID(o.Type, o.Pattern)
		if i, ok := seen[o.ID]; ok {
			out[i].Evidence = MergeEvidence(out[i].Evidence, o.Evidence)
			out[i].QualityOK = out[i].QualityOK || o.QualityOK
			out[i].Explicit = out[i].Explicit || o.Explicit
			continue
		}
		seen[o.ID] = len(out)
		out = append(out, o)
	}
	return out
}

// MergeEvidence adds to a the pieces of b it lacks, up to the evidence an
// observation keeps (observe.MaxEvidence): every extractor folds two
// sightings of one lesson the same way.
func MergeEvidence(a, b []string) []string {
	for _, e := range b {
		if len(a) >= observe.MaxEvidence {
			break
		}
		if !slices.Contains(a, e) {
			a = append(a, e)
		}
	}
	return a
}

// PersonQuote begins every evidence quote of the person's words, the
// rules' and a model's alike.
const PersonQuote = "user: "

// quote makes one evidence quote: on one line, short.

func quote(speaker, s string) string {
	return speaker + ": " + clip(strings.Join(strings.Fields(s), " "), maxQuote)
}

// clip shortens s to at most n runes, at a word boundary when there is one
// near, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := redact.WholePlaceholders(string(r))
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-=") + "…"
}

// words counts the words of s; in a script that does not separate words
// (Chinese, Japanese), every three of its letters count as one.
func words(s string) int {
	n, cjk := 0, 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, isCJK) < 0 {
			n++
			continue
		}
		for _, r := range f {
			if isCJK(r) {
				cjk++
			}
		}
		if strings.IndexFunc(f, func(r rune) bool { return r < 0x250 && unicode.IsLetter(r) }) >= 0 {
			n++
		}
	}
	return n + (cjk+2)/3
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isHanKana: Chinese or Japanese, which end a sentence with 。.
func isHanKana(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) }

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }
