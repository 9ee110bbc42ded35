package extract

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/textcase"
	"github.com/devlearn/devlearn/internal/transcript"
)

// When Claude Code compacts a long conversation it has the agent write a
// recap in fixed numbered sections, one of them "Errors and fixes": what
// went wrong and, item by item, what the person said about it ("User was
// angry — \"never make manual changes to generated files\". Reverted with
// git checkout."). That item is the agent's own account of a correction,
// written when it still had the whole conversation before it, in whatever
// language the person spoke; the person's turn it stands for is often a
// question or a complaint no rule reads as a lesson ("where is the
// notebook summary?"). Only the items that say the person corrected it
// (the tables' [feedback] words, not denied: "no user feedback") are
// read: the others are the bugs of the task at hand, fixed once.

// ClassRecap is what the agent's recap says the person corrected.
const ClassRecap = "recap"

// ExtractorRecap names the extractor of the recap's corrections.
const ExtractorRecap = "recap"

// maxRecapItems bounds the corrections one session's recaps give.
const maxRecapItems = 5

// recapLessons are the corrections the agent's recaps of the session
// record, each once however many recaps repeat it.
func recapLessons(ch *transcript.Channels) []Observation {
	var out []Observation
	seen := map[string]bool{}
	for _, r := range ch.Recaps {
		for _, it := range recapItems(errorsSection(r.Text)) {
			if len(out) == maxRecapItems {
				return out
			}
			lesson, ok := recapLesson(it)
			if !ok || seen[lesson] {
				continue
			}
			seen[lesson] = true
			out = append(out, Observation{
				Type:       Procedural,
				Pattern:    clip(lesson, maxPattern),
				Details:    "trigger: the task at hand; steps: " + field(lesson) + "; source: the agent's recap of the session says the person corrected it: " + field(clip(it, maxOwned)),
				Evidence:   []string{quote("recap", it)},
				QualityOK:  true,
				SessionID:  r.SessionID,
				RecordUUID: r.UUID,
				Timestamp:  r.Timestamp,
				Extractor:  ExtractorRecap,
				Class:      ClassRecap,
			})
		}
	}
	return out
}

// recapSection matches the numbered headings of a recap's sections
// ("4. Errors and fixes:", "## 4. Errors and Fixes"), the names Claude
// Code's compaction prompt gives them.
var recapSection = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)^[ \t]*(?:#+[ \t]*)?(?:\*\*)?\d+\.[ \t]+(?:\*\*)?(errors? and fix(?:es)?|primary request|key technical|files and code|problem solving|all user messages|pending tasks|current work|optional next step)[^\n]*$`)
})

// errorsSection is the text of a recap's "Errors and fixes" section, ""
// when it has none.
func errorsSection(text string) string {
	heads := recapSection().FindAllStringSubmatchIndex(text, -1)
	for i, h := range heads {
		if !strings.HasPrefix(strings.ToLower(text[h[2]:h[3]]), "error") {
			continue
		}
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		return text[h[1]:end]
	}
	return ""
}

// recapItems are a section's list items, each with the lines under it
// (its sub-items) on one line.
func recapItems(section string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
		}
		cur = nil
	}
	for _, l := range strings.Split(section, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent <= 3 && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ")) {
			flush()
			cur = append(cur, item(strings.TrimSpace(t[2:])))
			continue
		}
		if cur != nil {
			cur = append(cur, item(listMark.ReplaceAllString(t, "")))
		}
	}
	flush()
	return out
}

// recapLesson is the lesson of a recap's item that says the person
// corrected the agent: the person's words when the item quotes them and
// they tell rather than ask, else the item itself.
func recapLesson(it string) (string, bool) {
	x := lang.Fold(it)
	low := x.Low()
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, lang.Feedback, 0, len(low)) {
			if denied(x, m) {
				continue
			}
			if q := quotedAfter(it[x.Offset(m.End):]); q != "" {
				return q, true
			}
			if !lessonLike(it) {
				return "", false
			}
			return it, true
		}
	}
	return "", false
}

// denied reports a [feedback] match its clause denies ("No user feedback
// on this error", "no specific user feedback").
func denied(x *lang.Text, m lang.Match) bool {
	from := clauseStartOf(x.Low(), 0, m.Start)
	for _, tb := range lang.Tables() {
		if tb.Has(x, lang.Denies, from, m.Start) {
			return true
		}
	}
	return false
}

// quotedAfter is the quotation that follows a [feedback] phrase at once
// ("User was angry — \"never make manual changes to generated files\""),
// when it is of a sentence's length and tells rather than asks; "" when
// there is none. A quotation further on is what the agent quoted of the
// work (an error message, a fixed line), not the person.
func quotedAfter(s string) string {
	m := quotations().FindStringSubmatchIndex(s)
	if m == nil || utf8.RuneCountInString(strings.Trim(s[:m[0]], " \t:：-—–,*")) > maxQuoteLead {
		return ""
	}
	for k := 2; k < len(m); k += 2 {
		if m[k] < 0 {
			continue
		}
		g := strings.TrimSpace(s[m[k]:m[k+1]])
		if strings.HasSuffix(g, "?") || strings.HasSuffix(g, "？") || words(g) < 3 || utf8.RuneCountInString(g) > maxPattern {
			return ""
		}
		return sentence(textcase.UpperFirst(g))
	}
	return ""
}

// maxQuoteLead bounds the words between a [feedback] phrase and the
// quotation it introduces ("User was angry — ", "User corrected it: ").
const maxQuoteLead = 12

// quotations are text in straight, curly or corner quotes.
var quotations = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"\n]+)"|“([^”\n]+)”|「([^」\n]+)」|«([^»\n]+)»`)
})

// sentence is s as a sentence: a full stop, in its script, added when it
// ends without one.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	switch r, _ := utf8.DecodeLastRuneInString(s); {
	case strings.ContainsRune(".!。！", r):
	case isCJK(r):
		s += "。"
	default:
		s += "."
	}
	return s
}
