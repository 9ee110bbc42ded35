package knowledge

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// genEntries writes n entries into a project's entries folder, varied the
// way a real store is: a few tools, one file glob per module, two action
// words and one context word from a small vocabulary, every priority.
// One in fifty is CRITICAL.
func genEntries(t testing.TB, root string, n int) {
	t.Helper()
	dir := filepath.Join(root, ".memory", "knowledge", "entries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tools := []string{"Write", "Edit", "Bash", "MultiEdit", "NotebookEdit"}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
		"kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"}
	prio := []string{"HIGH", "MEDIUM", "MEDIUM", "LOW"}
	for i := 0; i < n; i++ {
		p := prio[i%len(prio)]
		if i%50 == 0 {
			p = "CRITICAL"
		}
		a := words[i%len(words)] + " " + words[(i/7)%len(words)]
		body := fmt.Sprintf(`---
key: entry-%05d
summary: Lesson %d about module %d and %s
kind: pattern
priority: %s
triggers:
  tools: [%s, %s]
  files: ["**/module%d/*.go"]
  actions: [%s]
  context: [%s]
---
When touching module %d, remember %s.
`, i, i, i%97, a, p, tools[i%5], tools[(i+2)%5], i%97, a, words[(i/3)%len(words)], i%97, a)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("entry-%05d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
