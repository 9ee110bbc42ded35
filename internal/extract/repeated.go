package extract

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/textcase"
	"github.com/devlearn/devlearn/internal/textkey"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A repeated request is an instruction the person gives again in another
// session: a workflow worth a command. One session cannot tell, so the
// work is split: a session's requests (its instructions, normalised) are
// kept by the caller, and RepeatedRequests turns those seen in enough
// distinct sessions into observations, one per session, so that the log
// counts the sessions as its sources.
//
// An instruction is what the agent then carried out (it ran or changed
// something), in at least two words; an answer ("yes", "continue", "ok go
// ahead", "好的，继续"), a name, a sum or a report of how things stand
// ("it fails now", "still not working") is not one, however often it
// comes back, and neither is the same line twice in one session.

// Request is one instruction of the person.
type Request struct {
	Key        string   `json:"key"`  // normalised: the identity across sessions
	Text       string   `json:"text"` // the instruction without what only opened or closed it
	Steps      []string `json:"steps,omitempty"`
	SessionID  string   `json:"session_id"`
	RecordUUID string   `json:"record_uuid"`
	Timestamp  string   `json:"timestamp,omitempty"`
	// calls are the agent's tool calls for it: what a routine of one
	// session does each time (sameEachTime).
	calls []transcript.ToolCall
}

// maxRequestWords bounds an instruction: longer, it is a task's
// description rather than a routine asked for again.
const maxRequestWords = 60

// requestsOf returns the session's instructions, each key once (the first
// time), in their general form (identity.GeneralizeRequest): the same
// routine asked for over another task, on another branch or in another
// worktree is one request, and counts once in a session.
func requestsOf(instructions []Request) []Request {
	var out []Request
	seen := map[string]bool{}
	for _, r := range instructions {
		if !seen[r.Key] {
			seen[r.Key] = true
			out = append(out, r)
		}
	}
	return out
}

// instructions are the session's instructions the agent carried out,
// every time they were given, in their general form.
func (c *conversation) instructions(in identity.Instance) []Request {
	var out []Request
	for _, t := range c.turns {
		if t.sig.Rejection || t.corrects {
			continue
		}
		text := identity.GeneralizeRequest(request(t.sig.Own), in)
		k := textkey.Normalize(text)
		if k == "" {
			continue
		}
		st := steps(t.next)
		if len(st) == 0 {
			// A survey asked for again ("look over the file structure")
			// is a routine too: what the agent read is what it did.
			st = looked(t.next)
		}
		if len(st) == 0 {
			continue // nothing was done: not an instruction carried out
		}
		out = append(out, Request{
			Key: k, Text: text, Steps: st,
			SessionID: t.sig.SessionID, RecordUUID: t.sig.UUID, Timestamp: t.sig.Timestamp,
			calls: t.next,
		})
	}
	return out
}

// ranKeys are the step keys of the commands among calls ("git commit",
// "npm run build"), each once; a cd or an echo is none.
func ranKeys(calls []transcript.ToolCall) []string {
	var out []string
	for _, c := range calls {
		if c.Command == "" {
			continue
		}
		for _, st := range stepsOf(c.Command) {
			if st.key != "" && !slices.Contains(out, st.key) {
				out = append(out, st.key)
			}
		}
	}
	return out
}

// routines are the instructions given again and again in one session
// (minTimesInSession times or more, in one wording or several): "gitに保存
// して" at each checkpoint, "push直前までやって" after each change. A
// routine is known from the session it is first asked for in, not only
// once a second session asks for it; it is the same observation the
// sessions after will sight (its pattern is its first wording).
func routines(instructions []Request) []Observation {
	var out []Observation
	for _, g := range groupRequests(instructions) {
		if len(g) < minTimesInSession || !sameEachTime(g) {
			continue
		}
		first := g[0]
		var evidence []string
		for _, r := range g {
			if q := quote("user", r.Text); len(evidence) < observe.MaxEvidence && !slices.Contains(evidence, q) {
				evidence = append(evidence, q)
			}
		}
		details := "request: " + field(first.Text) + "; times in the session: " + strconv.Itoa(len(g))
		if len(first.Steps) > 0 {
			details += "; steps: " + field(strings.Join(first.Steps, ", "))
		}
		out = append(out, Observation{
			Type:       Workflow,
			Pattern:    clip(finish(first.Text), maxPattern),
			Details:    details,
			Evidence:   evidence,
			QualityOK:  true,
			SessionID:  first.SessionID,
			RecordUUID: first.RecordUUID,
			Timestamp:  first.Timestamp,
			Extractor:  ExtractorRepeatedRequest,
			Class:      ClassRepeated,
		})
	}
	return out
}

