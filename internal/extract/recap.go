package extract

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// When Claude Code compacts a long conversation it has the agent write a
// recap in fixed numbered sections, one of them "Errors and fixes": what
// went wrong and, item by item, what the person said about it ("User was
// angry — \"never make manual changes to generated files\". Reverted with
// git checkout."). That item is the agent's own account of a correction,
// written when it still had the whole conversation before it, in whatever
// language the person spoke; the person's turn it stands for is often a
// question or a complaint no rule reads as a lesson ("why did you edit
// the generated file??"). Only the items that say the person corrected
// or turned down something (the tables' [feedback] and [refused] words,
// not denied: "no user correction needed") are read: the others are the
// bugs of the task at hand, fixed once.

// ClassRecap is what the agent's recap says the person corrected.
const ClassRecap = "recap"

// ExtractorRecap names the extractor of the recap's corrections.
const ExtractorRecap = "recap"

// maxRecapItems bounds the corrections one session's recaps give.
const maxRecapItems = 5

// recapLessons are the corrections the agent's recaps of the session
// record, each once however many recaps repeat it, reworded or not.
func recapLessons(ch *transcript.Channels) []Observation {
	var out []Observation
	var keys []identity.Key
	for _, r := range ch.Recaps {
		for _, it := range recapItems(errorsSection(r.Text)) {
			if len(out) == maxRecapItems {
				return out
			}
			lesson, ok := recapLesson(it)
			if !ok {
				continue
			}
			k := identity.KeyOf(lesson)
			if repeated(keys, k) {
				continue
			}
			keys = append(keys, k)
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

// repeated reports a lesson a recap of the session gave already, in the
// same words or others (identity.Same).
func repeated(keys []identity.Key, k identity.Key) bool {
	for _, o := range keys {
		if identity.Same(o, k) {
			return true
		}
	}
	return false
}

// sectionHead is the shape of a line that heads a recap's section: its
// indent, its "#" run, whether it is numbered ("4.", "4)") and in bold,
// and its title. A line is one when it is short and marked as a heading:
// by a "#" run, in bold, or ending with a colon. A numbered list item
// inside a section ("1. Kill all panel instances") is none.
type sectionHead struct {
	indent, marks  string
	numbered, bold bool
	title          string
}

var numberMark = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+[.)][ \t]*`) })

// headingOf reads l as a section's heading.
func headingOf(l string) (sectionHead, bool) {
	var h sectionHead
	s := strings.TrimRight(l, " \t\r")
	rest := strings.TrimLeft(s, " \t")
	h.indent = s[:len(s)-len(rest)]
	t := strings.TrimLeft(rest, "#")
	h.marks = rest[:len(rest)-len(t)]
	t = strings.TrimSpace(t)
	if b := strings.TrimPrefix(t, "**"); b != t {
		h.bold, t = true, b
	}
	if n := numberMark().FindString(t); n != "" {
		h.numbered, t = true, t[len(n):]
	}
	if b := strings.TrimPrefix(t, "**"); b != t {
		h.bold, t = true, b
	}
	colon := strings.HasSuffix(t, ":") || strings.HasSuffix(t, "：") || strings.HasSuffix(t, ":**") || strings.HasSuffix(t, "**:")
	h.title = strings.TrimSpace(strings.Trim(t, "*:： "))
	n := utf8.RuneCountInString(h.title)
	return h, n > 0 && n <= maxHeading && (h.marks != "" || h.bold || colon)
}

// maxHeading bounds a section heading's title, in runes.
const maxHeading = 60

// errorsTitle names the recap's section of what went wrong.
var errorsTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^errors? and fix(es)?\b`) })

// errorsSection is the text of a recap's "Errors and fixes" section, ""
// when it has none. It ends at the next heading of the same shape (the
// same indent and "#" run, numbered and in bold as it is), whatever that
// section is called: "5. Problem-solving:", "## Current Work".
func errorsSection(text string) string {
	lines := strings.SplitAfter(text, "\n")
	off := 0
	for i, l := range lines {
		off += len(l)
		h, ok := headingOf(l)
		if !ok || !errorsTitle().MatchString(h.title) {
			continue
		}
		end := off
		for _, m := range lines[i+1:] {
			if n, ok := headingOf(m); ok && n.indent == h.indent && n.marks == h.marks && n.numbered == h.numbered && n.bold == h.bold {
				return text[off:end]
			}
			end += len(m)
		}
		return text[off:]
	}
	return ""
}

