package redact

import (
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// Rule priorities decide which rule names a secret that several rules
// found: what the user asked to scrub, then a provider's own token format,
// then where the secret sits (a header, a URL), then the rules that only
// guess from a name next to a value.
const (
	rankUser = iota
	rankSpecific
	rankContext
	rankGeneric
)

// maxWindow is the widest match for which a rule is run only around its
// keywords; a wider (or unbounded) rule runs over the whole text.
const maxWindow = 4096

// rule is a ruleSpec plus what is compiled from it on first use. Compiling
// every rule up front costs milliseconds, and a hook process usually needs
// none of them, so each rule compiles when a keyword first calls for it,
// and only what that use needs: an anchored rule never compiles its whole
// regex, and allowlists wait for the first candidate secret.
type rule struct {
	spec   ruleSpec
	rank   int
	global *allowSpec // gitleaks' global allowlist, for gitleaks rules
	// builtin marks devlearn's and gitleaks' rules, whose split is looked
	// up in builtinAnchors instead of computed.
	builtin    bool
	anchorOnce sync.Once
	anchored   anchorSpec // see anchor

	// pick, when set, replaces the gitleaks way of choosing the secret
	// among the capture groups and may reject the match.
	pick func(s string, m []int) (start, end int, ok bool)

	once sync.Once
	// core, when set, is the rule minus its lead, anchored at the start;
	// it runs at each keyword hit, and lead (anchored at the hit's first
	// byte) finds where the match begins before the hit (see anchor.go).
	core      *regexp.Regexp
	coreWidth int            // widest core match, -1 when unbounded
	lead      *regexp.Regexp // nil when the core is the whole rule
	leadWidth int
	coreSrc   string

	scanOnce sync.Once
	scan     *regexp.Regexp // the core, unanchored, for dense hits

	reOnce sync.Once
	re     *regexp.Regexp // the whole rule, for rules without a core
	width  int            // widest possible match in bytes, -1 when unbounded

	allowOnce sync.Once
	allow     []compiledAllow
}

type compiledAllow struct {
	target    string
	res       []*regexp.Regexp
	stopWords []string
}

// Every built-in regex is compiled by TestBuiltinRules, so MustCompile
// cannot fail at run time; user patterns are compiled in New first.

func (r *rule) prepare() {
	r.once.Do(func() {
		a := r.anchor()
		if !a.Split {
			r.whole()
			return
		}
		r.coreSrc = a.Core
		r.core = regexp.MustCompile(`\A(?:` + a.Core + `)`)
		r.coreWidth = a.CoreWidth
		if a.Lead != "" {
			// (?s:.) stands for the hit's first byte, so that an
			// assertion at the lead's end sees what follows it.
			r.lead = regexp.MustCompile(`(?:` + a.Lead + `)(?s:.)\z`)
			r.leadWidth = a.LeadWidth
		}
	})
}

// coreScan returns the core unanchored, compiling it on first use.
func (r *rule) coreScan() *regexp.Regexp {
	r.scanOnce.Do(func() { r.scan = regexp.MustCompile(r.coreSrc) })
	return r.scan
}

// whole returns the rule's whole regex, compiling it on first use.
func (r *rule) whole() *regexp.Regexp {
	r.reOnce.Do(func() {
		r.re = regexp.MustCompile(r.spec.Regex)
		r.width = r.anchor().Width
	})
	return r.re
}

func (r *rule) allowlists() []compiledAllow {
	r.allowOnce.Do(func() {
		for _, a := range r.spec.Allow {
			r.allow = append(r.allow, compileAllow(a))
		}
		if r.global != nil {
			r.allow = append(r.allow, compileAllow(*r.global))
		}
	})
	return r.allow
}

func compileAllow(a allowSpec) compiledAllow {
	c := compiledAllow{target: a.Target, stopWords: a.StopWords}
	for _, src := range a.Regexes {
		c.res = append(c.res, regexp.MustCompile(src))
	}
	return c
}

// secret returns the span of the secret in a match m (submatch indices into
// s), following gitleaks: the rule's secret group, else the first non-empty
// group, else the whole match.
func (r *rule) secret(s string, m []int) (start, end int, ok bool) {
	if r.pick != nil {
		return r.pick(s, m)
	}
	if g := r.spec.SecretGroup; g > 0 {
		if 2*g+1 >= len(m) || m[2*g] < 0 {
			return 0, 0, false
		}
		return m[2*g], m[2*g+1], true
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1], true
		}
	}
	return m[0], m[1], true
}

// accept applies the rule's entropy floor and allowlists to a found secret.
func (r *rule) accept(s string, m []int, start, end int) bool {
	secret := s[start:end]
	if secret == "" {
		return false
	}
	if r.spec.Entropy > 0 && entropy(secret) <= r.spec.Entropy {
		return false
	}
	for _, a := range r.allowlists() {
		target := secret
		switch a.target {
		case "match":
			target = s[m[0]:m[1]]
		case "line":
			target = lineAround(s, m[0], m[1])
		}
		for _, re := range a.res {
			if re.MatchString(target) {
				return false
			}
		}
		if len(a.stopWords) > 0 {
			lower := strings.ToLower(secret)
			for _, w := range a.stopWords {
				if strings.Contains(lower, w) {
					return false
				}
			}
		}
	}
	return true
}

// lineAround returns the whole lines holding s[start:end].
func lineAround(s string, start, end int) string {
	a := strings.LastIndexByte(s[:start], '\n') + 1
	b := strings.IndexByte(s[end:], '\n')
	if b < 0 {
		return s[a:]
	}
	return s[a : end+b]
}

// entropy is the Shannon entropy of s in bits per character, the measure
// gitleaks' entropy thresholds are written for.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, c := range s {
		if c < utf8.RuneSelf {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	// gitleaks divides by the length in bytes, not in characters; keep
	// its arithmetic so its thresholds mean what they meant there.
	inv := 1 / float64(len(s))
	var h float64
	add := func(count int) {
		if count > 0 {
			p := float64(count) * inv
			h -= p * math.Log2(p)
		}
	}
	for _, c := range ascii {
		add(c)
	}
	for _, c := range other {
		add(c)
	}
	return h
}

// regexWidth returns the longest match src can make, in bytes, or -1 when
// that is unbounded or larger than maxWindow. A match that contains a
// keyword lies within width bytes of it on either side, which is what lets
// a rule run on small windows instead of the whole text.
func regexWidth(src string) int {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return -1
	}
	w := width(re.Simplify())
	if w > maxWindow {
		return -1
	}
	return w
}

func width(re *syntax.Regexp) int {
	const inf = math.MaxInt32
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				n += utf8.UTFMax // a folded letter may be wider (k and the Kelvin sign)
			} else {
				n += utf8.RuneLen(c)
			}
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], utf8.MaxRune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture:
		return width(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return inf
	case syntax.OpQuest:
		return width(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return inf
		}
		return mulCap(width(re.Sub[0]), re.Max)
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = addCap(n, width(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, width(sub))
		}
		return n
	}
	return inf
}

func addCap(a, b int) int { return min(a+b, math.MaxInt32) }
func mulCap(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt32/b {
		return math.MaxInt32
	}
	return a * b
}
