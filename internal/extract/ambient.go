package extract

import (
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/transcript"
)

// withoutAmbient is the session with the line its shell printed before
// whatever ran taken off the top of the outputs it opened, where they say
// more: a profile script that fails as the shell starts ("/opt/homebrew/…
// /shellenv.sh: line 18: /bin/ps: Operation not permitted", conda's
// "conda.sh: line 48: syntax error") opens the error of `sed`, `rg` and
// `pytest` alike, and read as their error it made a lesson of whatever
// the agent ran next. It is known by that: the first line printed in the
// errors of several programs, said by none of them. Only the first line:
// an error several programs meet in turn ("ModuleNotFoundError: No module
// named 'requests'" from `python app.py`, `make run` and `./manage.py`)
// comes after what each printed first, and is theirs. An output that is
// only that line keeps it: there it is all there is to go by.
func withoutAmbient(ch *transcript.Channels) *transcript.Channels {
	lines := ambientLines(ch.Tools)
	if len(lines) == 0 {
		return ch
	}
	tools := slices.Clone(ch.Tools)
	for i := range tools {
		t := &tools[i]
		if t.Command == "" {
			continue
		}
		t.Error = withoutLead(t.Error, t.Command, lines)
		t.Hidden = withoutLead(t.Hidden, t.Command, lines)
	}
	c := *ch
	c.Tools = tools
	return &c
}

// withoutLead is the output of cmd without its first printed line when
// that line is one of lines and what follows it is the command's own
// message (`sed: x: No such file or directory`, `zsh:1: command not
// found: pytest`): the shell's line opened the program's error. What
// follows it otherwise may be the line's own context, and it stays.
func withoutLead(out, cmd string, lines map[string]bool) string {
	l, at := leadLine(out)
	if at < 0 || !lines[l] {
		return out
	}
	all := strings.Split(out, "\n")
	rest := strings.Join(slices.Delete(all, at, at+1), "\n")
	if next, k := leadLine(rest); k < 0 || !saidByProgram(next, cmd) {
		return out
	}
	return rest
}

// leadLine is the first line a command printed (printedFirstAt), and its
// index among the output's lines; -1 when it printed none, or when that
// line is indented: such a line is no shell's, it continues what came
// before.
func leadLine(out string) (string, int) {
	l, at, indented := printedFirstAt(out)
	if indented {
		return "", -1
	}
	return l, at
}

// minAmbientPrograms is in the errors of how many programs a line must
// open to be the shell's: two could be one program's message quoted by
// another (a build run by a script).
const minAmbientPrograms = 3

// ambientLines are the lines that open the errors of several programs'
// failures, and that none of those programs said about itself.
func ambientLines(tools []transcript.ToolCall) map[string]bool {
	var progs map[string]map[string]bool // line -> the programs whose errors it opens
	said := map[string]bool{}            // lines a program of the command said
	for _, t := range tools {
		if !t.Failed() || t.Command == "" {
			continue
		}
		l, at := leadLine(t.Error)
		if at < 0 || len(l) < 15 || strings.HasPrefix(strings.ToLower(l), "command timed out") {
			continue // too short to tell, or how the runner reports what happened to the call
		}
		prog := parseStep(t.Command, "").prog
		if prog == "" {
			continue
		}
		if saidByProgram(l, t.Command) {
			said[l] = true
		}
		if progs == nil {
			progs = map[string]map[string]bool{}
		}
		if progs[l] == nil {
			progs[l] = map[string]bool{}
		}
		progs[l][prog] = true
	}
	var out map[string]bool
	for l, ps := range progs {
		if len(ps) >= minAmbientPrograms && !said[l] {
			if out == nil {
				out = map[string]bool{}
			}
			out[l] = true
		}
	}
	return out
}
