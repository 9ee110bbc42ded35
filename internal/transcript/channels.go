package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/textcut"
)

// Meta says where an item comes from: the record's uuid, session and time
// (which make extracted events idempotent) and its line in the file.
type Meta struct {
	UUID      string `json:"uuid"`
	SessionID string `json:"sessionId"`
	Timestamp string `json:"timestamp"`
	Line      int    `json:"line"`
}

// UserSignal is something the person wrote: the USER_SIGNALS channel.
type UserSignal struct {
	Meta
	// Text is the message as typed (Claude Code's wrappers, reminders and
	// hook output taken out), redacted.
	Text string `json:"text"`
	// Own is the person's own words: Text without what they pasted (code
	// blocks, logs, shell sessions, quoted text; see OwnWords). The
	// extractors read rules and lessons only here.
	Own string `json:"own,omitempty"`
	Cwd string `json:"cwd,omitempty"`
	// AfterInterrupt: the person stopped the agent just before writing this,
	// which is when corrections are most often made.
	AfterInterrupt bool `json:"afterInterrupt,omitempty"`
	// Rejection: the words came with the person refusing a tool call
	// ("The user provided the following reason for the rejection: ...").
	Rejection bool `json:"rejection,omitempty"`
}

// DialogPair is an assistant turn and the person's reply to it: the
// DIALOG_PAIRS channel. Every assistant turn of the main conversation
// appears in exactly one pair; Reply is nil when the session ended, or was
// compacted, before the person replied.
type DialogPair struct {
	// Assistant is the text the agent showed during the turn (thinking
	// excluded), blocks separated by blank lines; when longer than
	// Options.MaxText its end is kept, since that is what the reply answers.
	Assistant     string      `json:"assistant"`
	AssistantUUID string      `json:"assistantUuid"` // the turn's last assistant record
	SessionID     string      `json:"sessionId"`
	Timestamp     string      `json:"timestamp"` // of the turn's last assistant record
	FromLine      int         `json:"fromLine"`  // the turn's first record; its tool calls have FromLine <= Line < Reply.Line
	Reply         *UserSignal `json:"reply,omitempty"`
}

// ToolCall is one tool use and its result: the third channel, for the
// rule-based extractors. Meta is the tool_use record's.
type ToolCall struct {
	Meta
	ID        string   `json:"id,omitempty"`
	Name      string   `json:"name"`
	Paths     []string `json:"paths,omitempty"`   // file_path, notebook_path, path in the input, as written (usually absolute)
	Command   string   `json:"command,omitempty"` // a Bash command
	Cwd       string   `json:"cwd,omitempty"`
	Sidechain bool     `json:"sidechain,omitempty"` // run by a subagent
	AgentID   string   `json:"agentId,omitempty"`

	HasResult bool   `json:"hasResult"`
	IsError   bool   `json:"isError,omitempty"`
	Error     string `json:"error,omitempty"` // the error text (redacted), capped at MaxError
	// Hidden is what a shell command printed first (redacted, capped at
	// MaxError) when it passed only because a filter ends its pipeline
	// (`git status 2>&1 | head`): the filter's exit status is the
	// command's, so a failure before it shows only in the output. Also
	// what it printed when the session log records no status at all (an
	// export that shows only the terminal's text).
	Hidden   string `json:"hidden,omitempty"`
	Rejected bool   `json:"rejected,omitempty"` // the person refused the call: not a failure
	// Protocol: the error is Claude Code's own, about how the tool was
	// used (an Edit whose old string is not there, a write before a read,
	// a permission, plan mode, an interruption, a hook): nothing about the
	// project (see ProtocolError).
	Protocol bool `json:"protocol,omitempty"`
	// Unsandboxed is how the call asked to run outside the agent's
	// sandbox, which is what made some commands pass: EscalatedPermissions
	// (Codex), SandboxDisabled (Claude Code); "" when it did not.
	Unsandboxed string `json:"unsandboxed,omitempty"`
	// Wrote is what the call added to an agent's instructions or memory
	// (InstructionFile): an edit's new lines, a new file's text (redacted,
	// capped at MaxWrote); "" for every other file.
	Wrote string `json:"wrote,omitempty"`
	// Said is what the agent wrote between its last call and this one
	// (redacted, capped at MaxSaid): why it makes this call, often what
	// it made of the last one's failure ("The organization is
	// Randroids-Dojo, with an s"). Calls of the main conversation only.
	Said       string `json:"said,omitempty"`
	ResultUUID string `json:"resultUuid,omitempty"`
	ResultLine int    `json:"resultLine,omitempty"`

	seq int // order of the calls, for several on one line
}

