// readCopilotFile reads GitHub Copilot CLI's session logs
// ($COPILOT_HOME/session-state/<session>/events.jsonl, default
// ~/.copilot; older versions wrote session-state/<session>.jsonl) into
// the channels devlearn's extractors read.
//
// Each line is an event {type, id, timestamp, parentId, data}, the types
// those of Copilot's SDK (github/copilot-sdk, session-events.ts, MIT):
// session.start (data.sessionId, data.context.cwd), user.message
// (data.content), assistant.message (data.content, data.toolRequests),
// tool.execution_start and tool.execution_complete (data.toolCallId,
// success, result.content, error.message). Events of a subagent and
// ephemeral ones are not the main conversation and are skipped: a
// subagent's event carries agentId in older logs, and in recent ones
// data.parentToolCallId, the call of the main agent that started it.

package sessions

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

type copilotEvent struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	AgentID   string `json:"agentId"`
	Ephemeral bool   `json:"ephemeral"`
	Data      struct {
		SessionID        string `json:"sessionId"`
		ParentToolCallID string `json:"parentToolCallId"`
		Context          struct {
			Cwd string `json:"cwd"`
		} `json:"context"`
		Content      jsontext.Value `json:"content"`
		Source       string         `json:"source"`
		ToolRequests []struct {
			ToolCallID string         `json:"toolCallId"`
			Name       string         `json:"name"`
			Arguments  jsontext.Value `json:"arguments"`
		} `json:"toolRequests"`
		ToolCallID string         `json:"toolCallId"`
		ToolName   string         `json:"toolName"`
		Arguments  jsontext.Value `json:"arguments"`
		Success    *bool          `json:"success"`
		Result     struct {
			Content jsontext.Value `json:"content"`
		} `json:"result"`
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"data"`
}

// tools maps Copilot CLI's tool names to Claude Code's.
var copilotTools = map[string]string{"bash": "Bash", "view": "Read", "create": "Write", "edit": "Edit", "str_replace": "Edit", "apply_patch": "Edit", "glob": "Glob", "grep": "Grep"}

// readCopilotFile reads the session log at path.
func readCopilotFile(path string, opt transcript.Options) (*transcript.Channels, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read session log: %w", err)
	}
	defer f.Close()
	return readCopilot(f, path, opt)
}

// readCopilot reads a session log; name labels its problems.
func readCopilot(r io.Reader, name string, opt transcript.Options) (*transcript.Channels, error) {
	b := newBuilder(name, opt)
	var cwd string
	called := map[string]bool{}
	problems, err := jsonl.Scan(r, func(n int, raw []byte) error {
		b.line(n)
		var e copilotEvent
		if err := jsonv2.Unmarshal(raw, &e); err != nil {
			return err
		}
		if e.AgentID != "" || e.Data.ParentToolCallID != "" || e.Ephemeral {
			return nil
		}
		d := &e.Data
		meta := transcript.Meta{UUID: e.ID, Timestamp: e.Timestamp, Line: n}
		switch e.Type {
		case "session.start", "session.resume":
			b.session(d.SessionID)
			if d.Context.Cwd != "" {
				cwd = d.Context.Cwd
			}
		case "user.message":
			if d.Source == "" || d.Source == "user" {
				b.user(meta, jsonString(d.Content), cwd)
			}
		case "assistant.message":
			b.assistant(meta, jsonString(d.Content))
			for _, t := range d.ToolRequests {
				if called[t.ToolCallID] {
					continue
				}
				called[t.ToolCallID] = true
				name, command, paths := copilotTool(t.Name, t.Arguments)
				b.tool(meta, t.ToolCallID, name, command, paths, cwd)
			}
		case "tool.execution_start":
			if !called[d.ToolCallID] {
				called[d.ToolCallID] = true
				name, command, paths := copilotTool(d.ToolName, d.Arguments)
				b.tool(meta, d.ToolCallID, name, command, paths, cwd)
			}
		case "tool.execution_complete":
			failed := d.Success != nil && !*d.Success
			b.result(meta, d.ToolCallID, failed, cmpOr(d.Error.Message, jsonString(d.Result.Content)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read session log %s: %w", name, err)
	}
	for _, p := range problems {
		b.problem(p)
	}
	return b.done(), nil
}

// tool names a call as devlearn's extractors know calls; its arguments
// are an object, or that object as a JSON string.
func copilotTool(name string, raw jsontext.Value) (string, string, []string) {
	if raw.Kind() == '"' {
		var s string
		if jsonv2.Unmarshal(raw, &s) == nil {
			raw = jsontext.Value(s)
		}
	}
	var args struct {
		Command  string `json:"command"`
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	jsonv2.Unmarshal(raw, &args)
	if t, ok := copilotTools[name]; ok {
		name = t
	}
	var paths []string
	if p := cmpOr(args.Path, args.FilePath); p != "" {
		paths = []string{p}
	}
	return name, args.Command, paths
}

// copilotStart is what a log's first event says: whether it is a Copilot session
// log, and the cwd it ran in.
func copilotStart(path string) (bool, string) {
	var e copilotEvent
	if jsonv2.Unmarshal(firstLine(path), &e) != nil || (e.Type != "session.start" && e.Type != "session.resume") {
		return false, ""
	}
	return true, e.Data.Context.Cwd
}

// isCopilotLog reports whether the file at path is a Copilot CLI session log.
func isCopilotLog(path string) bool {
	ok, _ := copilotStart(path)
	return ok && strings.HasSuffix(path, ".jsonl")
}

// copilotHome is Copilot CLI's folder: $COPILOT_HOME, else ~/.copilot.
func copilotHome(getenv func(string) string) string {
	if h := getenv("COPILOT_HOME"); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".copilot")
	}
	return ""
}

// findCopilot lists the session logs under home of sessions that ran inside
// root, by the cwd their session.start records.
func findCopilot(home, root string) ([]string, error) {
	dir := filepath.Join(home, "session-state")
	var files []string
	for _, pattern := range []string{filepath.Join("*", "events.jsonl"), "*.jsonl"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	root = filepath.Clean(root)
	var out []string
	for _, f := range files {
		if ok, cwd := copilotStart(f); ok && inside(cwd, root) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}
