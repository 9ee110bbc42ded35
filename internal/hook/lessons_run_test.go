package hook

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// A lesson kept earlier in the same run is found by a later one: the
// second request of a prompt that restates the first is known, not made
// again.
func TestSecondRequestOfAPromptFindsTheFirst(t *testing.T) {
	p := newProj(t)
	out := p.prompt("s1", "Remember: never run git push yourself. And remember: never run git push on your own, the person pushes")
	ctx := decode(t, out).AdditionalContext
	if strings.Count(ctx, "saved as an active project entry") != 1 || strings.Count(ctx, "already a project entry") != 1 {
		t.Fatalf("notes: %q (log %q)", ctx, p.log())
	}
	if got := p.entries(); len(got) != 1 {
		t.Fatalf("entries: %v", keys(got))
	}
}

// A block that restates an earlier block of the same message counts the
// session on the earlier one, once, and escalates nothing.
func TestSecondBlockOfAMessageFindsTheFirst(t *testing.T) {
	p := newProj(t)
	second := strings.Replace(pushBlock, "label: Never run git push; the person pushes after review", "label: Never run git push yourself; the person pushes after review", 1)
	p.stop("s1", pushBlock+"\n\n"+second[strings.Index(second, "[PROCESS_KNOWLEDGE]"):])
	got := p.entries()
	if len(got) != 2 {
		t.Fatalf("entries: %v (log %q)", keys(got), p.log())
	}
	for _, e := range got {
		if e.Status != knowledge.StatusDraft || e.Priority == "CRITICAL" {
			t.Fatalf("%+v", e)
		}
	}
}
