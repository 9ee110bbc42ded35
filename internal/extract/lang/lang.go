// Package lang holds the per-language phrase tables capture reads the
// person's and the agent's words with: requests to remember, rules,
// contrasts, rejections, answers, the agent owning up, and how a lesson
// reads in that language. The tables are data (*.phrases beside this
// file, embedded); a contributor adds a language by adding a file, without
// writing Go (docs/capture.md, "Phrase tables").
//
// It imports nothing heavy and parses the tables on first use, so a hook
// can ask MayBeCorrection about a prompt for a few microseconds.
package lang

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Kinds of phrases: the sections of a table.
const (
	Remember    = "remember"    // a request to keep a rule
	Rule        = "rule"        // a prohibition, an imperative rule
	Always      = "always"      // a rule for always: never, always
	NotRule     = "not_rule"    // holds a rule word but states something
	Reproach    = "reproach"    // what the agent failed to do
	Contrast    = "contrast"    // one way chosen over another
	Reject      = "reject"      // no to what the agent just did
	Temporary   = "temporary"   // for now only
	Hedge       = "hedge"       // a condition or a doubt before a rule word
	Condition   = "condition"   // opens a clause that says when a rule holds: "when you change the schema, always run …"
	Answer      = "answer"      // a turn made only of these is an answer
	Approve     = "approve"     // approving the agent's proposal, a turn made only of these and answers: "开始实施", "実施して"
	Filler      = "filler"      // opens or closes a sentence, asks nothing
	Soften      = "soften"      // a suggestion stated softly: the lesson is {x}
	ThisFile    = "this_file"   // points at the file the agent worked on
	Acknowledge = "acknowledge" // the agent owning up
	Intent      = "intent"      // the agent stating its plan: {x}
	Because     = "because"     // introduces the reason: the rationale is what follows
	Report      = "report"      // how things stand ("it still fails"): no lesson
	Compliment  = "compliment"  // the agent approving: owns up to nothing by itself
	Template    = "template"    // how a lesson reads: key: text with {x} (run_yourself has none)
	InLanguage  = "in_language" // a language the work is done in: "in German", "auf Deutsch", "用中文"
	Speak       = "speak"       // what is said or written: answer, explain, comments, commit messages
	Translate   = "translate"   // a translation: a task, not a choice of language
	Use         = "use"         // choosing a tool or a way: "use", "utilise", "を使って"
	General     = "general"     // a choice for all the work: "always", "everywhere", "in this project"
	Where       = "where"       // where something is: "is in", "lives in", "findest du in"
	Narrative   = "narrative"   // ends a sentence that tells, in a written register: no one is told to do anything
	Negative    = "negative"    // ends a sentence that says something is not, or only seems so: "않는다", "없다", "것 같다"
	Ask         = "ask"         // ends a sentence that asks, in a language that marks a question by a word: "…呢。", "…ですか。"
	Yourself    = "yourself"    // the agent is to do it itself, not hand it to the person: "you run it", "сам посмотри"
	Fyi         = "fyi"         // introduces how things are, for the agent to know: "FYI", "I forgot to tell you", "pour info", "ちなみに"
	Noted       = "noted"       // the agent taking note of what it was told, at the start of its reply: "Noted", "Bien noté", "Good to know"
	Prefer      = "prefer"      // a preference said as such: "I'd rather", "preferably", "prefiero", "の方がいい"
	Recurring   = "recurring"   // a condition that comes back in the agent's work: "before you commit", "every time you"
	Must        = "must"        // an obligation, said of anything: "must", "should", "has to", "debe", "muss", "必须"
	Place       = "place"       // what the agent asks for when it asks where something is: "path", "which folder", "où"
	Slip        = "slip"        // the agent owning up to an accident: "accidentally", "versehentlich", "不小心": a slip, no way of working
	Relayed     = "relayed"     // another's answer announced, pasted after it: "here's what ChatGPT said", "以下のアドバイスをもらった"
	Assistant   = "assistant"   // an assistant answering its user, in what the person pasted: "I'd be happy to help", "我来帮你", "N'hésitez pas à"
	Henceforth  = "henceforth"  // the agent taking on a way of working for good: "from now on", "a partir de ahora", "今後"
	Stepwise    = "stepwise"    // how the work is paced: "step by step", "one at a time", "一步一步", "하나씩"
	Pointer     = "pointer"     // pointing at a page, a site, a link instead of naming it: "this site", "このサイト"
	Referent    = "referent"    // what a request to keep names instead of the lesson: "this", "the following", "以下を", "これも"
	Common      = "common"      // words so common in the language that a sentence holding them reads as it: "the", "el", "der"
	Setup       = "setup"       // the person saying what they work on, in the first person: "I'm on", "utilizo", "私は…で"
	Platform    = "platform"    // a system, a device or a kind of machine one works on: "Windows", "Ubuntu", "WSL", "スマホ", "服务器"
	Pronoun     = "pronoun"     // the speaker, the agent or what was just said, as a subject: "it", "we", "ça", "eso", "это"
	Also        = "also"        // adding to what is there: "also", "auch", "aussi", "también", "тоже"
	Rest        = "rest"        // what the sentence before did not name: "everything else", "それ以外", "其他", "el resto"
	Holdoff     = "holdoff"     // the agent to propose before it changes anything: "don't write any code yet", "不要直接改", "コード書かずに"
	Unasked     = "unasked"     // the agent to go on without asking the person: "no need to ask me", "não precisa me perguntar", "不用问我"
	Called      = "called"      // what something is named: "the repo is called", "se llama", "叫", "という名前"
	Wait        = "wait"        // the agent to wait, or stop for now: "wait", "not yet", "enough", "espera", "待って", "等一下"
	Denies      = "denies"      // says something is not, or not done: "not", "no longer", "never", "nicht", "не", "不", "ない"
	Feedback    = "feedback"    // in the agent's recap of a session, the person correcting it, what follows what they said: "user corrected", "user was angry", "ユーザーから指摘"
	Refused     = "refused"     // in the agent's recap of a session, the person turning down what follows: "user rejected", "user asked me not to", "用户拒绝"
	Thanks      = "thanks"      // an answer that only thanks, closing a lesson with or without a comma before it: "thanks", "gracias", "спасибо"
	Unsure      = "unsure"      // a doubt about what the person knows, put as a condition: "if I'm not mistaken", "если не ошибаюсь", "제가 맞다면"
)

