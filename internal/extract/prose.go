package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
)

// A marker counts only in the person's own sentences. The transcript
// reader has taken out what they pasted (code, logs, quotes: their lines);
// mask blanks what stands inside a line in someone else's words, byte for
// byte, so that offsets found in the mask are the original's:
//
//   - `inline code`, "double-quoted" and “curly-quoted” passages, 「」.
//
// A marker cannot start there, but a lesson may include it, as in "never
// run `make deploy` by hand".
const inline = '\x02'

func mask(text string) string {
	if !strings.ContainsAny(text, "`\"“「") {
		return text
	}
	b := []byte(text)
	for start := 0; start <= len(b); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		line := text[start:end]
		blankPair(b[start:end], line, "`", "`")
		blankPair(b[start:end], line, "\"", "\"")
		blankPair(b[start:end], line, "“", "”")
		blankPair(b[start:end], line, "「", "」")
		start = end + 1
	}
	return string(b)
}

// blankPair fills each span from open to the next close on the line
// (delimiters included) with inline, keeping bytes outside. An unpaired
// delimiter is left alone.
func blankPair(b []byte, line, open, close string) {
	for i := 0; ; {
		j := strings.Index(line[i:], open)
		if j < 0 {
			return
		}
		j += i
		k := strings.Index(line[j+len(open):], close)
		if k < 0 {
			return
		}
		k += j + len(open) + len(close)
		for p := j; p < k; p++ {
			b[p] = inline
		}
		i = k
	}
}

// span is a sentence: offsets into a folded text (lang.Text).
type span struct{ start, end int }

// sentences splits a folded text into sentences: at . ! ? ; and their
// full-width forms, and at line breaks (a full stop inside a word, as in
// "CLAUDE.md", does not end one).
func sentences(low string) []span {
	var out []span
	start := -1
	flush := func(end int) {
		if start >= 0 {
			s, e := start, end
			for s < e && (low[s] == ' ' || low[s] == '\t') {
				s++
			}
			for e > s && (low[e-1] == ' ' || low[e-1] == '\t') {
				e--
			}
			if e > s {
				out = append(out, span{s, e})
			}
		}
		start = -1
	}
	for i := 0; i < len(low); {
		r, n := utf8.DecodeRuneInString(low[i:])
		end := false
		switch r {
		case '\n':
			flush(i)
			i += n
			continue
		case '!', '?', ';', '。', '！', '？', '；':
			end = true
		case '.':
			end = i+n == len(low) || unicode.IsSpace(rune(low[i+n]))
		}
		if start < 0 && !unicode.IsSpace(r) {
			start = i
		}
		i += n
		if end {
			flush(i)
		}
	}
	flush(len(low))
	return out
}

// question reports a sentence that asks: it ends with a question mark
// (Greek's too).
func question(low string, s span) bool {
	return lang.EndsAsking(low[s.start:s.end])
}

// leads reports whether, in its clause, only fillers, answers and
// rejections stand before i ("ok, don't", "no, never", "please stop"): the
// imperative position.
func leads(x *lang.Text, tb *lang.Table, from, i int) bool {
	c := clauseStartOf(x.Low(), from, i)
	return skipSpacePunct(x.Low(), c, i) == i || tb.Only(x, c, i, lang.Filler, lang.Answer, lang.Reject)
}

// clauseStartOf is where the clause holding i starts, not before from: after
// the last comma, dash or sentence end.
func clauseStartOf(low string, from, i int) int {
	for k := i; k > from; {
		r, n := utf8.DecodeLastRuneInString(low[:k])
		if strings.ContainsRune(",，、;；:：—–", r) {
			return k
		}
		k -= n
	}
	return from
}
