package extract

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/textcase"
)

// The lesson is the person's own sentence, made to stand on its own: what
// only opens it ("ok,", "please", "no,") taken off, "that file" replaced by
// the file the agent was working on, a capital and a full stop. It keeps
// the person's language: a future agent reads any language, and a
// sentence rebuilt from a template in another would lose what they said.

// cleanLesson is the lesson of the text [i, j) of a folded turn.
func cleanLesson(x *lang.Text, own string, i, j int, file string) string {
	s, _ := cleanLessonAt(x, own, i, j, file)
	return s
}

// cleanLessonAt also says where, after what only opened it, the lesson
// starts.
func cleanLessonAt(x *lang.Text, own string, i, j int, file string) (string, int) {
	i = afterOpening(x, i, j)
	if i >= j {
		return "", i
	}
	j = endBefore(x, i, j)
	text := own[x.Offset(i):x.Offset(j)]
	if file != "" {
		text = replaceThisFile(x, own, i, j, file)
	}
	return finish(text), i
}

// afterOpening is where the text [i, j) starts after what only opens it:
// fillers ("please", "ok so"), and an answer or a "no" followed by
// punctuation ("ok, use", "no, run it").
func afterOpening(x *lang.Text, i, j int) int {
	low := x.Low()
	for {
		i = skipSpacePunct(low, i, j)
		next := i
		for _, tb := range lang.Tables() {
			for _, k := range []string{lang.Filler, lang.Answer, lang.Reject} {
				for _, m := range tb.Find(x, k, i, j) {
					if m.Start != i || m.End <= next {
						break
					}
					// "please use", "ok, use"; but "No toques" keeps its "No",
					// and "claude.md" is a file, not "claude,".
					if inWord(low, m.End, j) {
						break
					}
					if k == lang.Filler || punctAfter(low, m.End, j) {
						next = m.End
					}
					break
				}
			}
		}
		if next == i {
			return i
		}
		i = next
	}
}

// endBefore is where the text [i, j) ends without what only closes it:
// "again", "as always", "please", "thanks" and punctuation.
func endBefore(x *lang.Text, i, j int) int {
	low := x.Low()
	for {
		for j > i {
			r, n := utf8.DecodeLastRuneInString(low[:j])
			if !unicode.IsSpace(r) && !strings.ContainsRune(sentencePunct, r) {
				break
			}
			j -= n
		}
		moved := false
		for _, tb := range lang.Tables() {
			for _, k := range []string{lang.Filler, lang.Answer} {
				ms := tb.Find(x, k, i, j)
				if n := len(ms); n > 0 && ms[n-1].End == j && ms[n-1].Start > i && !tb.Only(x, i, ms[n-1].Start, lang.Filler, lang.Answer) && !wordBefore(low, ms[n-1].Start) && !endsWord(low, ms[n-1].Start, j, k) &&
					(!tb.Spaces && (!latinAt(low, ms[n-1].Start) || apartInScript(low, i, ms[n-1].Start)) || setApart(x, tb, i, ms[n-1].Start) || tb.Only(x, ms[n-1].Start, j, lang.Thanks) || k == lang.Filler && !tb.Only(x, ms[n-1].Start, j, lang.Answer)) {
					j, moved = ms[n-1].Start, true
				}
			}
		}
		if !moved {
			return j
		}
	}
}

// trimEnd takes off what only closes a slot's text (see endBefore).
func trimEnd(_ *lang.Text, _ string, slot string) string {
	y := lang.Fold(slot)
	return slot[:y.Offset(endBefore(y, 0, len(y.Low())))]
}