var kinds = []string{Remember, Rule, Always, NotRule, Reproach, Contrast, Reject, Temporary, Hedge, Condition, Answer, Approve, Filler, Soften, ThisFile, Acknowledge, Compliment, Intent, Because, Report, Template, InLanguage, Speak, Translate, Use, General, Where, Narrative, Negative, Ask, Yourself, Fyi, Noted, Prefer, Recurring, Must, Place, Slip, Relayed, Assistant, Henceforth, Pointer, Referent, Stepwise, Common, Setup, Platform, Pronoun, Also, Rest, Holdoff, Unasked, Called, Wait, Denies, Feedback, Refused, Thanks, Unsure}

// Templates every table gives.
const (
	Dont     = "dont"      // a rejected plan: "Do not {x}"
	DontRun  = "dont_run"  // a rejected command
	DontEdit = "dont_edit" // a rejected edit of a file
	// RunYourself: the commands the agent hands the person are its to
	// run (no {x}).
	RunYourself = "run_yourself"
	// ProposeFirst: the agent proposes before it changes code, and
	// changes nothing until the person agrees (no {x}).
	ProposeFirst = "propose_first"
)

var templates = []string{Dont, DontRun, DontEdit, RunYourself, ProposeFirst}

// whole reports a template that is the whole lesson, with no {x}.
func whole(k string) bool { return k == RunYourself || k == ProposeFirst }

// Table is one language's phrases.
type Table struct {
	Code, Name string
	// Spaces: words are separated by spaces, and phrases match on word
	// boundaries. Without (Chinese, Japanese, Korean) they match anywhere,
	// inside a word too, and a space in a phrase matches spaces or none.
	Spaces bool
	// RulesAnywhere: a [rule] phrase counts wherever it stands in its
	// clause, not only where an imperative opens it (Russian puts the
	// object first: "конфиг не трогай"). A phrase written with ^ still
	// counts only at the start.
	RulesAnywhere bool
	// WithoutKana: the language is written in Han characters alone
	// (Chinese), which Japanese writes with as well, kana beside them: a
	// phrase of it ("注意", pay attention) is not read in a span holding
	// kana ("【注意点】", "注意すべき点").
	WithoutKana bool
	// Words: in a table without spaces, words a phrase never ends inside
	// of: Chinese "部署前" (before deploying) is not the start of "部署前端"
	// (deploy the frontend). Starts: words a phrase never starts inside
	// of: "要是" (if) is not the end of "主要是" (mainly).
	Words, Starts []string
	phrases       map[string][]phrase
	templates     map[string]string
	// index finds the phrases that may start at a place by its first two
	// bytes, so a text is scanned once whatever the number of phrases:
	// index[b] holds the phrases that start with b, by their second byte;
	// wild[b] those whose second byte may be anything (a phrase of one
	// byte, a loose phrase whose space may match none).
	index [256][]entry
	wild  [256][]entry
	keys  [1 << 16 / 64]uint64 // the phrases' first two bytes, as bits: most places hold none
}

// phrase is one line of a table, folded.
type phrase struct {
	text     string // folded, without ^ and {x}
	start    bool   // ^: only at the start of a clause
	slot     int    // 0: none; 1: {x} after the text; -1: {x} before it
	template string // [soften]: how {x} reads as a lesson ("Do not {x}"); "" is "{x}"
	loose    bool   // a table without spaces: a space in text matches spaces or none
	// ending: the phrase's last word is any word that ends so, three
	// letters or more before it ("не *ай": "не трогай", "не поднимай"),
	// text the words before it and their space.
	ending string
}

// minStem is how many letters a word matched by its ending holds before
// it: "не делай", not "не чай".
const minStem = 3

//go:embed *.phrases
var files embed.FS

var (
	once   sync.Once
	tables []*Table
	errs   []error
)

func load() {
	names, err := fs.Glob(files, "*.phrases")
	if err != nil {
		errs = append(errs, err)
		return
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t, err := Parse(n, string(data))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tables = append(tables, t)
	}
}

// Tables returns every language's table, in file name order.
func Tables() []*Table {
	once.Do(load)
	return tables
}

// Check reports the tables that could not be read (a test holds it empty).
func Check() []error {
	once.Do(load)
	return errs
}

// Get returns the table of a language code, or nil.
func Get(code string) *Table {
	for _, t := range Tables() {
		if t.Code == code {
			return t
		}
	}
	return nil
}

