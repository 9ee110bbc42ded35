package transcript

import (
	"errors"
	"fmt"
	"io"

	"github.com/devlearn/devlearn/internal/jsonl"
)

// Record is one line of a transcript, with the fields devlearn uses. The
// format is not documented by Anthropic; these are the keys observed from
// Claude Code 1.0.17 to 2.1.x. Every other key is ignored, and a record of a
// type devlearn does not know (file-history-snapshot, progress, attachment,
// queue-operation, and whatever later versions add) is passed on with its
// Type set and nothing else to read.
//
// Str and []byte fields point into the line: they are valid only until the
// callback that received the record returns. Call String to keep one.
type Record struct {
	Line int    // 1-based line number in the file
	Raw  []byte // the whole line

	Type    Str // user, assistant, system, summary, or another
	Subtype Str // for system records: compact_boundary, local_command, ...

	UUID, ParentUUID Str
	SessionID        Str
	Timestamp        Str
	Cwd, GitBranch   Str
	Version          Str
	AgentID          Str // set in subagent transcripts (2.0.x and later)

	IsSidechain       bool // written by a subagent, not the main conversation
	IsMeta            bool // injected by Claude Code (caveats, expanded slash commands)
	IsCompactSummary  bool // the summary that replaces history after compaction
	IsAPIErrorMessage bool // an assistant record that only reports an API error
	HasToolUseResult  bool // a user record that carries a tool's result, not the person's words
	OriginKind        Str  // origin.kind (2.1.x): human, cli, task-notification, ...

	Role    Str    // message.role
	Content []byte // message.content, raw JSON: a string or an array of blocks

	Summary, LeafUUID Str // summary records

	// Top-level tool records, seen in some hand-made fixtures and older
	// schemas: {"type":"tool_use","name","input"} / {"type":"tool_result","output"}.
	ToolName   Str
	ToolInput  []byte
	ToolOutput []byte
	ToolError  bool

	CompactTrigger Str // compactMetadata.trigger of a compact_boundary: auto or manual
}

// IsType reports whether the record's type is t.
func (r *Record) IsType(t string) bool { return r.Type.Is(t) }

// parser holds the state reused from line to line, so that reading a
// transcript allocates nothing per record.
type parser struct {
	sk  skipper
	rec Record
}

// ErrBadRecord wraps every reason a line is rejected, so callers can tell
// a bad line from an I/O error.
var ErrBadRecord = errors.New("bad transcript record")

func bad(err error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format+": %w", append(append([]any{ErrBadRecord}, args...), err)...)
}

func (p *parser) parse(n int, line []byte) error {
	r := &p.rec
	*r = Record{Line: n, Raw: line}
	var message []byte
	it := p.sk.object(line)
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		switch string(k) {
		case "type":
			r.Type = asStr(v)
		case "subtype":
			r.Subtype = asStr(v)
		case "uuid":
			r.UUID = asStr(v)
		case "parentUuid":
			r.ParentUUID = asStr(v)
		case "sessionId":
			r.SessionID = asStr(v)
		case "session_id":
			if r.SessionID == nil {
				r.SessionID = asStr(v)
			}
		case "timestamp":
			r.Timestamp = asStr(v)
		case "cwd":
			r.Cwd = asStr(v)
		case "gitBranch":
			r.GitBranch = asStr(v)
		case "version":
			r.Version = asStr(v)
		case "agentId":
			r.AgentID = asStr(v)
		case "isSidechain":
			r.IsSidechain = isTrue(v)
		case "isMeta":
			r.IsMeta = isTrue(v)
		case "isCompactSummary":
			r.IsCompactSummary = isTrue(v)
		case "isApiErrorMessage":
			r.IsAPIErrorMessage = isTrue(v)
		case "toolUseResult":
			r.HasToolUseResult = !isNull(v)
		case "origin":
			r.OriginKind = p.member(v, "kind")
		case "message":
			message = v
		case "summary":
			r.Summary = asStr(v)
		case "leafUuid":
			r.LeafUUID = asStr(v)
		case "name":
			r.ToolName = asStr(v)
		case "input":
			r.ToolInput = v
		case "output":
			r.ToolOutput = v
		case "is_error", "isError":
			r.ToolError = isTrue(v)
		case "compactMetadata":
			r.CompactTrigger = p.member(v, "trigger")
		}
	}
	if it.err != nil {
		if errors.Is(it.err, errNotObject) {
			return fmt.Errorf("%w: %s", ErrBadRecord, describe(line))
		}
		return bad(it.err, "byte %d", it.i+1)
	}
	if message == nil || isNull(message) {
		return nil
	}
	conversational := r.Type.Is("user") || r.Type.Is("assistant")
	if message[0] != '{' {
		if conversational {
			return fmt.Errorf("%w: %s record whose message is not an object", ErrBadRecord, r.Type.String())
		}
		return nil
	}
	mi := p.sk.object(message)
	for {
		k, v, ok := mi.next()
		if !ok {
			break
		}
		switch string(k) {
		case "role":
			r.Role = asStr(v)
		case "content":
			r.Content = v
		}
	}
	if mi.err != nil {
		return bad(mi.err, "message")
	}
	if r.Content != nil && conversational {
		switch r.Content[0] {
		case '"', '[':
		case 'n': // null
			r.Content = nil
		default:
			return fmt.Errorf("%w: %s record whose message content is neither text nor a list of blocks", ErrBadRecord, r.Type.String())
		}
	}
	return nil
}