// finish makes a sentence of s: one line, no trailing punctuation but its
// own full stop, a capital, at most maxLesson runes.
func finish(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimLeft(s, " -–—"+sentencePunct)
	for end := len(s); ; {
		// A hyphen on a word's end is the word's ("the repo is called
		// acme-"); a dash after a space only sets the end apart.
		s = strings.TrimRight(s, " –—"+sentencePunct)
		if t := strings.TrimRight(s, "-"); t != s && (t == "" || !wordEnd(t)) {
			s = t
		}
		if len(s) == end {
			break
		}
		end = len(s)
	}
	if s == "" {
		return ""
	}
	switch {
	case strings.IndexFunc(s, isHanKana) >= 0:
		s += "。" // and no capital: "main ブランチに", not "Main ブランチに"
	case strings.IndexFunc(s, isHangul) >= 0:
		s += "." // Korean ends with a full stop, and has no capital either
	default:
		s = textcase.UpperFirst(s) + "."
	}
	return clip(s, maxLesson)
}

// wordEnd reports text that ends on a letter or a digit.
func wordEnd(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return wordRuneOrCJK(r)
}

// replaceThisFile puts file in place of "that file", "这个文件", ... in
// the text [i, j).
func replaceThisFile(x *lang.Text, own string, i, j int, file string) string {
	var ms []lang.Match
	for _, tb := range lang.Tables() {
		ms = append(ms, tb.Find(x, lang.ThisFile, i, j)...)
	}
	sort.Slice(ms, func(a, b int) bool { return ms[a].Start < ms[b].Start })
	var b strings.Builder
	at := i
	for _, m := range ms {
		if m.Start < at {
			continue
		}
		b.WriteString(own[x.Offset(at):x.Offset(m.Start)])
		b.WriteString(file)
		at = m.End
	}
	b.WriteString(own[x.Offset(at):x.Offset(j)])
	return b.String()
}

func skipSpacePunct(low string, i, j int) int {
	for i < j {
		r, n := utf8.DecodeRuneInString(low[i:])
		// A mark that opens a list's line (✅, ❌, ①) says nothing either.
		if !unicode.IsSpace(r) && !strings.ContainsRune(",，;:-–—.!?。！？；：、…¡¿*>", r) && !unicode.In(r, unicode.So, unicode.Variation_Selector) && !(r >= 0x2460 && r <= 0x24FF) {
			break
		}
		i += n
	}
	return i
}