// Parse reads one table; name labels its errors.
func Parse(name, data string) (*Table, error) {
	t := &Table{phrases: map[string][]phrase{}, templates: map[string]string{}}
	section := ""
	n := 0
	for rest := data; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			if !slices.Contains(kinds, section) {
				return nil, bad("unknown section [%s] (want one of %s)", section, strings.Join(kinds, ", "))
			}
			continue
		}
		switch section {
		case "":
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return nil, bad("want key: value before the first [section]")
			}
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(k) {
			case "code":
				t.Code = v
			case "name":
				t.Name = v
			case "spaces":
				t.Spaces = v == "yes" || v == "true"
			case "rules":
				if v != "anywhere" && v != "at start" {
					return nil, bad("rules: want anywhere or at start")
				}
				t.RulesAnywhere = v == "anywhere"
			case "kana":
				if v != "no" && v != "yes" {
					return nil, bad("kana: want yes or no")
				}
				t.WithoutKana = v == "no"
			case "words":
				for _, w := range strings.Fields(v) {
					t.Words = append(t.Words, Fold(w).Low())
				}
			case "starts":
				for _, w := range strings.Fields(v) {
					t.Starts = append(t.Starts, Fold(w).Low())
				}
			default:
				return nil, bad("unknown key %q (want code, name, spaces, rules, kana, words, starts)", k)
			}
		case Template:
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.TrimSpace(v) == "" || !strings.Contains(v, "{x}") && !whole(strings.TrimSpace(k)) {
				return nil, bad("want key: text with {x}")
			}
			t.templates[strings.TrimSpace(k)] = strings.TrimSpace(v)
		default:
			p, err := parsePhrase(line, section)
			if err != nil {
				return nil, bad("%v", err)
			}
			t.phrases[section] = append(t.phrases[section], p)
		}
	}
	if t.Code == "" {
		return nil, fmt.Errorf("%s: no code", name)
	}
	for _, k := range templates {
		if t.templates[k] == "" {
			return nil, fmt.Errorf("%s: no template %s", name, k)
		}
	}
	instructionFiles(t)
	if !t.Spaces {
		for _, ps := range t.phrases {
			for i := range ps {
				ps[i].loose = strings.Contains(ps[i].text, " ")
			}
		}
	}
	t.buildIndex()
	return t, nil
}

// instructionFiles gives every phrase that names CLAUDE.md ("add this to
// CLAUDE.md") the same for the other agents' instruction files: a Codex
// user asks to write a rule into AGENTS.md as a Claude Code user does into
// CLAUDE.md, and a table need not say it three times.
func instructionFiles(t *Table) {
	for section, ps := range t.phrases {
		for _, p := range ps {
			if !strings.Contains(p.text, "claude.md") {
				continue
			}
			for _, f := range []string{"agents.md", "gemini.md"} {
				q := p
				q.text = strings.ReplaceAll(p.text, "claude.md", f)
				// A table may name the file itself; tables load in every
				// hook, so a scan of the few phrases, not a map.
				if !slices.ContainsFunc(t.phrases[section], func(o phrase) bool { return o.text == q.text }) {
					t.phrases[section] = append(t.phrases[section], q)
				}
			}
		}
	}
}

// slotted tells, for each section, whether its phrases take {x}: always
// (soften, intent), or may (reproach: "you forgot to {x} => {x}").
var slotted = map[string]string{Soften: "always", Intent: "always", Reproach: "may"}

func parsePhrase(line, section string) (phrase, error) {
	var p phrase
	if l, tmpl, ok := strings.Cut(line, "=>"); ok {
		if slotted[section] == "" || !strings.Contains(tmpl, "{x}") {
			return p, fmt.Errorf("=> only in [soften], [intent] and [reproach], followed by a text with {x}")
		}
		line, p.template = strings.TrimSpace(l), strings.TrimSpace(tmpl)
	}
	if rest, ok := strings.CutPrefix(line, "^"); ok {
		p.start, line = true, rest
	}
	switch {
	case strings.HasSuffix(line, "{x}"):
		p.slot, line = 1, strings.TrimSuffix(line, "{x}")
	case strings.HasPrefix(line, "{x}"):
		p.slot, line = -1, strings.TrimPrefix(line, "{x}")
	}
	if strings.Contains(line, "{x}") {
		return p, fmt.Errorf("{x} only at the start or the end of a phrase")
	}
	switch {
	case slotted[section] == "always" && p.slot == 0:
		return p, fmt.Errorf("want {x} at the start or the end")
	case slotted[section] == "" && p.slot != 0:
		return p, fmt.Errorf("{x} only in [soften], [intent] and [reproach]")
	}
	line = strings.TrimSpace(line)
	if strings.Contains(line, "*") {
		k := strings.LastIndexAny(line, " \t")
		last := line[k+1:]
		if k < 0 || !strings.HasPrefix(last, "*") || strings.Count(line, "*") > 1 || p.slot != 0 || len(last) < 2 {
			return p, fmt.Errorf("* only opens the last word of a phrase of two words or more, followed by an ending (\"не *ай\")")
		}
		p.ending = strings.Map(foldRune, last[1:])
		p.text = strings.Map(foldRune, strings.TrimSpace(line[:k])) + " "
		return p, nil
	}
	p.text = strings.Map(foldRune, line)
	if p.text == "" {
		return p, fmt.Errorf("empty phrase")
	}
	return p, nil
}

// Template returns the table's text for key with x in place of {x}.
func (t *Table) Template(key, x string) string {
	return strings.Replace(t.templates[key], "{x}", x, 1)
}

// Text is a text prepared for matching: lower case, ’ read as ', a letter
// repeated three times or more read once. Offsets in matches are the
// original's.
type Text struct {
	Orig string
	low  string
	off  []int // off[i]: the original offset of low's byte i; off[len(low)] = len(Orig)
	// reads is what the whole text reads as (readAs), worked out once,
	// the first time a sentence too short to tell needs it.
	reads []*Table
}

// Fold prepares s for matching.
func Fold(s string) *Text { t := fold(s); return &t }

