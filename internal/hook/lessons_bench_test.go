package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/redact"
)

// BenchmarkUserPromptSubmit is the prompt hook with 1000 entries: an
// ordinary prompt (the detector says no: the usual case), a prompt that
// may be a correction (the nudge, and the entries it may be about read to
// escalate one), and a request with a server's log pasted into it (every
// line read for what a program printed).
func BenchmarkUserPromptSubmit(b *testing.B) {
	log := "the items page stays empty, here is the dev server:\n" + strings.Repeat(" GET /items?page=1 200 in 329ms (compile: 9ms, proxy.ts: 20ms, render: 300ms)\n    at ItemsPage (src/app/items/page.tsx:19:33)\n", 300)
	for _, tc := range []struct{ name, prompt string }{
		{"ordinary", "add a --json flag to the list command and print the totals at the end"},
		{"correction", "no, that's not what I asked: keep the old flag and add the new one beside it"},
		{"pasted-log", log},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := benchRoot(b, 1000)
			env := Env{Dir: root, Now: time.Now, Redact: redact.Text}
			Run(context.Background(), SessionStart, env, bytes.NewReader([]byte(`{"cwd":"`+root+`"}`)), io.Discard)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s%d", i%50), "cwd": root, "hook_event_name": "UserPromptSubmit", "prompt": tc.prompt})
				var out bytes.Buffer
				Run(context.Background(), UserPromptSubmit, env, bytes.NewReader(in), &out)
				if nudged := bytes.Contains(out.Bytes(), []byte("may correct you")); nudged != (tc.name == "correction") {
					b.Fatalf("%s: %q", tc.name, out.String())
				}
			}
		})
	}
}