// How a call asked to run outside the agent's sandbox, in its agent's
// words.
const (
	EscalatedPermissions = "escalated permissions"
	SandboxDisabled      = "dangerouslyDisableSandbox"
)

// Escalated reports a call that asked to run outside the agent's sandbox.
func (t *ToolCall) Escalated() bool { return t.Unsandboxed != "" }

// Failed reports a real failure: an error that is neither the person
// saying no nor Claude Code's tool protocol.
func (t *ToolCall) Failed() bool { return t.IsError && !t.Rejected && !t.Protocol }

// Summary is a summary record (a session title, with the uuid of the last
// message it covers).
type Summary struct {
	Text     string `json:"summary"`
	LeafUUID string `json:"leafUuid,omitempty"`
	Line     int    `json:"line"`
}

// Compaction marks a compact_boundary: history before it was replaced by a
// summary.
type Compaction struct {
	Meta
	Trigger string `json:"trigger,omitempty"` // auto or manual
}

// Recap is the summary Claude Code has the agent write of the
// conversation when it compacts it, sent in the person's place: the
// agent's own account of what went wrong and what the person told it,
// not the person's words.
type Recap struct {
	Meta
	Text string `json:"text"` // redacted, capped at MaxRecap (its start kept)
}

// MaxRecap caps a recap's text, its start kept: the sections come in
// their order, what went wrong after the request, the concepts and the
// files (the longest), and the person's messages (read as themselves)
// and the work left last. In the genuine sessions' recaps what went wrong
// starts 18 KiB in at the latest.
const MaxRecap = 32 << 10

// recapPrefix opens a recap in versions that do not mark it
// isCompactSummary.
const recapPrefix = "This session is being continued from a previous conversation"

// Stats counts what a walk saw.
type Stats struct {
	SessionID string `json:"sessionId"` // the first session id on any record
	Lines     int    `json:"lines"`     // non-blank lines
	Bytes     int64  `json:"bytes"`
	User      int    `json:"user"`
	Assistant int    `json:"assistant"`
	System    int    `json:"system"`
	Summaries int    `json:"summaries"`
	Other     int    `json:"other"` // records of types devlearn ignores
	// Untyped counts lines without a record type: not Claude Code's
	// records at all (another tool's file read as a transcript).
	Untyped     int `json:"untyped,omitempty"`
	Sidechain   int `json:"sidechain"`
	Meta        int `json:"meta"`
	Thinking    int `json:"thinking"`
	Images      int `json:"images"`
	ToolUses    int `json:"toolUses"`
	ToolErrors  int `json:"toolErrors"`
	Compactions int `json:"compactions"`
	UserSignals int `json:"userSignals"`
	DialogPairs int `json:"dialogPairs"`
	// Branches are the git branches the session ran on, as its records
	// say: instances a lesson is generalised over.
	Branches []string `json:"branches,omitempty"`
}

// maxBranches bounds the branches a session's Stats keep: a script that
// checks out branch after branch must not grow them with every record.
const maxBranches = 16

// AddBranch notes a branch the session ran on.
func (s *Stats) AddBranch(b string) {
	if b != "" && !slices.Contains(s.Branches, b) && len(s.Branches) < maxBranches {
		s.Branches = append(s.Branches, b)
	}
}

