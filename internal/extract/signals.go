package extract

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/textcase"
	"github.com/devlearn/devlearn/internal/textcut"
	"github.com/devlearn/devlearn/internal/transcript"
)

// finding is a lesson read in one of the person's turns.
type finding struct {
	class    string
	lesson   string // the sentence, cleaned (lesson.go)
	said     string // the person's words it was read from
	explicit bool   // they asked for it to be kept
	choice   bool   // one way over another: a decision
	area     string // the file it concerns, when it names one
	// action is what the agent did that the person rejected, for the
	// evidence ("ran `git push --force`").
	action string
	// worded: the lesson is in devlearn's words, the same in every
	// session, and the person's (said) go in its details.
	worded bool
}

// markerKinds are the kinds of phrases that make a sentence a lesson,
// strongest first: when a sentence holds several, the first kind wins.
var markerKinds = []string{lang.Remember, lang.Contrast, lang.Prefer, lang.Reproach, lang.Always, lang.Holdoff, lang.Unasked, lang.Recurring, lang.Rule}

// read finds the lessons in one turn of the person, in this order:
//
//  1. sentences that hold a marker (a request to remember, a contrast, a
//     reproach, a rule), not hedged, not for now only, not asked; or a
//     standing choice stated plainly: the language to work in, the tool
//     for a job, where something is (standing.go);
//  2. else a rejection: the turn opens with "no", "wrong", "不对"... right
//     after the agent did something, or it is the reason the person gave
//     for refusing a tool call; the lesson is what the person said after
//     the "no", or else the agent's stated plan, or else its action;
//  3. else the agent owning up right after ("You're right", "抱歉"): the
//     lesson is the person's turn, a soft suggestion ("I think we should
//     X") read as the instruction it is; or taking note ("Bien noté",
//     "Good to know"): the same, as how things are.
//
// back reports a turn that only asks to keep what was said before ("save
// this in your memory").
func read(t *turn) (found []finding, back bool) {
	own := t.sig.Own
	if strings.TrimSpace(own) == "" {
		return nil, false
	}
	x := lang.Fold(mask(own))
	ack := lang.Acknowledges(t.after)
	sents := sentences(x.Low())
	var bare []span // sentences without a marker
	keep := false   // a sentence asked to keep the turn's other sentences
	keptAt := -1    // where the first such sentence ends
	joined := false // the last sentence read was a lesson: the next one goes on it
	setupAt := -1   // the finding that says what the person works on
	fact, factAt, isFact := told(x, own, sents)
	if isFact {
		found = append(found, fact)
	}
	for k, s := range sents {
		if isFact && s.start < factAt.end && s.end > factAt.start {
			continue // the fact told is read whole
		}
		f, empty, ok := marked(t, x, own, s, ack)
		if !ok && !empty {
			f, ok = standing(t, x, own, s, len(sents) <= maxToldSentences) // a choice stated plainly
		}
		switch {
		case ok && f.class == ClassFact && !isFact && setupAt < 0 && !joined:
			// What the person works on ("I'm on Ubuntu 22.04"): what they
			// say of it in the sentences after goes on it.
			found = append(found, f)
			joined, setupAt = true, len(found)-1
		case ok && (!joined || listItem(own, x.Offset(s.start))):
			// An item of a list is a point of its own, whatever the
			// item before it said.
			if k > 0 && len(bare) > 0 && bare[len(bare)-1] == sents[k-1] {
				f = withObject(x, own, f, sents[k-1], s)
			}
			found = append(found, f)
			joined = true
		case ok && joined:
			// Two rules in a row are one correction: "Never push to
			// main. Always open a pull request."
			last := &found[len(found)-1]
			last.lesson = clip(strings.TrimSpace(last.lesson+" "+f.lesson), maxLesson)
			last.said = strings.TrimSpace(last.said + " " + f.said)
			last.explicit = last.explicit || f.explicit
			// A rule followed by the way to do it ("Never push to main. Use
			// a branch.") stays a rule; a contrast makes it a choice.
			last.choice = last.choice || f.choice && f.class != ClassPreference
			if last.area == "" {
				last.area = f.area
			}
		case !ok && setupAt >= 0 && hasKind(x, lang.Platform, s.start, s.end) && !asking(x, s):
			// "I'm on Ubuntu 22.04. You should know this... I'm not
			// headless, I type in a GUI session": the same setup, said on.
			if more := cleanLesson(x, own, s.start, s.end, ""); words(more) >= 2 {
				last := &found[setupAt]
				last.lesson = clip(strings.TrimSpace(last.lesson+" "+more), maxLesson)
				last.said = strings.TrimSpace(last.said + " " + own[x.Offset(s.start):x.Offset(s.end)])
			}
		case empty && heading(own, x.Offset(s.start)):
			// "【注意点】": a document's heading asks nothing.
			joined = false
		case empty:
			if !keep {
				keptAt = s.end
			}
			keep = true
			joined = false
		default:
			bare = append(bare, s)
			joined = false
		}
	}
	if keep {
		if len(found) > 0 {
			for i := range found {
				found[i].explicit = true
			}
			if f, ok := keptOf(x, own, bare, keptAt); ok {
				// What follows a request to keep ("add the following to
				// CLAUDE.md:") is what it asks to keep, marked or not: the
				// sentences without a marker are one lesson more, a list or
				// a document the person wrote to be kept.
				found = append(found, f)
			}
			return found, false
		}
		// Nothing marked: the turn's other sentences are the lesson, or,
		// with none, the turn before's.
		f, ok := keptOf(x, own, bare, 0)
		if !ok {
			return nil, true
		}
		return []finding{f}, false
	}
	if len(found) == 1 && !isFact && len(sents) == 2 && len(bare) == 1 && bare[0] == sents[0] &&
		!asking(x, sents[0]) && words(x.Low()[sents[0].start:sents[0].end]) >= 3 &&
		!strings.HasPrefix(found[0].said, own[x.Offset(sents[0].start):x.Offset(sents[0].end)]) { // withObject took it
		// A turn of two sentences whose lesson is the second: the first
		// says what it is about ("You created roles.ts, but better-auth
		// gives these tables. Isn't it no longer needed?").
		found[0].lesson = clip(cleanLesson(x, own, sents[0].start, sents[0].end, "")+" "+found[0].lesson, maxLesson)
	}
	if t.sig.Rejection && len(found) > 0 && len(bare) > 0 {
		// The reason given for refusing a tool call is the lesson whole:
		// "I don't want changes to the ViewModel files. Read the loading
		// state from the application service instead."
		if f, ok := rejection(t, x, own); ok {
			return []finding{f}, false
		}
	}
	if len(found) == 1 && hasKind(x, lang.Pointer, 0, len(x.Low())) {
		// "今後はデザインを考えるときはこのサイトを参考にして": the site is
		// pointed at, and the agent's reply taking it on names it.
		if f, ok := committed(t, x, sents); ok {
			found[0].lesson, found[0].area = f.lesson, f.area
		}
	}
	if len(found) > 0 {
		// An interview answer told at length holds a rule word here and
		// there; what it tells around them is how things are all the
		// same, and would be lost with the rest of the answer.
		if f, ok := interviewAnswer(t, x, own, sents, anyAsking(x, sents)); ok && !isFact && coveredWords(found) < words(f.lesson)/2 {
			found = append(found, f)
		}
		return found, false
	}
	if f, ok := rejection(t, x, own); ok {
		return []finding{f}, false
	}
	if f, ok := handedBack(t, x, own); ok {
		return []finding{f}, false
	}
	if ack {
		ownsUp := lang.OwnsUp(t.after)
		if f, ok := acknowledged(x, own, sents, ownsUp, t.after); ok {
			return []finding{f}, false
		}
		if f, ok := challenged(t, x, own, sents, ownsUp); ok {
			return []finding{f}, false
		}
	} else if lang.Notes(t.after) {
		// The agent took note ("Bien noté", "Good to know"): what the
		// person said is how things are, read as an owned-up turn is. A
		// fact says something of something: three words or fewer are a
		// request or an answer the agent said "understood" to ("Mira la
		// documentacion").
		if f, ok := acknowledged(x, own, sents, false, ""); ok && words(f.lesson) >= minNotedWords {
			f.class = ClassFact
			return []finding{f}, false
		}
	}
	if f, ok := committed(t, x, sents); ok {
		return []finding{f}, false
	}
	if f, ok := answered(t, x, own, sents); ok {
		return []finding{f}, false
	}
	return nil, false
}

