// Package redact replaces secrets in text with typed placeholders such as
// [REDACTED:github-pat] before anything devlearn learned is stored.
//
// The rules are gitleaks' published rule set (vendored as data in gitleaks/,
// MIT) plus a few of devlearn's own for what gitleaks leaves to file paths
// or does not cover: passwords in URLs, Authorization and bearer headers,
// and low-entropy passwords assigned to password-like names. A keyword
// prefilter decides which rules run, and each rule compiles on first use:
// text without any rule's keyword costs one pass over its bytes, and each
// keyword found costs a short attempt of its rules there (see anchor.go).
//
// Placeholders are stable (one text per rule) and redaction is idempotent:
// a placeholder is never redacted again, and Text repeats until nothing is
// left to find.
//
// Limits, by choice: Text works on decoded text; in raw JSON, escaped
// quotes (\"api_key\": \"...\") hide the name from gitleaks' generic rule,
// so a JSON file is scrubbed by redacting its decoded strings. gitleaks'
// gitleaks:allow comments are not honoured (a stored lesson is not the
// reviewed source they annotate), and its five path-bound rules are left
// out. A secret with no name, operator or known format before it ("the
// password is hunter2") is not found, but for a password typed in answer to
// a question that asks for one (Answer).
package redact

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Finding is one secret in a string: s[Start:End] is the secret and Rule
// names its kind, the text of its placeholder.
type Finding struct {
	Rule       string
	Start, End int
}

// Placeholder is what replaces a secret found by rule.
func Placeholder(rule string) string { return placeholderOpen + rule + "]" }

const placeholderOpen = "[REDACTED:"

// Rule names of what a user asked to scrub (see Extra).
const (
	RuleLiteral = "literal"
	RulePattern = "pattern"
)

// MinLiteral is the shortest literal New accepts: scrubbing shorter strings
// would shred ordinary text.
const MinLiteral = 4

// Extra is what a user asks to scrub beyond the built-in rules
// (devlearn redact STRING | --pattern RE).
type Extra struct {
	// Literals are scrubbed wherever they occur, case-sensitively.
	Literals []string
	// Patterns are Go regular expressions (RE2 syntax). The secret is the
	// first non-empty capture group, or the whole match.
	Patterns []string
	// KeepPersonalData leaves e-mail addresses and phone numbers
	// (redact.personal_data: false); credentials are redacted all the same.
	KeepPersonalData bool
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	rules  []*rule
	always []int // rules without keywords: they run on every text
	index  keywordIndex
	// full runs every triggered rule over the whole text, as gitleaks
	// does; tests compare it with the fast path.
	full bool
}

var defaultRedactor = sync.OnceValue(func() *Redactor {
	r, err := New(Extra{})
	if err != nil {
		panic(err) // no extras, so no error; TestBuiltinRules compiles every built-in regex
	}
	return r
})

// Text returns s with every secret the built-in rules find replaced by its
// placeholder, e-mail addresses and phone numbers included. It returns s
// itself when there is nothing to redact.
func Text(s string) string { return defaultRedactor().Text(s) }

var keepPersonalRedactor = sync.OnceValue(func() *Redactor {
	r, err := New(Extra{KeepPersonalData: true})
	if err != nil {
		panic(err)
	}
	return r
})

// For returns Text, or, when personalData is false (the config's
// redact.personal_data), Text without the e-mail and phone rules.
func For(personalData bool) func(string) string {
	if personalData {
		return Text
	}
	return keepPersonalRedactor().Text
}

// Find returns the secrets the built-in rules find in s, in order and not
// overlapping. Text replaces these spans, then looks again (see
// Redactor.Text).
func Find(s string) []Finding { return defaultRedactor().Find(s) }