// Sink receives the channels' items as a walk finds them; nil functions
// are skipped. Tool calls arrive when their result does (or at the end of
// the file for calls without one), so not strictly in line order. An error
// from a sink function ends the walk and is returned.
type Sink struct {
	UserSignal func(UserSignal) error
	DialogPair func(DialogPair) error
	ToolCall   func(ToolCall) error
	Summary    func(Summary) error
	Compaction func(Compaction) error
	Recap      func(Recap) error
}

// Options tune a walk.
type Options struct {
	// MaxText caps each text kept (a person's message, an assistant turn),
	// in bytes. 0 means DefaultMaxText.
	MaxText int
	// MaxError caps a tool's error text. 0 means DefaultMaxError.
	MaxError int
	// Redact scrubs secrets from every text the walk hands out (messages,
	// agent turns, commands, paths, errors, summaries), before it is cut
	// to length: text is redacted here, where it enters devlearn, so that
	// no later stage can forget to. nil means redact.Text; Verbatim keeps
	// text as written (for a caller that redacts what it keeps itself).
	Redact func(string) string
}

// Verbatim is the Redact option that keeps text as written.
func Verbatim(s string) string { return s }

const (
	DefaultMaxText  = 16 << 10
	DefaultMaxError = 2 << 10
	// maxPending bounds the tool calls waiting for their result; calls
	// whose result never comes (an interrupted session) are flushed
	// without one rather than held forever.
	maxPending = 1024
)

// Walk reads a transcript and sends the person's messages, the dialog pairs
// and the tool calls to sink, in memory bounded by the longest line (and
// MaxText), whatever the file's size. Lines that cannot be read are
// returned as Problems; err is an I/O error or a sink's error.
func Walk(r io.Reader, opt Options, sink Sink) (Stats, []jsonl.Problem, error) {
	w := newWalker(opt, sink)
	problems, err := jsonl.Scan(r, func(n int, line []byte) error {
		w.stats.Lines++
		w.stats.Bytes += int64(len(line)) + 1
		if err := w.p.parse(n, line); err != nil {
			return err
		}
		if err := w.record(&w.p.rec); err != nil {
			return jsonl.Fatal{Err: err}
		}
		return nil
	})
	if err == nil {
		err = w.finish()
	}
	return w.stats, problems, err
}

type walker struct {
	opt  Options
	sink Sink
	p    parser
	text []byte // the person's words in the current user record
	tmp  []byte // scratch for decoding

	// What the agent wrote since its last call on the main conversation
	// (ToolCall.Said).
	said []byte

	// The assistant turn in progress on the main conversation.
	turnOpen  bool
	turnText  []byte
	turnUUID  string
	turnTime  string
	turnSess  string
	turnFrom  int
	interrupt bool

	pending map[string]*ToolCall
	order   []*ToolCall // pending calls in the order they were made
	drift   *ToolCall   // a top-level tool_use record waiting for its tool_result record

	intern map[string]string // session ids, cwds, tool names: few distinct values, many records
	seq    int
	stats  Stats
	// answers: the walk redacts, so a password the person types in answer
	// to the agent is redacted too (redact.Answer).
	answers bool
}

func newWalker(opt Options, sink Sink) *walker {
	if opt.MaxText <= 0 {
		opt.MaxText = DefaultMaxText
	}
	if opt.MaxError <= 0 {
		opt.MaxError = DefaultMaxError
	}
	if opt.Redact == nil {
		opt.Redact = redact.Text
	}
	return &walker{opt: opt, sink: sink, pending: map[string]*ToolCall{}, intern: map[string]string{}, answers: redact.Redacts(opt.Redact)}
}

// str returns s as a string, shared with earlier identical values: session
// ids, cwds and tool names repeat on every record.
func (w *walker) str(s Str) string {
	if v, ok := w.intern[string(s)]; ok {
		return v
	}
	v := validUTF8(s.String())
	if len(w.intern) < 4096 {
		w.intern[string(s)] = v
	}
	return v
}