// minTimesInSession is how often one session gives an instruction for it
// to be a routine of its own.
const minTimesInSession = 3

// sameEachTime reports an instruction the agent carried out the same way
// each time it was given: one command (a step key) ran for
// minTimesInSession of its times. "gitに保存して" is a git commit each time;
// "fix it" or "continue with the next task", said as often, is a
// different change each time, which is how work goes on, not a routine.
func sameEachTime(g []Request) bool {
	times := map[string]int{}
	for _, r := range g {
		for _, k := range ranKeys(r.calls) {
			times[k]++
			if times[k] >= minTimesInSession {
				return true
			}
		}
	}
	return false
}

// request is the instruction in a message, without what only opens or
// closes it ("please", "can you", "now", "por favor"), or "" when the
// message is not one.
func request(own string) string {
	own = strings.Join(strings.Fields(own), " ")
	if own == "" {
		return ""
	}
	x := lang.Fold(own)
	low := x.Low()
	if onlyAnswers(x, 0, len(low)) || !strings.ContainsFunc(low, func(r rune) bool { return wordRuneOrCJK(r) && !('0' <= r && r <= '9') }) {
		return ""
	}
	i, j := 0, len(low)
	for changed := true; changed; {
		changed = false
		i = skipSpacePunct(low, i, j)
		for j > i {
			r := low[j-1]
			if !strings.ContainsRune(" ,.!?;:", rune(r)) {
				break
			}
			j--
		}
		for _, tb := range lang.Tables() {
			for _, k := range []string{lang.Filler, lang.Answer} {
				for _, m := range tb.Find(x, k, i, j) {
					if m.Start == i && (k == lang.Filler || punctAfter(low, m.End, j)) {
						i, changed = m.End, true
					}
					if m.End == j && m.Start > i {
						j, changed = m.Start, true
					}
				}
			}
		}
	}
	if i >= j {
		return ""
	}
	text := strings.TrimSpace(own[x.Offset(i):x.Offset(j)])
	if n := words(text); n < 2 || n > maxRequestWords || choice(text) {
		return ""
	}
	// How things stand ("it fails now:", then what it printed): said
	// again in another session, it is another failure, not a routine.
	// Read last, on what is left: most messages are no request already.
	if hasKind(x, lang.Report, i, j) {
		return ""
	}
	return text
}