func fold(s string) Text {
	var b strings.Builder
	b.Grow(len(s))
	off := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		// A run of the same letter: three or more are read as one.
		j, run := i+n, 1
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if r2 != r {
				break
			}
			j += n2
			run++
		}
		if run < 3 || !unicode.IsLetter(r) {
			j = i + n
		}
		r = foldRune(r)
		w := utf8.RuneLen(r)
		if w < 0 {
			r, w = utf8.RuneError, 3
		}
		for k := 0; k < w; k++ {
			off = append(off, i)
		}
		b.WriteRune(r)
		i = j
	}
	off = append(off, len(s))
	return Text{Orig: s, low: b.String(), off: off}
}

// foldRune is how a rune is read: lower case, typographic quotes as plain
// ones, ё as е (Russian writes either), a Latin letter without its accent
// (people type "razon", "deberia", "nao" as often as "razón", "debería",
// "não", and agents answer in kind), a Greek one too.
func foldRune(r rune) rune {
	switch r {
	case '’', '‘', '`', '´':
		return '\''
	case '“', '”':
		return '"'
	case 'ё', 'Ё':
		return 'е'
	case '\u037e': // Greek's question mark, which looks like a semicolon
		return ';'
	}
	r = unicode.ToLower(r)
	if r >= greekFrom && r < greekFrom+rune(len(greekBase)) {
		if b := greekBase[r-greekFrom]; b != 0 {
			return b
		}
	}
	if r >= latinFrom && r < latinFrom+rune(len(latinBase)) {
		if b := latinBase[r-latinFrom]; b != '_' {
			return rune(b)
		}
	}
	return r
}

// greekBase is the letter each of Greek's lower-case letters with an
// accent or a diaeresis (from greekFrom) is without it, and ς is σ: Greek
// is typed without accents as often as with them, and capitals drop them
// ("ΠΟΤΕ" is "ποτέ"). 0 where the letter is its own.
const greekFrom = 0x390

var greekBase = [...]rune{
	0x390 - greekFrom: 'ι', 0x3ac - greekFrom: 'α', 0x3ad - greekFrom: 'ε', 0x3ae - greekFrom: 'η',
	0x3af - greekFrom: 'ι', 0x3b0 - greekFrom: 'υ', 0x3c2 - greekFrom: 'σ', 0x3ca - greekFrom: 'ι',
	0x3cb - greekFrom: 'υ', 0x3cc - greekFrom: 'ο', 0x3cd - greekFrom: 'υ', 0x3ce - greekFrom: 'ω',
}

// latinBase is the letter each of Latin-1's and Latin Extended-A's letters
// (from latinFrom) is without its accent, as Unicode decomposes it; '_'
// where none is (æ, ø, ß, ł keep their own). Other scripts' marks, but
// Greek's, are letters of their own (a kana's voicing, й) and stay.
const (
	latinFrom = 0xC0
	latinBase = "AAAAAA_CEEEEIIII_NOOOOO__UUUUY__aaaaaa_ceeeeiiii_nooooo__uuuuy_y" +
		"AaAaAaCcCcCcCcDd__EeEeEeEeEeGgGgGgGgHh__IiIiIiIiI___JjKk_LlLlLl_" +
		"___NnNnNn___OoOoOo__RrRrRrSsSsSsSsTtTt__UuUuUuUuUuUuWwYyYZzZzZz_"
)

// Asks reports a question mark at i in s: "?" or "？", or a semicolon
// that ends a Greek sentence, which is how Greek writes one ("Το έτρεξες
// με το make test;"). Greek's own semicolon is the raised dot (·), so one
// ending a sentence of Greek words asks, whatever word stands before it.
func Asks(s string, i int) bool {
	switch {
	case strings.HasPrefix(s[i:], "?"), strings.HasPrefix(s[i:], "？"), strings.HasPrefix(s[i:], "\u037e"):
		return true
	case s[i] != ';':
		return false
	}
	if next, _ := utf8.DecodeRuneInString(s[i+1:]); next != utf8.RuneError && !unicode.IsSpace(next) && !strings.ContainsRune(Closing, next) {
		return false // code: "a; b" has its space, "x=1;y=2" none
	}
	start := 0
	if k := strings.LastIndexAny(s[:i], ".!?;\n·"); k >= 0 {
		_, n := utf8.DecodeRuneInString(s[k:])
		start = k + n
	}
	return strings.IndexFunc(s[start:i], func(r rune) bool { return unicode.Is(unicode.Greek, r) }) >= 0
}

// Closing are the marks that may close a sentence after its question
// mark: a bracket, a quote, emphasis.
const Closing = ")]\"'*_»」』）`"

// EndsAsking reports a text whose last mark is a question mark (Asks).
func EndsAsking(s string) bool {
	s = strings.TrimRight(s, " \t\n")
	if s == "" {
		return false
	}
	_, n := utf8.DecodeLastRuneInString(s)
	return Asks(s, len(s)-n)
}

// Low returns the folded text.
func (t *Text) Low() string { return t.low }

// Span returns the original text of folded offsets [i, j).
func (t *Text) Span(i, j int) string { return t.Orig[t.off[i]:t.off[j]] }

// Offset returns the original offset of folded offset i.
func (t *Text) Offset(i int) int { return t.off[i] }

// Match is a phrase found in a text: [Start, End) in the folded text, and
// for a slotted phrase the slot [XStart, XEnd) (the rest of its clause).
type Match struct {
	Table         *Table
	Kind          string
	Start, End    int
	XStart, XEnd  int
	Phrase        string
	AtClauseStart bool
	template      string
}

