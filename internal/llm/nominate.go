package llm

import (
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Candidate is a turn the offline stage nominates for the model, with its
// context: what the person said, what the agent had just done (the end of
// its turn and its tool calls) and how it answered; or a command that
// failed and the steps that followed it. Nominating is meant to miss
// nothing a reader would call a lesson (high recall); the model then
// states the lesson and its kind, or passes.
type Candidate struct {
	// Why names what made it a candidate: remember, correction,
	// acknowledged, interrupted, rejected, failure; or Said, a turn of the
	// person no rule flagged.
	Why    []string `json:"why"`
	Before string   `json:"agent_before,omitempty"`
	Tools  []string `json:"agent_tools,omitempty"`
	Person string   `json:"person,omitempty"`
	After  string   `json:"agent_after,omitempty"`
	Failed string   `json:"failed,omitempty"`
	Error  string   `json:"error,omitempty"`
	Then   []string `json:"then,omitempty"`

	Timestamp string `json:"-"`
	// UUID is the record of the person's turn (none for a failure).
	UUID string `json:"-"`
}

// Said is the why of a turn of the person no rule flagged. On genuine
// sessions, most lessons the flagged turns missed were said as a task is
// asked for ("make the dropdown follow dark mode too"), in words no table
// can tell from a one-off request; the model can. Such turns fill the
// places the flagged ones leave, and are sent with less of the agent's
// reply.
const Said = "said"

// minSaid is the fewest characters of a turn sent unflagged: below it is
// an answer ("yes", "ok", "2").
const minSaid = 6

// Bounds of nomination.
const (
	// MaxCandidates is how many candidates of one session are sent, the
	// latest: a session that flags more is mostly arguing, and its last
	// words are the ones that stand.
	MaxCandidates = 30
	maxTools      = 8   // tool calls shown before a turn
	maxThen       = 4   // steps shown after a failure
	maxError      = 600 // bytes of a failure's error
)

// Nominate lists the candidates of one session, in order; none is an
// empty list, not nil (a request with no candidate asks nothing).
func Nominate(ch *transcript.Channels) []Candidate {
	out := []Candidate{}
	var said []Candidate
	pairOf := map[string]int{} // reply uuid -> pair index
	for i, p := range ch.DialogPairs {
		if p.Reply != nil {
			pairOf[p.Reply.UUID] = i
		}
	}
	for _, u := range ch.UserSignals {
		text := strings.TrimSpace(u.Text)
		if text == "" {
			continue
		}
		var why []string
		if len(keep.Find(u.Own)) > 0 {
			why = append(why, "remember")
		}
		if lang.MayBeCorrection(text) {
			why = append(why, "correction")
		}
		if u.AfterInterrupt {
			why = append(why, "interrupted")
		}
		if u.Rejection {
			why = append(why, "rejected")
		}
		c := Candidate{Person: text, Timestamp: u.Timestamp, UUID: u.UUID}
		before, after := -1, -1
		if i, ok := pairOf[u.UUID]; ok {
			before, after = i, i+1
		} else {
			for i, p := range ch.DialogPairs {
				if p.FromLine > u.Line {
					after = i
					break
				}
			}
		}
		if after >= 0 && after < len(ch.DialogPairs) {
			c.After = ch.DialogPairs[after].Assistant
			if lang.Acknowledges(c.After) {
				why = append(why, "acknowledged")
			}
		}
		if len(why) == 0 {
			if utf8.RuneCountInString(text) >= minSaid {
				c.Why = []string{Said}
				said = append(said, c)
			}
			continue
		}
		if before >= 0 {
			p := ch.DialogPairs[before]
			c.Before = p.Assistant
			c.Tools = toolsBetween(ch.Tools, p.FromLine, p.Reply.Line)
		}
		c.Why = why
		out = append(out, c)
	}
	out = append(out, failures(ch.Tools)...)
	if room := MaxCandidates - len(out); room > 0 {
		out = append(out, said[max(0, len(said)-room):]...)
	}
	sortByTime(out)
	if len(out) > MaxCandidates {
		out = out[len(out)-MaxCandidates:]
	}
	return out
}

// Flagged reports a candidate a rule picked, not only Said.
func (c Candidate) Flagged() bool { return len(c.Why) != 1 || c.Why[0] != Said }

// toolsBetween names the tool calls of an agent turn: "Bash: git push",
// "Edit: src/app.go".
func toolsBetween(tools []transcript.ToolCall, from, to int) []string {
	var out []string
	for _, t := range tools {
		if t.Line < from || t.Line >= to || t.Sidechain {
			continue
		}
		out = append(out, toolName(t))
	}
	if len(out) > maxTools {
		out = out[len(out)-maxTools:]
	}
	return out
}

func toolName(t transcript.ToolCall) string {
	switch {
	case t.Command != "":
		return t.Name + ": " + t.Command
	case len(t.Paths) > 0:
		return t.Name + ": " + t.Paths[0]
	}
	return t.Name
}

// failures are the commands that failed and what the agent did next, up to
// the first command of the same program that passed: the lesson of a
// failure is its fix. Claude Code's own tool errors (an edit whose text was
// not found, a file not read first) are about the tool, not the project:
// only shell commands are taken.
func failures(tools []transcript.ToolCall) []Candidate {
	var out []Candidate
	for i, t := range tools {
		if t.Name != "Bash" || !t.Failed() || t.Sidechain || t.Command == "" {
			continue
		}
		prog := program(t.Command)
		c := Candidate{Why: []string{"failure"}, Failed: t.Command, Error: clipEnd(t.Error, maxError), Timestamp: t.Timestamp}
		fixed := false
		for _, n := range tools[i+1:] {
			if n.Sidechain {
				continue
			}
			c.Then = append(c.Then, toolName(n))
			if n.Name == "Bash" && n.HasResult && !n.Failed() && program(n.Command) == prog {
				fixed = true
				break
			}
			if len(c.Then) == maxThen {
				break
			}
		}
		if fixed {
			out = append(out, c)
		}
	}
	return out
}

// program is a command's first word past environment assignments.
func program(cmd string) string {
	for _, w := range strings.Fields(cmd) {
		if strings.Contains(w, "=") || w == "sudo" {
			continue
		}
		return w
	}
	return ""
}

func sortByTime(cs []Candidate) {
	// Insertion sort: a few dozen items, already nearly in order.
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Timestamp < cs[j-1].Timestamp; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}
