package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
)

// People state standing choices plainly, with no rule word, and often in
// the very first message, where a rule word would only describe the task:
//
//   - the language the work is done in: "answer in German", "schreibe
//     alles auf deutsch", "用中文回答", "한국어로 설명해줘";
//   - the tool or the way a job is done: "use uv for package management",
//     "パッケージ管理はuvを利用", "usa nuqs en todo el proyecto";
//   - where something is: "the spec is in docs/Lastenheft.txt",
//     "claude.md is moved to /root/capsule/.claude".
//
// Each needs two things in one sentence (a language and a way of saying,
// a choosing word and a tool or a choice for all the work, a place and a
// path), so a sentence that mentions a language, a tool or a folder in
// passing is none of them. A question, a condition, a choice for now only
// and a translation are not standing choices.

// ClassPreference is a standing choice the person stated plainly.
const ClassPreference = "preference"

// standing reads a sentence without a marker for a standing choice; short
// says its turn has maxToldSentences sentences or fewer.
func standing(t *turn, x *lang.Text, own string, s span, short bool) (finding, bool) {
	// A condition stays part of the choice ("when you commit, write the
	// message in English"): it is when the lesson applies.
	if asking(x, s) || hasKind(x, lang.Temporary, s.start, s.end) || hasKind(x, lang.Report, s.start, s.end) || opensWith(x, lang.Reject, s) {
		return finding{}, false // a "no, use X" is the rejection's to read
	}
	said := own[x.Offset(s.start):x.Offset(s.end)]
	var f finding
	named := true // the lesson's file, when it names one, is its area
	setup := false
	switch {
	case hasKind(x, lang.InLanguage, s.start, s.end) && hasKind(x, lang.Speak, s.start, s.end) && !hasKind(x, lang.Translate, s.start, s.end):
		named = false
	case onlyLanguage(x, s):
		// "em portugues", "in English please" said alone: the language
		// to go on in, the way of saying understood.
		named = false
	case choosesTool(x, own, s):
		f.choice = true
	case hasKind(x, lang.Stepwise, s.start, s.end):
		// "我们一步一步来吧，你一步一步仔细教我", "작은거에 집중 한개씩 분석 완성":
		// how the person wants the work paced.
		named = false
	case hasKind(x, lang.Where, s.start, s.end) && (placeNamed(said) || hasKind(x, lang.Place, s.start, s.end) && (namesTool(said, false) || properName(said))):
		// "M-Claude is in the Documents folder": a place said in words
		// (a folder, a host, a port) is one as much as a path is, when
		// something is named there; "the bug is in the folder view" names
		// nothing.
	case hasKind(x, lang.Must, s.start, s.end) && hasKind(x, lang.General, s.start, s.end):
		// A requirement over all of something: "todas las apis que hagas
		// deberían pedir el usuario autenticado".
		named = false
	case !t.first && required(x, s) && !brief(own) && !lang.Acknowledges(t.after):
		// How the work must behave, said of the thing itself ("Next hand
		// should autostart", "The same user should not be able to join
		// the same table twice"): a requirement that holds after this task.
		// In the session's first message it is the task ("The settings
		// page should load the user's theme"); owned up to, the turn is
		// read whole, which keeps the requirement's object ("Look at
		// db/schema.sql. 'accounts' should be 'be_accounts'").
	case !t.first && short && endsNarrative(x, s) && !endsWith(x, lang.Negative, s) && namesTool(said, false):
		// Korean said in the written register in chat ("status는 네가지
		// 상태만 존재한다", "db저장형식은 TIMESTAMPTZ이다"): the person
		// stating how a named thing is, as a specification would. A short
		// turn only (a pasted spec is long), and not what is missing or
		// does not work ("…에는 집계 되지 않는다"), which reports.
		setup = true
	case hasKind(x, lang.Called, s.start, s.end) && namesTool(said, false):
		// "仓库叫886caigudong/caigudong-", "the branch is called
		// release/v2": what a thing is named, the name given as code
		// writes one, is how things are.
		setup = true
	case hasKind(x, lang.Setup, s.start, s.end) && hasKind(x, lang.Platform, s.start, s.end):
		// What the person works on ("I'm on Ubuntu 22.04", "utilizo
		// windows", "私はスマホ（Android）上で開発"): how things are in
		// every session after, the instructions it is given are for.
		setup = true
	default:
		return finding{}, false
	}
	// Cleaned only once it is one: most sentences are none.
	lesson, _ := cleanLessonAt(x, own, s.start, s.end, "")
	if words(lesson) < 2 {
		return finding{}, false
	}
	f.said, f.lesson, f.class = said, lesson, ClassPreference
	if setup {
		f.class = ClassFact
	}
	if named {
		f.area = namedPath(lesson)
	}
	return f, true
}