// Lesson returns how the slot reads as a lesson: the phrase's template
// ("i don't think we need to {x} => Do not {x}") with x, or x itself.
func (m Match) Lesson(x string) string {
	if m.template == "" {
		return x
	}
	return strings.Replace(m.template, "{x}", x, 1)
}

// Templated reports a phrase that states its lesson through a template.
func (m Match) Templated() bool { return m.template != "" && m.XEnd > m.XStart }

// X returns the slot's original text, trimmed.
func (m Match) X(t *Text) string {
	if m.XEnd <= m.XStart {
		return ""
	}
	return strings.TrimSpace(t.Span(m.XStart, m.XEnd))
}

type entry struct {
	kind   string
	bit    uint64 // kindBit[kind]
	p      *phrase
	ord    int32 // the order phrases are tried in at one place
	second byte  // the phrase's second byte (index only)
}

// kindBit gives each kind a bit, so that a scan asks for kinds with a
// mask rather than comparing strings at every place.
var kindBit = func() map[string]uint64 {
	m := map[string]uint64{}
	for i, k := range kinds {
		m[k] = 1 << i
	}
	return m
}()

// maskOf is the mask of kinds.
func maskOf(ks ...string) uint64 {
	var m uint64
	for _, k := range ks {
		m |= kindBit[k]
	}
	return m
}