// New returns a Redactor with the built-in rules and the user's extra
// literals and patterns. It compiles the patterns (to report a bad one now)
// but none of the built-in rules.
func New(extra Extra) (*Redactor, error) {
	r := &Redactor{}
	for _, spec := range ownRules {
		if spec.personal && extra.KeepPersonalData {
			continue
		}
		r.addRule(&rule{spec: spec.ruleSpec, rank: spec.rank, pick: spec.pick, builtin: true})
	}
	for _, spec := range gitleaksRules {
		rank := rankSpecific
		if strings.Contains(spec.ID, "generic") {
			rank = rankGeneric
		}
		r.addRule(&rule{spec: spec, rank: rank, global: &gitleaksGlobalAllow, builtin: true})
	}
	for _, lit := range extra.Literals {
		if len(lit) < MinLiteral {
			return nil, fmt.Errorf("redact: %q is too short to scrub (at least %d bytes)", lit, MinLiteral)
		}
		if strings.Contains(lit, placeholderOpen) {
			return nil, fmt.Errorf("redact: %q contains a placeholder; scrub the secret itself", lit)
		}
		r.addRule(&rule{
			spec: ruleSpec{ID: RuleLiteral, Regex: regexp.QuoteMeta(lit), Keywords: []string{lit}},
			rank: rankUser,
		})
	}
	for _, pat := range extra.Patterns {
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("redact: pattern %q: %w", pat, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("redact: pattern %q matches the empty string", pat)
		}
		ru := &rule{spec: ruleSpec{ID: RulePattern, Regex: pat}, rank: rankUser}
		ru.reOnce.Do(func() { ru.re, ru.width = re, regexWidth(pat) })
		r.addRule(ru)
	}
	return r, nil
}

func (r *Redactor) addRule(ru *rule) {
	i := len(r.rules)
	r.rules = append(r.rules, ru)
	if len(ru.spec.Keywords) == 0 {
		r.always = append(r.always, i)
		return
	}
	for _, k := range ru.spec.Keywords {
		r.index.add(k, i)
	}
}

// Text returns s with every secret replaced by its placeholder, repeating
// until nothing more is found (a replacement can change what a rule sees),
// so that Text(Text(s)) == Text(s).
func (r *Redactor) Text(s string) string {
	// Each round replaces at least one byte that is not part of a
	// placeholder and never touches placeholders, so this ends; the bound
	// is a guard, not a limit reached in practice.
	for range 8 {
		found := r.Find(s)
		if len(found) == 0 {
			return s
		}
		var echoes []Finding // Rule holds the secret's text here
		for _, f := range found {
			if f.End-f.Start >= minEcho {
				echoes = append(echoes, Finding{Rule: f.Rule, Start: f.Start, End: f.End})
			}
		}
		// Longest first, so that a secret inside another is not replaced
		// within it first.
		slices.SortStableFunc(echoes, func(a, b Finding) int { return (b.End - b.Start) - (a.End - a.Start) })
		texts := make([]string, len(echoes))
		for i, f := range echoes {
			texts[i] = s[f.Start:f.End]
		}
		s = replace(s, found)
		// The rules recognise a secret by what stands around it
		// (password=…); the same secret elsewhere in the text, alone, is
		// still that secret.
		for i, f := range echoes {
			s = strings.ReplaceAll(s, texts[i], Placeholder(f.Rule))
			if t, at := withoutHidden(texts[i]); at != nil {
				s = strings.ReplaceAll(s, t, Placeholder(f.Rule)) // the same secret, written whole
			}
		}
	}
	return s
}

// minEcho is the shortest secret that is also replaced where it stands
// alone: shorter ones could be ordinary words.
const minEcho = 8

func replace(s string, found []Finding) string {
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, f := range found {
		b.WriteString(s[at:f.Start])
		b.WriteString(Placeholder(f.Rule))
		at = f.End
	}
	b.WriteString(s[at:])
	return b.String()
}

// candidate is a finding before overlaps are resolved.
type candidate struct {
	Finding
	rank int
}

// Find returns the secrets in s, in order and not overlapping. Where rules
// disagree on a span the findings are merged into one covering all of
// them, named by the most specific rule, so no part of a secret survives.
func (r *Redactor) Find(s string) []Finding {
	t, at := withoutHidden(s)
	if at == nil {
		return r.find(s)
	}
	found := r.find(t)
	for i := range found {
		// From the secret's first byte to its last as s holds them: what
		// is hidden inside it goes with it.
		found[i].Start, found[i].End = at[found[i].Start], at[found[i].End-1]+1
	}
	return found
}

// find is Find on a text without hidden characters.
func (r *Redactor) find(s string) []Finding {
	hits := r.index.scan(s, nil)
	cands := findShapes(s, nil)
	if len(hits) == 0 && len(r.always) == 0 && len(cands) == 0 {
		return nil
	}
	for _, i := range r.triggered(hits) {
		cands = r.rules[i].find(s, hits, i, &r.index, r.full, cands)
	}
	cands = dropPlaceholders(s, cands)
	if len(cands) == 0 {
		return nil
	}
	return merge(cands)
}

