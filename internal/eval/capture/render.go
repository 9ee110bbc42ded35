package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Session is a session written by hand, as the turns a reader sees.
type Session struct {
	ID  string `yaml:"id"`
	Day int    `yaml:"day"` // its day (1 = 2026-03-01); 0: its position in the case
	Cwd string `yaml:"cwd"` // default /work/repo
	// Turns, in order. Each turn is one of the forms of Turn.
	Turns []Turn `yaml:"turns"`
}

// Turn is one step of a session: exactly one of User, Agent, Interrupt,
// Compact, Hook is set.
type Turn struct {
	// User is what the person typed (or what Claude Code wrote in a user
	// record: wrappers, reminders, pasted text are written as they come).
	User *string `yaml:"user"`
	// Meta marks a user record Claude Code injected (isMeta).
	Meta bool `yaml:"meta"`
	// Origin sets origin.kind (2.1.x), e.g. task-notification.
	Origin string `yaml:"origin"`

	// Agent is the agent's text, then its tool calls.
	Agent *string `yaml:"agent"`
	Tools []Tool  `yaml:"tools"`
	// Sidechain: written by a sub-agent (its prompt is a user record with
	// Sidechain set too).
	Sidechain bool `yaml:"sidechain"`

	// Interrupt: the person pressed Esc ("[Request interrupted by
	// user]"); "tool" for "... for tool use".
	Interrupt string `yaml:"interrupt"`
	// Compact: the history was compacted; the text is the summary that
	// replaces it.
	Compact string `yaml:"compact"`
	// Hook is a system record a hook wrote (stop_hook_summary and the
	// like): its content.
	Hook string `yaml:"hook"`
}

// Tool is one tool call and its result.
type Tool struct {
	Bash  string         `yaml:"bash"`
	Edit  string         `yaml:"edit"`  // a file path (relative to the session's folder)
	Write string         `yaml:"write"` // a file path
	Read  string         `yaml:"read"`  // a file path
	Name  string         `yaml:"name"`  // another tool, with Input
	Input map[string]any `yaml:"input"`

	// The result: Output (success), Fail (is_error), or Reject (the person
	// refused the call; the text is their reason, "" for none — write
	// reject: "" explicitly).
	Output string  `yaml:"output"`
	Fail   string  `yaml:"fail"`
	Reject *string `yaml:"reject"`
}

func (t Turn) check() error {
	n := 0
	for _, set := range []bool{t.User != nil, t.Agent != nil, t.Interrupt != "", t.Compact != "", t.Hook != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("want exactly one of user, agent, interrupt, compact, hook")
	}
	if len(t.Tools) > 0 && t.Agent == nil {
		return fmt.Errorf("tools only in an agent's turn")
	}
	for i, tl := range t.Tools {
		k := 0
		for _, s := range []string{tl.Bash, tl.Edit, tl.Write, tl.Read, tl.Name} {
			if s != "" {
				k++
			}
		}
		if k != 1 {
			return fmt.Errorf("tool %d: want exactly one of bash, edit, write, read, name", i+1)
		}
	}
	return nil
}

