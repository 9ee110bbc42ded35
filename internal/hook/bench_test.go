package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/worker"
)

// benchRoot is a project with n entries, one of which applies to a Write
// of src/module5/x.go, and a warm cache whose folders are old enough to be
// trusted (nothing racy).
func benchRoot(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	dir := filepath.Join(root, ".memory", "knowledge", "entries")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tools := []string{"Write", "Edit", "Bash", "MultiEdit", "NotebookEdit"}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}
	for i := 0; i < n; i++ {
		prio := []string{"HIGH", "MEDIUM", "MEDIUM", "LOW"}[i%4]
		files := fmt.Sprintf("src/module%d/**", i%97+10) // no entry but the one below matches module5
		if i == n/2 {
			prio, files = "HIGH", "src/module5/**"
		}
		body := fmt.Sprintf("---\nsummary: Lesson %d about %s\npriority: %s\ntriggers:\n  tools: [%s, %s]\n  files: [%q]\n  actions: [%s %s]\n---\nWhen touching %s, remember lesson %d.\n",
			i, files, prio, tools[i%5], tools[(i+2)%5], files, words[i%10], words[(i/10)%10], files, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("lesson-%05d.md", i)), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
	return root
}

// benchInput is the i-th Write of a session: each to a new file of
// module 5, so each is served (once per session and file).
func benchInput(root string, i int) []byte {
	in, _ := json.Marshal(map[string]any{
		"session_id": "8f6c1d2e-1234-4abc-9def-0123456789ab", "transcript_path": "/tmp/t.jsonl", "cwd": root,
		"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": fmt.Sprintf("toolu_%d", i),
		"tool_input": map[string]any{"file_path": filepath.Join(root, fmt.Sprintf("src/module5/f%d.go", i)), "content": "package x\n"},
	})
	return in
}

// BenchmarkPreToolUse is the hook's own work, in process: find the project,
// load the config, read the cache, score every entry, claim, record and
// print. Each call writes a new file, so every call serves.
func BenchmarkPreToolUse(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			root := benchRoot(b, n)
			env := Env{Dir: root, Now: time.Now}
			Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var out bytes.Buffer
				Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, i)), &out)
				if !bytes.Contains(out.Bytes(), []byte("src/module5/**")) {
					b.Fatalf("nothing served: %q", out.String())
				}
			}
		})
	}
}

// BenchmarkPreToolUseBash is a Bash call among 1,000 entries: its line cut
// into commands, each command's words read for a path outside the project
// (a parent, the home folder, another absolute path), every entry scored;
// the folder it goes to holds the one entry that applies.
// Each call is a session of its own, so what it serves is never held back
// as already given.
func BenchmarkPreToolUseBash(b *testing.B) {
	root := benchRoot(b, 1000)
	env := Env{Dir: root, Now: time.Now, UserHome: "/home/dev"}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	cmd := `cd src/module5 && PGPASSWORD=x timeout 30 alpha bravo ../module6/f.go ~/notes /tmp/out > /dev/null 2>&1; git add -A && git commit -m "wip"`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, _ := json.Marshal(map[string]any{
			"session_id": fmt.Sprintf("8f6c1d2e-1234-4abc-9def-%012d", i), "cwd": root, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%d", i), "tool_input": map[string]any{"command": cmd},
		})
		var out bytes.Buffer
		Run(context.Background(), PreToolUse, env, bytes.NewReader(in), &out)
		if !bytes.Contains(out.Bytes(), []byte("lesson-00500")) {
			b.Fatalf("nothing served: %q", out.String())
		}
	}
}

// BenchmarkPreToolUseServed is a Write of a file whose knowledge was
// already served in the session: the usual case, where nothing is new.
func BenchmarkPreToolUseServed(b *testing.B) {
	root := benchRoot(b, 1000)
	env := Env{Dir: root, Now: time.Now}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, 0)), io.Discard)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		Run(context.Background(), PreToolUse, env, bytes.NewReader(benchInput(root, 0)), &out)
		if out.Len() > 0 {
			b.Fatalf("served twice: %q", out.String())
		}
	}
}

