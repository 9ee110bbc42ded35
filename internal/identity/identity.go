// Package identity decides when two sightings are one lesson. An
// observation's id is a hash of its type and normalised pattern, so the
// same lesson worded another way, or naming this session's branch,
// worktree or commit, would start an observation of its own in every
// session, and nothing would ever recur. Two things make sightings one:
//
//   - General forms: what only names an instance (a branch, a worktree or
//     home folder, a commit hash, an id, a temporary folder, a line
//     number) is written as its kind (<branch>, <worktree>, <hash>, ...)
//     before the id is taken (Generalize);
//   - Sameness: two patterns of one type that share what anchors them (the
//     commands, files, names and numbers they hold, exactly) and most of
//     their words are one lesson, and so is a lesson said alone and
//     again as the first clause of a longer message (Same); a new
//     sighting joins the observation it is the same as (Index.Find);
//   - One error: two pitfalls whose words run the same, word for word,
//     with only their names in other places, quote one error message a
//     program fills in ("Route "/items" used `searchParams.page`.
//     `searchParams` is a Promise…", then `params.id` on another page):
//     one lesson, whatever names it was filled with (Index.Find).
//
// It reads text only, in any script: words for scripts that separate
// them, pairs of letters for those that do not.
package identity

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/textkey"
)

// Instance is what a session knows of its own instances: the branch it
// worked on and the folders it ran in.
type Instance struct {
	Branches []string // git branches the session was on
	Folders  []string // the session's working folders (worktrees), absolute
	Home     string   // the user's home folder, when known
}

var (
	uuidRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	})
	hashRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-f]{7,40}\b`) })
	tmpRe  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(/tmp|/var/folders|/private/var/folders)/[^\s'"` + "`" + `)]*`)
	})
	homeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(/home|/Users)/[^/\s'"` + "`" + `]+|C:\\Users\\[^\\\s'"` + "`" + `]+`)
	})
	lineRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\.[A-Za-z]{1,5}):\d+(:\d+)?\b|\bline \d+\b`) })
	longNumb = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\d{5,}\b`) })
	// An item's id: a ticket's key (PROJ-1234) or a zero-padded task
	// number (T009).
	itemRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([A-Z][A-Z0-9]{1,9})-\d{2,}\b|\b[A-Z]{1,4}0\d+\b`)
	})
)

// notItems are the prefixes of names of standards and algorithms, written
// as an item's id is: UTF-8 and SHA-256 are no instances.
var notItems = map[string]bool{"UTF": true, "SHA": true, "ISO": true, "GPT": true, "AES": true, "RSA": true, "HTTP": true, "TLS": true, "SSL": true, "ES": true, "ECMA": true, "RFC": true, "CVE": true}