// required reports a sentence that says what something must do, with the
// thing named as its subject: an obligation word ([must]) after one to
// maxSubjectWords words that hold no pronoun. Said of a pronoun ("it
// should work now", "we should be able to know when") or doubted ("I
// think the tests should pass") it expects or wonders; added to what is
// there, or said in a turn that reports, it is this task's. Only languages
// that put the subject before the verb, with spaces between words, are
// read this way.
func required(x *lang.Text, s span) bool {
	low := x.Low()
	for _, tb := range lang.Tables() {
		if !tb.Spaces {
			continue
		}
		ms := tb.Find(x, lang.Must, s.start, s.end)
		if len(ms) == 0 {
			continue
		}
		m := ms[0]
		c := afterOpening(x, clauseStartOf(low, s.start, m.Start), m.Start)
		if n := words(low[c:m.Start]); n == 0 || n > maxSubjectWords || !named(low[c:m.Start]) ||
			tb.HasAny(x, c, m.Start, lang.Pronoun, lang.Hedge, lang.Condition) {
			return false
		}
		// Something added ("the endpoint should also accept a limit") is
		// a feature for this task; what a turn reports broken ("still
		// broken. The settings page should load the theme") is how it
		// should have behaved this time.
		return words(low[s.start:s.end]) >= minRequiredWords && !hasKind(x, lang.Also, s.start, s.end) && !hasKind(x, lang.Report, 0, len(low))
	}
	return false
}

// brief reports a turn laid out as a task's specification: long, and in
// items or sections ("1. Update the layout…", "Core Requirements:",
// "Physics & Boundaries:"). What must hold there is what this task is to
// build, as in a session's first message.
func brief(own string) bool {
	if utf8.RuneCountInString(own) < minBrief {
		return false
	}
	n := 0
	for start := 0; start < len(own); {
		line := own[start:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		t := strings.TrimSpace(line)
		at := start + len(line) - len(strings.TrimLeft(line, " \t"))
		if t != "" && (listItem(own, at) || strings.HasPrefix(t, "#") || strings.HasSuffix(t, ":")) {
			n++
		}
		start += len(line) + 1
	}
	return n >= minBriefItems
}

// A brief is minBrief runes long or more, with minBriefItems items or
// section headings.
const (
	minBrief      = 600
	minBriefItems = 3
)

// named reports a subject holding a word of three letters or more: a
// thing's name, not what is left of a clause ("et qu'").
func named(subject string) bool {
	for _, w := range strings.Fields(subject) {
		n := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				n++
			}
		}
		if n >= 3 {
			return true
		}
	}
	return false
}

// A requirement's subject is a few words ("the same user", "next hand"),
// in a sentence of minRequiredWords or more.
const (
	maxSubjectWords  = 4
	minRequiredWords = 4
)

// onlyLanguage reports a turn that is one sentence naming a language and
// nothing else but fillers ("em portugues", "auf Deutsch bitte").
func onlyLanguage(x *lang.Text, s span) bool {
	if s.start != skipSpacePunct(x.Low(), 0, len(x.Low())) || strings.TrimSpace(x.Low()[s.end:]) != "" || !hasKind(x, lang.InLanguage, s.start, s.end) {
		return false
	}
	return madeOf(x, s.start, s.end, lang.InLanguage, lang.Filler, lang.Answer)
}