// triggered lists the rules to run on a text: those with a keyword among
// hits and those without keywords, in rule order.
func (r *Redactor) triggered(hits []hit) []int {
	out := slices.Clone(r.always)
	for _, h := range hits {
		out = append(out, r.index.rules[h.word]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// find runs one rule over the parts of s its keywords call for.
func (ru *rule) find(s string, hits []hit, self int, idx *keywordIndex, full bool, out []candidate) []candidate {
	if full || len(ru.spec.Keywords) == 0 {
		return ru.findIn(s, 0, len(s), out)
	}
	ru.prepare()
	if ru.core != nil {
		return ru.findCore(s, hits, self, idx, out)
	}
	for _, w := range ru.windows(s, hits, self, idx) {
		out = ru.findIn(s, w[0], w[1], out)
	}
	return out
}

// attemptCap bounds the text an anchored attempt is given, and so the work
// of an attempt that fails: a core like the JWT rule's (ey[a-zA-Z0-9]{17,}...)
// would otherwise read to the end of every letter run from every "ey" in
// it, which made 64 KB of "eyey..." take minutes.
const attemptCap = 4096

// findCore tries the rule's core anchored at each of its keyword hits and
// completes each match with its lead. Like a scan of the whole text, it
// skips hits inside a match it already made. When the hits are so dense
// that attempts could cost more than a linear scan (32 times the text),
// it scans for the core instead, which Go's regexp does in linear time.
func (ru *rule) findCore(s string, hits []hit, self int, idx *keywordIndex, out []candidate) []candidate {
	n, first := 0, -1
	for _, h := range hits {
		if slices.Contains(idx.rules[h.word], self) {
			if first < 0 {
				first = h.start
			}
			n++
		}
	}
	per := attemptCap
	if ru.coreWidth >= 0 {
		per = min(per, ru.coreWidth)
	}
	if n > 64 && n*per > 32*len(s) {
		return ru.scanCore(s, first, out)
	}
	next := 0
	for _, h := range hits {
		if h.start < next || !slices.Contains(idx.rules[h.word], self) {
			continue
		}
		// The cheap test first, on at most attemptCap bytes; captures only
		// on the rare text that passes. A match that reaches the cut may
		// be longer: try again on the whole rest.
		in := s[h.start:min(len(s), h.start+attemptCap)]
		loc := ru.core.FindStringIndex(in)
		if loc != nil && loc[1] == len(in) && h.start+len(in) < len(s) {
			loc = ru.core.FindStringIndex(s[h.start:])
		}
		if loc == nil {
			continue
		}
		next = h.start + loc[1]
		m := ru.core.FindStringSubmatchIndex(s[h.start:next])
		out = ru.completed(s, h.start, m, out)
	}
	return out
}

// scanCore finds the core's matches from the first hit on in one linear
// pass; every match starts at a keyword, as splitLead proved.
func (ru *rule) scanCore(s string, from int, out []candidate) []candidate {
	for _, m := range ru.coreScan().FindAllStringSubmatchIndex(s[from:], -1) {
		at := m[0] // read before offset rewrites m
		out = ru.completed(s, from+at, offset(m, -at), out)
	}
	return out
}

// completed turns a core match m (indices relative to i, the hit it starts
// at) into a whole-rule match, its start found by matching the lead
// backwards from i, and keeps its secret if the rule accepts it.
func (ru *rule) completed(s string, i int, m []int, out []candidate) []candidate {
	m = offset(m, i)
	if ru.lead != nil {
		// No lead match is longer than leadWidth, so one byte more is
		// only context, for a \b at the lead's start.
		from := max(0, i-ru.leadWidth-1)
		l := ru.lead.FindStringIndex(s[from : i+1])
		if l == nil {
			return out // the lead cannot precede the keyword here (\b, say)
		}
		m[0] = from + l[0]
	}
	return ru.accepted(s, m, out)
}

// offset adds d to every index of a submatch slice but the unset ones.
func offset(m []int, d int) []int {
	for j := range m {
		if m[j] >= 0 {
			m[j] += d
		}
	}
	return m
}

// findIn runs the whole rule on s[from:to] and keeps the secrets it accepts.
func (ru *rule) findIn(s string, from, to int, out []candidate) []candidate {
	for _, m := range ru.whole().FindAllStringSubmatchIndex(s[from:to], -1) {
		out = ru.accepted(s, offset(m, from), out)
	}
	return out
}

// accepted appends the secret of match m (indices into s) if the rule
// accepts it.
func (ru *rule) accepted(s string, m []int, out []candidate) []candidate {
	start, end, ok := ru.secret(s, m)
	if !ok {
		return out
	}
	start, end = trimSpace(s, start, end)
	if !ru.accept(s, m, start, end) {
		return out
	}
	return append(out, candidate{Finding{Rule: ru.spec.ID, Start: start, End: end}, ru.rank})
}

// windows returns the disjoint parts of s to run a rule without a core on:
// for a rule whose matches are at most width bytes long and contain a
// keyword, the width around each of its keyword hits; otherwise from
// maxWindow before the first hit to the end.
func (ru *rule) windows(s string, hits []hit, self int, idx *keywordIndex) [][2]int {
	var out [][2]int
	for _, h := range hits {
		if !slices.Contains(idx.rules[h.word], self) {
			continue
		}
		if ru.width < 0 {
			return append(out, [2]int{wordStart(s, h.start-maxWindow), len(s)})
		}
		a, b := wordStart(s, h.start-ru.width), wordEnd(s, h.end+ru.width)
		if n := len(out); n > 0 && a <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], b)
			continue
		}
		out = append(out, [2]int{a, b})
	}
	return out
}