// choice reports the answer to a menu: "Option A", "opción 2", "方案 B".
func choice(text string) bool {
	f := strings.Fields(text)
	if len(f) == 0 || len(f) > 3 {
		return false
	}
	last := strings.Trim(f[len(f)-1], ".)")
	return utf8.RuneCountInString(last) == 1 || strings.IndexFunc(last, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// steps describes what the agent did for a request: the tool calls that
// changed or ran something, without the reads and searches.
func steps(calls []transcript.ToolCall) []string {
	return describeCalls(calls, func(t transcript.ToolCall) string {
		switch {
		case t.Command != "" && !exploring(t.Command):
			return t.Name + ": " + firstWords(t.Command, 8)
		case transcript.EditTool(t.Name) && len(t.Paths) > 0:
			return t.Name + " " + relative(t.Paths[0], t.Cwd)
		}
		return ""
	})
}

// looked describes the reads and searches the agent made for a request
// that changed nothing: the folders and files it looked at, or the
// sub-agent it sent to look.
func looked(calls []transcript.ToolCall) []string {
	return describeCalls(calls, func(t transcript.ToolCall) string {
		switch {
		case t.Command != "" && exploring(t.Command):
			return t.Name + ": " + firstWords(t.Command, 8)
		case len(t.Paths) > 0 && !transcript.EditTool(t.Name):
			return t.Name + " " + relative(t.Paths[0], t.Cwd)
		case t.Name == "Task" || t.Name == "Agent":
			return t.Name // a sub-agent sent to look
		}
		return ""
	})
}

// maxSteps bounds the calls a request's details list.
const maxSteps = 8

// describeCalls is what describe says of each call, each once, the calls
// it says nothing of left out, at most maxSteps.
func describeCalls(calls []transcript.ToolCall, describe func(transcript.ToolCall) string) []string {
	var out []string
	for _, t := range calls {
		if s := describe(t); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
			if len(out) == maxSteps {
				break
			}
		}
	}
	return out
}

// RepeatedRequests turns requests made in at least Options.MinSessions
// distinct sessions into workflow observations, one per session. The
// pattern is the instruction as first written; its normalised form is the
// key, so every session's sighting has the same id.
func RepeatedRequests(reqs []Request, opt Options) []Observation {
	var out []Observation
	for _, items := range groupRequests(reqs) {
		k := items[0].Key
		g := firstPerSession(items, func(r Request) string { return r.SessionID })
		if len(g) < opt.minSessions() {
			continue
		}
		pattern := clip(finish(g[0].Text), maxPattern)
		if textkey.Normalize(pattern) != k && textkey.Normalize(g[0].Text) != k {
			pattern = textcase.UpperFirst(k) // a request kept by an older devlearn: its key is all there is
		}
		var evidence []string
		for _, r := range g {
			if len(evidence) < observe.MaxEvidence {
				evidence = append(evidence, quote("user", r.Text))
			}
		}
		for _, r := range g {
			details := "request: " + field(r.Text) + "; sessions: " + strconv.Itoa(len(g))
			if len(r.Steps) > 0 {
				details += "; steps: " + field(strings.Join(r.Steps, ", "))
			}
			out = append(out, Observation{
				Type:       Workflow,
				Pattern:    pattern,
				Details:    details,
				Evidence:   evidence,
				QualityOK:  len(r.Steps) > 0,
				SessionID:  r.SessionID,
				RecordUUID: r.RecordUUID,
				Timestamp:  r.Timestamp,
				Extractor:  ExtractorRepeatedRequest,
				Class:      ClassRepeated,
			})
		}
	}
	return out
}

// groupRequests groups requests by what they say: the same words, or the
// same instruction worded again (identity.SameRequest) as any wording of the
// group. A wording the same as wordings of two groups joins them: "파악
// 좀 해" is "파악 좀 해볼래" and "파악해봐" said again, so those two are one
// routine too. Each group is in the order its requests were made, under
// the key of its first.
func groupRequests(reqs []Request) [][]Request {
	type group struct {
		keys  []identity.Key
		items []int // indices in reqs
	}
	var groups []*group
	of := map[string]*group{} // a wording's key -> its group
	for i, r := range reqs {
		if g, ok := of[r.Key]; ok {
			g.items = append(g.items, i)
			continue
		}
		rk := identity.KeyOf(r.Text)
		var into *group
		kept := groups[:0]
		for _, g := range groups {
			if !slices.ContainsFunc(g.keys, func(k identity.Key) bool { return identity.SameRequest(rk, k) }) {
				kept = append(kept, g)
				continue
			}
			if into == nil {
				into = g
				kept = append(kept, g)
				continue
			}
			into.keys = append(into.keys, g.keys...)
			into.items = append(into.items, g.items...)
			for k, h := range of {
				if h == g {
					of[k] = into
				}
			}
		}
		groups = kept
		if into == nil {
			into = &group{}
			groups = append(groups, into)
		}
		into.keys = append(into.keys, rk)
		into.items = append(into.items, i)
		of[r.Key] = into
	}
	out := make([][]Request, len(groups))
	for gi, gr := range groups {
		slices.Sort(gr.items) // in the order they were made, once groups joined
		for _, i := range gr.items {
			out[gi] = append(out[gi], reqs[i])
		}
	}
	return out
}

// firstPerSession keeps each session's first item.
func firstPerSession[T any](items []T, session func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, it := range items {
		if s := session(it); !seen[s] {
			seen[s] = true
			out = append(out, it)
		}
	}
	return out
}
