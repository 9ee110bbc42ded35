package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzScanUses reads any transcript content: uses are found or not, never
// a panic, and every use names a kind and a name.
func FuzzScanUses(f *testing.F) {
	f.Add([]byte(`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"<command-message>x</command-message>\n<command-name>/self-learning:run-it</command-name>"}}`))
	f.Add([]byte(`{"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Skill","input":{"skill":"p:q"}},{"type":"text","text":"see ADR-0003 and PF-12"}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":"not an object"}]}}` + "\n" + `{"type":"user","message":{"content":[{"type":"text","text":"<command-name></command-name>"}]}}`))
	f.Add([]byte("\x00\xff{\"type\":\"user\",\"message\":{\"content\":\"<command-name>/\xff</command-name>\"}}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		uses, err := ScanUses([]string{p})
		if err != nil {
			t.Fatal(err) // bad lines are skipped, never an error
		}
		for _, u := range uses {
			if u.Kind == "" {
				t.Fatalf("use without a kind: %+v", u)
			}
		}
		Match(uses, []Artifact{{ID: "obs_a", Type: "workflow", Path: ".claude/commands/self-learning/run-it.md"}, {ID: "obs_b", Type: "pitfall", Anchor: "PF-012"}}, "s")
	})
}