func (t *Table) buildIndex() {
	ord := int32(0)
	for _, k := range kinds {
		ps := t.phrases[k]
		for i := range ps {
			p := &ps[i]
			e := entry{kind: k, bit: kindBit[k], p: p, ord: ord}
			ord++
			if len(p.text) == 1 || p.loose && p.text[1] == ' ' {
				t.wild[p.text[0]] = append(t.wild[p.text[0]], e)
				for b := 0; b < 256; b++ {
					t.keys[(int(p.text[0])<<8|b)/64] |= 1 << ((int(p.text[0])<<8 | b) % 64)
				}
				continue
			}
			e.second = p.text[1]
			t.index[p.text[0]] = append(t.index[p.text[0]], e)
			kk := int(p.text[0])<<8 | int(p.text[1])
			t.keys[kk/64] |= 1 << (kk % 64)
		}
	}
	// By second byte, keeping the order at one (a counting sort: linear,
	// and stable, as a hook pays for it on its first question).
	var count [257]int
	for b, es := range t.index {
		if len(es) < 2 {
			continue
		}
		count = [257]int{}
		for _, e := range es {
			count[int(e.second)+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		sorted := make([]entry, len(es))
		for _, e := range es {
			sorted[count[e.second]] = e
			count[e.second]++
		}
		t.index[b] = sorted
	}
}

// scan calls fn for each phrase of a wanted kind (want: a mask of
// kindBit) found in t.low[from:to], in the order of the places they start
// at (longest phrase first at one place); fn returns false to stop.
func (tb *Table) scan(t *Text, from, to int, want uint64, fn func(kind string, p *phrase, i, j int) bool) {
	s := t.low[:to]
	for i := from; i < to; i++ {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		next := 0
		if i+1 < len(t.low) {
			next = int(t.low[i+1])
		}
		if kk := int(s[i])<<8 | next; tb.keys[kk/64]&(1<<(kk%64)) == 0 {
			continue
		}
		// The phrases with this second byte, and the wild ones, in the
		// order they are tried in.
		spec := tb.index[s[i]]
		lo, _ := slices.BinarySearchFunc(spec, byte(next), func(e entry, b byte) int { return int(e.second) - int(b) })
		hi := lo
		for hi < len(spec) && int(spec[hi].second) == next {
			hi++
		}
		spec = spec[lo:hi]
		wild := tb.wild[s[i]]
		for len(spec) > 0 || len(wild) > 0 {
			var e *entry
			if len(wild) == 0 || len(spec) > 0 && spec[0].ord < wild[0].ord {
				e, spec = &spec[0], spec[1:]
			} else {
				e, wild = &wild[0], wild[1:]
			}
			if e.bit&want == 0 {
				continue
			}
			j := prefix(s, i, e.p)
			if j < 0 || !tb.boundary(t.low, i, j, *e.p) || e.kind == Hedge && endsCompound(t.low, i, e.p) {
				continue
			}
			if !fn(e.kind, e.p, i, j) {
				return
			}
		}
	}
}

// prefix returns where the phrase p ends when s[i:] starts with it, or -1.
// A loose phrase's space matches any run of spaces in s, or none ("하지 마"
// is found in "하지마" and "하지  마").
func prefix(s string, i int, p *phrase) int {
	if p.ending != "" {
		return withEnding(s, i, p)
	}
	if !p.loose {
		if strings.HasPrefix(s[i:], p.text) {
			return i + len(p.text)
		}
		return -1
	}
	j := i
	for k := 0; k < len(p.text); k++ {
		if p.text[k] == ' ' {
			for j < len(s) && s[j] == ' ' {
				j++
			}
			continue
		}
		if j >= len(s) || s[j] != p.text[k] {
			return -1
		}
		j++
	}
	return j
}

// withEnding returns where a phrase whose last word is given by its
// ending ends in s[i:], or -1: its words, then a word of minStem letters
// or more before the ending.
func withEnding(s string, i int, p *phrase) int {
	if !strings.HasPrefix(s[i:], p.text) {
		return -1
	}
	j := i + len(p.text)
	k := j
	for k < len(s) {
		r, n := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsLetter(r) {
			break
		}
		k += n
	}
	w := s[j:k]
	if !strings.HasSuffix(w, p.ending) || utf8.RuneCountInString(w)-utf8.RuneCountInString(p.ending) < minStem {
		return -1
	}
	if r, _ := utf8.DecodeRuneInString(s[k:]); k < len(s) && (unicode.IsDigit(r) || r == '_') {
		return -1 // a name ("не поднимай2"), not a word
	}
	return k
}

// Find returns the phrases of kind found in t.low[from:to], leftmost first
// (the longest at one place), none overlapping.
func (tb *Table) Find(t *Text, kind string, from, to int) []Match {
	return tb.FindKinds(t, []string{kind}, from, to)[kind]
}

// FindKinds is Find for several kinds at once, in one pass over the text.
func (tb *Table) FindKinds(t *Text, kinds []string, from, to int) map[string][]Match {
	found := map[string][]Match{}
	last := map[string]int{}
	tb.scan(t, from, to, maskOf(kinds...), func(kind string, p *phrase, i, j int) bool {
		out := found[kind]
		defer func() { found[kind] = out }()
		l, ok := last[kind]
		if !ok {
			l = -1
		}
		if n := len(out); i < l && !(n > 0 && out[n-1].Start == i) {
			return true // inside an earlier match
		}
		m := Match{Table: tb, Kind: kind, Start: i, End: j, Phrase: p.text, AtClauseStart: clauseStart(t.low, i), template: p.template}
		if p.slot != 0 {
			m.XStart, m.XEnd = slot(t.low, i, j, p.slot)
			if m.XEnd <= m.XStart {
				return true
			}
		}
		if n := len(out); n > 0 && out[n-1].Start == i {
			if out[n-1].End < j {
				out[n-1], last[kind] = m, j // the longer phrase at the same place
			}
			return true
		}
		out = append(out, m)
		last[kind] = j
		return true
	})
	return found
}

// Has reports whether any phrase of kind is in t.low[from:to].
func (tb *Table) Has(t *Text, kind string, from, to int) bool {
	found := false
	tb.scan(t, from, to, kindBit[kind], func(string, *phrase, int, int) bool {
		found = true
		return false
	})
	return found
}

// Recalled reports a remembering phrase m (of kind remember) that states
// what the person remembers, not what the agent is to keep: a phrase of
// any table's not_rule begun between from (its clause's start) and m's
// end ("I don't remember which flag it was", "I remember seeing this
// before", "前にやったのを覚えてる").
func Recalled(t *Text, from int, m Match) bool {
	for _, tb := range Tables() {
		for _, n := range tb.Find(t, NotRule, from, len(t.low)) {
			if n.Start >= m.End {
				break
			}
			return true
		}
	}
	return false
}

// Widen extends m, a phrase of kind in t.low[from:to], over the phrases of
// kind that overlap its end: one request said in two phrases of the table
// ("claude.mdに記録" and "記録してほしい" in "以下をclaude.mdに記録してほしい").
func (tb *Table) Widen(t *Text, kind string, m Match, from, to int) Match {
	// scan, not Find: Find leaves out the phrases that overlap.
	tb.scan(t, max(from, m.Start+1), to, kindBit[kind], func(_ string, _ *phrase, i, j int) bool {
		if i >= m.End {
			return false
		}
		m.End = max(m.End, j)
		return true
	})
	return m
}

// HasAny reports whether a phrase of any of kinds is in t.low[from:to],
// in one pass over it.
func (tb *Table) HasAny(t *Text, from, to int, kinds ...string) bool {
	found := false
	tb.scan(t, from, to, maskOf(kinds...), func(string, *phrase, int, int) bool {
		found = true
		return false
	})
	return found
}

// Only reports whether t.low[from:to] is made only of phrases of the
// kinds (and spaces, punctuation, emoji): "ok, go ahead", "好的，继续".
func (tb *Table) Only(t *Text, from, to int, kinds ...string) bool {
	covered := from
	any := false
	ok := true
	want := maskOf(kinds...)
	gap := func(a, b int) bool { // nothing but punctuation and spaces
		return strings.IndexFunc(t.low[a:b], wordRune) < 0
	}
	tb.scan(t, from, to, want, func(_ string, _ *phrase, i, j int) bool {
		if i < covered {
			if j > covered {
				covered = j
			}
			return true
		}
		if !gap(covered, i) {
			ok = false
			return false
		}
		covered, any = j, true
		return true
	})
	return ok && any && gap(covered, to)
}

// boundary checks a candidate match [i, j) against the phrase's rules.
func (tb *Table) boundary(s string, i, j int, p phrase) bool {
	if p.start && !clauseStart(s, i) {
		return false
	}
	// Where words are spaced, a phrase is whole words. Where they are not,
	// a phrase matches inside a word, but a Latin one ("ok", "claude" in
	// the Korean table) is still a word of its own among Latin letters:
	// not the "ok" of "book", nor the "claude" of "M-Claude".
	if r, _ := utf8.DecodeRuneInString(p.text); tb.joins(r) && joinedBefore(s, i, tb.joins) {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(p.text); tb.joins(r) && joinedAfter(s, j, tb.joins) {
		return false
	}
	// Japanese writes a borrowed word as one run of katakana: "ログ" (the
	// log) is not the start of "ログイン", "ダメ" not of "ダメージ", "パス"
	// (a path) not of "パスワード". A long vowel mark may close the word
	// ("フォルダー" is "フォルダ"). Its end may close a compound ("ファイル
	// パス", "エラーログ"), so the words a phrase does not end ("ダイアログ",
	// "サポート") are the table's starts.
	if r, _ := utf8.DecodeLastRuneInString(p.text); katakana(r) && katakanaAfter(s, j) {
		return false
	}
	return !tb.cutsWord(s, i, j)
}

// katakana reports a letter of a word written in katakana, the long vowel
// mark included.
func katakana(r rune) bool { return unicode.Is(unicode.Katakana, r) || r == 'ー' }

// endsCompound reports a katakana phrase that ends a katakana compound:
// a doubt ("ログ", the log; "エラー") is a word of its own, and the end of
// a compound names a thing a rule may be about ("エラーログは必ず確認して",
// "ビルドエラーは無視しないで", "チェンジログ").
func endsCompound(s string, i int, p *phrase) bool {
	r, _ := utf8.DecodeRuneInString(p.text)
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && katakana(r) && katakana(before)
}

// katakanaAfter reports a katakana word going on at j, past one long
// vowel mark.
func katakanaAfter(s string, j int) bool {
	r, n := utf8.DecodeRuneInString(s[j:])
	if r == 'ー' {
		r, _ = utf8.DecodeRuneInString(s[j+n:])
	}
	return j < len(s) && katakana(r)
}

// cutsWord reports a match [i, j) that ends inside one of the table's
// Words ("部署前", before deploying, in "部署前端", deploy the frontend) or
// starts inside one of its Starts ("要是", if, in "主要是", mainly). A word
// guards one of its edges only: "かな" (a doubt) never ends inside "書かない",
// while "ないで" (don't) starts inside it, as it should.
func (tb *Table) cutsWord(s string, i, j int) bool {
	return inside(s, j, tb.Words) || inside(s, i, tb.Starts)
}

// inside reports an occurrence of one of words in s that k falls strictly
// inside of.
func inside(s string, k int, words []string) bool {
	for _, w := range words {
		from := max(0, k-len(w)+1)
		to := min(len(s), k+len(w)-1)
		for at := from; at < to; {
			n := strings.Index(s[at:to], w)
			if n < 0 {
				break
			}
			if a := at + n; a < k && k < a+len(w) {
				return true
			}
			at += n + 1
		}
	}
	return false
}

// joins reports a rune that makes one word with the phrase it touches.
func (tb *Table) joins(r rune) bool { return tb.Spaces && wordRune(r) || latin(r) }

// latin reports a Latin letter or a digit.
func latin(r rune) bool { return r < 0x250 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// joinedBefore reports whether s[i:] goes on a word that starts before
// i: a rune of the word touches it, or a hyphen between two ("M-Claude"
// is one name, not M and Claude; "follow-up" is not "up").
func joinedBefore(s string, i int, word func(rune) bool) bool {
	if i == 0 {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(s[:i])
	if r == '-' && i-n > 0 {
		r, _ = utf8.DecodeLastRuneInString(s[:i-n])
	}
	return word(r)
}

// joinedAfter is joinedBefore for the end of s[:j].
func joinedAfter(s string, j int, word func(rune) bool) bool {
	if j >= len(s) {
		return false
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	if r == '-' && j+n < len(s) {
		r, _ = utf8.DecodeRuneInString(s[j+n:])
	}
	return word(r)
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// ClauseEnd reports whether s[k:] starts with what ends a clause:
// sentence punctuation and line breaks (not a comma), a full stop or a
// colon only before a space or the end ("CLAUDE.md", "make:test" go on);
// n is its length.
func ClauseEnd(s string, k int) (end bool, n int) {
	r, n := utf8.DecodeRuneInString(s[k:])
	switch r {
	case '!', '?', ';', '\n', '。', '！', '？', '；', '：':
		return true, n
	case '.', ':':
		return k+n == len(s) || unicode.IsSpace(rune(s[k+n])), n
	}
	return false, n
}

// clauseStart reports whether only spaces and clause punctuation (commas
// included) stand between the start of s, or a clause end, and i.
func clauseStart(s string, i int) bool {
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		switch {
		case unicode.IsSpace(r) && r != '\n':
			i -= n
		case r == '\n' || strings.ContainsRune(".!?;:。！？；：", r) || r == ',' || r == '，' || r == '、' || r == '-' || r == '*' || r == '>' || r == '(' || r == '"' || r == '「':
			return true
		default:
			return false
		}
	}
	return true
}

// slot is the clause after (dir 1) or before (dir -1) a match; before it,
// the clause starts after a comma too ("네, {x}하겠습니다").
func slot(s string, i, j, dir int) (int, int) {
	if dir > 0 {
		k := j
		for k < len(s) {
			end, n := ClauseEnd(s, k)
			if end {
				break
			}
			k += n
		}
		return j, k
	}
	k := i
	for k > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:k])
		if end, _ := ClauseEnd(s, k-n); end || r == '、' || r == '，' || r == ',' {
			break
		}
		k -= n
	}
	return k, i
}

// MayBeCorrection reports, cheaply and in any language of the tables,
// whether text may be the person correcting the agent or teaching it: a
// request to remember, a rule, a reproach, a contrast, or a rejection. It
// is meant to be generous (a hook asks the agent to state the lesson when
// it says yes); a turn made only of an answer ("yes", "continue") is not.
func MayBeCorrection(text string) bool {
	t := fold(text)
	for _, tb := range Tables() {
		found, reject := false, false
		tb.scan(&t, 0, len(t.low), correctionKinds, func(k string, _ *phrase, _, _ int) bool {
			found = true
			reject = k == Reject
			return !reject
		})
		if !found {
			continue
		}
		// "no" is an answer too; "ok, continue" holds no rule word.
		if reject || len(t.low) > maxAnswer || !tb.Only(&t, 0, len(t.low), Answer, Filler) {
			return true
		}
	}
	return false
}

// maxAnswer is longer than any turn made only of answers.
const maxAnswer = 80

var correctionKinds = maskOf(Remember, Rule, Always, Reproach, Contrast, Reject, General, Use, Where, InLanguage, Yourself, Fyi, Prefer, Recurring, Must)

// ReadAs returns the spaced tables a span reads as: those that find the
// most of their [common] words in it, every spaced table when none finds
// any. A phrase that is a word in two languages ("no" opens a Spanish
// rule, "No toques eso", and an English answer, "no in this branch") is
// that language's only where the span reads as it; a span with as many
// common words of either, or none, reads as both. A common word of two
// tables counts for neither. A caller reading many phrases of one span
// asks once.
func ReadAs(t *Text, from, to int) []*Table {
	out, _ := readAs(t, from, to)
	return out
}

// readAs is ReadAs, and whether any table found a common word in the span.
func readAs(t *Text, from, to int) ([]*Table, bool) {
	var out []*Table
	most := 0
	for _, tb := range Tables() {
		if !tb.Spaces {
			continue
		}
		switch n := tb.commonIn(t, from, to); {
		case n > most:
			out, most = append(out[:0], tb), n
		case n == most:
			out = append(out, tb)
		}
	}
	return out, most > 0
}

// Foreign reports a span that reads as another language than tb's: for a
// spaced table, one that ReadAs gives other tables for; for one written
// without kana, a span holding kana (Japanese).
func (tb *Table) Foreign(t *Text, from, to int) bool { return ForeignTo(t, from, to)(tb) }

// ForeignTo is Foreign for one span asked of many tables: what the span
// reads as is worked out on the first question that needs it, so a span
// no table's phrase is found in costs nothing.
func ForeignTo(t *Text, from, to int) func(*Table) bool {
	var reads []*Table
	return func(tb *Table) bool {
		if !tb.Spaces {
			return tb.WithoutKana && holdsKana(t.low[from:to])
		}
		if reads == nil {
			var told bool
			if reads, told = readAs(t, from, to); !told {
				// A sentence too short to tell its language ("No rows
				// returned.") reads as the text it is in does.
				if t.reads == nil {
					t.reads, _ = readAs(t, 0, len(t.low))
				}
				reads = t.reads
			}
		}
		return !slices.Contains(reads, tb)
	}
}

// FollowsWord reports a phrase at i in s that goes on from the words
// before it, and so is the verb the sentence ends on: written on to them
// ("…に記録して"), or, past a space, after the particle of its object
// ("마이그레이션을 잊지 마세요", "실행하는 거 잊지 마"). One
// after a comma, a full stop or a whole clause stands apart ("用pnpm，
// 以后", "用 pnpm 以后", "푸시하지 마 기억해").
func FollowsWord(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	if i > 0 && unicode.IsLetter(r) {
		return true
	}
	k := len(strings.TrimRight(s[:i], " \t"))
	r, _ = utf8.DecodeLastRuneInString(s[:k])
	return k > 0 && k < i && strings.ContainsRune(objectParticles, r)
}

// objectParticles end a word that a verb after it takes as its object,
// topic or place: Korean 을, 를, 은, 는, 도, and a clause made a thing (거,
// 것, 걸, 건, 게, 점); Japanese を, に, へ, で, は, が, も ("バックアップを
// 忘れないで", typed with a space).
const objectParticles = "을를은는도거것걸건게점をにへではがも"

// holdsKana reports hiragana or katakana in s.
func holdsKana(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// commonIn counts the [common] words of tb in the span that no other
// table lists.
func (tb *Table) commonIn(t *Text, from, to int) int {
	n := 0
	for _, m := range tb.Find(t, Common, from, to) {
		if !sharedCommon()[m.Phrase] {
			n++
		}
	}
	return n
}

// sharedCommon is the set of [common] words two tables or more list:
// they tell no language from another.
var sharedCommon = sync.OnceValue(func() map[string]bool {
	seen, shared := map[string]string{}, map[string]bool{}
	for _, tb := range Tables() {
		for _, p := range tb.phrases[Common] {
			if c, ok := seen[p.text]; ok && c != tb.Code {
				shared[p.text] = true
			}
			seen[p.text] = tb.Code
		}
	}
	return shared
})

// Acknowledges reports whether the start of an agent's reply owns up to a
// mistake ("You're right", "抱歉", "Tienes razón") or approves of what the
// person said ("Good point"), in any language.
func Acknowledges(reply string) bool { return acknowledges(reply, true) }

// OwnsUp reports whether the start of an agent's reply owns up to a
// mistake; approval alone ("Good point") does not.
func OwnsUp(reply string) bool { return acknowledges(reply, false) }

// Notes reports whether an agent's reply opens by taking note of what it
// was told ("Noted.", "Bien noté.", "Good to know", "记下了"): what the
// person said is something to keep, as it is when the agent owns up. Only
// the very start counts: "Parfait, je note : ..." is how some agents
// open every answer to their own questions.
func Notes(reply string) bool {
	t := opening(reply, 60)
	for _, tb := range Tables() {
		for _, m := range tb.Find(&t, Noted, 0, len(t.low)) {
			if strings.IndexFunc(t.low[:m.Start], unicode.IsLetter) < 0 {
				return true
			}
		}
	}
	return false
}

func acknowledges(reply string, compliments bool) bool {
	t := opening(reply, 200)
	end := len(t.low)
	for _, tb := range Tables() {
		if tb.Has(&t, Acknowledge, 0, end) || compliments && tb.Has(&t, Compliment, 0, end) {
			return true
		}
	}
	return false
}

// opening is the start of an agent's reply, about n bytes of it, folded:
// where it owns up or takes note. The rest of a long reply is not folded.
func opening(reply string, n int) Text {
	if len(reply) > n {
		for n > 0 && !utf8.RuneStart(reply[n]) {
			n--
		}
		reply = reply[:n]
	}
	return fold(reply)
}
