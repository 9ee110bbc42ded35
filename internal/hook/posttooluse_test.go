package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/task"
)

// directivesRoot is a project with directives at the root and in pkg/a,
// folders old enough for their stamps to be trusted.
func directivesRoot(tb testing.TB) string {
	tb.Helper()
	root := tb.TempDir()
	for rel, data := range map[string]string{
		".git/HEAD":                      "ref: refs/heads/main\n",
		".memory/learning.json":          "{}",
		".directives/AGENTS.md":          "Root rule.\n",
		"pkg/a/.directives/AGENTS.md":    "Package a rule.\n",
		"pkg/a/.directives/TESTING.md":   "go test ./pkg/a\n",
		"pkg/a/.directives/CHECKLIST.md": "- [ ] vet passes\n",
		"pkg/a/b/c/x.go":                 "package c\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return root
}

func postInput(root, session, tool string, i int) []byte {
	in, _ := json.Marshal(map[string]any{
		"session_id": session, "cwd": root, "hook_event_name": "PostToolUse", "tool_name": tool,
		"tool_use_id":   fmt.Sprintf("toolu_%d", i),
		"tool_input":    map[string]any{"file_path": filepath.Join(root, "pkg/a/b/c/x.go")},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"content": strings.Repeat("x", 4096)}},
	})
	return in
}

func runHook(tb testing.TB, event, root string, in []byte) string {
	var out bytes.Buffer
	Run(context.Background(), event, Env{Dir: root, Now: time.Now}, bytes.NewReader(in), &out)
	return out.String()
}

// Each directive once per session; the checklist gate blocks a session
// that changed a file under it, once, and Stop's output has no
// hookSpecificOutput (Claude Code reads decision and reason).
func TestPostToolUseOnceAndGate(t *testing.T) {
	root := directivesRoot(t)
	first := runHook(t, PostToolUse, root, postInput(root, "s", "Read", 1))
	for _, want := range []string{`"hookEventName":"PostToolUse"`, "Root rule.", "Package a rule.", "pkg/a/.directives/TESTING.md (how to test here)", "devlearn directives check --session s"} {
		if !strings.Contains(first, want) {
			t.Fatalf("lacks %q:\n%s", want, first)
		}
	}
	if again := runHook(t, PostToolUse, root, postInput(root, "s", "Read", 2)); again != "" {
		t.Fatalf("served twice: %s", again)
	}
	stop := []byte(`{"session_id":"s","cwd":"` + root + `","stop_hook_active":false}`)
	if out := runHook(t, Stop, root, stop); out != "" {
		t.Fatalf("blocked a session that changed nothing: %s", out)
	}
	runHook(t, PostToolUse, root, postInput(root, "s", "Edit", 3))
	var o map[string]any
	if err := json.Unmarshal([]byte(runHook(t, Stop, root, stop)), &o); err != nil || o["decision"] != "block" || o["hookSpecificOutput"] != nil {
		t.Fatalf("%v %v", o, err)
	}
	active := []byte(`{"session_id":"s","cwd":"` + root + `","stop_hook_active":true}`)
	if out := runHook(t, Stop, root, active); strings.Contains(out, "block") || !strings.Contains(out, "systemMessage") {
		t.Fatalf("looped: %s", out)
	}
}

// BenchmarkPostToolUse is the hook after every tool call, in process:
// "seen" is a session that has been given every directive (the common
// case: lock, read the session log, a stat a level, nothing printed);
// "new-session" gives them all, in full, each call.
func BenchmarkPostToolUse(b *testing.B) {
	root := directivesRoot(b)
	b.Run("seen", func(b *testing.B) {
		runHook(b, PostToolUse, root, postInput(root, "bench-seen", "Read", 0))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if out := runHook(b, PostToolUse, root, postInput(root, "bench-seen", "Read", i)); out != "" {
				b.Fatal(out)
			}
		}
	})
	// "seen-task": the same with a task at implement (DEVLEARN_TASK),
	// whose skill's declaration is read each call.
	env := taskAt(b, root, "bench-task", "implement")
	b.Run("seen-task", func(b *testing.B) {
		runHookEnv(b, PostToolUse, env, postInput(root, "bench-seen-task", "Read", 0))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if out := runHookEnv(b, PostToolUse, env, postInput(root, "bench-seen-task", "Read", i)); out != "" {
				b.Fatal(out)
			}
		}
	})
	sessions := 0 // the benchmark function runs more than once: a session is new each call
	b.Run("new-session", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sessions++
			if out := runHook(b, PostToolUse, root, postInput(root, fmt.Sprintf("bench-%d", sessions), "Read", i)); !strings.Contains(out, "Root rule.") {
				log, _ := os.ReadFile(filepath.Join(root, ".git/devlearn/logs/hooks.log"))
				b.Fatalf("%q\n%s", out, log)
			}
		}
	})
}

// taskAt starts task name at stage in root, and returns the hook's
// environment of a session working on it, with its own devlearn home.
func taskAt(tb testing.TB, root, name, stage string) Env {
	tb.Helper()
	p, err := project.Find(root)
	if err != nil {
		tb.Fatal(err)
	}
	store := &task.Store{Proj: p, Config: config.Default(), Now: time.Now(), Src: "test"}
	if _, err := store.Start(context.Background(), name, task.StartOptions{Stage: stage}); err != nil {
		tb.Fatal(err)
	}
	return Env{Dir: root, Home: tb.TempDir(), Now: time.Now, Task: name}
}

func runHookEnv(tb testing.TB, event string, env Env, in []byte) string {
	var out bytes.Buffer
	Run(context.Background(), event, env, bytes.NewReader(in), &out)
	return out.String()
}

// A session whose task is at implement is given TESTING.md and
// CHECKLIST.md in full (the default skill declares them), with the
// checklist's command still named; the same Read without a task names
// them.
func TestPostToolUseDeclared(t *testing.T) {
	root := directivesRoot(t)
	env := taskAt(t, root, "t1", "implement")
	out := runHookEnv(t, PostToolUse, env, postInput(root, "with-task", "Read", 1))
	for _, want := range []string{"## pkg/a/.directives/TESTING.md", "go test ./pkg/a", "## pkg/a/.directives/CHECKLIST.md", "- [ ] vet passes", "devlearn directives check --session with-task"} {
		if !strings.Contains(out, want) {
			t.Fatalf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Also in force here") {
		t.Fatalf("named a declared type:\n%s", out)
	}
	env.Task = ""
	out = runHookEnv(t, PostToolUse, env, postInput(root, "no-task", "Read", 2))
	if strings.Contains(out, "go test ./pkg/a") || !strings.Contains(out, "pkg/a/.directives/TESTING.md (how to test here)") {
		t.Fatalf("without a task:\n%s", out)
	}
}