// committed reads a turn the agent answered by taking on a way of working
// for good ("A partir de ahora te hablaré en castellano", "今後のデザイン作業
// では https://atlassian.design/components を参照します", "以后调用时写
// SoundMgr.SoundName.UI_Error"): the person asked for it, perhaps as a
// question ("Me puedes hablar a partir de ahora en castellano?") or
// pointing at what they showed ("this site"), and the agent's sentence
// says it whole. Only a sentence of the reply's opening, to a short turn
// that says it is for good.
func committed(t *turn, x *lang.Text, sents []span) (finding, bool) {
	if len(sents) == 0 || len(sents) > 3 || words(x.Low()) < 2 || !forGood(x) {
		return finding{}, false
	}
	opening := strings.ReplaceAll(textcut.Bytes(t.after, commitOpening), "**", "")
	ax := lang.Fold(opening)
	for i, s := range sentences(ax.Low()) {
		if i == commitSentences {
			break
		}
		if !hasKind(ax, lang.Henceforth, s.start, s.end) || hasKind(ax, lang.Slip, s.start, s.end) {
			continue
		}
		took := strings.Join(strings.Fields(opening[ax.Offset(s.start):ax.Offset(s.end)]), " ")
		if words(took) < minAdmissionWords {
			continue
		}
		return finding{class: ClassAcknowledged, lesson: clip(finish(took), maxLesson), said: t.sig.Own, area: namedPath(took)}, true
	}
	return finding{}, false
}

// forGood reports a turn that says it holds beyond the task at hand ("from
// now on", "each time", "always", "whenever"): what the agent takes on
// then is what the person asked for, not a promise the agent volunteered
// after a task ("Done. Going forward, I'll validate env vars at startup").
func forGood(x *lang.Text) bool {
	for _, tb := range lang.Tables() {
		if tb.HasAny(x, 0, len(x.Low()), lang.Henceforth, lang.Remember, lang.Recurring, lang.General, lang.Always) {
			return true
		}
	}
	return false
}

// The agent takes a way of working on where its reply opens: in its first
// commitSentences sentences, within commitOpening bytes.
const (
	commitSentences = 3
	commitOpening   = 600
)

// answered reads a turn that answers the agent's questions about the
// work, telling, not asking: a short answer naming where something is
// (answeredWhere), or an answer at length (interviewAnswer). What they
// said is how things are here, which the next session would otherwise
// ask again.
func answered(t *turn, x *lang.Text, own string, sents []span) (finding, bool) {
	asks := anyAsking(x, sents)
	if !asks {
		if f, ok := answeredWhere(t, x, own); ok {
			return f, true
		}
	}
	return interviewAnswer(t, x, own, sents, asks)
}

// anyAsking reports a turn with a sentence that asks.
func anyAsking(x *lang.Text, sents []span) bool {
	return slices.ContainsFunc(sents, func(s span) bool { return asking(x, s) })
}

// interviewAnswer reads an answer at length to the agent's questions:
// it asked several (an interview, a plan's open points), or the person
// answers its points one by one.
func interviewAnswer(t *turn, x *lang.Text, own string, sents []span, asks bool) (finding, bool) {
	low := x.Low()
	// A reply point by point ("1. ... 2. ...") answers the agent's
	// points, whether it asked one question or several, and may ask
	// about one of them; else a question back means no answer yet.
	switch points := pointByPoint(own); {
	case asks && !points:
		return finding{}, false
	case questionsAsked(t.before) < minQuestions && !(points && questionsAsked(t.before) > 0):
		return finding{}, false
	}
	if words(low) < minAnswerWords || len(sents) == 0 || onlyAnswers(x, 0, len(low)) {
		return finding{}, false
	}
	lesson := cleanLesson(x, own, 0, len(low), "")
	if words(lesson) < minAnswerWords {
		return finding{}, false
	}
	return finding{class: ClassFact, lesson: clip(lesson, maxLesson), said: own, area: namedPath(lesson)}, true
}

