package extract

import (
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/transcript"
)

// withoutAmbient is the session with the lines its shell printed whatever
// ran taken out of the errors they stood in, where the error says more: a
// profile script that fails as the shell starts ("/opt/homebrew/…
// /shellenv.sh: line 18: /bin/ps: Operation not permitted", conda's
// "conda.sh: line 48: syntax error") opens the error of `sed`, `rg` and
// `pytest` alike, and read as their error it made a lesson of whatever
// the agent ran next. It is known by that: the same line in the errors
// of several programs, said by none of them. An error that is only that
// line keeps it: there it is all there is to go by.
func withoutAmbient(ch *transcript.Channels) *transcript.Channels {
	lines := ambientLines(ch.Tools)
	if len(lines) == 0 {
		return ch
	}
	tools := slices.Clone(ch.Tools)
	for i := range tools {
		t := &tools[i]
		if !t.Failed() || t.Command == "" {
			continue
		}
		var kept []string
		cut := false
		for _, l := range strings.Split(t.Error, "\n") {
			if lines[strings.TrimSpace(l)] {
				cut = true
				continue
			}
			kept = append(kept, l)
		}
		if rest := strings.Join(kept, "\n"); cut && errorLine(rest) != "" {
			t.Error = rest
		}
	}
	c := *ch
	c.Tools = tools
	return &c
}

// minAmbientPrograms is in the errors of how many programs a line must
// stand to be the shell's: two could be one program's message quoted by
// another (a build run by a script).
const minAmbientPrograms = 3

// ambientLines are the lines that stand in the errors of several
// programs' failures and that none of those programs said about itself.
func ambientLines(tools []transcript.ToolCall) map[string]bool {
	progs := map[string]map[string]bool{} // line -> the programs whose errors hold it
	said := map[string]bool{}             // lines a program of the command said
	for _, t := range tools {
		if !t.Failed() || t.Command == "" {
			continue
		}
		prog := parseStep(t.Command, "").prog
		if prog == "" {
			continue
		}
		for _, l := range strings.Split(t.Error, "\n") {
			l = strings.TrimSpace(l)
			if low := strings.ToLower(l); len(l) < 15 || runnerReport(low) || strings.HasPrefix(low, "command timed out") {
				continue // how the runner reports the call, which says what happened to it
			}
			if saidByProgram(l, t.Command) {
				said[l] = true
			}
			if progs[l] == nil {
				progs[l] = map[string]bool{}
			}
			progs[l][prog] = true
		}
	}
	out := map[string]bool{}
	for l, ps := range progs {
		if len(ps) >= minAmbientPrograms && !said[l] {
			out[l] = true
		}
	}
	return out
}
