package extract

import (
	"regexp"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A failure the person reported: they ran the project themselves (a dev
// server, a build, their editor's linter) and pasted what it printed, and
// the agent changed files until it stopped. No tool call of the session
// failed, so failureFixes never sees it; yet it is the same lesson, and
// one an agent repeats across sessions (a framework's changed API, a
// platform's rule). The error's own line says what was wrong; the files
// the agent changed, and its own word for why, say what fixed it.
//
// The error is only taken from a line that opens as a program's error
// report does ("TypeError: …", "Error: …", "file.ts(3,1): error …"): "I
// get an error when I save" names no error to learn. The line must state
// a rule (statesRule): an error that only says the code being written is
// not done yet is the work. The fix counts only when the person's next
// message does not report the same error again.

// reportedFailures reads the turns that report an error and its fix.
func (c *conversation) reportedFailures() []Observation {
	var out []Observation
	for i := range c.turns {
		t := &c.turns[i]
		if t.sig.Rejection {
			continue
		}
		e, around := reportedError(t.sig)
		if e == "" {
			continue
		}
		var edits []string
		for _, tc := range t.next {
			if transcript.EditTool(tc.Name) && len(tc.Paths) > 0 {
				edits = append(edits, relative(tc.Paths[0], tc.Cwd))
			}
		}
		if len(edits) == 0 {
			continue // explained, not fixed
		}
		if i+1 < len(c.turns) && reportsAgain(c.turns[i+1].sig.Text, e) {
			continue // it came back: the next turn's fix is the one
		}
		edits = unique(edits)
		if len(edits) > maxShownEdits {
			edits = edits[:maxShownEdits]
		}
		shown := "`" + strings.Join(edits, "`, `") + "`"
		run := "the person's run"
		rt := runtimeIn(t.sig.Text)
		if rt != "" {
			run += ", " + rt
		}
		pattern := "\"" + clip(e, 110) + "\" (" + run + "): fixed by changing " + shown
		details := "area: " + field(edits[0]) + "; issue: " + field(clip(e, 160)) +
			"; impact: the error comes back until it is fixed; resolution: change " + field(strings.Join(edits, ", "))
		if rt != "" {
			details += "; runtime: " + rt
		}
		if around != "" {
			details += "; output: " + field(around)
		}
		evidence := []string{quote("user", e)}
		if why := fixSaid(t.after, e, edits); why != "" {
			details += "; fix: " + field(why)
			evidence = append(evidence, quote("assistant", why))
		}
		out = append(out, pitfallAt(t.sig.SessionID, t.sig.UUID, t.sig.Timestamp, pattern+".", details, evidence...))
	}
	return out
}

// maxShownEdits bounds the files a reported fix names.
const maxShownEdits = 4

// reportedError is the error line of what the person pasted into their
// message and the lines after it that say why, or "" when it holds none.
func reportedError(sig *transcript.UserSignal) (line, around string) {
	text := transcript.Unwrap(sig.Text)
	if i := strings.Index(text, "Traceback (most recent call last)"); i > 0 {
		// "Exception in thread main:" above a traceback: the exception
		// it ends in says what failed.
		text = text[i:]
	}
	line, at, lines := errorLineAt(text)
	if line == "" || at < 0 || !errorish(strings.ToLower(line)) {
		return "", ""
	}
	if !errorReport().MatchString(strings.TrimSpace(lines[at])) || !statesRule(strings.ToLower(line)) {
		return "", ""
	}
	return line, linesAfter(lines, at)
}

// statesRule reports an error line that says what is required or not
// allowed ("must be unwrapped with await", "unsupported operand", "Invalid
// file link"): a rule of the framework or the platform, which the agent
// will break again. "'MainWindow' object has no attribute 'x'" or a failed
// test says only that the code being written is not done: that is the
// work.
func statesRule(low string) bool {
	return mentions(low, "must ", "should ", "cannot ", "can't ", "can only", "only ", "unsupported", "not supported", "not allowed", "not permitted", "invalid", "deprecated", "expected ", "requires ", "required", "instead", "did you mean", "read-only", "read only", "no longer")
}

// errorReport is how a program's error line opens: an exception's name,
// "Error:", "fatal:", a compiler's "file(3,1): error CODE".
// Compiled on first use, as the package's other patterns: the hooks link
// this package and most of their runs read no pasted error.
var errorReport = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[⨯✖×]\s*)?(?:[\w.$]*(?:Error|Exception)\b|(?i:error|fatal|panic)\s*[:\[]|\S+(?:\(\d+,\d+\)|:\d+:\d+):?\s+(?i:error|warning)\b)`)
})

// reportsAgain reports a message that holds the error line again (its
// start: the rest may name another line or another file).
func reportsAgain(text, errLine string) bool {
	start := []rune(errLine)
	if len(start) > 60 {
		start = start[:60]
	}
	return strings.Contains(strings.Join(strings.Fields(text), " "), string(start))
}

// fixSaid is the sentence of the agent's reply that says why it failed
// ("…because params is a Promise"), else the first that names, in code,
// what the error or the fix names ("Fixed the async `headers()` usage"),
// or "".
func fixSaid(after, errLine string, edits []string) string {
	x := lang.Fold(after)
	low := x.Low()
	named := ""
	for _, s := range sentences(low) {
		if words(low[s.start:s.end]) < 4 {
			continue
		}
		said := strings.Join(strings.Fields(after[x.Offset(s.start):x.Offset(s.end)]), " ")
		if hasKind(x, lang.Because, s.start, s.end) {
			return clip(said, 240)
		}
		if named == "" && namesCodeOf(said, errLine, edits) {
			named = clip(said, 240)
		}
	}
	return named
}

// namesCodeOf reports a sentence whose code spans (`…`) name something the
// error line holds, or the base name of a file changed.
func namesCodeOf(said, errLine string, edits []string) bool {
	parts := strings.Split(said, "`")
	for i := 1; i < len(parts); i += 2 {
		c := strings.TrimSpace(parts[i])
		if len(c) < 3 {
			continue
		}
		if strings.Contains(errLine, c) {
			return true
		}
		for _, e := range edits {
			if base := e[strings.LastIndex(e, "/")+1:]; strings.HasSuffix(c, base) {
				return true
			}
		}
	}
	return false
}