// answeredWhere reads a short answer that gives a place to the agent's
// question: asked which repository to sync, or where a shortcut is, the
// person names the folder ("/Users/m/Documents/M-Claude"); asked the
// address of a machine, they give it ("try 192.168.8.1"). The agent did
// not know where it was, and the next session would ask again. The
// lesson is the answer with the question it answers, which says what the
// place is.
func answeredWhere(t *turn, x *lang.Text, own string) (finding, bool) {
	low := x.Low()
	if t.first || words(low) > maxPathAnswerWords || onlyAnswers(x, 0, len(low)) {
		return finding{}, false
	}
	p := namedPath(own)
	if strings.Count(p, "/") < 2 && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") {
		p = "" // a file's name alone, or a word with a slash ("w/"), is no place
	}
	q, asksWhere := placeQuestion(t.before)
	// An address is a place only when the question asked for one: "try
	// 10.0.0.1" answers where the router is, "v2.1.0" a question of
	// versions.
	if q == "" || p == "" && !(asksWhere && addressIn(own)) {
		return finding{}, false
	}
	answer := strings.Join(strings.Fields(own), " ")
	lesson := finish(identity.Answer(clip(q, maxQuoted), identity.PersonAnswered, answer))
	f := finding{class: ClassFact, lesson: clip(lesson, maxLesson), said: own, area: p}
	if i := strings.Index(own, p); p != "" && i > 0 && strings.ContainsRune("'\"`", rune(own[i-1])) && !strings.HasPrefix(own[i+len(p):], own[i-1:i]) {
		f.area = "" // a quoted path with spaces in it: no trigger holds it whole
	}
	return f, true
}

// addressIn reports text that gives a machine's address: a URL, an IPv4
// address (or the mark redaction left of one), a host and its port.
func addressIn(s string) bool {
	return strings.Contains(s, "://") || strings.Contains(s, "[REDACTED_IP]") || addressRe().MatchString(s)
}

var addressRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[a-z][\w.-]*\.[a-z]{2,}:\d{2,5}\b|\blocalhost:\d{2,5}\b`)
})

// maxPathAnswerWords: an answer longer than this is more than where
// something is; maxQuoted bounds the question quoted with it.
const (
	maxPathAnswerWords = 12
	maxQuoted          = 160
)

// placeQuestion is the question closing the agent's message that asks
// where something is (a path, a folder, an address, "where"), and true;
// else its last question, as it asked it, and false.
func placeQuestion(text string) (string, bool) {
	text = textcut.Tail(text, maxClosing)
	x := lang.Fold(text)
	low := x.Low()
	var last string
	for _, s := range sentences(low) {
		if !question(low, s) {
			continue
		}
		asked := strings.TrimRight(text[x.Offset(s.start):x.Offset(s.end)], "?？ ")
		q := strings.Join(strings.Fields(strings.Trim(asked, "*#-0123456789) ")), " ")
		if words(q) < 3 || strings.Count(text[:x.Offset(s.end)], "`")%2 == 1 {
			// A question mark in code ("(with `?table=` and `?page=`)")
			// ends no question.
			continue
		}
		if hasKind(x, lang.Place, s.start, s.end) {
			return q + "?", true
		}
		last = q + "?"
	}
	return last, false
}

// coveredWords is how many words the findings' lessons hold.
func coveredWords(found []finding) int {
	n := 0
	for _, f := range found {
		n += words(f.lesson)
	}
	return n
}

// pointByPoint reports a reply numbered as a list is, from its first
// words: "1. ... 2. ...", "1) ... 2) ...".
func pointByPoint(own string) bool {
	own = strings.TrimSpace(own)
	if !strings.HasPrefix(own, "1.") && !strings.HasPrefix(own, "1)") {
		return false
	}
	return strings.Contains(own, " 2.") || strings.Contains(own, "\n2.") || strings.Contains(own, " 2)") || strings.Contains(own, "\n2)")
}

// minQuestions, minAnswerWords: an interview is two questions at least;
// a shorter reply chooses ("the second one") or approves.
const (
	minQuestions   = 2
	minAnswerWords = 12
)

// questionsAsked counts the questions that close the agent's message.
func questionsAsked(text string) int {
	text = textcut.Tail(text, maxClosing)
	n := 0
	for i := range text {
		if lang.Asks(text, i) {
			n++
		}
	}
	return n
}

// maxClosing bounds the closing part of the agent's message read for its
// questions, where a message asks what it needs.
const maxClosing = 2000

// marked reads one sentence: the lesson its first valid marker makes, or
// empty when the marker asks to keep something the sentence does not say
// ("save this in your memory").
func marked(t *turn, x *lang.Text, own string, s span, ack bool) (f finding, empty, ok bool) {
	low := x.Low()
	type candidate struct {
		m    lang.Match
		rank int
	}
	var best *candidate
	foreign := lang.ForeignTo(x, s.start, s.end)
	for _, tb := range lang.Tables() {
		found := tb.FindKinds(x, markerKinds, s.start, s.end)
		if len(found) == 0 {
			continue
		}
		for rank, kind := range markerKinds {
			if best != nil && rank > best.rank {
				break
			}
			for _, m := range found[kind] {
				if !valid(t, x, tb, kind, m, s, ack, foreign) {
					continue
				}
				if best == nil || rank < best.rank || m.Start < best.m.Start {
					best = &candidate{m, rank}
				}
				break
			}
		}
	}
	if best == nil {
		return f, false, false
	}
	m, kind := best.m, markerKinds[best.rank]
	if kind == lang.Holdoff {
		// One way of working however it is put ("いきなりコード書かずにネタ出し
		// して", "先告诉我不要直接改"): one lesson in every session, in
		// the words of the sentence's table, theirs in its details.
		return finding{class: ClassRule, said: own[x.Offset(s.start):x.Offset(s.end)], worded: true,
			lesson: finish(m.Table.Template(lang.ProposeFirst, ""))}, false, true
	}
	f = finding{
		said:     own[x.Offset(s.start):x.Offset(s.end)],
		explicit: kind == lang.Remember || kind == lang.Always,
		choice:   kind == lang.Contrast || kind == lang.Prefer || hasKind(x, lang.Contrast, s.start, s.end),
	}
	switch kind {
	case lang.Remember:
		f.class = ClassRemember
	case lang.Contrast:
		f.class = ClassContrast
	case lang.Prefer:
		// Said as the person's preference, it holds from the first
		// message on (valid), where a contrast describes the task.
		f.class = ClassPreference
	default:
		f.class = ClassRule
	}
	start, end := s.start, s.end
	if kind == lang.Remember {
		m = m.Table.Widen(x, lang.Remember, m, s.start, s.end)
		if leads(x, m.Table, s.start, m.Start) {
			start = m.End // "From now on, X": X
		} else {
			// "X from now on": X, the marker taken out; unless, in a
			// language written without spaces, the marker is the verb the
			// sentence ends on ("mdファイルに記録してください": "mdファイルに"
			// would end on its particle).
			rest := strings.TrimSpace(own[x.Offset(m.End):x.Offset(end)])
			if strings.IndexFunc(rest, wordRuneOrCJK) < 0 && (m.Table.Spaces || !lang.FollowsWord(low, m.Start)) {
				end = m.Start
			}
		}
		if c := low[start:end]; words(c) < 2 || m.Table.Only(x, start, end, lang.Filler, lang.Answer, lang.ThisFile, lang.Remember, lang.Referent) {
			return f, true, false
		}
	}
	file := ""
	if hasKind(x, lang.ThisFile, start, end) {
		file = lastEdit(t.acted)
	}
	if kind == lang.Reproach && m.Templated() {
		// "You forgot to update the changelog": "Update the changelog."
		slot := own[x.Offset(m.XStart):x.Offset(min(m.XEnd, end))]
		f.lesson = finish(withCondition(x, own, m.Table, s.start, m.Start, m.Lesson(strings.TrimSpace(trimEnd(x, own, slot)))))
		f.area = namedPath(f.lesson)
		return f, false, words(f.lesson) >= 2
	}
	lesson, from := cleanLessonAt(x, own, start, end, file)
	if kind == lang.Remember && start == m.End && lesson != "" {
		lesson = withCondition(x, own, m.Table, s.start, m.Start, lesson)
	}
	// The marker was a leading "no," that cleaning took off; a marker that
	// opens with a filler ("please don't") keeps its rule word.
	if kind != lang.Remember && from >= m.End {
		return f, false, false
	}
	if words(lesson) < 2 {
		return f, false, false
	}
	f.lesson = lesson
	f.area = namedPath(lesson)
	if f.area == "" {
		f.area = file
	}
	return f, false, true
}