func (w *walker) meta(r *Record) Meta {
	return Meta{UUID: r.UUID.String(), SessionID: w.str(r.SessionID), Timestamp: r.Timestamp.String(), Line: r.Line}
}

func (w *walker) record(r *Record) error {
	if w.stats.SessionID == "" && len(r.SessionID) > 0 {
		w.stats.SessionID = w.str(r.SessionID)
	}
	if len(r.GitBranch) > 0 && len(w.stats.Branches) < maxBranches {
		w.stats.AddBranch(w.str(r.GitBranch))
	}
	switch {
	case r.Type.Is("user"):
		w.stats.User++
	case r.Type.Is("assistant"):
		w.stats.Assistant++
	case r.Type.Is("system"):
		w.stats.System++
		if r.Subtype.Is("compact_boundary") {
			return w.compaction(r)
		}
		return nil
	case r.Type.Is("summary"):
		w.stats.Summaries++
		if w.sink.Summary != nil && r.Summary != nil {
			return w.sink.Summary(Summary{Text: w.opt.Redact(validUTF8(r.Summary.String())), LeafUUID: r.LeafUUID.String(), Line: r.Line})
		}
		return nil
	case r.Type.Is("tool_use"), r.Type.Is("tool_result"):
		return w.driftTool(r)
	default:
		w.stats.Other++
		if len(r.Type) == 0 {
			w.stats.Untyped++
		}
		return nil
	}
	if r.IsSidechain {
		w.stats.Sidechain++
	}
	if r.IsMeta {
		w.stats.Meta++
	}
	if r.Content == nil {
		return nil
	}
	if r.Type.Is("assistant") {
		return w.assistant(r)
	}
	return w.user(r)
}

func (w *walker) assistant(r *Record) error {
	main := !r.IsSidechain
	if main && !w.turnOpen {
		w.turnOpen = true
		w.turnText = w.turnText[:0]
		w.turnFrom = r.Line
	}
	if main {
		w.turnUUID = r.UUID.String()
		w.turnTime = r.Timestamp.String()
		w.turnSess = w.str(r.SessionID)
	}
	return w.p.sk.blocks(r.Content, func(b *Block) error {
		switch {
		case b.Type.Is("text"):
			if main && !r.IsAPIErrorMessage && len(b.Text) > 0 {
				w.addTurnText(b.Text)
			}
		case b.Type.Is("thinking"), b.Type.Is("redacted_thinking"):
			w.stats.Thinking++
		case b.Type.Is("tool_use"):
			w.stats.ToolUses++
			return w.toolUse(r, b)
		}
		return nil
	})
}

// takeSaid is what the agent wrote since its last call, cut to MaxSaid
// on a letter's start, and forgotten.
func (w *walker) takeSaid() string {
	s := w.said
	if len(s) > MaxSaid {
		end := MaxSaid
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		s = s[:end]
	}
	out := strings.TrimSpace(string(s))
	w.said = w.said[:0]
	return out
}

// MaxSaid caps ToolCall.Said: the few sentences an agent writes before a
// call.
const MaxSaid = 600

// addTurnText appends a text block to the turn, keeping only the last
// MaxText bytes (compacting when twice that has piled up, so the cost stays
// linear).
func (w *walker) addTurnText(t Str) {
	if len(w.turnText) > 0 {
		w.turnText = append(w.turnText, '\n', '\n')
	}
	// Redacted block by block, before the turn is cut to its end: a cut
	// through a placeholder leaves part of a placeholder, never part of a
	// secret.
	w.tmp = t.Append(w.tmp[:0])
	red := w.opt.Redact(validUTF8(string(w.tmp)))
	w.turnText = append(w.turnText, red...)
	if w.sink.ToolCall != nil && len(w.said) < MaxSaid {
		// Said of the next call, as the turn has it.
		if len(w.said) > 0 {
			w.said = append(w.said, '\n', '\n')
		}
		w.said = append(w.said, red...)
	}
	if max := w.opt.MaxText; len(w.turnText) > 2*max {
		from := len(w.turnText) - max
		for from < len(w.turnText) && !utf8.RuneStart(w.turnText[from]) {
			from++
		}
		n := copy(w.turnText, w.turnText[from:])
		w.turnText = w.turnText[:n]
	}
}

