// Package keep finds the lessons a person explicitly asks an agent to keep
// ("remember that...", "from now on...", "always...", "never...", "add this
// to CLAUDE.md", in every language of capture's phrase tables,
// internal/extract/lang) and states each as the sentence a future agent
// acts on. Such a lesson is the person's own
// decision: devlearn makes it an active knowledge entry at once, with no
// promotion to wait for.
//
// Precision matters more than recall here: an entry made from a sentence
// that was no request would be served to every matching call. So a rule
// word counts only where a clause starts ("Never push to main", not "it
// never worked"), a question is never a request, and a one-off ("for now",
// "this time") is not a lasting rule. Whatever this misses, the agent is
// still asked to state (see the nudge in internal/hook).
package keep

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/textcase"
	"github.com/devlearn/devlearn/internal/textcut"
)

// Request is one lesson a person asked to keep.
type Request struct {
	// Lesson is the lesson as a sentence, the request's words taken out
	// ("Use pnpm, not npm."). Empty when the request only points back at
	// what was said before ("remember this"): the agent is then asked to
	// state it.
	Lesson string `json:"lesson,omitempty"`
	// Evidence is the person's sentence, as written.
	Evidence string `json:"evidence"`
	// Marker is the phrase that made it a request; Lang its table.
	Marker string `json:"marker"`
	Lang   string `json:"lang"`
}

// MaxRequests bounds what one prompt gives.
const MaxRequests = 3

// maxPrompt is how much of a prompt is read: a request is typed, and what
// comes after that much is pasted.
const maxPrompt = 4000

// Find returns the lessons a prompt asks to keep, in order. prompt is the
// person's own words (transcript.OwnWords): a log or another assistant's
// answer pasted in asks nothing.
func Find(prompt string) []Request {
	prompt = textcut.Bytes(prompt, maxPrompt)
	if notPerson(prompt) {
		return nil
	}
	var out []Request
	seen := map[string]bool{}
	prev := ""
	for _, s := range sentences(stripCode(prompt)) {
		r, ok := request(s)
		if !ok {
			if !lang.EndsAsking(s) {
				prev = s
			}
			continue
		}
		// "X. Remember that.": the lesson is the sentence before.
		if r.Lesson == "" && prev != "" && enough(prev) {
			r.Lesson, r.Evidence = sentence(prev), prev+" "+s
		}
		prev = ""
		key := strings.ToLower(r.Lesson)
		if r.Lesson != "" && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r)
		if len(out) == MaxRequests {
			break
		}
	}
	return out
}

