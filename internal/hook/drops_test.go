package hook

import (
	"strings"
	"testing"
)

// TestDroppedEventServesLater: where the installed agent drops
// pre-tool-use's context (Drops), Claude Code still gets the question an
// entry asks (it goes to the person), no context, and nothing is recorded
// as served; post-tool-use then serves the knowledge, the question as
// context, and records it there.
func TestDroppedEventServesLater(t *testing.T) {
	p := newProj(t)
	p.entry("prod-config", "summary: Production config changes need a second pair of eyes\npriority: HIGH\nask: true\ntriggers:\n  tools: [Write, Edit]\n  files: [\"deploy/prod/**\"]", "Ask the on-call first.\n")
	p.env.Drops = func(stateDir, event string) bool { return event == PreToolUse }
	sp := decode(t, p.run(PreToolUse, p.write("deploy/prod/app.yaml", "s")))
	if sp.PermissionDecision != "ask" || sp.AdditionalContext != "" {
		t.Fatalf("at the dropped event: %+v", sp)
	}
	if served, _ := SessionOf(mustFind(t, p.root), "s").ServedIn(); len(served) != 0 {
		t.Fatalf("recorded as served where it was dropped: %+v", served)
	}
	post := p.write("deploy/prod/app.yaml", "s")
	post["hook_event_name"] = "PostToolUse"
	sp = decode(t, p.run(PostToolUse, post))
	if sp.HookEventName != "PostToolUse" || sp.PermissionDecision != "" || !strings.Contains(sp.AdditionalContext, "Ask the on-call first.") || !strings.Contains(sp.AdditionalContext, "prod-config asks for a check") {
		t.Fatalf("after the call: %+v", sp)
	}
	served, err := SessionOf(mustFind(t, p.root), "s").ServedIn()
	if err != nil || len(served) != 1 || served[0].Event != "PostToolUse" || served[0].ID != "prod-config" {
		t.Fatalf("served: %+v, %v", served, err)
	}
	// Another agent's adapter would turn the question into context: it goes too.
	if o := withoutContext(&Output{HookSpecificOutput: Specific{HookEventName: "PreToolUse", PermissionDecision: "ask", PermissionDecisionReason: "r", AdditionalContext: "c"}}, false); o != nil {
		t.Fatalf("left for another agent: %+v", o)
	}
}