func (w *walker) toolUse(r *Record, b *Block) error {
	if w.sink.ToolCall == nil {
		return nil // nobody wants tool calls: skip building them
	}
	w.seq++
	said := ""
	if !r.IsSidechain {
		said = w.takeSaid()
	}
	tc := &ToolCall{
		Said:      said,
		seq:       w.seq,
		Meta:      w.meta(r),
		ID:        b.ID.String(),
		Name:      w.str(b.Name),
		Cwd:       w.str(r.Cwd),
		Sidechain: r.IsSidechain,
		AgentID:   w.str(r.AgentID),
	}
	w.toolInput(tc, b.Input)
	if tc.ID == "" {
		return w.emitTool(tc)
	}
	if len(w.pending) >= maxPending {
		if err := w.flushPending(); err != nil {
			return err
		}
	}
	if old, dup := w.pending[tc.ID]; dup {
		// The same call written twice: the later record wins.
		w.order[slices.Index(w.order, old)] = tc
	} else {
		w.order = append(w.order, tc)
	}
	w.pending[tc.ID] = tc
	return nil
}

// toolInput picks the file paths and the command out of a tool's input,
// and what it writes into an agent's instructions or memory.
func (w *walker) toolInput(tc *ToolCall, input []byte) {
	if len(input) == 0 || input[0] != '{' {
		return
	}
	var content, oldText, newText Str
	it := w.p.sk.object(input)
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		switch string(k) {
		case "content":
			content = asStr(v)
		case "old_string":
			oldText = asStr(v)
		case "new_string":
			newText = asStr(v)
		case "file_path", "notebook_path", "path":
			if s := asStr(v); len(s) > 0 {
				tc.Paths = append(tc.Paths, w.opt.Redact(validUTF8(s.String())))
			}
		case "command":
			tc.Command = textcut.Bytes(w.opt.Redact(validUTF8(asStr(v).String())), w.opt.MaxError)
		case "dangerouslyDisableSandbox":
			// The Bash tool asked to run outside Claude Code's sandbox.
			if string(v) == "true" {
				tc.Unsandboxed = SandboxDisabled
			}
		}
	}
	if len(tc.Paths) > 0 && slices.ContainsFunc(tc.Paths, InstructionFile) {
		tc.Wrote = Write{Content: content.String(), Old: oldText.String(), New: newText.String()}.Kept(func(s string) string {
			return w.opt.Redact(validUTF8(s))
		})
	}
}

