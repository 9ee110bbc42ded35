package redact

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Go's regexp has no DFA: a rule like gitleaks' generic-api-key, which
// starts with [\w.-]{0,50}? before its keyword, keeps dozens of threads
// alive at every byte and runs at about 0.5 MB/s. Developer text is full of
// its keywords (key, token, api, auth), so windows around them cover most of
// the text and do not help.
//
// What does help: most rules are "a short lead, then a keyword, then the
// rest". The rest (the core) can be tried anchored at each keyword hit,
// which fails within a few bytes on ordinary text. Where it matches, the
// lead is matched backwards from the hit (anchored at its end), which gives
// the match the whole rule would make there: the same capture groups (the
// lead has none) and the same start, the earliest one the lead allows.
// Running the whole rule instead, even on the few hundred bytes around a
// hit, costs a millisecond per hit with this engine. splitLead finds the
// lead and proves that every core match begins with one of the rule's
// keywords; a rule where it cannot prove that runs on windows around its
// keywords or on the whole text instead.

// splitLead splits the regexp src into a lead and a core such that every
// match of the core begins with one of keywords: the core is what to
// anchor at keyword hits, leadWidth the widest the lead can be, or ok=false.
func splitLead(src string, keywords []string) (lead, core string, leadWidth int, ok bool) {
	if len(keywords) == 0 {
		return "", "", 0, false
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return "", "", 0, false
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	for k := range subs {
		if k > 0 {
			// The lead must hold no capture group (the core keeps the
			// group numbers) and be bounded.
			prev := subs[k-1]
			if hasCapture(prev) {
				return "", "", 0, false
			}
			w := width(prev)
			if w > 256 {
				return "", "", 0, false
			}
			leadWidth += w
		}
		budget := maxWalk
		if keywordFirst(subs[k:], "", keywords, &budget) {
			// Assertions before the keyword (\b) need the bytes on both
			// sides of the hit: they go to the lead, which is matched with
			// the hit's first byte after it.
			j := k
			for j < len(subs) && zeroWidth(subs[j]) {
				j++
			}
			c := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs[j:]}
			if j == 0 {
				return "", c.String(), 0, true
			}
			l := &syntax.Regexp{Op: syntax.OpConcat, Sub: subs[:j]}
			return l.String(), c.String(), leadWidth, true
		}
	}
	return "", "", 0, false
}

func zeroWidth(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

func hasCapture(re *syntax.Regexp) bool {
	if re.Op == syntax.OpCapture {
		return true
	}
	return slices.ContainsFunc(re.Sub, hasCapture)
}

// maxWalk bounds the work of keywordFirst; a rule too varied to prove
// within it is simply not anchored.
const maxWalk = 20000

// keywordFirst reports whether every string the sequence seq matches,
// after prefix (lower case), begins with one of keywords, ignoring ASCII
// case. It walks the possible first bytes until each path has spelled a
// keyword, and fails on a path that cannot, on a class too wide to
// enumerate, on non-ASCII, or when the budget runs out. Zero-width
// assertions are skipped: they only remove strings.
func keywordFirst(seq []*syntax.Regexp, prefix string, keywords []string, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	extendable := false
	for _, k := range keywords {
		if strings.HasPrefix(prefix, k) {
			return true
		}
		if strings.HasPrefix(k, prefix) {
			extendable = true
		}
	}
	if !extendable || len(seq) == 0 {
		return false
	}
	next := func(nodes ...*syntax.Regexp) []*syntax.Regexp {
		return append(nodes, seq[1:]...)
	}
	re := seq[0]
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return keywordFirst(next(), prefix, keywords, budget)
	case syntax.OpNoMatch:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r >= unicode.MaxASCII {
				return false
			}
			prefix += string(lowerTable[byte(r)])
		}
		return keywordFirst(next(), prefix, keywords, budget)
	case syntax.OpCharClass:
		var cs []byte
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= unicode.MaxASCII || hi-lo > 26 {
				return false
			}
			for r := lo; r <= hi; r++ {
				if c := lowerTable[byte(r)]; !slices.Contains(cs, c) {
					cs = append(cs, c)
				}
			}
		}
		for _, c := range cs {
			if !keywordFirst(next(), prefix+string(c), keywords, budget) {
				return false
			}
		}
		return true
	case syntax.OpCapture:
		return keywordFirst(next(re.Sub[0]), prefix, keywords, budget)
	case syntax.OpConcat:
		return keywordFirst(next(re.Sub...), prefix, keywords, budget)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !keywordFirst(next(sub), prefix, keywords, budget) {
				return false
			}
		}
		return true
	case syntax.OpQuest:
		return keywordFirst(next(), prefix, keywords, budget) &&
			keywordFirst(next(re.Sub[0]), prefix, keywords, budget)
	case syntax.OpStar:
		plus := &syntax.Regexp{Op: syntax.OpPlus, Flags: re.Flags, Sub: re.Sub}
		return keywordFirst(next(), prefix, keywords, budget) &&
			keywordFirst(next(plus), prefix, keywords, budget)
	case syntax.OpPlus:
		star := &syntax.Regexp{Op: syntax.OpStar, Flags: re.Flags, Sub: re.Sub}
		return keywordFirst(next(re.Sub[0], star), prefix, keywords, budget)
	case syntax.OpRepeat:
		if re.Max == 0 {
			return keywordFirst(next(), prefix, keywords, budget)
		}
		more := &syntax.Regexp{Op: syntax.OpRepeat, Flags: re.Flags, Sub: re.Sub, Min: max(re.Min-1, 0), Max: re.Max}
		if re.Max > 0 {
			more.Max = re.Max - 1
		}
		if re.Min == 0 && !keywordFirst(next(), prefix, keywords, budget) {
			return false
		}
		return keywordFirst(next(re.Sub[0], more), prefix, keywords, budget)
	}
	return false // any character, or an op this does not know
}

// anchorSpec is what prepare needs of a rule's regex: splitLead's answer
// and the widths of the core and of the whole rule.
type anchorSpec struct {
	Regex      string
	Split      bool
	Lead, Core string
	LeadWidth  int
	CoreWidth  int // regexWidth of the core, when split
	Width      int // regexWidth of the whole rule
}

// computeAnchor splits src and measures it. Parsing and printing a regexp
// is most of what a process that redacts a little text spends on the
// rules it meets, which is why the built-in rules' answers are generated
// into builtinAnchors (TestBuiltinAnchorsGenerated keeps them equal).
func computeAnchor(src string, keywords []string) anchorSpec {
	a := anchorSpec{Regex: src, Width: regexWidth(src)}
	a.Lead, a.Core, a.LeadWidth, a.Split = splitLead(src, keywords)
	if a.Split {
		a.CoreWidth = regexWidth(a.Core)
	}
	return a
}

// anchor returns the rule's anchorSpec, found or computed once: the
// generated one for a built-in rule, else computed.
func (r *rule) anchor() anchorSpec {
	r.anchorOnce.Do(func() {
		if a, ok := builtinAnchor(r.spec.Regex); ok && r.builtin {
			r.anchored = a
			return
		}
		r.anchored = computeAnchor(r.spec.Regex, r.spec.Keywords)
	})
	return r.anchored
}

// builtinAnchor looks src up in the generated table.
func builtinAnchor(src string) (anchorSpec, bool) {
	i, ok := slices.BinarySearchFunc(builtinAnchors[:], src, func(a anchorSpec, src string) int {
		return strings.Compare(a.Regex, src)
	})
	if !ok {
		return anchorSpec{}, false
	}
	return builtinAnchors[i], true
}
