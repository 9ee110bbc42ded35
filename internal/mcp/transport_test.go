package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is the server's stdout, read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// serve runs the server over the lines given, the input closing right
// after the last, and returns the messages it wrote, by id ("null" for
// an error with no id). A server that does not return is a failure.
func serve(t *testing.T, o Options, lines ...string) map[string]map[string]any {
	t.Helper()
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), o, in, &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the server did not return after its input closed; it wrote:\n%s", out.String())
	}
	got := map[string]map[string]any{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %q", line)
		}
		id := fmt.Sprint(m["id"])
		if m["id"] == nil {
			id = "null"
		}
		if _, ok := m["id"]; !ok && m["method"] != nil {
			continue // a notification of the server's
		}
		if prev, ok := got[id]; ok && id == "null" {
			// Several answers with no id: keep them all, in order.
			m["previous"] = prev
		}
		got[id] = m
	}
	return got
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// A line that is not JSON is answered with a parse error and the server
// goes on with the next line; a JSON value that is not a request is an
// invalid request, answered with its id when it has one.
func TestMalformedLinesAreAnswered(t *testing.T) {
	o, _ := setup(t, RoleWorkshop, nil)
	got := serve(t, o,
		initialize, initialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, // cut short
		`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	)
	if got["1"]["result"] == nil {
		t.Fatalf("no answer to initialize: %v", got)
	}
	null := got["null"]
	if null == nil || errorCode(null) != -32600 {
		t.Errorf("a JSON string was not answered as an invalid request (-32600): %v", null)
	}
	if prev, _ := null["previous"].(map[string]any); prev == nil || errorCode(prev) != -32700 {
		t.Errorf("a line cut short was not answered as a parse error (-32700): %v", null)
	}
	if errorCode(got["3"]) != -32600 {
		t.Errorf("a request of another JSON-RPC version was not answered as an invalid request with its id: %v", got["3"])
	}
	if got["4"]["result"] == nil {
		t.Errorf("the server stopped at a malformed line: no answer to the request after it: %v", got)
	}
}

// A line longer than the largest message is answered with an error and
// skipped; the next line is read.
func TestOversizedLineIsSkipped(t *testing.T) {
	o, _ := setup(t, RoleWorkshop, nil)
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fetch_knowledge","arguments":{"key_or_id":"` + strings.Repeat("x", MaxMessage) + `"}}}`
	got := serve(t, o, initialize, initialized, huge, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if errorCode(got["null"]) != -32600 || !strings.Contains(fmt.Sprint(got["null"]), "larger than") {
		t.Errorf("an oversized line was not answered with an error: %v", got["null"])
	}
	if got["3"]["result"] == nil {
		t.Errorf("the server stopped at an oversized line: no answer to the request after it: %v", got)
	}
}

// The client closes the server's input right after its last requests:
// every one of them is answered before the server exits.
func TestInputClosedRightAfterRequests(t *testing.T) {
	o, _ := setup(t, RoleWorkshop, nil)
	for round := range 5 {
		lines := []string{initialize, initialized}
		for i := range 5 {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"save_knowledge","arguments":{"key":"k-%d-%d","summary":"a rule","content":"x","category":"convention"}}}`, 10+i, round, i))
		}
		got := serve(t, o, lines...)
		for i := range 5 {
			if r, _ := got[fmt.Sprint(10+i)]["result"].(map[string]any); r == nil || r["isError"] == true {
				t.Fatalf("round %d: request %d was not answered before the server exited: %v", round, 10+i, got)
			}
		}
	}
}