// base is the first day of every case's sessions.
var base = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// SessionID is the session id a case's session gets in its transcript:
// stable, distinct across cases.
func SessionID(c *Case, s *Session) string {
	sum := sha256.Sum256([]byte(c.Name + "\x00" + s.ID))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

// Transcript renders a hand-written session as Claude Code writes it
// (2.0.x shape: user and assistant records, content blocks, tool_use and
// tool_result, toolUseResult on tool results, compact_boundary).
func Transcript(c *Case, si int) []byte {
	s := &c.Sessions[si]
	r := &renderer{session: SessionID(c, s), cwd: s.Cwd}
	if r.cwd == "" {
		r.cwd = "/work/repo"
	}
	day := s.Day
	if day <= 0 {
		day = si + 1
	}
	r.at = base.AddDate(0, 0, day-1)
	for ti, t := range s.Turns {
		r.turn(ti, t)
	}
	return r.buf.Bytes()
}

type renderer struct {
	buf     bytes.Buffer
	session string
	cwd     string
	at      time.Time
	n       int
	parent  string
}

func (r *renderer) uuid() string {
	r.n++
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", r.session, r.n))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// record writes one line: the common keys, then fields.
func (r *renderer) record(typ string, sidechain bool, fields map[string]any) string {
	r.at = r.at.Add(7 * time.Second)
	id := r.uuid()
	rec := map[string]any{
		"parentUuid":  nilIfEmpty(r.parent),
		"isSidechain": sidechain,
		"userType":    "external",
		"cwd":         r.cwd,
		"sessionId":   r.session,
		"version":     "2.0.42",
		"gitBranch":   "main",
		"type":        typ,
		"uuid":        id,
		"timestamp":   r.at.Format("2006-01-02T15:04:05.000Z"),
	}
	for k, v := range fields {
		rec[k] = v
	}
	line, err := json.Marshal(rec)
	if err != nil {
		panic(err) // only strings, maps and slices: cannot fail
	}
	r.buf.Write(line)
	r.buf.WriteByte('\n')
	r.parent = id
	return id
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (r *renderer) turn(ti int, t Turn) {
	switch {
	case t.User != nil:
		f := map[string]any{"message": map[string]any{"role": "user", "content": *t.User}}
		if t.Meta {
			f["isMeta"] = true
		}
		if t.Origin != "" {
			f["origin"] = map[string]any{"kind": t.Origin}
		}
		r.record("user", t.Sidechain, f)
	case t.Interrupt != "":
		text := "[Request interrupted by user]"
		if t.Interrupt == "tool" {
			text = "[Request interrupted by user for tool use]"
		}
		r.record("user", false, map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
	case t.Compact != "":
		r.record("system", false, map[string]any{"subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
		r.record("user", false, map[string]any{"isCompactSummary": true, "message": map[string]any{"role": "user", "content": t.Compact}})
	case t.Hook != "":
		r.record("system", false, map[string]any{"subtype": "stop_hook_summary", "content": t.Hook, "level": "suggestion"})
	case t.Agent != nil:
		msg := fmt.Sprintf("msg_%s_%d", r.session[:8], ti)
		if *t.Agent != "" {
			r.record("assistant", t.Sidechain, map[string]any{"message": map[string]any{
				"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "text", "text": *t.Agent}},
			}})
		}
		for k, tl := range t.Tools {
			r.tool(msg, fmt.Sprintf("toolu_%s_%d_%d", r.session[:8], ti, k), tl, t.Sidechain)
		}
	}
}

func (r *renderer) tool(msg, id string, t Tool, sidechain bool) {
	name, input := t.Name, map[string]any{}
	for k, v := range t.Input {
		input[k] = v
	}
	path := func(p string) string {
		if len(p) > 0 && p[0] == '/' {
			return p
		}
		return r.cwd + "/" + p
	}
	switch {
	case t.Bash != "":
		name, input["command"] = "Bash", t.Bash
	case t.Edit != "":
		name, input["file_path"] = "Edit", path(t.Edit)
		input["old_string"], input["new_string"] = "old", "new"
	case t.Write != "":
		name, input["file_path"] = "Write", path(t.Write)
		input["content"] = "..."
	case t.Read != "":
		name, input["file_path"] = "Read", path(t.Read)
	}
	r.record("assistant", sidechain, map[string]any{"message": map[string]any{
		"id": msg, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
	}})
	result := map[string]any{"type": "tool_result", "tool_use_id": id}
	var toolUseResult any
	switch {
	case t.Reject != nil:
		text := "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
		if *t.Reject != "" {
			text = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  " + *t.Reject
		}
		result["content"], result["is_error"] = text, true
		toolUseResult = "Error: " + text
	case t.Fail != "":
		result["content"], result["is_error"] = t.Fail, true
		toolUseResult = "Error: " + t.Fail
	default:
		out := t.Output
		result["content"] = out
		toolUseResult = map[string]any{"stdout": out, "stderr": "", "interrupted": false}
	}
	r.record("user", sidechain, map[string]any{
		"message":       map[string]any{"role": "user", "content": []any{result}},
		"toolUseResult": toolUseResult,
	})
}