// valid decides whether a marker found in a sentence makes it a lesson.
func valid(t *turn, x *lang.Text, tb *lang.Table, kind string, m lang.Match, s span, ack bool, foreign func(*lang.Table) bool) bool {
	// What the person remembers: "I remember seeing this before".
	if kind == lang.Remember && lang.Recalled(x, clauseStartOf(x.Low(), s.start, m.Start), m) {
		return false
	}
	// A statement that holds a rule word: "I don't know", "no worries";
	// not a way of working said with one ("não precisa me perguntar":
	// "não precisa" alone says no rule).
	if kind != lang.Remember && kind != lang.Contrast && kind != lang.Prefer && kind != lang.Holdoff && kind != lang.Unasked {
		for _, t := range lang.Tables() {
			for _, n := range t.Find(x, lang.NotRule, s.start, s.end) {
				if n.Start < m.End && m.Start < n.End {
					return false
				}
			}
		}
	}
	// A word of another language: Spanish "no" opens a rule ("No toques
	// eso"), and an English answer ("no in this current branch").
	if foreign(tb) {
		return false
	}
	// Each time something happens is how things stand, not a rule:
	// "всё то же самое, после каждого изменения он создаёт ...".
	if kind == lang.Recurring && hasKind(x, lang.Report, s.start, s.end) {
		return false
	}
	// A condition or a doubt before it: "if you forgot", "maybe never";
	// not the clause that says when the rule holds ("When you change the
	// schema, always run make migrate").
	from := ruleClause(x, tb, s.start, m.Start)
	if kind == lang.Reproach {
		// A reproach is doubted in its own clause ("maybe you forgot"),
		// not by one before it ("…если я тебя правильно понял, я тебя
		// просил работать на русском": if I understood you, I asked you).
		from = clauseStartOf(x.Low(), s.start, m.Start)
	}
	if !ack && tb.Has(x, lang.Hedge, from, m.Start) {
		return false
	}
	// For now only; holding off is for now by its nature ("とりあえずまだ
	// コード書かずに"), and is how the person works all the same.
	if kind != lang.Holdoff && tb.Has(x, lang.Temporary, s.start, s.end) {
		return false
	}
	// Told, not asked of anyone: a specification or a story pasted in
	// the written register ("정규는 항상 0에서 출발한다").
	if (kind == lang.Always || kind == lang.Rule) && endsNarrative(x, s) {
		return false
	}
	// Asked, not told ("did you forget to push?"), unless the agent took
	// it as a correction; a reproach may be asked ("why didn't you?").
	if asking(x, s) && kind != lang.Reproach && !ack {
		return false
	}
	// An aside in brackets is no instruction: "（コード修正は不要）", "(no
	// proxy needed)" say how things are in a text, often one pasted.
	if (kind == lang.Rule || kind == lang.Always) && bracketed(x.Low(), s.start, m.Start) {
		return false
	}
	// A rule word counts where an imperative stands: at the start of its
	// clause, or anywhere in a language that puts the object first
	// ("конфиг не трогай") or the verb last ("수정하지 마세요").
	if kind == lang.Rule && tb.Spaces && !tb.RulesAnywhere && !leads(x, tb, s.start, m.Start) {
		return false
	}
	// A correction is of something: a contrast or a plain rule before the
	// agent said or did anything describes the task ("hide the group
	// instead of the items"). What holds always, and what is to be
	// remembered, stand on their own. Only the session's first message
	// is that: a log of the person's messages alone (Gemini CLI's
	// logs.json) has nothing of the agent before any of them.
	if (kind == lang.Contrast || kind == lang.Rule) && t.first && t.before == "" && len(t.acted) == 0 {
		return false
	}
	return true
}

// rejection reads a turn that says no to what the agent just did.
func rejection(t *turn, x *lang.Text, own string) (finding, bool) {
	low := x.Low()
	action := ""
	if a := t.refused; a != nil {
		action = describe(a)
	} else if a := lastAction(t.acted); a != nil {
		action = describe(a)
	}
	f := finding{class: ClassRejection, said: own, action: action}
	if t.refused != nil && transcript.EditTool(t.refused.Name) && len(t.refused.Paths) > 0 {
		f.area = relative(t.refused.Paths[0], t.refused.Cwd)
	}
	if t.sig.Rejection {
		// The reason given for refusing a tool call: it is the lesson.
		if lesson := cleanLesson(x, own, 0, len(low), ""); words(lesson) >= 1 && !onlyAnswers(x, 0, len(low)) && !onlyWaits(x) {
			f.lesson = lesson
			if f.area == "" {
				f.area = namedPath(lesson)
			}
			f.choice = hasKind(x, lang.Contrast, 0, len(low))
			return f, true
		}
	}
	var tb *lang.Table
	at := -1
	for _, tt := range lang.Tables() {
		for _, m := range tt.Find(x, lang.Reject, 0, len(low)) {
			if skipSpacePunct(low, 0, m.Start) == m.Start || tt.Only(x, 0, m.Start, lang.Filler) {
				if at < 0 || m.Start < at {
					tb, at = tt, m.Start
				}
			}
			break
		}
	}
	if tb == nil {
		return f, false
	}
	intent, refused := lastIntent(t.before)
	if t.refused == nil && lastAction(t.acted) == nil && intent == "" {
		return f, false // nothing the agent did to say no to
	}
	if asks(t.before) && t.refused == nil {
		return f, false // "no" answering the agent's question
	}
	// What the person said after the "no", if it is more than more "no",
	// and the "no" stood apart ("no, use pnpm"): "Para o servidor" is
	// an instruction, not a rejection.
	rest := restAfter(x, tb, at)
	if rest < len(low) && !onlyAnswers(x, rest, len(low)) {
		if words(low[rest:]) < 2 || !standsApart(x, tb, at) {
			return f, false
		}
		// "No, it still fails": how things stand, not what to do.
		if hasKind(x, lang.Report, rest, len(low)) {
			return f, false
		}
		f.lesson = cleanLesson(x, own, rest, len(low), lastEdit(t.acted))
		f.area = namedPath(f.lesson)
		f.choice = hasKind(x, lang.Contrast, rest, len(low))
		return f, words(f.lesson) >= 2
	}
	// A bare "no": its object is the agent's plan, or its last action.
	switch a := t.refused; {
	case intent != "":
		f.lesson = finish(refused)
	case a == nil && lastAction(t.acted) != nil:
		a = lastAction(t.acted)
		fallthrough
	case a != nil:
		if a.Command != "" {
			f.lesson = finish(tb.Template(lang.DontRun, "`"+clip(firstLine(a.Command), 80)+"`"))
		} else {
			file := relative(a.Paths[0], a.Cwd)
			f.lesson, f.area = finish(tb.Template(lang.DontEdit, file)), file
		}
	}
	if f.area == "" {
		f.area = namedPath(f.lesson)
	}
	return f, f.lesson != ""
}

