package knowledge

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/words"
)

// A command trigger an entry writes names any program, as it was run (a
// cmdlet, a tool no list knows), and a Bash call that runs it matches;
// another program does not. Written beside tools, it narrows them as a
// written file does.
func TestWrittenCommandTrigger(t *testing.T) {
	rg := entryItem(t, "---\nsummary: a pattern that starts with a dash is read as a flag\ntriggers:\n  commands: [rg, Get-Content]\n---\n")
	apply := entryItem(t, "---\nsummary: review the plan first\ntriggers:\n  tools: [Bash]\n  commands: [terraform apply]\n---\n")
	bash := func(cmd string) *Call {
		return &Call{Tool: "Bash", Commands: Segments(cmd), Words: words.NewHaystack(cmd)}
	}
	opts := Options{Weights: DefaultWeights, Threshold: 0.5, MaxItems: 3}
	for _, tc := range []struct {
		item *Item
		cmd  string
		want bool
	}{
		{rg, `rg "- \[x\]" specs/002/tasks.md`, true},
		{rg, `Get-Content "src/app/(dashboard)/page.tsx"`, true},
		{rg, `grep -n TODO tasks.md`, false},
		{apply, `cd infra && terraform apply -auto-approve`, true},
		{apply, `ls -la`, false},
	} {
		b := Score(tc.item, bash(tc.cmd), opts.Weights)
		if got := b.Serve(bash(tc.cmd), opts.Threshold); got != tc.want {
			t.Errorf("%s on %q: served %v, want %v (%+v)", tc.item.Title, tc.cmd, got, tc.want, b)
		}
	}
	for _, bad := range []string{"--force", "", "$(rm -rf x)"} {
		_, err := ParseEntry("x.md", []byte("---\nsummary: s\ntriggers:\n  commands: [\""+bad+"\"]\n---\n"))
		if err == nil || !strings.Contains(err.Error(), "x.md:4: triggers.commands") {
			t.Errorf("commands [%q]: got %v, want an error naming x.md:4", bad, err)
		}
	}
}
