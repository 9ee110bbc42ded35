// A builder makes the channels devlearn's extractors read
// (transcript.Channels: the person's messages, the dialog pairs, the tool
// calls with their results) from another agent's session log, so that
// every lesson class found in a Claude Code transcript is found in a
// Codex rollout or a Gemini CLI chat too. Each agent's reader turns its
// lines into the calls below, in order.

package sessions

import (
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// builder collects one session.
type builder struct {
	ch      transcript.Channels
	opt     transcript.Options
	file    string
	turn    []string
	said    int // where in turn the agent's text since its last call starts (ToolCall.Said)
	from    int // the first line of the agent's current turn, 0 before it
	last    transcript.Meta
	pending map[string]int // tool call id → index in ch.Tools
	// answers: the read redacts, so a password the person types in answer
	// to the agent is redacted too (redact.Answer).
	answers bool
	// claude: the log is Claude Code's own, shown as text (an export):
	// its errors about how a tool was used are told apart as its
	// transcripts' are (transcript.ProtocolError).
	claude bool
}

// newBuilder starts a session read from file (named in problems).
func newBuilder(file string, opt transcript.Options) *builder {
	if opt.MaxText <= 0 {
		opt.MaxText = transcript.DefaultMaxText
	}
	if opt.MaxError <= 0 {
		opt.MaxError = transcript.DefaultMaxError
	}
	if opt.Redact == nil {
		opt.Redact = redact.Text
	}
	return &builder{file: file, opt: opt, pending: map[string]int{}, answers: redact.Redacts(opt.Redact)}
}

// session sets the session's id (the first one given wins).
func (b *builder) session(id string) {
	if b.ch.SessionID == "" {
		b.ch.SessionID = id
		b.ch.Stats.SessionID = id
	}
}

// branch notes a git branch the session ran on.
func (b *builder) branch(name string) { b.ch.Stats.AddBranch(name) }

// sessionID is the session's id so far.
func (b *builder) sessionID() string { return b.ch.SessionID }

// line counts a line read.
func (b *builder) line(n int) { b.ch.Stats.Lines++ }

// user is something the person wrote: it closes the assistant's turn as
// its reply.
func (b *builder) user(m transcript.Meta, text, cwd string) {
	if b.claude {
		// What Claude Code writes in the person's place (command output,
		// a task's notification, a compaction's summary), shown as text.
		text, _ = transcript.PersonText(text)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	b.ch.Stats.User++
	text = b.clean(text)
	if b.answers && len(b.turn) > 0 && redact.HoldsPasswordShaped(text) {
		text = redact.Answer(strings.Join(b.turn, "\n\n"), text) // what the agent asked says what the reply holds
	}
	t := head(text, b.opt.MaxText)
	own := transcript.OwnAnswering(t, func() []byte { return []byte(strings.Join(b.turn, "\n\n")) })
	s := transcript.UserSignal{Meta: b.meta(m), Text: t, Own: own, Cwd: cwd}
	b.closeTurn(&s)
	b.ch.UserSignals = append(b.ch.UserSignals, s)
	b.ch.Stats.UserSignals++
}

// assistant is text the agent showed.
func (b *builder) assistant(m transcript.Meta, text string) {
	b.ch.Stats.Assistant++
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	b.startTurn(m.Line)
	b.turn = append(b.turn, b.clean(text))
	b.last = b.meta(m)
}

// tool is a tool call; its result comes with result, by id.
func (b *builder) tool(m transcript.Meta, id, name, command string, paths []string, cwd string) {
	b.ch.Stats.ToolUses++
	b.startTurn(m.Line)
	for i, p := range paths {
		paths[i] = b.clean(p)
	}
	tc := transcript.ToolCall{Meta: b.meta(m), ID: id, Name: name, Command: head(b.clean(command), b.opt.MaxError), Paths: paths, Cwd: cwd}
	if b.said < len(b.turn) {
		tc.Said = head(strings.Join(b.turn[b.said:], "\n\n"), transcript.MaxSaid)
	}
	b.said = len(b.turn)
	if id != "" {
		b.pending[id] = len(b.ch.Tools)
	}
	b.ch.Tools = append(b.ch.Tools, tc)
}

// wrote records what the pending tool call id added to an agent's
// instructions or memory (transcript.ToolCall.Wrote).
func (b *builder) wrote(id string, w transcript.Write) {
	if i, ok := b.pending[id]; ok {
		b.ch.Tools[i].Wrote = w.Kept(b.clean)
	}
}

// escalated marks the pending tool call id as one that asked to run
// outside the agent's sandbox.
func (b *builder) escalated(id string) {
	if i, ok := b.pending[id]; ok {
		b.ch.Tools[i].Unsandboxed = transcript.EscalatedPermissions
	}
}

// identify gives the pending call key the id its agent gave it where
// only the result names it (Gemini CLI's checkpoints before call ids:
// the response names the call).
func (b *builder) identify(key, id string) {
	if i, ok := b.pending[key]; ok && id != "" {
		b.ch.Tools[i].ID = id
	}
}

// result is a tool call's outcome; errText, what it printed, is kept
// for a failure, and for a pass a filter may have hidden one from.
func (b *builder) result(m transcript.Meta, id string, failed bool, errText string) {
	b.outcome(m, id, failed, false, errText)
}

// printed is the outcome of a call whose log records no status, only
// what it printed: a failure shows in the text, which the extractors
// read as they read a status a filter hid (transcript.ToolCall.Hidden).
func (b *builder) printed(m transcript.Meta, id string, text string) {
	b.outcome(m, id, false, true, text)
}

func (b *builder) outcome(m transcript.Meta, id string, failed, statusless bool, text string) {
	i, ok := b.pending[id]
	if !ok {
		return
	}
	delete(b.pending, id)
	tc := &b.ch.Tools[i]
	tc.HasResult, tc.ResultLine, tc.ResultUUID = true, m.Line, m.UUID
	switch {
	case failed:
		tc.IsError = true
		tc.Error = head(strings.TrimSpace(b.clean(text)), b.opt.MaxError)
		tc.Protocol = b.claude && (transcript.ProtocolError(text) || strings.HasPrefix(tc.Error, "Blocked: "))
		b.ch.Stats.ToolErrors++
	case text != "" && (statusless || transcript.FilteredLast(tc.Command)):
		// The log records no status, or a filter last hid the command's:
		// what it printed may say it failed.
		tc.Hidden = head(strings.TrimSpace(b.clean(text)), b.opt.MaxError)
	}
}

// problem is a line that could not be read.
func (b *builder) problem(p jsonl.Problem) {
	b.ch.Problems = append(b.ch.Problems, transcript.Problem{File: b.file, Problem: p})
}

// done closes the last turn and returns the channels.
func (b *builder) done() *transcript.Channels {
	b.closeTurn(nil)
	return &b.ch
}

// clean is text as devlearn may keep it: valid UTF-8, secrets redacted
// before it is cut to length (as transcript.Walk does), so that no later
// stage can forget to.
func (b *builder) clean(s string) string { return b.opt.Redact(strings.ToValidUTF8(s, "\uFFFD")) }

func (b *builder) meta(m transcript.Meta) transcript.Meta {
	if m.SessionID == "" {
		m.SessionID = b.ch.SessionID
	}
	return m
}

// startTurn notes the first line of the agent's turn: its text and its
// tool calls are from there on.
func (b *builder) startTurn(line int) {
	if b.from == 0 {
		b.from = line
	}
}

func (b *builder) closeTurn(reply *transcript.UserSignal) {
	from := b.from
	b.from = 0
	if len(b.turn) == 0 {
		return
	}
	p := transcript.DialogPair{
		Assistant:     tail(strings.Join(b.turn, "\n\n"), b.opt.MaxText),
		AssistantUUID: b.last.UUID,
		SessionID:     b.ch.SessionID,
		Timestamp:     b.last.Timestamp,
		FromLine:      from,
	}
	if reply != nil {
		r := *reply
		p.Reply = &r
	}
	b.ch.DialogPairs = append(b.ch.DialogPairs, p)
	b.ch.Stats.DialogPairs++
	b.turn, b.said = b.turn[:0], 0
}

// head keeps the start of s within max bytes, on a rune boundary.
func head(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[:max]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// tail keeps the end of s within max bytes, on a rune boundary.
func tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	for !utf8.ValidString(s) {
		s = s[1:]
	}
	return s
}
