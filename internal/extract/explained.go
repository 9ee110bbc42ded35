package extract

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/transcript"
)

// When a failed command passes again changed beyond what the rules can
// read (another name, another option and a folder at once), the agent
// often says what it made of the failure just before the rerun, in any
// language: "The organization name is 'Randroids-Dojo' (with an 's')",
// "`.gitignore` に未ステージの変更があります". The agent is the reader here: the
// lesson is the failure in its own words, the fix in the agent's.
//
// What it said counts only when one of its sentences states something
// (no plan, "Let me …", "…します", no question, nothing it only
// introduces with a colon), about this failure (a word of its error) and
// adds to it (a word the error does not hold): "That failed." or "Let me
// try again." teach nothing. Only a rerun the rules cannot read is asked
// about: one changed beyond a few words, with no file changed on the way
// (that is the work) and no look around failing (that finds nothing).

// explainedFix is the lesson of a failed call that passed again after
// the agent said why: its first sentence that explains, said before any
// call after the failure (said, in order: a read, a pause, a step
// between) or before the rerun, the last of said.
func explainedFix(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall, said []string) (Observation, bool) {
	known := errorWords(fs.err + "\n" + errorAround(withoutHarness(failed.Error)))
	why := ""
	for _, s := range said {
		if why = explanation(s, known); why != "" {
			break
		}
	}
	if why == "" {
		return Observation{}, false
	}
	key := "`" + fs.key + "`"
	fails := " fails with \"" + clip(fs.err, 100) + "\""
	details := commandDetails(fs.key, failed.Command, fails, "the command fails until it is fixed", why)
	return failurePitfall(failed, key+fails+": "+clip(why, maxExplained), details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("assistant", why),
		quote("tool", "`"+oneLine(passed.Command)+"` → passed")), true
}

// maxExplained bounds the agent's sentence in a lesson.
const maxExplained = 200

// maxExplainSentences is how many sentences of each text the agent wrote
// before a call are read for the one that explains.
const maxExplainSentences = 3

// explanation is the first of the first sentences of said that states
// something about the failure (known: errorWords of its error line and the
// lines after it) and adds a word to it, or "". Both are read folded, as
// the tables read text, so "configuración" in one is "configuracion" in
// the other. A
// word the error shares only as a filler ("error", "failed") or as a
// URL's scheme or host ("https", "github" of https://api.github.com/…)
// says nothing about this failure; what the agent quotes as code (a
// fenced block) is not what it made of it; a sentence that reports the
// failure again ("Same error here", "でエラーになりました") adds nothing.
func explanation(said string, known map[string]bool) string {
	if strings.TrimSpace(said) == "" {
		return ""
	}
	said = withoutFences(said)
	x := lang.Fold(said)
	low := x.Low()
	for k, s := range sentences(low) {
		if k == maxExplainSentences {
			break
		}
		text := strings.TrimSpace(low[s.start:s.end])
		if question(low, s) || strings.HasSuffix(text, ":") || strings.HasSuffix(text, "：") ||
			opensWith(x, lang.Intent, s) || endsIntent(x, s) || hasKind(x, lang.Report, s.start, s.end) {
			continue
		}
		shared, added := false, false
		for w := range wordsOf(text) {
			switch {
			case explainFiller[w]:
			case known[w]:
				shared = true
			default:
				added = true
			}
		}
		if shared && added {
			return strings.TrimSpace(said[x.Offset(s.start):x.Offset(s.end)])
		}
	}
	return ""
}

// errorWords are the words of an error as explanation compares them:
// folded, without URLs' schemes and hosts. Read once for all the texts
// the agent wrote after the failure.
func errorWords(about string) map[string]bool {
	return wordsOf(lang.Fold(urlHost().ReplaceAllString(about, " ")).Low())
}

// urlHost is a URL's scheme and host: "https://api.github.com".
var urlHost = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s]*`) })

// withoutFences is text without the lines of its fenced code blocks.
func withoutFences(text string) string {
	if !strings.Contains(text, "```") {
		return text
	}
	var kept []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// endsIntent reports a sentence whose plan closes it, as Japanese and
// Korean say one ("stash してから pull します").
func endsIntent(x *lang.Text, s span) bool {
	for _, tb := range lang.Tables() {
		for _, m := range tb.Find(x, lang.Intent, s.start, s.end) {
			if strings.TrimRight(x.Low()[m.End:s.end], " 。.!！") == "" {
				return true
			}
		}
	}
	return false
}

// wordsOf are the words of text of four letters or more, lowered, a plural
// s left out: runs of letters and digits, a run of Han, kana or Hangul a
// word of its own. Unlike words.Words it parts a Latin name from the CJK
// text written against it ("Randroids-Dojoでした"), as Chinese and
// Japanese agents write.
func wordsOf(text string) map[string]bool {
	out := map[string]bool{}
	low := strings.ToLower(text)
	for i := 0; i < len(low); {
		r, n := utf8.DecodeRuneInString(low[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += n
			continue
		}
		cjk := isCJK(r)
		j := i
		for j < len(low) {
			r2, n2 := utf8.DecodeRuneInString(low[j:])
			if !(unicode.IsLetter(r2) || unicode.IsDigit(r2)) || isCJK(r2) != cjk {
				break
			}
			j += n2
		}
		if w := low[i:j]; utf8.RuneCountInString(w) >= 4 || cjk && utf8.RuneCountInString(w) >= 2 {
			if len(w) > 4 && !cjk && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
				w = w[:len(w)-1] // "users" is "user", "class" stays
			}
			out[w] = true
		}
		i = j
	}
	return out
}

// explainFiller are words that say only that something failed or is being
// looked at: shared with the error they tie a sentence to nothing, and
// added they tell nothing new.
var explainFiller = map[string]bool{
	"error": true, "failed": true, "fail": true, "failing": true, "failure": true,
	"command": true, "output": true, "again": true, "issue": true, "problem": true, "seem": true,
	"look": true, "there": true, "that": true, "this": true, "with": true, "didn": true, "work": true,
	"worked": true, "working": true, "still": true, "same": true, "time": true, "retry": true,
	"because": true, "since": true, "instead": true, "should": true, "would": true, "could": true,
	"have": true, "need": true, "what": true, "which": true, "from": true, "into": true,
	"about": true, "just": true, "only": true, "also": true, "then": true, "when": true, "here": true,
}