// choosesTool reports a sentence that chooses how a job is done: a
// choosing word where an imperative stands (anywhere in a language that
// does not separate words), and either a tool it names or a word that
// makes it a choice for all the work.
func choosesTool(x *lang.Text, own string, s span) bool {
	placed, spaced := false, true
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, lang.Use, s.start, s.end) {
			if !tb.Spaces || leads(x, tb, s.start, m.Start) {
				placed = true
				spaced = spaced && tb.Spaces
			}
			break
		}
	}
	if !placed {
		return false
	}
	return hasKind(x, lang.General, s.start, s.end) || namesTool(own[x.Offset(s.start):x.Offset(s.end)], !spaced)
}

// namesTool reports a sentence that names a tool, a library or a file as
// code does: in backticks, with a dot, a dash, a slash or an at sign inside
// a word (next.js, drizzle-kit, @nuqs/server), in CamelCase, or in Latin
// letters among another script's (uv in "パッケージ管理はuvを利用"). foreign
// says the sentence is in a language written in another script, whatever
// share of its letters are Latin ("server は docker を廃止").
func namesTool(s string, foreign bool) bool {
	if strings.Contains(s, "`") {
		return true
	}
	latin, other := 0, 0
	for _, r := range s {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
			latin++
		case unicode.IsLetter(r):
			other++
		}
	}
	foreign = foreign && other > 0 || other > latin
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:()[]{}\"'“”「」、，。！？", r)
	}) {
		w = strings.Trim(w, ".!?")
		if len(w) < 2 {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return r >= 0x80 }) < 0 {
			if codeLike(w) || foreign {
				return true // foreign: a Latin word in a sentence of another script
			}
			continue
		}
		// A Latin word glued to another script's letters, as Korean and
		// Japanese glue their particles: "uvを利用", "created_at을
		// 사용하세요". Its Latin part is the word.
		for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r >= 0x80 }) {
			if strings.IndexFunc(part, unicode.IsLetter) >= 0 && (foreign || len(part) >= 2 && codeLike(part)) {
				return true
			}
		}
	}
	return false
}

// codeLike reports a word written as code writes names: with a dot, a
// dash, a slash, an underscore or an at sign inside it (next.js,
// drizzle-kit, @nuqs/server, created_at), or in CamelCase.
func codeLike(w string) bool {
	return strings.ContainsAny(strings.Trim(w, "-"), ".-/@_") && strings.IndexFunc(w, unicode.IsLetter) >= 0 || camel(w)
}

// camel reports a word with a capital after its first letter: FastAPI,
// TypeScript, useQueryState.
func camel(w string) bool {
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// maxToldSentences bounds a turn whose written-register sentences are
// told in chat: longer, it is a document pasted.
const maxToldSentences = 3

// properName reports a sentence with a word past its first that opens
// with a capital: a name ("the Documents folder").
func properName(s string) bool {
	for i, w := range strings.Fields(s) {
		w = strings.Trim(w, "`'\"“”()[],.;:!?")
		if r, _ := utf8.DecodeRuneInString(w); i > 0 && unicode.IsUpper(r) && utf8.RuneCountInString(w) >= 3 {
			return true
		}
	}
	return false
}

// placeNamed reports a sentence that names a place in the project: a path,
// a file, or a folder.
func placeNamed(s string) bool {
	if namedPath(s) != "" {
		return true
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, "`'\"“”()[],.;:")
		if strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "/") && len(w) > 1 || strings.Contains(w, `:\`) {
			return true
		}
	}
	return false
}

// opensWith reports a sentence whose clause opens with a phrase of kind.
func opensWith(x *lang.Text, kind string, s span) bool { return openedBy(x, kind, s) != nil }

// openedBy is the table whose phrase of kind opens the sentence's clause
// (after fillers at most), or nil. Only a table of the language the
// sentence reads as counts: Portuguese "No login, os botões devem ser
// azuis" (in the login) opens with no Spanish or English "no".
func openedBy(x *lang.Text, kind string, s span) *lang.Table {
	foreign := lang.ForeignTo(x, s.start, s.end)
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, kind, s.start, s.end) {
			if leads(x, tb, s.start, m.Start) && !foreign(tb) {
				return tb
			}
			break
		}
	}
	return nil
}