// member returns the string member key of the object v, or nil.
func (p *parser) member(v []byte, key string) Str {
	if len(v) == 0 || v[0] != '{' {
		return nil
	}
	it := p.sk.object(v)
	for {
		k, mv, ok := it.next()
		if !ok {
			return nil
		}
		if string(k) == key {
			return asStr(mv)
		}
	}
}

// describe names what a line holds when it is JSON but not an object.
func describe(line []byte) string {
	i := skipSpace(line, 0)
	if i >= len(line) {
		return "empty line"
	}
	switch c := line[i]; {
	case c == '"':
		return "a JSON string, not a record"
	case c == '[':
		return "a JSON array, not a record"
	case c == '-' || c >= '0' && c <= '9':
		return "a JSON number, not a record"
	case c == 't' || c == 'f' || c == 'n':
		return "a JSON literal, not a record"
	}
	return "not JSON"
}

// Block is one element of a message's content. Like Record, its fields
// point into the line.
type Block struct {
	Type      Str    // text, thinking, redacted_thinking, tool_use, tool_result, image, ...
	Text      Str    // a text block's text, a thinking block's thinking
	ID, Name  Str    // tool_use
	Input     []byte // tool_use input, raw JSON
	ToolUseID Str    // tool_result
	Content   []byte // tool_result content, raw JSON: a string or an array of blocks
	IsError   bool   // tool_result
}

// ParseBlocks calls fn for each block of a message content (content as
// found in Record.Content): a plain string is one text block; elements of
// an array that are not objects are skipped, since no version writes them
// and nothing could be read from them.
func ParseBlocks(content []byte, fn func(*Block) error) error {
	var sk skipper
	return sk.blocks(content, fn)
}

// textType is the type of the block a plain string content becomes; a
// variable, because converting the literal would allocate on every call.
var textType = Str("text")

func (s *skipper) blocks(content []byte, fn func(*Block) error) error {
	b := &s.block
	i := skipSpace(content, 0)
	if i >= len(content) || isNull(content[i:]) {
		return nil
	}
	switch content[i] {
	case '"':
		if _, err := s.valueEnd(content, i); err != nil {
			return bad(err, "content")
		}
		*b = Block{Type: textType, Text: asStr(content[i:])}
		return fn(b)
	case '[':
	default:
		return fmt.Errorf("%w: content is neither text nor a list of blocks", ErrBadRecord)
	}
	arr := s.array(content[i:])
	for {
		v, ok := arr.next()
		if !ok {
			break
		}
		if v[0] != '{' {
			continue
		}
		*b = Block{}
		it := s.object(v)
		for {
			k, bv, ok := it.next()
			if !ok {
				break
			}
			switch string(k) {
			case "type":
				b.Type = asStr(bv)
			case "text", "thinking":
				b.Text = asStr(bv)
			case "id":
				b.ID = asStr(bv)
			case "name":
				b.Name = asStr(bv)
			case "input":
				b.Input = bv
			case "tool_use_id":
				b.ToolUseID = asStr(bv)
			case "content":
				b.Content = bv
			case "is_error":
				b.IsError = isTrue(bv)
			}
		}
		if it.err != nil {
			return bad(it.err, "content block")
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	if arr.err != nil {
		return bad(arr.err, "content")
	}
	return nil
}

// appendText appends the text of a tool_result's content (a string, or
// the text blocks of an array, one per line) to dst.
func (s *skipper) appendText(dst, content []byte) []byte {
	i := skipSpace(content, 0)
	if i >= len(content) {
		return dst
	}
	if content[i] == '"' {
		return asStr(content[i:]).Append(dst)
	}
	if content[i] != '[' {
		return dst
	}
	arr := s.array(content[i:])
	for {
		v, ok := arr.next()
		if !ok {
			return dst
		}
		if v[0] == '"' { // tolerated: a bare string element
			dst = appendLine(dst, asStr(v))
			continue
		}
		if v[0] != '{' {
			continue
		}
		it := s.object(v)
		var text Str
		isText := false
		for {
			k, bv, ok := it.next()
			if !ok {
				break
			}
			switch string(k) {
			case "type":
				isText = asStr(bv).Is("text")
			case "text":
				text = asStr(bv)
			}
		}
		if isText && text != nil {
			dst = appendLine(dst, text)
		}
	}
}

func appendLine(dst []byte, s Str) []byte {
	if len(dst) > 0 {
		dst = append(dst, '\n')
	}
	return s.Append(dst)
}

// Records streams the records of a transcript to fn, one line at a time, in
// memory bounded by the longest line. A line that cannot be read (not JSON,
// not an object, a conversational record with a malformed message, a last
// line cut off mid-write) is returned as a Problem with its line number and
// the scan goes on; an error from fn other than jsonl.Stop or jsonl.Fatal
// also marks its line as a Problem.
func Records(r io.Reader, fn func(*Record) error) ([]jsonl.Problem, error) {
	var p parser
	return jsonl.Scan(r, func(n int, line []byte) error {
		if err := p.parse(n, line); err != nil {
			return err
		}
		return fn(&p.rec)
	})
}