// told reads how things are, introduced as such at the start of a clause
// ("FYI, the staging DB is read-only", "I forgot to tell you, we already
// have a plugin that ...", "Pour info les CR hebdo ne peuvent pas être
// modifiés", "ちなみに、今は npm run ws:proxy 経由で接続している"): the
// rest of that sentence, or the next one when the marker stands alone,
// with the span of the turn it was read from.
// Not a question, not how things stand right now ("it still fails"), not
// for now only.
func told(x *lang.Text, own string, sents []span) (finding, span, bool) {
	low := x.Low()
	for i, s := range sents {
		for _, tb := range lang.Tables() {
			ms := tb.Find(x, lang.Fyi, s.start, s.end)
			if len(ms) == 0 || !leads(x, tb, s.start, ms[0].Start) {
				continue
			}
			from, end := ms[0].End, s.end
			next := i + 1
			if words(low[from:end]) < 4 && next < len(sents) {
				from, end = sents[next].start, sents[next].end
				next++
			}
			at := span{from, end}
			if asking(x, at) || hasKind(x, lang.Report, from, end) || hasKind(x, lang.Temporary, from, end) {
				continue
			}
			// What it says goes on in the sentences after it ("It has
			// code that finds ... /path/backup_session.py"), up to a
			// question or a request.
			for ; next < len(sents) && words(low[from:sents[next].end]) <= maxTold; next++ {
				n := sents[next]
				if asking(x, n) || hasKind(x, lang.Rule, n.start, n.end) || hasKind(x, lang.Filler, n.start, n.end) {
					break
				}
				end = n.end
			}
			lesson := cleanLesson(x, own, from, end, "")
			if words(lesson) < 4 {
				continue
			}
			f := finding{class: ClassFact, lesson: lesson, said: own[x.Offset(s.start):x.Offset(end)], area: namedPath(lesson)}
			return f, span{s.start, end}, true
		}
	}
	return finding{}, span{}, false
}

// withObject is f, read from s, with the sentence before it when s speaks
// of what that one left out ("…change only the text of the candidates.
// Never change any other text on the site"; "それ以外のサイトの言葉は絶対に
// 変えないでください"): without it the rule says "never change anything
// else" of nothing. A question before it is not its object.
func withObject(x *lang.Text, own string, f finding, prev, s span) finding {
	if !hasKind(x, lang.Rest, s.start, s.end) || asking(x, prev) {
		return f
	}
	before := cleanLesson(x, own, prev.start, prev.end, "")
	if words(before) < 2 {
		return f
	}
	f.lesson = clip(before+" "+f.lesson, maxLesson)
	f.said = strings.TrimSpace(own[x.Offset(prev.start):x.Offset(prev.end)] + " " + f.said)
	return f
}

// maxTold bounds the words of a fact told over several sentences.
const maxTold = 60

// handedBack reads a turn that tells the agent to do itself what it
// handed to the person ("you run it", "сам посмотри", "自分で実行して"):
// agents keep asking people to run commands they could run. A short
// turn's lesson is to run such commands, in the template of the turn's
// language, when the agent handed one over; a longer one says what to do
// in its own words.
func handedBack(t *turn, x *lang.Text, own string) (finding, bool) {
	low := x.Low()
	var tb *lang.Table
	for _, tt := range lang.Tables() {
		if len(tt.Find(x, lang.Yourself, 0, len(low))) > 0 {
			tb = tt
			break
		}
	}
	if tb == nil {
		tb = refusedHanding(t, x)
	}
	if tb == nil {
		return finding{}, false
	}
	f := finding{class: ClassRule, said: own}
	if cmd := handedCommand(t.before); cmd != "" && words(low) <= 8 {
		// The lesson holds for every command, so it is one lesson in
		// every session; the command handed over is its evidence.
		f.lesson, f.worded = finish(tb.Template(lang.RunYourself, "")), true
		f.action = "asked the person to run " + handedSteps(t.before, cmd)
		return f, true
	}
	if words(low) < 4 || onlyAnswers(x, 0, len(low)) {
		return finding{}, false
	}
	f.lesson = cleanLesson(x, own, 0, len(low), "")
	f.area = namedPath(f.lesson)
	return f, words(f.lesson) >= 4
}

// refusedHanding is the table of a short turn that says no to a command
// the agent handed over, after which the agent ran that program itself:
// "いやコミットして push までやってくれ" after "here is the push command".
// The person said "do it yourself" in other words; what the agent did
// next shows it. nil for any other turn.
func refusedHanding(t *turn, x *lang.Text) *lang.Table {
	if words(x.Low()) > 8 || len(t.next)+len(t.confirmed) == 0 {
		return nil
	}
	tb := openedBy(x, lang.Reject, span{0, len(x.Low())})
	if tb == nil {
		return nil
	}
	cmd := handedCommand(t.before)
	if cmd == "" {
		return nil
	}
	handed := stepsOf(cmd)
	if len(handed) == 0 {
		return nil
	}
	for _, c := range append(t.next, t.confirmed...) {
		if c.Name != "Bash" || c.Command == "" {
			continue
		}
		if slices.ContainsFunc(stepsOf(c.Command), func(s step) bool { return s.prog == handed[0].prog }) {
			return tb
		}
	}
	return nil
}

