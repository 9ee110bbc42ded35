// Package extract turns a transcript's channels into observations, offline
// and by rules: the person correcting the agent, explicit lessons,
// [PROCESS_KNOWLEDGE] blocks, and requests and failures that recur across
// sessions. Precision matters more than recall: a rule fires only on the
// person's own prose, never inside code, quotes or the agent's words (except
// where the agent labels a lesson as one), and the labelled set in
// testdata/extract holds every rule to at least 0.9 precision.
package extract

import (
	"github.com/devlearn/devlearn/internal/redact"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/transcript"
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
}

// Extractor names, recorded in each observation.
const (
	ExtractorCorrection      = "correction"
	ExtractorLesson          = "lesson"
	ExtractorKnowledgeBlock  = "knowledge-block"
	ExtractorRepeatedRequest = "repeated-request"
	ExtractorRepeatedFailure = "repeated-failure"
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
	// Redact scrubs secrets from every text the extractors output
	// (patterns, details, evidence, knowledge blocks). nil leaves text as is.
	Redact func(string) string
	// MinSessions is how many distinct sessions make a request or a failure
	// "repeated". 0 means 2.
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

// prepare returns ch with every text redacted (a copy; ch is not changed),
// so that everything derived from it — normalised keys, patterns cut to
// length, command prefixes — is derived from redacted text. Redacting only
// the outputs would miss a secret cut in half by a length limit, or
// normalised out of the redactor's sight.
func prepare(ch *transcript.Channels, opt Options) *transcript.Channels {
	if opt.Redact == nil {
		return ch
	}
	c := *ch
	c.UserSignals = slices.Clone(ch.UserSignals)
	for i := range c.UserSignals {
		c.UserSignals[i].Text = opt.Redact(c.UserSignals[i].Text)
	}
	c.DialogPairs = slices.Clone(ch.DialogPairs)
	for i, p := range c.DialogPairs {
		c.DialogPairs[i].Assistant = opt.Redact(p.Assistant)
		if p.Reply != nil {
			r := *p.Reply
			r.Text = opt.Redact(r.Text)
			c.DialogPairs[i].Reply = &r
		}
	}
	c.Tools = slices.Clone(ch.Tools)
	for i, t := range c.Tools {
		c.Tools[i].Command = opt.Redact(t.Command)
		c.Tools[i].Error = opt.Redact(t.Error)
		c.Tools[i].Paths = slices.Clone(t.Paths)
		for j, p := range t.Paths {
			c.Tools[i].Paths[j] = opt.Redact(p)
		}
	}
	return &c
}

func (o Options) minSessions() int {
	if o.MinSessions <= 0 {
		return 2
	}
	return o.MinSessions
}

const (
	maxQuote   = 160 // runes in one evidence quote
	maxPattern = 100 // runes in a pattern
)

// dedupe keeps the first observation of each Key and folds the evidence of
// later ones into it: two corrections of the same lesson in one session are
// one sighting.
func dedupe(obs []Observation) []Observation {
	seen := map[string]int{}
	var out []Observation
	for _, o := range obs {
		o.ID = observe.ID(o.Type, o.Pattern)
		k := o.ID
		if i, ok := seen[k]; ok {
			out[i].Evidence = MergeEvidence(out[i].Evidence, o.Evidence)
			out[i].QualityOK = out[i].QualityOK || o.QualityOK
			continue
		}
		seen[k] = len(out)
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

// quote makes one evidence quote: redacted, on one line, short.
func (o Options) quote(speaker, s string) string {
	s = strings.Join(strings.Fields(o.redact(s)), " ")
	return speaker + ": " + clip(s, maxQuote)
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

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