// recapItems are a section's items, each on one line with what stands
// under it: a list item with its sub-items, or a line of its own at the
// list's level (a bold title, a paragraph), with the lines under it. The
// list's level is its first item's indent.
func recapItems(section string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
		}
		cur = nil
	}
	top := -1
	for _, l := range strings.Split(section, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		marked := listMark.MatchString(t)
		if top < 0 && marked {
			top = indent
		}
		if top < 0 || indent <= top {
			flush()
		}
		if s := item(listMark.ReplaceAllString(t, "")); s != "" {
			cur = append(cur, strings.Trim(s, "# "))
		}
	}
	flush()
	return out
}

// recapLesson is the lesson of a recap's item that says the person
// corrected the agent: the person's words when a [feedback] phrase
// introduces a quotation of them that tells rather than asks, else the
// item's title and the sentences that say it ("Bold text formatting
// issue: User complained twice about bold text being invisible in the
// terminal."). What a [refused] phrase quotes is what the person turned
// down, never the lesson. An item that repeats a password gives none
// (credentialShaped).
func recapLesson(it string) (string, bool) {
	x := lang.Fold(it)
	low := x.Low()
	for _, tb := range lang.Tables() {
		for _, kind := range []string{lang.Feedback, lang.Refused} {
			for _, m := range tb.Find(x, kind, 0, len(low)) {
				if denied(x, m) {
					continue
				}
				if credentialShaped(it) {
					return "", false
				}
				if kind == lang.Feedback {
					if q := quotedAfter(it[x.Offset(m.End):]); q != "" {
						return q, true
					}
				}
				said := saying(x, it, m)
				return said, lessonLike(said)
			}
		}
	}
	return "", false
}

// credentialShaped reports an item that speaks of a login or a password
// and holds a word shaped like one: the person may have typed it to the
// agent, and the recap repeats it ("the login is admin / Tr0ub4dor&3x").
// Code in an item (`[]*Phone`, `active=true`) is shaped so too, so the
// shape alone keeps nothing out.
func credentialShaped(it string) bool {
	low := strings.ToLower(it)
	return redact.HoldsPasswordShaped(it) && (redact.NamesPassword(it) || mentions(low, "login", "log in", "sign in", "credential"))
}

// saying is the item's title (what stands before its first colon, when
// short) with the sentence holding m and the one after it: what the
// person said and what the agent did about it, without the rest of the
// story.
func saying(x *lang.Text, it string, m lang.Match) string {
	low := x.Low()
	ss := sentences(low)
	for i, s := range ss {
		if m.Start < s.start || m.Start >= s.end {
			continue
		}
		end := s.end
		if i+1 < len(ss) {
			end = ss[i+1].end
		}
		said := strings.TrimSpace(it[x.Offset(s.start):x.Offset(end)])
		if c := strings.IndexAny(it, ":："); c > 0 && c < x.Offset(s.start) && utf8.RuneCountInString(it[:c]) <= maxTitle {
			said = strings.TrimSpace(it[:c]) + ": " + said
		}
		return said
	}
	return it
}

// maxTitle bounds an item's title, in runes: "Bold text formatting issue".
const maxTitle = 80

// denied reports a match its clause denies before it ("no user
// correction needed"), or that a word that denies follows at once ("User
// correction: none").
func denied(x *lang.Text, m lang.Match) bool {
	low := x.Low()
	from := 0
	for _, s := range sentences(low) {
		if s.start <= m.Start && m.Start < s.end {
			from = s.start
			break
		}
	}
	from = clauseStartOf(low, from, m.Start)
	// What stands right after it: "User correction: none".
	next := m.End + len(low[m.End:]) - len(strings.TrimLeft(low[m.End:], " \t:：-—–*"))
	for _, tb := range lang.Tables() {
		if tb.Has(x, lang.Denies, from, m.Start) {
			return true
		}
		for _, d := range tb.Find(x, lang.Denies, next, len(low)) {
			if d.Start == next {
				return true
			}
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
		return finish(g)
	}
	return ""
}

// maxQuoteLead bounds the runes between a [feedback] phrase and the
// quotation it introduces ("User was angry — ", "User corrected it: ").
const maxQuoteLead = 12

// quotations are text in straight, curly, low-high, corner or angle
// quotes.
var quotations = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"([^"\n]+)"|“([^”\n]+)”|„([^“”\n]+)[“”]|「([^」\n]+)」|«([^»\n]+)»`)
})
