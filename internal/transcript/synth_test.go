package transcript

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// synth builds realistic transcript records for benchmarks and the
// flat-memory test: the shapes of Claude Code 2.x (text, thinking,
// tool_use, tool_result with toolUseResult copies, errors, progress and
// file-history records), with JSON escapes where real content has them, and
// now and then a pasted image that makes a line of about 700 KB.
type synth struct {
	rng  *rand.Rand
	n    int
	prev string
	out  []byte
}

func newSynth(seed uint64) *synth {
	return &synth{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

const synthSession = "5f0c2a9e-1b7d-4c3e-9a8f-2d6b4e1c7a90"

func (s *synth) uuid() string {
	s.n++
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", s.n, s.n&0xffff, s.n&0xfff, (s.n>>12)&0xfff, s.rng.Uint64()&0xffffffffffff)
}

func (s *synth) line(rec map[string]any) {
	u := s.uuid()
	base := map[string]any{
		"parentUuid": s.prev, "isSidechain": false, "userType": "external",
		"cwd": "/home/dev/src/project", "sessionId": synthSession, "version": "2.1.114",
		"gitBranch": "main", "uuid": u, "timestamp": "2026-03-01T10:00:00.000Z",
	}
	for k, v := range rec {
		base[k] = v
	}
	b, err := json.Marshal(base)
	if err != nil {
		panic(err)
	}
	s.out = append(append(s.out, b...), '\n')
	s.prev = u
}

var codeLines = []string{
	"package store",
	"",
	"import (\n\t\"context\"\n\t\"fmt\"\n)",
	"// Put writes v under key; it fails when the store is closed.",
	"func (s *Store) Put(ctx context.Context, key string, v []byte) error {",
	"\tif s.closed {\n\t\treturn fmt.Errorf(\"put %q: store closed\", key)\n\t}",
	"\ts.m[key] = append([]byte(nil), v...)",
	"\treturn nil\n}",
	"var re = regexp.MustCompile(`^[a-z]+\\\\d{2,}$`)",
	"\t// TODO: evict when len(s.m) > s.max",
}

func (s *synth) code(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(codeLines[s.rng.IntN(len(codeLines))])
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *synth) words(n int) string {
	w := []string{"the", "store", "closes", "before", "flush", "so", "we", "need", "a", "lock", "around", "Put", "and", "tests", "pass", "now", "—", "é", "check"}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w[s.rng.IntN(len(w))])
	}
	return b.String()
}

func (s *synth) assistant(blocks ...map[string]any) {
	s.line(map[string]any{"type": "assistant", "requestId": "req_011", "message": map[string]any{
		"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-4-5",
		"content": blocks, "stop_reason": nil,
		"usage": map[string]any{"input_tokens": 12, "output_tokens": 345, "cache_read_input_tokens": 40000},
	}})
}

func (s *synth) result(id string, content any, isErr bool, tur any) {
	s.line(map[string]any{"type": "user", "toolUseResult": tur, "message": map[string]any{
		"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isErr}},
	}})
}

// round appends one exchange: a request, reads, an edit, a failing and a
// passing test run, and the bookkeeping records Claude Code writes around
// them.
func (s *synth) round(i int) {
	prompt := any("please " + s.words(20))
	if i%25 == 24 {
		img := make([]byte, 512<<10)
		for j := range img {
			img[j] = byte(s.rng.Uint32())
		}
		prompt = []any{
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}},
			map[string]any{"type": "text", "text": "[Image #1] the layout is off, " + s.words(12)},
		}
	}
	s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	s.line(map[string]any{"type": "file-history-snapshot", "messageId": s.uuid(), "snapshot": map[string]any{"trackedFileBackups": map[string]any{"store.go": map[string]any{"backupFileName": "abc@v2", "version": 2}}}})
	file := "/home/dev/src/project/internal/store/store.go"
	body := s.code(6 << 10)
	s.assistant(
		map[string]any{"type": "thinking", "thinking": s.words(250), "signature": strings.Repeat("EqQBCkYIBxgCKkD", 40)},
		map[string]any{"type": "text", "text": "Let me look at the store first. " + s.words(40)},
		map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_r%d", i), "name": "Read", "input": map[string]any{"file_path": file}},
	)
	s.result(fmt.Sprintf("toolu_r%d", i), body, false, map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": body, "numLines": 200}})
	s.line(map[string]any{"type": "progress", "data": map[string]any{"type": "hook_progress", "hookEvent": "PostToolUse", "command": "devlearn hook post-tool-use"}, "toolUseID": "toolu_x"})
	old, neu := s.code(400), s.code(500)
	s.assistant(map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_e%d", i), "name": "Edit", "input": map[string]any{"file_path": file, "old_string": old, "new_string": neu}})
	s.result(fmt.Sprintf("toolu_e%d", i), "The file "+file+" has been updated.", false, map[string]any{"filePath": file, "oldString": old, "newString": neu, "originalFile": body, "structuredPatch": []any{map[string]any{"oldStart": 1, "lines": strings.Split(neu, "\n")}}})
	s.assistant(map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_b%d", i), "name": "Bash", "input": map[string]any{"command": "go test ./internal/store/...", "description": "Run the store tests"}})
	errText := "--- FAIL: TestPut (0.00s)\n    store_test.go:42: put \"k\": store closed\nFAIL\nexit status 1\nFAIL\tgithub.com/x/project/internal/store\t0.012s"
	s.result(fmt.Sprintf("toolu_b%d", i), errText, true, "Error: "+errText)
	s.assistant(
		map[string]any{"type": "text", "text": "The test fails because " + s.words(60)},
		map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_c%d", i), "name": "Bash", "input": map[string]any{"command": "go test ./internal/store/..."}},
	)
	s.result(fmt.Sprintf("toolu_c%d", i), []any{map[string]any{"type": "text", "text": "ok  \tgithub.com/x/project/internal/store\t0.010s"}}, false, map[string]any{"stdout": "ok", "stderr": "", "interrupted": false})
	s.assistant(map[string]any{"type": "text", "text": "Done: " + s.words(120)})
	s.line(map[string]any{"type": "system", "subtype": "turn_duration", "durationMs": 5231, "isMeta": false})
	s.line(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "todo_reminder", "content": []any{map[string]any{"content": s.words(10), "status": "pending"}}}})
}

// synthTranscript returns at least size bytes of records.
func synthTranscript(size int) []byte {
	s := newSynth(1)
	for i := 0; len(s.out) < size; i++ {
		s.round(i)
	}
	return s.out
}

// repeatReader yields chunk n times without holding more than chunk in
// memory, so a test can stream a transcript far larger than what it keeps.
type repeatReader struct {
	chunk []byte
	n     int
	off   int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.chunk[r.off:])
	r.off += k
	if r.off == len(r.chunk) {
		r.off = 0
		r.n--
	}
	return k, nil
}