// Generalize writes the instances a text names as their kinds, so that
// the same lesson learned on another branch, in another worktree or on
// another machine reads the same.
func Generalize(text string, in Instance) string {
	if text == "" {
		return text
	}
	// Folders first, longest first: a worktree inside a home folder.
	folders := append([]string(nil), in.Folders...)
	sort.Slice(folders, func(i, j int) bool { return len(folders[i]) > len(folders[j]) })
	for _, f := range folders {
		f = strings.TrimRight(f, `/\`)
		if len(f) < 4 {
			continue
		}
		text = ReplaceFolder(text, f, "<worktree>")
	}
	if in.Home != "" && len(in.Home) > 3 {
		text = ReplaceFolder(text, strings.TrimRight(in.Home, `/\`), "~")
	}
	text = homeRe().ReplaceAllString(text, "~")
	text = tmpRe().ReplaceAllString(text, "<tmp>")
	text = uuidRe().ReplaceAllString(text, "<id>")
	text = hashRe().ReplaceAllStringFunc(text, func(h string) string {
		if strings.IndexFunc(h, unicode.IsDigit) < 0 || strings.IndexFunc(h, unicode.IsLetter) < 0 {
			return h // a word, or a number
		}
		return "<hash>"
	})
	for _, b := range in.Branches {
		if b == "" || b == "main" || b == "master" || b == "HEAD" || b == "develop" || len(b) < 3 {
			continue // the trunk is no instance: "push to main" is the lesson
		}
		text = replaceWord(text, b, "<branch>")
	}
	text = lineRe().ReplaceAllStringFunc(text, func(s string) string {
		if strings.HasPrefix(s, "line") {
			return "line <n>"
		}
		ext, _, _ := strings.Cut(s, ":")
		return ext + ":<n>" // a file's line: main.go:<n>
	})
	// A number of five digits or more is an instance (a process, a run,
	// an issue), but not a port: host:43172 stays.
	var b strings.Builder
	last := 0
	for _, m := range longNumb().FindAllStringIndex(text, -1) {
		if m[0] > 0 && text[m[0]-1] == ':' {
			continue
		}
		b.WriteString(text[last:m[0]])
		b.WriteString("<n>")
		last = m[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// GeneralizeRequest is Generalize for what the person asks for, which
// also names the items it is about: a ticket (PROJ-1234), a task (T009).
// The same routine asked for over other items is one request. Only a
// request's ids are taken so: in an error or a lesson, "GH013" or "E0425"
// is a code to keep.
func GeneralizeRequest(text string, in Instance) string {
	return itemRe().ReplaceAllStringFunc(Generalize(text, in), func(id string) string {
		if prefix, _, ok := strings.Cut(id, "-"); ok && notItems[prefix] {
			return id
		}
		return "<id>"
	})
}

// ReplaceFolder replaces the folder f in text with with wherever a path
// names it whole: at the start of a word or after a compiler's flag
// ("-I/srv/app/include"), not inside another path ("src/app" or
// "https://x.dev/app" for "/app"), and up to a separator, the end of the
// word, or a sentence's closing marks ("it runs from /srv/app."), not
// where a longer name starts the same (/wt/a in /wt/a-b or /wt/a.bak).
func ReplaceFolder(text, f, with string) string {
	last, _ := utf8.DecodeLastRuneInString(f)
	return replaceWhere(text, f, with, func(before, after string) bool {
		b, _ := utf8.DecodeLastRuneInString(before)
		if before != "" && (nameRune(b) && !flagged(before) || b == '/' || b == '\\') {
			return false
		}
		rest := strings.TrimLeft(after, ".,;!?…")
		if rest != after {
			r, _ := utf8.DecodeRuneInString(rest)
			return rest == "" || !nameRune(r) // the sentence's end, not /wt/a.bak
		}
		r, _ := utf8.DecodeRuneInString(after)
		// A Chinese, Japanese or Korean letter ends a name that ends in
		// another script: "/srv/app中" is /srv/app, "/home/me/项目二" is
		// not /home/me/项目.
		return after == "" || r == '/' || r == '\\' || !nameRune(r) && !(cjk(r) && cjk(last))
	})
}

// flagged reports a text that ends in a one-letter flag a path is glued
// to ("gcc -I", "-L").
func flagged(before string) bool {
	n := len(before)
	if n < 2 || before[n-2] != '-' || !unicode.IsLetter(rune(before[n-1])) {
		return false
	}
	return n == 2 || before[n-3] == ' ' || before[n-3] == '\t'
}

// nameRune reports a character a file's or a folder's name is written
// with. Chinese, Japanese and Korean write a path right after a word, with
// no space ("更新/srv/app/docs"): their letters end a name.
func nameRune(r rune) bool {
	return wordRune(r) && !cjk(r) || strings.ContainsRune(".~@+%", r)
}

// cjk reports a letter of Chinese, Japanese or Korean.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// replaceWord replaces w where it stands as a whole word or path segment.
func replaceWord(text, w, with string) string {
	return replaceWhere(text, w, with, func(before, after string) bool {
		b, _ := utf8.DecodeLastRuneInString(before)
		r, _ := utf8.DecodeRuneInString(after)
		return (before == "" || !wordRune(b)) && (after == "" || !wordRune(r))
	})
}

// replaceWhere replaces each w in text where stands accepts the text
// before it and the text after it.
func replaceWhere(text, w, with string, stands func(before, after string) bool) string {
	var b strings.Builder
	done := 0
	for at := 0; ; {
		i := strings.Index(text[at:], w)
		if i < 0 {
			break
		}
		i += at
		end := i + len(w)
		if stands(text[:i], text[end:]) {
			b.WriteString(text[done:i])
			b.WriteString(with)
			done = end
		}
		at = end
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' }

// Key is what sameness compares of a pattern: its anchors (commands,
// files, names, numbers: exactly) and its other words.
type Key struct {
	Anchors []string
	Words   map[string]bool
	pairs   bool // its words are pairs of letters (Chinese, Japanese)
	// foreign: most of its letters are not Latin (what is an anchor
	// depends on it).
	foreign bool
	// frame is the pattern's words in order, each name in it (an anchor,
	// what stands in backticks) written as one placeholder: the message a
	// program fills in, without what it was filled with. clipped: the
	// pattern was cut short ("…"), so its frame stops where it was cut.
	// Only a pitfall's key has one (keyOf).
	frame   []string
	clipped bool
	// subject is what the pattern names first in backticks: the command
	// or file a message about one name is about (a pitfall's only).
	subject string
	// lead is the pattern as said (leadOf): what another pattern may open
	// with (opens). An answer's has none.
	lead string
}

// Pairs reports a key whose words are pairs of letters (Chinese,
// Japanese, Korean): more of them are shared by the same words.
func (k Key) Pairs() bool { return k.pairs }

// placeholder stands in a frame for a name.
const placeholder = "<>"

// Answer writes what was said in answer to a question as a lesson, in
// devlearn's own words around theirs: `Asked "q", the person answered:
// said` (by is PersonAnswered or AgentOwnedUp).
func Answer(question, by, said string) string {
	return askedOpen + question + "\", " + by + ": " + said
}

// The frames Answer writes. Their words are devlearn's, the same in every
// such lesson, so a key is read without them: in a sentence of another
// script they would be the anchors every such lesson shares.
const (
	askedOpen      = "Asked \""
	PersonAnswered = "the person answered"
	AgentOwnedUp   = "the agent owned up"
)

// unframe is a pattern without the frame Answer wrote around it.
func unframe(pattern string) string {
	rest, ok := strings.CutPrefix(pattern, askedOpen)
	if !ok {
		return pattern
	}
	for _, by := range []string{PersonAnswered, AgentOwnedUp} {
		if q, said, ok := strings.Cut(rest, "\", "+by+": "); ok {
			return q + " " + said
		}
	}
	return rest
}

// KeyOf reads a pattern's key. What stands in backticks is read as its
// words, so `pnpm` and pnpm are the same word.
func KeyOf(pattern string) Key {
	k := Key{Words: map[string]bool{}}
	seen := map[string]bool{}
	text := strings.ReplaceAll(unframe(pattern), "`", " ")
	latin, other := 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			if r < 0x250 {
				latin++
			} else {
				other++
			}
		}
	}
	for _, w := range strings.Fields(text) {
		t := trimWord(w)
		if t == "" {
			continue
		}
		if isAnchor(t, other > latin) {
			a := strings.ToLower(t)
			if said(a) {
				continue
			}
			if !seen[a] {
				seen[a] = true
				k.Anchors = append(k.Anchors, a)
			}
			continue
		}
		ps, pairs := pieces(t)
		k.pairs = k.pairs || pairs
		for _, piece := range ps {
			k.Words[piece] = true
		}
	}
	sort.Strings(k.Anchors)
	k.foreign = other > latin
	if unframe(pattern) == pattern {
		// An answer's frame reads as its question first, which is not
		// what was said: it opens nothing.
		k.lead = leadOf(pattern)
	}
	return k
}

// leadOf is a pattern as opens compares it: in lower case, its names out
// of their backticks, its spaces single, its closing stop taken off.
func leadOf(pattern string) string {
	return strings.TrimRight(textkey.Collapse(pattern, func(r rune) bool { return r == '`' }), ".!。！ ")
}

// said reports an anchor that names no part of a lesson, only how an
// error was said: a number standing alone ("line <n>"), or the shell that
// wrote it ("/bin/bash: line <n>: jq: command not found"). Two lessons
// whose messages a shell wrote share these and nothing else.
func said(a string) bool {
	if a == "<n>" {
		return true
	}
	if !strings.ContainsAny(a, "/\\") {
		return false
	}
	base := a[strings.LastIndexAny(a, "/\\")+1:]
	switch strings.TrimSuffix(base, ".exe") {
	case "sh", "bash", "zsh", "dash", "ash", "fish", "ksh", "pwsh", "powershell", "cmd":
		return true
	}
	return false
}

// trimWord takes off the punctuation around a word, in the scripts of the
// tables.
func trimWord(w string) string {
	return strings.Trim(w, ".,;:!?()[]{}\"'“”「」（）、，。！？")
}

// keyOf is the key the index compares for an observation of typ: a
// pitfall's with its frame, which only pitfalls are compared by.
func keyOf(typ, pattern string) Key {
	k := KeyOf(pattern)
	if typ == lesson.Pitfall {
		k.frame, k.clipped = frameOf(pattern, k.foreign)
		if parts := strings.Split(unframe(pattern), "`"); len(parts) > 2 {
			k.subject = strings.ToLower(strings.TrimSpace(parts[1]))
		}
	}
	return k
}

// oneLesson reports whether a sighting of key a is the known observation
// of key b: the same lesson (Same), or one error message filled with other
// names (sameFrame); never two pitfalls about two names.
func oneLesson(a, b Key) bool {
	return (Same(a, b) || sameFrame(a, b)) && !otherName(a, b)
}

// otherName reports two pitfalls whose message is about one name each
// (aboutOneName) and that name two: `flask` and `npm run dev` each held the
// shell, whatever else their patterns share (the same advice, naming the
// same log file).
func otherName(a, b Key) bool {
	if len(a.frame) == 0 || len(b.frame) == 0 || a.subject == b.subject {
		return false
	}
	return aboutOneName(a.frame) || aboutOneName(b.frame)
}

// frameOf reads a pattern's frame: its words in order, up to where it was
// cut short, with the names in it as placeholders (one for names side by
// side: "`params.id`. `params`" is where one name goes).
func frameOf(pattern string, foreign bool) (frame []string, clipped bool) {
	pattern = unframe(pattern)
	if i := strings.Index(pattern, "…"); i >= 0 {
		pattern, clipped = pattern[:i], true
	}
	add := func(w string) {
		if w == placeholder && len(frame) > 0 && frame[len(frame)-1] == placeholder {
			return
		}
		frame = append(frame, w)
	}
	for i, part := range strings.Split(pattern, "`") {
		if i%2 == 1 {
			add(placeholder) // in backticks: code, a name
			continue
		}
		for _, w := range strings.Fields(part) {
			t := trimWord(w)
			switch {
			case t == "":
			case isAnchor(t, foreign):
				add(placeholder)
			default:
				if n := textkey.Normalize(t); n != "" {
					add(n)
				}
			}
		}
	}
	return frame, clipped
}

// isAnchor reports a word that names something exactly: a path, a file, a
// name in code, a number, a flag; in a sentence of another script, a
// Latin word.
func isAnchor(w string, foreign bool) bool {
	if strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">") {
		return true // a general form
	}
	hasLetter, hasDigit, ascii := false, false, true
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			hasDigit = true
		case unicode.IsLetter(r):
			hasLetter = true
			if r >= 0x80 {
				ascii = false
			}
			if i > 0 && unicode.IsUpper(r) && ascii {
				return true // CamelCase
			}
		}
	}
	if !ascii {
		return false
	}
	if hasDigit || strings.ContainsAny(strings.Trim(w, "-"), "./_@\\=") || strings.HasPrefix(w, "-") {
		return true
	}
	return foreign && hasLetter
}

