package transcript

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
)

// People paste into their messages what they were told elsewhere: another
// assistant's answer, a page of a web app, a course. It reads as advice,
// in the imperative, with "always" and "never" in it, and it is not the
// person's: the agent should not learn it as their instruction. Line by
// line it is prose (pastedLine keeps it); as a whole it is laid out as
// such answers are, or the person announced it. Reading that takes the
// phrase tables, the one package below transcript this file needs.
//
// withoutRelayed is a message of the person without what they relayed,
// the part that is theirs (OwnWords reads it last):
//
//   - what precedes an announcement of another's answer with that answer
//     after it ("I got this advice:", "以下のアドバイスをもらった", a
//     [relayed] phrase followed by minRelayed runes or more);
//   - of a long message laid out as an answer is (minLaidOut lines or
//     more that are rules, headings, lines opening on a mark such as ✅
//     or ①, or rows of columns, of two kinds at least), only its lead:
//     the lines before the first blank or laid-out one. Unless the lead
//     asks to remember what follows or names an agent's instruction file
//     ("record the following in CLAUDE.md"): a handbook the person hands
//     over is theirs.
func withoutRelayed(own string) string {
	if len(own) < minRelayed {
		return own // too short to hold an answer pasted (the common case)
	}
	x := lang.Fold(own)
	low := x.Low()
	cut := len(low)
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, lang.Relayed, 0, cut) {
			if utf8.RuneCountInString(low[m.End:]) >= minRelayed {
				cut = m.Start
				break
			}
		}
	}
	if cut < len(low) {
		return strings.TrimSpace(own[:x.Offset(cut)])
	}
	if at := assistantSays(x); at >= 0 {
		return strings.TrimSpace(own[:at])
	}
	lead, ok := laidOut(own)
	if !ok {
		return own
	}
	if lx := lang.Fold(lead); remembers(lx) || namesInstructions(lx.Low()) {
		return own
	}
	return lead
}

// assistantSays is where, in the person's message x, an assistant's
// answer to its user begins, pasted without being announced: the start of
// the line where an assistant speaks as one ("I'd be happy to help",
// "好的，我来帮你算八字", "N'hésitez pas à…", an [assistant] phrase), or where
// Gemini's citation marks ("[cite: 2026-02-15]") stand; -1 when none
// does, or too little follows to be an answer (minAssistant runes). A
// bot's replies pasted to show a bug, another AI's prompt pasted to be
// applied: their rules are not the person's.
func assistantSays(x *lang.Text) int {
	low := x.Low()
	at := len(low)
	if i := strings.Index(low, "[cite:"); i >= 0 {
		at = i
	}
	if i := strings.Index(low, "[cite_start]"); i >= 0 && i < at {
		at = i
	}
	for _, tb := range lang.Tables() {
		if ms := tb.Find(x, lang.Assistant, 0, at); len(ms) > 0 {
			at = ms[0].Start
		}
	}
	if at == len(low) {
		return -1
	}
	at = strings.LastIndexByte(low[:at], '\n') + 1 // its line
	if utf8.RuneCountInString(low[at:]) < minAssistant {
		return -1
	}
	return x.Offset(at)
}

// remembers reports a request to remember in t, in any table.
func remembers(t *lang.Text) bool {
	for _, tb := range lang.Tables() {
		if tb.Has(t, lang.Remember, 0, len(t.Low())) {
			return true
		}
	}
	return false
}

// namesInstructions reports a lead that names an agent's instruction file:
// what follows is handed over to be written there, in whatever words the
// person asked ("record the following in CLAUDE.md", "AGENTS.md に追記").
func namesInstructions(low string) bool {
	for _, f := range []string{"claude.md", "agents.md", "gemini.md"} {
		if strings.Contains(low, f) {
			return true
		}
	}
	return false
}

const (
	// minRelayed is how long what follows an announcement must be to be
	// the answer announced (in runes), and how long a message must be to
	// hold one (in bytes).
	minRelayed = 200
	// minLaidOut is how many laid-out lines make a message an answer.
	minLaidOut = 4
	// minAssistant is how long (in runes) what an assistant says must be
	// to be an answer pasted, rather than a phrase quoted.
	minAssistant = 80
	// minAnswer is how long (in runes) a laid-out message must be: a
	// short list of the person's own is not one.
	minAnswer = 500
)

// laidOut reports a message laid out as an answer is, and its lead.
func laidOut(text string) (lead string, ok bool) {
	if utf8.RuneCountInString(text) < minAnswer {
		return "", false
	}
	lines := strings.Split(text, "\n")
	n, kinds, leadEnd := 0, map[layout]bool{}, -1
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		k := layoutOf(trim)
		if leadEnd < 0 && (trim == "" || k != laidPlain) {
			leadEnd = i
		}
		if k != laidPlain {
			n++
			kinds[k] = true
		}
		if k == laidHeading && pictured(trim) {
			// "### 🔬 The 0.1644 Autopsy": a chat assistant heads its
			// sections so; a person typing in a terminal does not.
			n++
			kinds[laidMark] = true
		}
	}
	if n < minLaidOut || len(kinds) < 2 {
		return "", false
	}
	if leadEnd < 0 {
		leadEnd = len(lines)
	}
	return strings.TrimSpace(strings.Join(lines[:leadEnd], "\n")), true
}

// layout is how a line is laid out.
type layout int

const (
	laidPlain   layout = iota
	laidRule           // ---, ***, ───
	laidHeading        // # Title
	laidMark           // opens on a mark: ✅, ❌, ①, →, 🔥
	laidColumns        // a table's row without its pipes: words apart by tabs or runs of spaces
)

func layoutOf(trim string) layout {
	if trim == "" {
		return laidPlain
	}
	if len(trim) >= 3 && strings.Trim(trim, "-*_─━═") == "" {
		return laidRule
	}
	if h := strings.TrimLeft(trim, "#"); len(h) < len(trim) && len(trim)-len(h) <= 6 && strings.HasPrefix(h, " ") {
		return laidHeading
	}
	if r, _ := utf8.DecodeRuneInString(trim); mark(r) {
		return laidMark
	}
	if gaps(trim) >= 2 {
		return laidColumns
	}
	return laidPlain
}

// pictured reports a heading whose title opens on a pictograph or a
// symbol ("## ✅ The DO list", "### 🛠️ The fix").
func pictured(heading string) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(strings.TrimLeft(heading, "#")))
	return mark(r)
}

// mark reports a rune answers open a line on: a symbol or pictograph
// (✅ ❌ ★ 🔥), an arrow, a circled number (①).
func mark(r rune) bool {
	return unicode.Is(unicode.So, r) || unicode.Is(unicode.Sm, r) && r >= 0x2190 || r >= 0x2460 && r <= 0x24FF || r >= 0x2776 && r <= 0x2793
}

// gaps counts the places where words stand apart by a tab or three spaces
// or more, as the cells of a table copied without its borders do.
func gaps(trim string) int {
	n, spaces := 0, 0
	for _, r := range trim {
		switch r {
		case '\t':
			n++
			spaces = 0
		case ' ':
			spaces++
			if spaces == 3 {
				n++
			}
		default:
			spaces = 0
		}
	}
	return n
}