// inWord reports a phrase that ends inside a word of a file or a name:
// "claude" in "claude.md", "ok" in "ok-button".
func inWord(low string, i, j int) bool {
	if i+1 >= j {
		return false
	}
	c := low[i]
	if c != '.' && c != '/' && c != '-' && c != '_' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(low[i+1:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// wordBefore reports a phrase that starts inside a word of a file or a
// name: "claude" in ".claude", "ok" in "is-ok".
func wordBefore(low string, i int) bool {
	if i < 2 {
		return false
	}
	c := low[i-1]
	return (c == '.' || c == '/' || c == '-' || c == '_' || c == '\\') && low[i-2] != ' '
}

// setApart reports punctuation before start, with only spaces and
// fillers between, after i: an answer closes the text where it stands
// apart ("use pnpm, ok", "…, please continue"), and ends the sentence's
// own words where it does not ("mark the task as done", "hazlo bien"), a
// filler that is an answer too as well ("пиши тесты хорошо"). Thanks close
// it either way ("use pnpm thanks").
func setApart(x *lang.Text, tb *lang.Table, i, start int) bool {
	low := x.Low()
	k := strings.LastIndexFunc(low[i:start], func(r rune) bool { return strings.ContainsRune(sentencePunct+"-–—", r) })
	if k < 0 {
		return false
	}
	_, n := utf8.DecodeRuneInString(low[i+k:])
	gap := i + k + n
	return strings.TrimSpace(low[gap:start]) == "" || tb.Only(x, gap, start, lang.Filler)
}

// latinAt reports a Latin letter at i: a table without spaces may list a
// Latin answer ("ok"), which in a sentence of spaced words is one of them
// ("returns ok").
func latinAt(low string, i int) bool {
	r, _ := utf8.DecodeRuneInString(low[i:])
	return r < 0x250 && unicode.IsLetter(r)
}

// apartInScript reports a Latin answer at start that stands apart in a
// sentence of a script without spaces: written on to a character of it
// ("使ってok"), or after a space ("都用 pnpm ok"), where in a sentence of
// spaced words it would be one of them ("returns ok").
func apartInScript(low string, i, start int) bool {
	before, _ := utf8.DecodeLastRuneInString(low[:start])
	if start > i && isCJK(before) {
		return true
	}
	return unicode.IsSpace(before) && strings.IndexFunc(low[i:start], isCJK) >= 0
}

// endsWord reports a closing word, low[start:end], that is written on to
// the Han or kana character before it and so ends a word of the sentence
// itself: Chinese writes no spaces, and "行" (fine) or "可以" (all right)
// alone closes a request ("…，行"), while the same characters end
// "运行" (run) or "就可以" (will do). An answer of Han characters is such
// a word; a filler only when it is one Han character ("你" of "给你"),
// and never an interjection, nor after a sentence's closing particle
// ("…吧好").
func endsWord(low string, start, end int, kind string) bool {
	before, _ := utf8.DecodeLastRuneInString(low[:start])
	if !isHanKana(before) || strings.ContainsRune(closingParticles, before) {
		return false
	}
	w := low[start:end]
	if strings.IndexFunc(w, func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 || strings.ContainsAny(w, closingParticles) {
		return false
	}
	return kind == lang.Answer || utf8.RuneCountInString(w) == 1
}

// closingParticles end a Chinese sentence or stand alone as interjections.
const closingParticles = "吧呢啊嘛呀啦哦嗯"

// sentencePunct is what ends a clause or a sentence, in Latin and in
// Chinese and Japanese (full-width) writing.
const sentencePunct = ",，;:.!?。！？；：、…"

// punctAfter reports punctuation (or the end) right after i: "no," "ok."
func punctAfter(low string, i, j int) bool {
	if i >= j {
		return true
	}
	r, _ := utf8.DecodeRuneInString(low[i:])
	return strings.ContainsRune(sentencePunct, r)
}

var (
	fileExts = map[string]bool{}
	// Library names that look like files.
	jsLibraries = map[string]bool{"node.js": true, "next.js": true, "vue.js": true, "react.js": true, "express.js": true, "nuxt.js": true, "d3.js": true, "three.js": true, "chart.js": true, "nest.js": true, "deno.js": true}
	knownFiles  = map[string]bool{"Makefile": true, "Dockerfile": true, "Justfile": true, "Rakefile": true, "Gemfile": true, "CHANGELOG": true, "README": true, "LICENSE": true}
)

func init() {
	for _, e := range strings.Fields(`go mod sum md json yaml yml toml ts tsx js jsx mjs cjs py rb rs java kt c h cc cpp hpp cs sh
		sql html css scss txt lock cfg ini env xml gradle swift php proto graphql gql tf vue svelte dart ex exs erl
		hs ml lua scala clj zig nix bzl cmake mk csv sqlite ipynb example production local`) {
		fileExts[e] = true
	}
}

// namedPath returns a file or folder the text names, or "". A word with a
// slash is a path only when it cannot be prose ("and/or"): with a dot, a
// trailing slash or two slashes. Only the text's headline (its first
// maxPattern runes) counts: a path far into a lesson told at length is a
// detail of it, not the file it is about.
func namedPath(s string) string {
	for _, w := range strings.Fields(clip(s, maxPattern)) {
		w = strings.TrimLeft(w, "`'\"“「(（[{<*")
		w = strings.TrimRight(w, "`'\"”」)）]}>,，、;；:：!！?？*.。")
		if w == "" || strings.Contains(w, "://") || strings.IndexFunc(w, isCJK) >= 0 {
			continue
		}
		if strings.Contains(w, `\`) {
			w = repopath.Slash(w) // a Windows path
		}
		if strings.Contains(w, "/") {
			if strings.Contains(w, ".") || strings.HasSuffix(w, "/") || strings.Count(w, "/") >= 2 {
				return w
			}
			continue
		}
		if i := strings.LastIndexByte(w, '.'); i >= 0 && i < len(w)-1 && fileExts[strings.ToLower(w[i+1:])] && !jsLibraries[strings.ToLower(w)] {
			return w
		}
		if knownFiles[w] {
			return w
		}
	}
	return ""
}