func (w *walker) user(r *Record) error {
	person := !r.IsSidechain && !r.IsMeta && !r.IsCompactSummary && !r.HasToolUseResult &&
		!isNotificationOrigin(string(r.OriginKind))
	results := 0
	w.text = w.text[:0]
	if person {
		w.said = w.said[:0] // the next call answers the person, not what the agent said before
	}
	var recap []byte
	err := w.p.sk.blocks(r.Content, func(b *Block) error {
		switch {
		case b.Type.Is("tool_result"):
			results++
			return w.toolResult(r, b)
		case b.Type.Is("text"):
			if r.IsSidechain || r.IsMeta {
				return nil
			}
			w.tmp = b.Text.Append(w.tmp[:0])
			if w.sink.Recap != nil && (r.IsCompactSummary || bytes.HasPrefix(bytes.TrimSpace(w.tmp), []byte(recapPrefix))) {
				if len(recap) > 0 {
					recap = append(recap, "\n\n"...)
				}
				recap = append(recap, w.tmp...)
				return nil
			}
			text, interrupted := PersonText(string(w.tmp))
			if interrupted {
				w.interrupt = true
			}
			if text != "" {
				if len(w.text) > 0 {
					w.text = append(w.text, "\n\n"...)
				}
				w.text = append(w.text, text...)
			}
		case b.Type.Is("image"):
			w.stats.Images++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(recap) > 0 {
		text := textcut.Bytes(w.opt.Redact(validUTF8(string(recap))), MaxRecap)
		if err := w.sink.Recap(Recap{Meta: w.meta(r), Text: text}); err != nil {
			return err
		}
	}
	if !person || results > 0 || len(w.text) == 0 {
		return nil
	}
	return w.signal(w.userSignal(r, string(w.text), false))
}

// userSignal is the person's message: redacted, then cut, then their own
// words told from what they pasted.
func (w *walker) userSignal(r *Record, text string, rejection bool) UserSignal {
	text = w.opt.Redact(validUTF8(text))
	if w.answers && w.turnOpen && redact.HoldsPasswordShaped(text) {
		text = redact.Answer(string(w.turnText), text) // what the agent asked says what the reply holds
	}
	t := textcut.Bytes(text, w.opt.MaxText)
	own := OwnAnswering(t, func() []byte {
		if !w.turnOpen {
			return nil
		}
		return w.turnText
	})
	return UserSignal{Meta: w.meta(r), Text: t, Own: own, Cwd: w.str(r.Cwd), Rejection: rejection}
}

// signal emits a person's message and closes the assistant turn it answers.
func (w *walker) signal(s UserSignal) error {
	s.AfterInterrupt = w.interrupt
	w.interrupt = false
	w.stats.UserSignals++
	if w.sink.UserSignal != nil {
		if err := w.sink.UserSignal(s); err != nil {
			return err
		}
	}
	return w.closeTurn(&s)
}

func (w *walker) closeTurn(reply *UserSignal) error {
	if !w.turnOpen {
		return nil
	}
	w.turnOpen = false
	w.stats.DialogPairs++
	if w.sink.DialogPair == nil {
		return nil
	}
	return w.sink.DialogPair(DialogPair{
		Assistant:     textcut.Tail(string(w.turnText), w.opt.MaxText),
		AssistantUUID: w.turnUUID,
		SessionID:     w.turnSess,
		Timestamp:     w.turnTime,
		FromLine:      w.turnFrom,
		Reply:         reply,
	})
}

func (w *walker) toolResult(r *Record, b *Block) error {
	var errText, reason string
	if b.IsError {
		w.stats.ToolErrors++
		w.tmp = w.p.sk.appendText(w.tmp[:0], b.Content)
		errText = strings.TrimSpace(w.opt.Redact(validUTF8(string(w.tmp))))
		if isRejection(errText) && !r.IsSidechain {
			reason = rejectionReason(errText)
		}
	}
	if w.sink.ToolCall != nil {
		id := string(b.ToolUseID) // ids are ASCII; no escapes to decode
		tc, ok := w.pending[id]
		if ok {
			delete(w.pending, id)
		} else {
			// A result whose call we never saw (it was before a compaction,
			// or in another file): still worth its error text.
			tc = &ToolCall{Meta: w.meta(r), ID: id, Cwd: w.str(r.Cwd), Sidechain: r.IsSidechain, AgentID: w.str(r.AgentID)}
		}
		tc.HasResult = true
		tc.ResultUUID = r.UUID.String()
		tc.ResultLine = r.Line
		if b.IsError && !isRejection(errText) && ok && !r.IsSidechain && typedRefusal(tc.Name, errText) {
			// Refusing an edit, some versions give back only what the
			// person typed, as the tool's error: the person's words.
			reason = errText
		}
		if b.IsError {
			tc.IsError = true
			tc.Rejected = isRejection(errText) || reason != ""
			tc.Protocol = !tc.Rejected && ProtocolError(errText)
			tc.Error = textcut.Bytes(errText, w.opt.MaxError)
		} else if FilteredLast(tc.Command) {
			// Redacted whole, then cut: a secret cut in two would no
			// longer read as one.
			w.tmp = w.p.sk.appendText(w.tmp[:0], b.Content)
			tc.Hidden = textcut.Bytes(strings.TrimSpace(w.opt.Redact(validUTF8(string(w.tmp)))), w.opt.MaxError)
		}
		if err := w.emitTool(tc); err != nil {
			return err
		}
	}
	if reason == "" {
		return nil
	}
	return w.signal(w.userSignal(r, reason, true))
}

func (w *walker) emitTool(tc *ToolCall) error {
	if i := slices.Index(w.order, tc); i >= 0 {
		w.order = slices.Delete(w.order, i, i+1)
	}
	if w.sink.ToolCall == nil {
		return nil
	}
	return w.sink.ToolCall(*tc)
}

func (w *walker) flushPending() error {
	order := w.order
	w.order = nil
	clear(w.pending)
	for _, tc := range order {
		if w.sink.ToolCall != nil {
			if err := w.sink.ToolCall(*tc); err != nil {
				return err
			}
		}
	}
	return nil
}

// driftTool handles top-level tool_use / tool_result records, written by
// some early or third-party schemas instead of content blocks.
func (w *walker) driftTool(r *Record) error {
	if r.Type.Is("tool_use") {
		w.stats.ToolUses++
		if w.drift != nil {
			if err := w.emitTool(w.drift); err != nil {
				return err
			}
		}
		tc := &ToolCall{Meta: w.meta(r), Name: w.str(r.ToolName), Cwd: w.str(r.Cwd), Sidechain: r.IsSidechain}
		w.toolInput(tc, r.ToolInput)
		w.drift = tc
		return nil
	}
	tc := w.drift
	w.drift = nil
	if tc == nil {
		tc = &ToolCall{Meta: w.meta(r), Name: w.str(r.ToolName), Cwd: w.str(r.Cwd), Sidechain: r.IsSidechain}
	}
	tc.HasResult = true
	tc.ResultUUID = r.UUID.String()
	tc.ResultLine = r.Line
	if r.ToolError {
		w.stats.ToolErrors++
		tc.IsError = true
		errText := strings.TrimSpace(w.opt.Redact(validUTF8(string(w.p.sk.appendText(w.tmp[:0], r.ToolOutput)))))
		tc.Protocol = ProtocolError(errText)
		tc.Error = textcut.Bytes(errText, w.opt.MaxError)
	}
	return w.emitTool(tc)
}

func (w *walker) compaction(r *Record) error {
	w.stats.Compactions++
	if err := w.closeTurn(nil); err != nil {
		return err
	}
	w.interrupt = false
	if w.sink.Compaction == nil {
		return nil
	}
	return w.sink.Compaction(Compaction{Meta: w.meta(r), Trigger: r.CompactTrigger.String()})
}

func (w *walker) finish() error {
	if w.drift != nil {
		if err := w.emitTool(w.drift); err != nil {
			return err
		}
		w.drift = nil
	}
	if err := w.flushPending(); err != nil {
		return err
	}
	return w.closeTurn(nil)
}

// Channels is a whole transcript's channels, collected in memory. Use Walk
// to stream instead.
type Channels struct {
	SessionID   string       `json:"sessionId"` // the first session id seen
	UserSignals []UserSignal `json:"userSignals"`
	DialogPairs []DialogPair `json:"dialogPairs"`
	Tools       []ToolCall   `json:"tools"` // in line order
	Summaries   []Summary    `json:"summaries,omitempty"`
	Compactions []Compaction `json:"compactions,omitempty"`
	Recaps      []Recap      `json:"recaps,omitempty"`
	Stats       Stats        `json:"stats"`
	Problems    []Problem    `json:"problems,omitempty"`
}

// Problem is an unreadable line of a transcript file.
type Problem struct {
	File string
	jsonl.Problem
}

// Error names the file and the line as compilers do ("FILE:12: …").
func (p Problem) Error() string {
	if p.Torn {
		return fmt.Sprintf("%s:%d: torn last line (a writer stopped mid-line): %v", p.File, p.Line, p.Err)
	}
	return fmt.Sprintf("%s:%d: %v", p.File, p.Line, p.Err)
}

// Read collects the channels of one transcript; name labels its Problems.
func Read(r io.Reader, name string, opt Options) (*Channels, error) {
	ch := &Channels{}
	if err := ch.add(r, name, opt); err != nil {
		return nil, err
	}
	return ch, nil
}

// ReadFiles collects the channels of a session's files (the main
// transcript, then its subagents' files) into one. Line numbers are per
// file; subagent items are all Sidechain, so they never mix with the main
// conversation's line order.
func ReadFiles(paths []string, opt Options) (*Channels, error) {
	ch := &Channels{}
	for _, p := range paths {
		f, err := safefile.OpenRegular(p)
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		err = ch.add(f, p, opt)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return ch, nil
}

func (ch *Channels) add(r io.Reader, name string, opt Options) error {
	from := len(ch.Tools)
	stats, problems, err := Walk(r, opt, Sink{
		UserSignal: func(s UserSignal) error { ch.UserSignals = append(ch.UserSignals, s); return nil },
		DialogPair: func(p DialogPair) error { ch.DialogPairs = append(ch.DialogPairs, p); return nil },
		ToolCall:   func(t ToolCall) error { ch.Tools = append(ch.Tools, t); return nil },
		Summary:    func(s Summary) error { ch.Summaries = append(ch.Summaries, s); return nil },
		Compaction: func(c Compaction) error { ch.Compactions = append(ch.Compactions, c); return nil },
		Recap:      func(c Recap) error { ch.Recaps = append(ch.Recaps, c); return nil },
	})
	if err != nil {
		return fmt.Errorf("read transcript %s: %w", name, err)
	}
	slices.SortStableFunc(ch.Tools[from:], func(a, b ToolCall) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.seq - b.seq
	})
	for _, p := range problems {
		ch.Problems = append(ch.Problems, Problem{File: name, Problem: p})
	}
	ch.Stats.add(stats)
	if ch.SessionID == "" {
		ch.SessionID = stats.SessionID
	}
	return nil
}

func (s *Stats) add(o Stats) {
	if s.SessionID == "" {
		s.SessionID = o.SessionID
	}
	s.Lines += o.Lines
	s.Bytes += o.Bytes
	s.User += o.User
	s.Assistant += o.Assistant
	s.System += o.System
	s.Summaries += o.Summaries
	s.Other += o.Other
	s.Untyped += o.Untyped
	s.Sidechain += o.Sidechain
	s.Meta += o.Meta
	s.Thinking += o.Thinking
	s.Images += o.Images
	s.ToolUses += o.ToolUses
	s.ToolErrors += o.ToolErrors
	for _, b := range o.Branches {
		s.AddBranch(b)
	}
	s.Compactions += o.Compactions
	s.UserSignals += o.UserSignals
	s.DialogPairs += o.DialogPairs
}

// ErrNoTranscript is returned when no transcript file is found.
var ErrNoTranscript = errors.New("no transcript found")

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// FilteredLast reports a command line whose first line ends its pipeline
// with a filter (head, tail, grep, ...): the line's exit status is the
// filter's, whatever the commands before it did.
func FilteredLast(command string) bool {
	line, _, _ := strings.Cut(command, "\n")
	i := strings.LastIndexByte(line, '|')
	if i <= 0 || line[i-1] == '|' {
		return false
	}
	prog, _, _ := strings.Cut(strings.TrimSpace(line[i+1:]), " ")
	return outputFilters[prog]
}

// outputFilters are the programs an agent ends a pipeline with to trim
// or search what it prints.
var outputFilters = map[string]bool{"head": true, "tail": true, "grep": true, "egrep": true, "rg": true, "sed": true, "awk": true, "sort": true, "uniq": true, "cut": true, "wc": true, "less": true, "more": true, "cat": true, "tee": true, "column": true, "tr": true, "jq": true}
