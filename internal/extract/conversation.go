package extract

import (
	"path"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/repopath"

	"github.com/devlearn/devlearn/internal/transcript"
)

// conversation lays a session out as the person's turns, each with what
// stands around it: what the agent said and did before (what the turn
// answers) and after (how the agent took it).
type conversation struct {
	ch    *transcript.Channels
	turns []turn
}

// turn is one message of the person, in context.
type turn struct {
	// root is the repository (Options.Root): a path the person names is
	// stored relative to it.
	root string
	// folders are the folders the session worked in (identity.Instance):
	// a lesson that names one names where its work happens, not what
	// the lesson is about.
	folders []string
	sig     *transcript.UserSignal
	// before is the agent's text the turn answers; after, the agent's
	// reply to it.
	before, after string
	// acted are the agent's tool calls since the person's previous turn;
	// next, those until their next one (main conversation only).
	acted, next []transcript.ToolCall
	// confirmed are the calls after the person's next turn when that turn
	// only said yes to the agent's asking before it acted ("y"): what the
	// agent did for this turn, once allowed to.
	confirmed []transcript.ToolCall
	// refused is the tool call the person refused, for a turn that is the
	// reason they gave.
	refused *transcript.ToolCall
	// corrects: the turn held a lesson; it is no request to repeat.
	corrects bool
	// first: the session's first message of the person.
	first bool
}

func newConversation(ch *transcript.Channels) *conversation {
	c := &conversation{ch: ch}
	var tools []transcript.ToolCall
	for _, t := range ch.Tools {
		if !t.Sidechain {
			tools = append(tools, t)
		}
	}
	before := map[string]string{}
	for _, p := range ch.DialogPairs {
		if p.Reply != nil {
			before[p.Reply.UUID] = p.Assistant
		}
	}
	for i := range ch.UserSignals {
		s := &ch.UserSignals[i]
		t := turn{sig: s, before: before[s.UUID], first: i == 0}
		prev, next := 0, 0
		if i > 0 {
			prev = ch.UserSignals[i-1].Line
		}
		if i+1 < len(ch.UserSignals) {
			next = ch.UserSignals[i+1].Line
		}
		for j := range tools {
			tc := tools[j]
			switch {
			case tc.Line > prev && tc.Line < s.Line || s.Rejection && tc.Line == s.Line:
				t.acted = append(t.acted, tc)
			case tc.Line > s.Line && (next <= 0 || tc.Line < next):
				t.next = append(t.next, tc)
			}
			if s.Rejection && tc.Rejected && tc.ResultUUID == s.UUID {
				t.refused = &tools[j]
			}
		}
		// The agent's reply: the first turn of the agent after this one.
		for _, p := range ch.DialogPairs {
			if p.FromLine > s.Line && (next <= 0 || p.FromLine < next) {
				t.after = p.Assistant
				break
			}
		}
		c.turns = append(c.turns, t)
	}
	for i := 1; i < len(c.turns); i++ {
		if len(c.turns[i-1].next) == 0 && confirms(c.turns[i].sig.Own) {
			c.turns[i-1].confirmed = c.turns[i].next
		}
	}
	return c
}

// confirms reports a turn that only says yes ("y", "ok", "はい").
func confirms(own string) bool {
	if len(own) > maxConfirmBytes {
		return false // most turns: no need to read them
	}
	x := lang.Fold(own)
	low := x.Low()
	return words(low) > 0 && words(low) <= 3 && onlyAnswers(x, 0, len(low))
}

// maxConfirmBytes: a yes is a few words, in any script.
const maxConfirmBytes = 64

// lastEdit is the file the agent last changed among calls, relative to
// the session's folder, or "".
func lastEdit(calls []transcript.ToolCall) string {
	for i := len(calls) - 1; i >= 0; i-- {
		if t := calls[i]; transcript.EditTool(t.Name) && len(t.Paths) > 0 {
			return relative(t.Paths[0], t.Cwd)
		}
	}
	return ""
}

// lastAction is the agent's last call that changed or ran something: the
// object of a bare "no".
func lastAction(calls []transcript.ToolCall) *transcript.ToolCall {
	for i := len(calls) - 1; i >= 0; i-- {
		if t := calls[i]; t.Command != "" && !exploring(t.Command) || transcript.EditTool(t.Name) && len(t.Paths) > 0 {
			return &calls[i]
		}
	}
	return nil
}

// toolsBefore names the tools the agent used before a turn, as the trigger
// of a procedural lesson ("after Edit store.go, Bash: go test").
func toolsBefore(calls []transcript.ToolCall) string {
	var names []string
	seen := map[string]bool{}
	for _, t := range calls {
		n := t.Name
		if t.Command != "" {
			n += ": " + firstWords(t.Command, 3)
		} else if len(t.Paths) > 0 {
			n += " " + path.Base(t.Paths[0])
		}
		if n != "" && !seen[n] && len(names) < 4 {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "after " + strings.Join(names, ", ")
}

func firstWords(s string, n int) string {
	f := strings.Fields(strings.SplitN(s, "\n", 2)[0])
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

// relative shows p as lessons store it (repopath.Stored): relative to the
// session's folder when it is inside, else by its last two elements, so
// that home folders stay out of what is stored; with forward slashes
// whatever the system, so that a lesson learned on Windows fires on
// Linux. Session has already re-based the tool calls' paths on the
// repository (rooted).
func relative(p, cwd string) string { return repopath.Stored("", cwd, p) }

// rooted is ch with its tool calls' paths stored relative to the
// repository root (repopath.Stored), so that a lesson learned in one
// clone, or in a sub-folder, names the file as every clone finds it.
// ch itself is left as it was.
func rooted(ch *transcript.Channels, root string) *transcript.Channels {
	if root == "" {
		return ch
	}
	c := *ch
	c.Tools = slices.Clone(ch.Tools)
	for i := range c.Tools {
		t := &c.Tools[i]
		if len(t.Paths) == 0 {
			continue
		}
		t.Paths = slices.Clone(t.Paths)
		for j, p := range t.Paths {
			t.Paths[j] = repopath.Stored(root, t.Cwd, p)
		}
	}
	return &c
}