// pieces are a word's comparable parts: the word, folded and stemmed,
// for scripts that separate words; pairs of letters for those that do not
// (Chinese, Japanese), so that a shared phrase counts by its length, and
// for Korean, whose words carry their endings joined ("파악해볼래",
// "파악해봐": the pair 파악 is the word both share).
func pieces(w string) ([]string, bool) {
	w = textkey.Normalize(w)
	if w == "" {
		return nil, false
	}
	rs := []rune(w)
	cjk := false
	for _, r := range rs {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			cjk = true
			break
		}
	}
	if !cjk {
		if stop()[w] {
			return nil, false
		}
		return []string{stem(w)}, false
	}
	if len(rs) == 1 {
		return []string{w}, true
	}
	var out []string
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, string(rs[i:i+2]))
	}
	return out, true
}

// stem takes off the endings that make one word look like several in the
// languages of the tables (run, runs, running; commit, committed): crude,
// and the same on both sides of a comparison.
func stem(w string) string {
	rs := []rune(w)
	if len(rs) <= 4 {
		return w
	}
	for _, suf := range []string{"ing", "ed", "es", "s", "ly", "en", "er", "ez", "ar", "ir", "ая", "ой", "ый", "ий", "ть", "ы", "и", "е", "а"} {
		if strings.HasSuffix(w, suf) && len(rs)-utf8.RuneCountInString(suf) >= 4 {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

var stop = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the to of in on at for with and or but is are be it this that these those
		do does not no never always please you your we our i my me us from by as into so then when if
		der die das den dem ein eine und oder nicht nie immer bitte du ich wir mit für zu im auf ist sind
		le la les un une des et ou ne pas jamais toujours dans pour avec sur est sont de du au
		el los las uno una y o no nunca siempre en para con por es son del al que
		o os as um uma e ou não nunca sempre em para com por é são do da
		и в на не с по для что это как`) {
		m[w] = true
	}
	return m
})

// MinShared is the share of words two patterns must have in common
// (Jaccard) to be one lesson, with the same anchors.
const MinShared = 0.5

// Same reports whether two keys are one lesson: one is the clause the
// other opens with (opens), or they hold the same anchors and most of
// their words in common. A pattern with no anchor is the same as another
// only if that has none either, and their words agree more.
func Same(a, b Key) bool {
	if opens(a, b) || opens(b, a) {
		return true
	}
	if !slices.Equal(a.Anchors, b.Anchors) {
		return false
	}
	if len(a.Anchors) >= 2 {
		return true // two or more exact names, all the same: a command and its fix
	}
	// Without a name to anchor them, words alone must agree more: "run
	// the linter before committing" and "run the tests before committing"
	// share three words of five. Pairs of letters (Chinese, Japanese)
	// overlap less between two wordings of one lesson than words do.
	need := MinShared
	if len(a.Anchors) == 0 && !a.pairs && !b.pairs && min(len(a.Words), len(b.Words)) < MinLong {
		need = 0.7
	}
	if len(a.Words) == 0 || len(b.Words) == 0 {
		return len(a.Words) == len(b.Words) && len(a.Anchors) > 0
	}
	return Shared(a, b) >= need || contained(a, b)
}

// SameRequest reports whether two requests are one routine asked for
// again: the same lesson (Same), or one names a thing the other leaves
// out ("continue unsupervised until tcc is self hosting on darwin8 …",
// then "continue unsupervised until I stop you …") and their words, long
// enough, agree as much as Same asks of words. Two requests that name
// different things are two.
func SameRequest(a, b Key) bool {
	if Same(a, b) {
		return true
	}
	if len(a.Anchors) > 0 && len(b.Anchors) > 0 || a.pairs != b.pairs {
		return false
	}
	return min(len(a.Words), len(b.Words)) >= MinLong && Shared(a, b) >= MinShared
}

// MinLong is how many words, names aside, make a pattern long enough
// that half of them shared says one lesson without a name to anchor it
// ("No hagas nada hasta que yo te lo diga", "No quiero que implementes
// nada hasta que te lo diga"): the short ones need more.
const MinLong = 6

// MinContained and MinContainedWords: a lesson said alone and said again
// at the start of a longer message ("Fale comigo em português do Brasil",
// then "Fale comigo em Português do Brasil, devemos conseguir concluir
// ..."): nearly every word of the shorter, of four or more, is in the
// longer.
const (
	MinContained      = 0.85
	MinContainedWords = 4
)

// Says reports whether a turn of the person says a lesson again: the
// lesson's words nearly all in the turn, or most of their words shared,
// and the turn no fragment of it. Same alone would take "thank you" for
// a long message that holds it, or two turns for one lesson because both
// name "1" and "2".
func Says(turn, lesson Key) bool {
	if turn.pairs != lesson.pairs || len(lesson.Words) == 0 || 2*len(turn.Words) < len(lesson.Words) {
		return false
	}
	inTurn := float64(sharedWords(lesson, turn)) >= MinContained*float64(len(lesson.Words))
	return inTurn && len(lesson.Words) >= MinContainedWords || Shared(turn, lesson) >= MinShared
}

// MinOpening is how many words and names a lesson needs for another
// pattern opening with it to be the same lesson (opens).
const MinOpening = 2

// opens reports a lesson said alone that another pattern opens with, as a
// clause of its own, the rest another matter: "Sempre converse em pt-br",
// then "Sempre converse em pt-br, continue a implementar: …". Said so,
// word for word and first, it is the same lesson however short it is,
// where words in common alone (contained) would need more of them.
func opens(short, long Key) bool {
	if short.lead == "" || len(short.Words)+len(short.Anchors) < MinOpening || len(short.lead) >= len(long.lead) || !strings.HasPrefix(long.lead, short.lead) {
		return false
	}
	rest := long.lead[len(short.lead):]
	spaced := strings.TrimLeft(rest, " ")
	next, _ := utf8.DecodeRuneInString(spaced)
	// A clause ends at a comma, a colon (French puts a space before it),
	// a semicolon or a dash; a hyphen only with a space before it, or it
	// joins a word ("pt-br").
	return strings.ContainsRune(",;:—–，；：、", next) || next == '-' && len(spaced) < len(rest)
}

// Opens reports a lesson, said alone as short, that long opens with as a
// clause of its own (opens): the lesson is short, the rest of long
// another matter.
func Opens(short, long string) bool { return opens(KeyOf(short), KeyOf(long)) }

// contained reports a key whose words are nearly all in the other's.
func contained(a, b Key) bool {
	s, l := a, b
	if len(s.Words) > len(l.Words) {
		s, l = l, s
	}
	if len(s.Words) < MinContainedWords || s.pairs != l.pairs {
		return false
	}
	return float64(sharedWords(s, l)) >= MinContained*float64(len(s.Words))
}

// sharedWords is how many words two keys have in common.
func sharedWords(a, b Key) int {
	n := 0
	for w := range a.Words {
		if b.Words[w] {
			n++
		}
	}
	return n
}

// Common is how many words and names two keys have in common: what a
// sentence shares with a reply that speaks of it.
func Common(a, b Key) int {
	n := sharedWords(a, b)
	for _, x := range a.Anchors {
		if slices.Contains(b.Anchors, x) {
			n++
		}
	}
	return n
}

// MinFrame is how many words, names aside, two frames must run alike for
// sameFrame: an error message long enough to be one message, not a
// phrase many messages share ("command not found: <>").
const MinFrame = 10

// sameFrame reports whether two pitfalls quote one error message filled
// with other names: their frames are the same, word for word, over
// MinFrame words at least; one cut short must be where the other begins.
// Keys without a frame (not a pitfall's) never are.
func sameFrame(a, b Key) bool {
	s, l := a, b
	if len(s.frame) > len(l.frame) {
		s, l = l, s
	}
	if len(s.frame) < len(l.frame) && !s.clipped || !slices.Equal(s.frame, l.frame[:len(s.frame)]) {
		return false
	}
	words := 0
	for _, w := range s.frame {
		if w != placeholder {
			words++
		}
	}
	return words >= MinFrame && !aboutOneName(s.frame)
}

// aboutOneName reports a frame whose message is about the one name it
// holds: a file or a name not there ("sed: can't read `a.py`: No such file
// or directory", "`x` does not exist", a script npm is missing), or a
// command that never returns; the name, and what stood for it, is the
// lesson, so two such pitfalls about two names are two lessons (`flask`
// and `npm run dev` each held the shell: the hook warns before each, by
// its name). ("jq: command not found" has its program among the frame's
// words: one program, one lesson, whatever it was run on.)
func aboutOneName(frame []string) bool {
	text := " " + strings.Join(frame, " ") + " "
	for _, p := range []string{" no such file", " not exist", " cannot find ", " can't find ", " cant find ", " can't read ", " cant read ", " could not find ", " unable to find ", " enoent ",
		" missing script", " names no script or target ", " never returns "} {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// Shared is the share of words two keys have in common.
func Shared(a, b Key) float64 {
	n := sharedWords(a, b)
	union := len(a.Words) + len(b.Words) - n
	if union == 0 {
		return 0
	}
	return float64(n) / float64(union)
}

// Index finds, among known observations, the one a new sighting is.
type Index struct {
	byType map[string][]entry
}

type entry struct {
	id  string
	key Key
}

// NewIndex is an empty index.
func NewIndex() *Index { return &Index{byType: map[string][]entry{}} }

// Add makes an observation known.
func (x *Index) Add(id, typ, pattern string) {
	for _, e := range x.byType[typ] {
		if e.id == id {
			return
		}
	}
	x.byType[typ] = append(x.byType[typ], entry{id, keyOf(typ, pattern)})
}

// Find returns the known observations of typ that pattern is the same
// lesson as, most alike first.
func (x *Index) Find(typ, pattern string) []string {
	k := keyOf(typ, pattern)
	type hit struct {
		id    string
		score float64
	}
	var hits []hit
	for _, e := range x.byType[typ] {
		if oneLesson(k, e.key) {
			hits = append(hits, hit{e.id, Shared(k, e.key)})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}