// handedSteps names what the agent handed over, for the lesson's trigger:
// every command of its last shell block, as program and subcommand
// ("`git add`, `git commit`, `git push`"), so the lesson keeps what the
// person wanted run, not only the block's first line; cmd, clipped, when
// no step is named.
func handedSteps(text, cmd string) string {
	var keys []string
	for _, l := range shellBlockCommands(text) {
		for _, s := range stepsOf(l) {
			if k := "`" + s.key + "`"; s.key != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 || len(keys) > maxHanded {
		return "`" + clip(cmd, 80) + "`"
	}
	return strings.Join(keys, ", ")
}

// shellBlockCommands are the commands of the last fenced block of text,
// when it is a shell's (no language named, or a shell's): each command
// whole, over the lines a backslash or an open quote carries it (a commit
// message of several lines), without a prompt's "$ " or comment lines.
func shellBlockCommands(text string) []string {
	i := strings.LastIndex(text, "```")
	if i < 0 {
		return nil
	}
	j := strings.LastIndex(text[:i], "```")
	if j < 0 {
		return nil
	}
	lang, body, _ := strings.Cut(text[j+3:i], "\n")
	switch strings.ToLower(strings.TrimSpace(lang)) {
	case "", "bash", "sh", "shell", "zsh", "console", "powershell", "ps1", "pwsh", "cmd", "fish":
	default:
		return nil
	}
	var out []string
	for _, l := range commandsOf(joinContinued(body)) {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// commandsOf splits a script into its command lines, a line whose quote
// is still open going on to the next (a commit message of several lines).
func commandsOf(script string) []string {
	var out []string
	cur, open := "", rune(0)
	for _, l := range strings.Split(script, "\n") {
		if cur != "" {
			cur += "\n"
		}
		cur += l
		for _, r := range l {
			switch {
			case open == 0 && (r == '"' || r == '\''):
				open = r
			case r == open:
				open = 0
			}
		}
		if open == 0 {
			out = append(out, cur)
			cur = ""
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// maxHanded bounds the commands a lesson's trigger names.
const maxHanded = 6

// handedCommand is the command the agent's message gave the person to
// run: the first line of its last shell block's first command, else its last inline
// command (`sudo systemctl restart nginx`); "" when it gave none.
func handedCommand(text string) string {
	if cmds := shellBlockCommands(text); len(cmds) > 0 {
		return firstLine(cmds[0])
	}
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	spans := strings.Split(strings.Join(paras[max(0, len(paras)-2):], "\n\n"), "`")
	for k := len(spans) - 2; k >= 1; k -= 2 {
		c := strings.TrimSpace(spans[k])
		if strings.Contains(c, " ") && !strings.ContainsAny(c, "\n") && programLike(progName(strings.Fields(c)[0])) {
			return c
		}
	}
	return ""
}

// acknowledged reads a turn the agent owned up to right after, without a
// marker of its own: a soft suggestion read as the instruction it is, or
// the first thing the person stated.
func acknowledged(x *lang.Text, own string, sents []span, ownsUp bool, reply string) (finding, bool) {
	low := x.Low()
	// How things stand ("it still fails") is reported, not taught.
	if words(low) < 3 || onlyAnswers(x, 0, len(low)) || hasKind(x, lang.Report, 0, len(low)) {
		return finding{}, false
	}
	f := finding{class: ClassAcknowledged, said: own, choice: hasKind(x, lang.Contrast, 0, len(low))}
	for k, s := range sents {
		if asking(x, s) && !ownsUp {
			continue // "Can you also add a test?" "Good point": a request
		}
		for _, tb := range lang.Tables() {
			for _, m := range tb.Find(x, lang.Soften, s.start, s.end) {
				if !leads(x, tb, s.start, m.Start) {
					continue
				}
				xs, xe := m.XStart, m.XEnd
				if m.XStart < m.Start { // {x} before the phrase
					xs = max(xs, s.start)
				}
				slot := strings.TrimSpace(own[x.Offset(xs):x.Offset(xe)])
				if words(slot) < 2 {
					continue
				}
				f.lesson = finish(m.Lesson(strings.TrimRight(slot, " ?？.。!！")))
				if len(sents) <= 3 {
					// The sentences after say what it is about ("i think
					// you are using some incorrect formatting in siyuan.
					// [[ ]] doesnt create links"): the point without them
					// has lost its object.
					f.lesson = clip(strings.TrimSpace(f.lesson+" "+stated(x, own, sents[k+1:])), maxLesson)
				}
				f.area = namedPath(f.lesson)
				return f, true
			}
		}
	}
	// Else what was stated, in a turn short enough to be one point: in a
	// long one (a pasted document, a brief), what the agent owned up to
	// may be anywhere. All of it, since a point is often made over its
	// sentences ("Property names are wrong. Look at x.sql. 'accounts'
	// should be 'be_accounts'."): the first alone loses its object.
	kept := sents
	if len(sents) > 3 {
		// What the agent owned up to names the point: the sentences it
		// speaks of ("You're right — we had duplication between Machine
		// Control and Peripherals" of a brief about the tabs' fields).
		if !ownsUp {
			return f, false
		}
		if kept = spokenOf(x, own, sents, reply); len(kept) == 0 {
			return f, false
		}
	}
	lesson := stated(x, own, kept)
	if lesson == "" {
		return f, false
	}
	f.lesson = clip(lesson, maxLesson)
	f.area = namedPath(f.lesson)
	return f, words(f.lesson) >= 3
}

// stated is what sents state, their questions and their fragments left
// out.
func stated(x *lang.Text, own string, sents []span) string {
	var parts []string
	for _, s := range sents {
		if !asking(x, s) && words(x.Low()[s.start:s.end]) >= 3 {
			parts = append(parts, cleanLesson(x, own, s.start, s.end, ""))
		}
	}
	return strings.Join(parts, " ")
}

// minNotedWords is the fewest words of a fact the agent took note of.
const minNotedWords = 4

// spokenOf returns the sentences of a long turn that the agent's reply
// speaks of in its opening: those sharing at least minSpokenOf of its
// words or names (identity's keys: stemmed words; pairs of letters in the
// scripts without spaces, of which twice as many). None when the reply
// names nothing of the turn, or most of it (then it names no one point).
func spokenOf(x *lang.Text, own string, sents []span, reply string) []span {
	opening := identity.KeyOf(textcut.Bytes(reply, spokenOpening))
	if len(opening.Words)+len(opening.Anchors) == 0 {
		return nil
	}
	var out []span
	for _, s := range sents {
		k := identity.KeyOf(own[x.Offset(s.start):x.Offset(s.end)])
		n := identity.Common(k, opening)
		need := minSpokenOf
		if k.Pairs() {
			need *= 2 // a word of two letters is one pair, of three two
		}
		if n >= need {
			out = append(out, s)
		}
	}
	if len(out) > len(sents)/2 {
		return nil
	}
	return out
}

// spokenOpening is how much of the reply names what it owned up to, and
// minSpokenOf how many of its words a sentence must share to be spoken of.
const (
	spokenOpening = 300
	minSpokenOf   = 3
)

// challenged reads a question the agent owned up to: "where is the
// notebook summary?" answered "You're right — I skipped the numbered
// notebook summary." The question alone asks; what the agent admitted
// says what it should have done, so the lesson is both, the admission in
// the agent's words.
func challenged(t *turn, x *lang.Text, own string, sents []span, ownsUp bool) (finding, bool) {
	low := x.Low()
	if !ownsUp || len(sents) == 0 || len(sents) > 3 || words(low) < 3 || !anyAsking(x, sents) {
		return finding{}, false
	}
	admitted := admission(t.after)
	ax := lang.Fold(admitted)
	ss := sentences(ax.Low())
	if words(admitted) < minAdmissionWords || !lang.OwnsUp(textcut.Bytes(admitted, admissionOpening)) ||
		len(ss) > 0 && opensWith(ax, lang.Answer, ss[0]) || hasKind(ax, lang.Slip, 0, len(ax.Low())) {
		// Owning up is what the reply opens with, not a word further on
		// ("... 是不是确实加给"); "Yes, you're right" confirms what the
		// person guessed; "I changed the colour by accident" is a slip to
		// undo, no way of working.
		return finding{}, false
	}
	asked := strings.Join(strings.Fields(own), " ")
	lesson := finish(identity.Answer(clip(asked, maxQuoted), identity.AgentOwnedUp, admitted))
	return finding{class: ClassAcknowledged, lesson: clip(lesson, maxLesson), said: own, area: namedPath(asked)}, true
}

// admission is how the agent's reply owns up: its opening sentences, up
// to maxAdmission runes, cut at a sentence's end.
func admission(reply string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(reply), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	x := lang.Fold(para)
	low := x.Low()
	out := ""
	for _, s := range sentences(low) {
		next := para[:x.Offset(s.end)]
		if utf8.RuneCountInString(next) > maxAdmission && out != "" {
			break
		}
		out = next
	}
	return clip(out, maxAdmission)
}

// maxAdmission bounds the agent's words a challenged lesson keeps. An
// admission of fewer than minAdmissionWords ("Вы правы.") says nothing of
// what it should have done, and one whose owning up starts past
// admissionOpening bytes did not open with it.
const (
	maxAdmission      = 240
	minAdmissionWords = 6
	admissionOpening  = 60
)

// lastIntent is the last plan the agent stated ("I'll X", "我来X",
// "Voy a X"), and how it reads refused: its phrase's own template
// ("{x}할게요 => {x}하지 마세요"), else its table's ("Do not {x}").
func lastIntent(text string) (plan, refused string) {
	if text == "" {
		return "", ""
	}
	x := lang.Fold(text)
	at := -1
	for _, tb := range lang.Tables() {
		ms := tb.Find(x, lang.Intent, 0, len(x.Low()))
		if len(ms) == 0 {
			continue
		}
		m := ms[len(ms)-1]
		if m.Start > at {
			if v := strings.TrimRight(m.X(x), " ,，、"); words(v) >= 2 {
				plan, at = v, m.Start
				if refused = tb.Template(lang.Dont, v); m.Templated() {
					refused = m.Lesson(v)
				}
			}
		}
	}
	return plan, refused
}

// asks reports an agent's turn that ends with a question to the person.
// The question need not be the last words: agents offer the answers after
// it ("Proceed anyway? (yes/no)"), a table of options, or how to reply
// ("You can reply with the option letter"). So it is looked for in the
// last few paragraphs of prose, tables and lists left out.
func asks(text string) bool {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	seen := 0
	for i := len(paras) - 1; i >= 0 && seen < maxAskParagraphs; i-- {
		p := strings.TrimSpace(paras[i])
		if p == "" || p[0] == '|' || p[0] == '-' || p[0] == '*' && !strings.HasPrefix(p, "**") || strings.HasPrefix(p, "```") {
			continue
		}
		seen++
		if endsAQuestion(p) {
			return true
		}
	}
	return false
}

// maxAskParagraphs is how many paragraphs of prose, from the end of the
// agent's turn, may hold the question a reply answers.
const maxAskParagraphs = 3

// endsAQuestion reports a question mark that ends a sentence of p: followed
// by the end, a space, or a closing bracket, quote or emphasis (not a
// URL's query).
func endsAQuestion(p string) bool {
	for i, r := range p {
		if !lang.Asks(p, i) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(p[i+utf8.RuneLen(r):])
		if next == utf8.RuneError || unicode.IsSpace(next) || strings.ContainsRune(lang.Closing, next) {
			return true
		}
	}
	return false
}

// restAfter is where the person's words go on after the rejection at i and
// the fillers, answers and further rejections that follow it.
func restAfter(x *lang.Text, tb *lang.Table, i int) int {
	low := x.Low()
	for {
		for i < len(low) {
			r, n := utf8.DecodeRuneInString(low[i:])
			if wordRuneOrCJK(r) {
				break
			}
			i += n
		}
		next := -1
		for _, k := range []string{lang.Reject, lang.Answer, lang.Filler} {
			for _, m := range tb.Find(x, k, i, len(low)) {
				if m.Start == i && m.End > next {
					next = m.End
				}
				break
			}
		}
		if next < 0 {
			return i
		}
		i = next
	}
}

// standsApart reports a rejection at i followed by punctuation: "no,",
// "¡No!", "不对，".
func standsApart(x *lang.Text, tb *lang.Table, i int) bool {
	for _, m := range tb.Find(x, lang.Reject, i, len(x.Low())) {
		return punctAfter(x.Low(), m.End, len(x.Low()))
	}
	return false
}

// onlyAnswers reports a text made only of answers and fillers, in any
// language: "yes", "ok go ahead", "好的，继续".
func onlyAnswers(x *lang.Text, from, to int) bool {
	return madeOf(x, from, to, lang.Answer, lang.Approve, lang.Filler, lang.Reject)
}

// madeOf reports a span that one table reads as made only of phrases of
// kinds.
func madeOf(x *lang.Text, from, to int, kinds ...string) bool {
	for _, tb := range lang.Tables() {
		if tb.Only(x, from, to, kinds...) {
			return true
		}
	}
	return false
}

// onlyWaits reports a text that only tells the agent to wait or stop for
// now ("wait", "not yet", "Espera ainda.", "Ja deu.", "待って"), answers
// and fillers aside: a refusal for the moment, whose reason teaches
// nothing.
func onlyWaits(x *lang.Text) bool {
	return madeOf(x, 0, len(x.Low()), lang.Wait, lang.Answer, lang.Filler)
}

// endsNarrative reports a sentence whose last words are a [narrative]
// ending: a written register's statement.
func endsNarrative(x *lang.Text, s span) bool { return endsWith(x, lang.Narrative, s) }

// asking reports a sentence that asks: it ends with a question mark, or with
// the word that makes it a question in a language that marks one so
// ("为什么要用这个呢。", "生成されたものではないですか。", "바꿔야 하나요.").
func asking(x *lang.Text, s span) bool {
	return question(x.Low(), s) || endsWith(x, lang.Ask, s)
}

// endsWith reports a sentence whose last words are a phrase of kind.
func endsWith(x *lang.Text, kind string, s span) bool {
	end := s.start + len(strings.TrimRightFunc(x.Low()[s.start:s.end], func(r rune) bool { return !wordRuneOrCJK(r) }))
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, kind, s.start, end) {
			if m.End == end {
				return true
			}
		}
	}
	return false
}

// hasKind reports a phrase of kind in any table.
func hasKind(x *lang.Text, kind string, from, to int) bool {
	for _, tb := range lang.Tables() {
		if tb.Has(x, kind, from, to) {
			return true
		}
	}
	return false
}

// keptOf is the lesson of the sentences sents that start at from or
// after, as one: what a request to keep pointed at. Headings and
// questions are left out.
func keptOf(x *lang.Text, own string, sents []span, from int) (finding, bool) {
	var parts []string
	for _, s := range sents {
		if s.start < from || asking(x, s) || words(x.Low()[s.start:s.end]) < 2 || heading(own, x.Offset(s.start)) {
			continue
		}
		parts = append(parts, cleanLesson(x, own, s.start, s.end, ""))
	}
	if len(parts) == 0 {
		return finding{}, false
	}
	lesson := clip(strings.Join(parts, " "), maxLesson)
	return finding{class: ClassRemember, lesson: lesson, said: own, explicit: true, choice: hasKind(x, lang.Contrast, from, len(x.Low())), area: namedPath(lesson)}, true
}

// heading reports a sentence on a heading's line: Markdown's ("## 1.
// Introduction") or a label in lenticular brackets alone ("【注意点】").
// What a pasted document calls its parts is no lesson.
func heading(own string, at int) bool {
	_, line := lineAt(own, at)
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, "#") || strings.HasPrefix(line, "【") && strings.HasSuffix(line, "】")
}

// lineAt is the line of own that holds at: where it starts, and its text.
func lineAt(own string, at int) (int, string) {
	start := strings.LastIndexByte(own[:at], '\n') + 1
	line := own[start:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return start, line
}

// listItem reports a sentence that opens an item of a list: its line
// starts with a bullet ("- ", "* ", "• ") or a number ("1. ", "2) ") and the
// sentence with the line.
func listItem(own string, at int) bool {
	start, line := lineAt(own, at)
	line = strings.TrimLeft(line, " \t")
	item := strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "• ")
	if !item {
		d := strings.IndexFunc(line, func(r rune) bool { return r < '0' || r > '9' })
		item = d > 0 && d < len(line)-1 && (line[d] == '.' || line[d] == ')') && line[d+1] == ' '
	}
	// Only the bullet and spaces stand between the line's start and the
	// sentence (which may hold the bullet itself).
	return item && strings.Trim(own[start:at], " \t-*•0123456789.)") == ""
}

// describe says what a tool call did, for evidence.
func describe(t *transcript.ToolCall) string {
	if t.Command != "" {
		return "ran `" + clip(firstLine(t.Command), 80) + "`"
	}
	if len(t.Paths) > 0 {
		return strings.ToLower(t.Name) + " " + relative(t.Paths[0], t.Cwd)
	}
	return t.Name
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

func wordRuneOrCJK(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// bracketed reports a position inside brackets opened after from and not
// closed before it: "(", "（".
func bracketed(low string, from, i int) bool {
	depth := 0
	for _, r := range low[from:i] {
		switch r {
		case '(', '（':
			depth++
		case ')', '）':
			if depth > 0 {
				depth--
			}
		}
	}
	return depth > 0
}

// ruleClause is where the clause of a rule word at i starts when the
// sentence opens with its condition ("When you change the schema, always
// run make migrate": "always run…"), so that the condition's "when" or
// "if" is not read as a doubt; else from. The rule word must open its
// clause, after fillers at most, where a table's rules count there;
// where they count anywhere (the verb last, the object first: "もし…たら、
// マイグレーションを忘れないで"), it may stand anywhere in the clause after
// the condition's comma.
func ruleClause(x *lang.Text, tb *lang.Table, from, i int) int {
	c := clauseStartOf(x.Low(), from, i)
	if c == from || tb.Spaces && !tb.RulesAnywhere && !leads(x, tb, from, i) {
		return from
	}
	if found := tb.Find(x, lang.Condition, from, c); len(found) > 0 {
		// "If I'm not mistaken, we always use pnpm", "Если не ошибаюсь,
		// ...": a doubt put as a condition doubts what follows.
		if m := found[0]; (skipSpacePunct(x.Low(), from, m.Start) == m.Start || tb.Only(x, from, m.Start, lang.Filler)) && !tb.Has(x, lang.Unsure, from, c) {
			return c
		}
	}
	return from
}

// withCondition puts back the condition a templated lesson was cut from:
// "After editing the proto files, never forget to regenerate the stubs"
// is "After editing the proto files, regenerate the stubs", not
// "Regenerate the stubs".
func withCondition(x *lang.Text, own string, tb *lang.Table, from, i int, lesson string) string {
	c := ruleClause(x, tb, from, i)
	if c == from {
		return lesson
	}
	cond := strings.TrimSpace(own[x.Offset(from):x.Offset(c)])
	// As the person wrote it: "如果改了表结构，运行迁移" has no space after
	// its comma.
	sep := " "
	if r, _ := utf8.DecodeRuneInString(own[x.Offset(c):]); !unicode.IsSpace(r) {
		sep = ""
	}
	return cond + sep + textcase.LowerFirst(lesson)
}
