package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// session writes Claude Code transcripts the way 2.0.x does: one record
// per line, uuid, parentUuid, sessionId, cwd and timestamp on each.
type session struct {
	id, cwd string
	at      time.Time
	lines   []string
	last    string
	n       int
}

func newSession(id, cwd string, at time.Time) *session {
	return &session{id: id, cwd: cwd, at: at}
}

func (s *session) record(typ string, message any, extra map[string]any) string {
	s.n++
	uuid := fmt.Sprintf("%s-%04d", s.id[:min(8, len(s.id))], s.n)
	r := map[string]any{
		"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": s.cwd,
		"sessionId": s.id, "version": "2.0.42", "gitBranch": "main", "type": typ,
		"message": message, "uuid": uuid, "timestamp": s.at.Format("2006-01-02T15:04:05.000Z"),
	}
	if s.last != "" {
		r["parentUuid"] = s.last
	}
	for k, v := range extra {
		r[k] = v
	}
	b, _ := json.Marshal(r)
	s.lines = append(s.lines, string(b))
	s.last = uuid
	s.at = s.at.Add(10 * time.Second)
	return uuid
}

func (s *session) user(text string) string {
	return s.record("user", map[string]any{"role": "user", "content": text}, nil)
}

func (s *session) assistant(blocks ...map[string]any) string {
	return s.record("assistant", map[string]any{"role": "assistant", "type": "message", "model": "claude-sonnet-4-5", "content": blocks}, nil)
}

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func toolUse(id, name string, input map[string]any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

func (s *session) result(id, content string, isErr bool) string {
	return s.record("user", map[string]any{"role": "user", "content": []map[string]any{
		{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr},
	}}, map[string]any{"toolUseResult": map[string]any{"stdout": content}})
}

// bash is a Bash call and its result.
func (s *session) bash(id, command, output string, failed bool) {
	s.assistant(toolUse(id, "Bash", map[string]any{"command": command, "description": "run"}))
	s.result(id, output, failed)
}

func (s *session) write(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, s.id+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// correction is a session where the person corrects the agent.
func correction(id, cwd string, at time.Time) *session {
	s := newSession(id, cwd, at)
	s.user("Add a --verbose flag to the CLI")
	s.assistant(text("I'll add the flag."), toolUse("t1", "Edit", map[string]any{"file_path": cwd + "/cmd/root.go", "old_string": "a", "new_string": "b"}))
	s.result("t1", "The file has been updated.", false)
	s.assistant(text("I added the --verbose flag."))
	s.user("You forgot to update CHANGELOG.md.")
	s.assistant(text("Sorry, updating it now."), toolUse("t2", "Edit", map[string]any{"file_path": cwd + "/CHANGELOG.md", "old_string": "a", "new_string": "b"}))
	s.result("t2", "The file has been updated.", false)
	return s
}