// BenchmarkPreToolUseLargeWrite is a Write of a 1 MB file: its content
// is never matched, so it should cost no more than reading it once.
func BenchmarkPreToolUseLargeWrite(b *testing.B) {
	root := benchRoot(b, 1000)
	env := Env{Dir: root, Now: time.Now}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	content := strings.Repeat("release the deploy of package x\n", 1<<20/32)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		in, _ := json.Marshal(map[string]any{
			"session_id": "8f6c1d2e-1234-4abc-9def-0123456789ab", "cwd": root, "hook_event_name": "PreToolUse",
			"tool_name": "Write", "tool_use_id": fmt.Sprintf("toolu_%d", i),
			"tool_input": map[string]any{"file_path": filepath.Join(root, fmt.Sprintf("src/module5/f%d.go", i)), "content": content},
		})
		b.StartTimer()
		var out bytes.Buffer
		Run(context.Background(), PreToolUse, env, bytes.NewReader(in), &out)
		if !bytes.Contains(out.Bytes(), []byte("src/module5/**")) {
			b.Fatalf("nothing served: %q", out.String())
		}
	}
}

// sessionEndRoot is a project set up for devlearn with this config.
func sessionEndRoot(b *testing.B, config string) string {
	root := benchRoot(b, 0)
	if err := os.WriteFile(filepath.Join(root, ".memory", "learning.json"), []byte(config), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// sessionEndInput is SessionEnd's input for session i.
func sessionEndInput(root string, i int) []byte {
	id := fmt.Sprintf("8f6c1d2e-1234-4abc-9def-%012d", i)
	in, _ := json.Marshal(map[string]any{
		"session_id": id, "transcript_path": filepath.Join(root, "no-such-dir", id+".jsonl"), "cwd": root,
		"hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "permission_mode": "default",
	})
	return in
}

// emptySpool removes the spooled sessions (the folder stays, as it does
// once a clone has spooled one session).
func emptySpool(b *testing.B, root string) {
	p, err := project.Find(root)
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(worker.For(p).Dir, "spool")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPostToolUseFailure is a Bash call that failed with an error a
// learned failure recorded, among 1,000 entries: the draft is read again
// and its error compared, then served. Each call is a session of its own,
// so every call serves.
func BenchmarkPostToolUseFailure(b *testing.B) {
	root := benchRoot(b, 1000)
	dir := filepath.Join(root, filepath.FromSlash(project.ObservedDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	draft := "---\nkey: obs-0123456789ab\nsummary: '`curl` fails with \"curl: (7) Failed to connect to localhost port 8080 after 1 ms: Connection refused\": use `https://api.example.com/health` instead of `http://localhost:8080/health`.'\nkind: warning\npriority: MEDIUM\nstatus: draft\nsource: transcript\nobservation: obs_0123456789ab\ntags: [observed]\ntriggers:\n  commands: [curl]\n---\nSeen in 1 session: a command failed and this is what made it pass.\n\n- area: curl\n- issue: `curl -s http://localhost:8080/health` fails with \"curl: (7) Failed to connect to localhost port 8080 after 1 ms: Connection refused\"\n"
	if err := os.WriteFile(filepath.Join(dir, "obs-0123456789ab.md"), []byte(draft), 0o644); err != nil {
		b.Fatal(err)
	}
	env := Env{Dir: root, Now: time.Now}
	Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, _ := json.Marshal(map[string]any{
			"session_id": fmt.Sprintf("8f6c1d2e-1234-4abc-9def-%012d", i), "cwd": root, "hook_event_name": "PostToolUseFailure",
			"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%d", i), "tool_input": map[string]any{"command": `curl -s "$API/health"`},
			"error": "Exit code 7\ncurl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server", "is_interrupt": false,
		})
		var out bytes.Buffer
		Run(context.Background(), PostToolUseFailure, env, bytes.NewReader(in), &out)
		if !bytes.Contains(out.Bytes(), []byte("obs-0123456789ab")) {
			b.Fatalf("nothing served: %q", out.String())
		}
	}
}
