package transcript

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// OwnAnswering is the person's own words (OwnWords) in a message answering
// the agent's turn, without the lines they quoted back from that turn:
// people paste the agent's report into their reply to point at a part of
// it ("fallback機能: 不足ファイルは古いアイコンで代替。" and the rest of the
// agent's list, then their question), and a line of it reads as their
// instruction. A line is quoted when, letters and digits alone compared, it
// holds minQuoted runes or more and the agent's turn holds it whole:
// shorter ones are words any two people say. A removed run of lines
// becomes one empty line, as in OwnWords. A message that is all quoted is
// the person's answer, picked from what the agent offered, and stays.
//
// said gives the agent's turn, asked for only when a line may be quoted:
// each reader keeps the turn its own way, and most messages are short.
// Both readers call this, so they read the person's words alike.
func OwnAnswering(text string, said func() []byte) string {
	return unquoted(OwnWords(text), said)
}

func unquoted(own string, said func() []byte) string {
	if utf8.RuneCountInString(own) < minQuoted {
		return own
	}
	var turn, agent []byte // the turn, and as compared: made once, when a line may be quoted
	quoted := map[int]bool{}
	i := 0
	for l := range strings.SplitSeq(own, "\n") {
		if quotedLine(l, said, &turn, &agent) {
			quoted[i] = true
		}
		i++
	}
	if len(quoted) == 0 {
		return own // the common case, with nothing made
	}
	var out []string
	removed, gap := false, false
	for i, l := range strings.Split(own, "\n") {
		if quoted[i] {
			removed = true
			if !gap && len(out) > 0 {
				out = append(out, "")
			}
			gap = true
			continue
		}
		out = append(out, l)
		gap = false
	}
	rest := strings.TrimSpace(strings.Join(out, "\n"))
	if !removed || rest == "" {
		// All of it quoted: what the person answers by picking it from
		// what the agent offered ("_bmad-output/planning-artifacts/prd.md"
		// for "which PRD? e.g. _bmad-output/planning-artifacts/prd.md").
		return own
	}
	return rest
}

// quotedLine reports a line of the person's that the agent's turn holds.
// Its longest word, as typed, must be in the turn before the two are
// compared letter by letter: most lines are not quoted, and that test
// costs a search, not a copy of the turn.
func quotedLine(l string, said func() []byte, turn, agent *[]byte) bool {
	if utf8.RuneCountInString(l) < minQuoted || oneName(l) {
		return false
	}
	n := lettersOf(nil, []byte(l))
	if utf8.RuneCount(n) < minQuoted {
		return false
	}
	if *turn == nil {
		if *turn = said(); *turn == nil {
			*turn = []byte{}
		}
	}
	if w := longestWord(l); len(w) >= 4 && !bytes.Contains(*turn, []byte(w)) && !bytes.Contains(*turn, bytes.ToLower([]byte(w))) {
		return false
	}
	if *agent == nil {
		*agent = lettersOf(make([]byte, 0, len(*turn)), *turn)
	}
	return bytes.Contains(*agent, n)
}

// longestWord is the longest run of letters and digits in s.
func longestWord(s string) string {
	best, start := "", -1
	for i, r := range s + " " {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

// oneName reports a line that is one word of Latin letters, a URL, a path
// or a name: people repeat those to point at them ("the repo is this one:
// https://…"), which is saying, not quoting.
func oneName(l string) bool {
	l = strings.TrimSpace(l)
	return !strings.ContainsFunc(l, unicode.IsSpace) && !strings.ContainsFunc(l, func(r rune) bool { return r >= 0x1100 && unicode.IsLetter(r) })
}

// minQuoted is how long, in letters and digits, a line must be to be read
// as quoted when the agent said it: a sentence, not a phrase.
const minQuoted = 24

// lettersOf appends to dst s as quoting keeps it: letters and digits,
// folded to lower case. Quoting loses the agent's markdown (**, `, #, list
// marks) and its spacing.
func lettersOf(dst, s []byte) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}