// wordStart moves a window start back to a word boundary, so that \b and
// token classes see at the window's edge what they would see in the whole
// text.
func wordStart(s string, i int) int {
	i = max(i, 0)
	for n := 0; i > 0 && n < 256 && isTokenByte(s[i-1]); n++ {
		i--
	}
	return i
}

func wordEnd(s string, i int) int {
	i = min(i, len(s))
	for n := 0; i < len(s) && n < 256 && isTokenByte(s[i]); n++ {
		i++
	}
	return min(i+1, len(s)) // the delimiter after the token, which many rules require
}

func isTokenByte(c byte) bool {
	return c >= 0x80 || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func trimSpace(s string, start, end int) (int, int) {
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return start, end
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// placeholderRE matches the placeholders Text writes.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)
})

// dropPlaceholders removes candidates that touch a placeholder already in
// s: what was redacted once is never redacted again.
func dropPlaceholders(s string, cands []candidate) []candidate {
	if !strings.Contains(s, placeholderOpen) {
		return cands
	}
	spans := placeholderRE().FindAllStringIndex(s, -1)
	if len(spans) == 0 {
		return cands
	}
	return slices.DeleteFunc(cands, func(c candidate) bool {
		for _, p := range spans {
			if c.Start < p[1] && p[0] < c.End {
				return true
			}
		}
		return false
	})
}

// merge sorts candidates and unites overlapping ones.
func merge(cands []candidate) []Finding {
	slices.SortFunc(cands, func(a, b candidate) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	var out []Finding
	span, name := cands[0].Finding, cands[0]
	for _, c := range cands[1:] {
		if c.Start < span.End {
			span.End = max(span.End, c.End)
			name = better(name, c)
			continue
		}
		span.Rule = name.Rule
		out = append(out, span)
		span, name = c.Finding, c
	}
	span.Rule = name.Rule
	return append(out, span)
}

// better chooses which of two overlapping findings names their union: the
// lower rank, then the longer secret, then the smaller rule id, so that the
// choice never depends on the order the rules ran in.
func better(a, b candidate) candidate {
	if a.rank != b.rank {
		if a.rank < b.rank {
			return a
		}
		return b
	}
	if la, lb := a.End-a.Start, b.End-b.Start; la != lb {
		if la > lb {
			return a
		}
		return b
	}
	if a.Rule <= b.Rule {
		return a
	}
	return b
}

// WholePlaceholders returns prefix, the start of a redacted text cut at
// some length, without the placeholder the cut split: "key=[REDACTED:gen"
// becomes "key=". A cut placeholder reads as garbage, and a reader could
// not tell it from text.
func WholePlaceholders(prefix string) string {
	i := strings.LastIndexByte(prefix, '[')
	if i < 0 {
		return prefix
	}
	tail := prefix[i:]
	if strings.Contains(tail, "]") {
		return prefix
	}
	if strings.HasPrefix(tail, placeholderOpen) || strings.HasPrefix(placeholderOpen, tail) {
		return prefix[:i]
	}
	return prefix
}