// notPerson: text Claude Code writes into a user turn (a command's
// wrapper, a reminder), not the person's words.
func notPerson(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"<command-", "<local-command", "<system-reminder>", "<user-prompt-submit-hook>", "Caveat: The messages below", "This session is being continued from a previous conversation"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// stripCode drops fenced code and quoted lines: pasted, not said.
func stripCode(s string) string {
	var out []string
	fence := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(t, ">") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// sentences splits text at sentence ends: ". ", "! ", "? " (a dot inside
// "CLAUDE.md" or "./it" ends nothing), Chinese and Japanese full stops,
// and line breaks.
func sentences(s string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if t := strings.Join(strings.Fields(s[start:end]), " "); t != "" {
			out = append(out, t)
		}
		start = end
	}
	for i, r := range s {
		switch r {
		case '\n', '。', '！', '？':
			flush(i + utf8.RuneLen(r))
		case '.', '!', '?':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if i+1 >= len(s) || unicode.IsSpace(next) {
				flush(i + 1)
			}
		}
	}
	flush(len(s))
	return out
}

// clauseBreak separates a sentence's clauses; compiled on first use.
var clauseBreak = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[,;:，；：、—–]|\s-\s`) })

// request reads one sentence: a request to remember (the table's
// [remember] phrases), else a clause that starts with a standing word
// ("always", "never"; standing.yaml).
func request(s string) (Request, bool) {
	trimmed := strings.TrimRight(s, " \t")
	if lang.EndsAsking(trimmed) || strings.HasPrefix(trimmed, "¿") {
		return Request{}, false
	}
	t := lang.Fold(s)
	n := len(t.Low())
	for _, tb := range lang.Tables() {
		if tb.Has(t, lang.Temporary, 0, n) {
			return Request{}, false // "for now", "this time": not lasting
		}
	}
	xs := extrasByCode()
	// A table's phrase is read only where the sentence reads as its
	// language: Chinese "注意" is no request in Japanese "【注意点】". What
	// it reads as is worked out once, and only for a sentence that holds a
	// request of some table: most prompts hold none.
	foreign := lang.ForeignTo(t, 0, n)
	for _, tb := range lang.Tables() {
		if r, ok := remember(s, t, tb, xs[tb.Code]); ok && !foreign(tb) {
			return r, true
		}
	}
	for _, tb := range lang.Tables() {
		if x := xs[tb.Code]; x != nil {
			if r, ok := standing(s, tb, x); ok && !foreign(tb) {
				return r, true
			}
		}
	}
	return Request{}, false
}

// remember finds a request to remember and takes it out: what is left is
// the lesson.
func remember(s string, t *lang.Text, tb *lang.Table, x *extra) (Request, bool) {
	low := t.Low()
	for _, m := range tb.Find(t, lang.Remember, 0, len(low)) {
		m = tb.Widen(t, lang.Remember, m, 0, len(low))
		// "do you remember", "if you remember", "I don't remember": no
		// request.
		cs := clauseStartOf(low, m.Start)
		if tb.Has(t, lang.Hedge, cs, m.Start) || lang.Recalled(t, cs, m) {
			continue
		}
		pointing := Request{Evidence: s, Marker: m.Phrase, Lang: tb.Code}
		if strings.IndexFunc(low[m.End:], wordRune) < 0 && refersOnly(t.Span(cs, m.Start), tb) {
			// "以下をclaude.mdに記録してほしい", "これもclaude.mdに記録して":
			// the request ends the sentence and points at what was said.
			return pointing, true
		}
		var rest string
		switch {
		case strings.IndexFunc(cleanLesson(t.Span(cs, m.Start), tb, x), wordRune) < 0 ||
			strings.IndexFunc(low[m.End:], wordRune) < 0 && (tb.Spaces || !lang.FollowsWord(low, m.Start)):
			// "Remember: X", "X, from now on": X, the request taken out
			// (and no space put in its place where words have none).
			join := " "
			if !tb.Spaces {
				join = ""
			}
			rest = cleanLesson(t.Span(0, m.Start)+join+t.Span(m.End, len(low)), tb, x)
		default:
			// Said inside the sentence ("add tests and remember to run the
			// linter"), or the verb a sentence without spaces ends on
			// ("…mdファイルに記録してください"): the sentence whole, as capture
			// keeps it; cut out, it would no longer read ("add tests and to
			// run the linter", "…mdファイルに").
			rest = cleanLesson(s, tb, x)
		}
		if refersOnly(rest, tb) {
			return pointing, true
		}
		if !enough(rest) {
			continue
		}
		return Request{Lesson: sentence(rest), Evidence: s, Marker: m.Phrase, Lang: tb.Code}, true
	}
	return Request{}, false
}

// standing finds a clause that starts with a standing word: the clause is
// the lesson.
func standing(s string, tb *lang.Table, x *extra) (Request, bool) {
	cs := clauses(s)
	for i, c := range cs {
		clause := stripLeads(strings.TrimSpace(c), tb, x)
		lc := lowerSameLength(clause)
		for _, m := range x.standing {
			end, ok := m.prefix(lc)
			if !ok {
				continue
			}
			if next := firstWord(lc[end:]); next == "" || slices.Contains(x.notAfter, next) {
				continue
			}
			if ct := lang.Fold(clause); tb.Has(ct, lang.NotRule, 0, len(ct.Low())) {
				continue // "never been", "as always"
			}
			if !enough(clause) {
				continue
			}
			if i == 1 && opensCondition(cs[0], tb, x) {
				// "When you change the schema, always run make migrate":
				// the rule holds under its condition.
				clause = stripLeads(strings.TrimSpace(cs[0]), tb, x) + ", " + textcase.LowerFirst(clause)
			}
			return Request{Lesson: sentence(clause), Evidence: s, Marker: m.text, Lang: tb.Code}, true
		}
	}
	return Request{}, false
}

// opensCondition reports a clause that says when the rule after it
// holds: it opens with one of the table's [condition] phrases.
func opensCondition(clause string, tb *lang.Table, x *extra) bool {
	ct := lang.Fold(stripLeads(strings.TrimSpace(clause), tb, x))
	found := tb.Find(ct, lang.Condition, 0, len(ct.Low()))
	return len(found) > 0 && found[0].Start == 0
}

// stripLeads drops what a clause opens with before its point: the
// table's fillers ("please", "and"), and the leads of standing.yaml ("you
// should"), as often as they come.
func stripLeads(clause string, tb *lang.Table, x *extra) string {
	for {
		before := clause
		clause = strings.TrimLeft(clause, " ,;:-—–，；：、")
		ct := lang.Fold(clause)
		for _, m := range tb.Find(ct, lang.Filler, 0, len(ct.Low())) {
			if m.Start == 0 {
				clause = strings.TrimSpace(ct.Span(m.End, len(ct.Low())))
			}
			break
		}
		if x != nil {
			lc := lowerSameLength(clause)
			for _, lead := range x.leads {
				if rest, ok := cutPrefixWord(lc, lead); ok {
					clause = strings.TrimSpace(clause[len(clause)-len(rest):])
					break
				}
			}
		}
		if clause == before {
			return clause
		}
	}
}

// clauseStartOf is where the clause holding i starts.
func clauseStartOf(low string, i int) int {
	if j := lastBreak(low[:i]); j >= 0 {
		return j
	}
	return 0
}

func clauses(s string) []string {
	var out []string
	last := 0
	for _, loc := range clauseBreak().FindAllStringIndex(s, -1) {
		// A colon inside a path or a time ("10:30") breaks nothing.
		if s[loc[0]] == ':' && loc[1] < len(s) && !unicode.IsSpace(rune(s[loc[1]])) {
			continue
		}
		out = append(out, s[last:loc[0]])
		last = loc[1]
	}
	return append(out, s[last:])
}

func lastBreak(s string) int {
	locs := clauseBreak().FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return -1
	}
	return locs[len(locs)-1][1]
}

// connectors are what joins a remember phrase to its lesson: "remember
// that X", "X, from now on", "add to CLAUDE.md: X".
var connectors = []string{"that", "to", "this", "que", "de", "dass", "das", "of", "isto", "isso", "ça", "esto", "eso", "y", "and", "also"}

func cleanLesson(s string, tb *lang.Table, x *extra) string {
	s = strings.TrimSpace(s)
	for {
		before := s
		s = strings.Trim(s, " \t,;:.!-—–，；：、。「」\"'")
		for _, c := range connectors {
			if rest, ok := cutPrefixWord(lowerSameLength(s), c); ok && enough(rest) {
				s = strings.TrimSpace(s[len(s)-len(rest):])
			}
		}
		s = stripLeads(s, tb, x)
		if s == before {
			return s
		}
	}
}

// enough: at least two words, or four letters of a script that writes
// no spaces (brackets and spaces are none: "【 点】").
func enough(s string) bool {
	if strings.IndexFunc(s, cjk) >= 0 {
		n := 0
		for _, r := range s {
			if wordRune(r) {
				n++
			}
		}
		return n >= 4
	}
	return len(strings.Fields(s)) >= 2
}

// sentence makes a lesson read as one: a capital letter, and an end.
func sentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, cjk) < 0 {
		s = textcase.UpperFirst(s)
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	switch {
	case strings.ContainsRune(".!。！", last):
		return s
	case strings.IndexFunc(s, func(r rune) bool { return cjk(r) && !unicode.Is(unicode.Hangul, r) }) >= 0:
		return s + "。" // Chinese, Japanese; Korean ends with a full stop
	}
	return s + "."
}

func firstWord(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' || r == '.' })
	if end < 0 {
		return s
	}
	return s[:end]
}

// cutPrefixWord cuts word from the start of s when it ends there as a
// word.
func cutPrefixWord(s, word string) (string, bool) {
	if !strings.HasPrefix(s, word) {
		return s, false
	}
	rest := s[len(word):]
	if r, _ := utf8.DecodeRuneInString(rest); rest != "" && wordRune(r) && !cjk(r) && !endsCJK(word) {
		return s, false
	}
	return strings.TrimSpace(rest), true
}

func endsCJK(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return cjk(r)
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
}

// cjk: Chinese, Japanese or Korean. Every word of every entry's summary
// is read with it, and the four tables start at U+1100 (Hangul Jamo):
// below, the answer is known without them (TestCJKBelowJamo).
func cjk(r rune) bool {
	return r >= cjkFirst && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

const cjkFirst = 0x1100

// refersOnly reports a request's object that only points at what was said
// ("this", "that rule", "これも"): the lesson is then what was said
// before, or the agent is asked to state it.
func refersOnly(s string, tb *lang.Table) bool {
	t := lang.Fold(s)
	return strings.IndexFunc(s, wordRune) < 0 || tb.Only(t, 0, len(t.Low()), lang.Referent, lang.Filler)
}
