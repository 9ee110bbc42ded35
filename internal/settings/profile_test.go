package settings

import (
	"strings"
	"testing"
)

var flat = Profile{
	Agent: "cursor", Flat: true, Version: true,
	Hooks: []Hook{
		{Event: "sessionStart", Sub: "session-start", Timeout: 10},
		{Event: "postToolUse", Sub: "pre-tool-use", Matcher: "bash", HasMatcher: true, Timeout: 5},
		{Event: "postToolUse", Sub: "post-tool-use", Matcher: "edit", HasMatcher: true, Timeout: 5},
	},
	CommandKey: "bash", TimeoutKey: "timeoutSec",
}

// A flat file (commands listed per event) keeps the person's entries,
// gains a version, holds devlearn's once whatever the number of runs, and
// gets back to the person's alone.
func TestFlatProfile(t *testing.T) {
	mine := `{"hooks": {"postToolUse": [{"bash": "./fmt.sh"}]}}`
	f, err := ParseAs("h.json", []byte(mine), flat)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Enable() || f.Enable() {
		t.Fatal("Enable: want a change, then none")
	}
	if p := f.Problems(); len(p) != 0 {
		t.Fatalf("problems after Enable: %v\n%s", p, f.Bytes())
	}
	again, err := ParseAs("h.json", f.Bytes(), flat)
	if err != nil || !again.Registered() {
		t.Fatalf("re-read: %v, %v", err, again.Problems())
	}
	s := string(f.Bytes())
	for _, want := range []string{`"version": 1`, `"./fmt.sh"`, `"timeoutSec": 5`, `"matcher": "bash"`, Guard + "devlearn hook cursor pre-tool-use || true"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in\n%s", want, s)
		}
	}
	if n := len(f.Disable()); n != 3 {
		t.Errorf("Disable removed %d, want 3", n)
	}
	if f.Empty() || !strings.Contains(string(f.Bytes()), "./fmt.sh") || f.Any() {
		t.Errorf("after Disable:\n%s", f.Bytes())
	}
}

// Two hooks on one event are two registrations, each checked on its own;
// a command of another agent, or Claude Code's, is not this agent's.
func TestProblemsPerSubcommand(t *testing.T) {
	f, _ := ParseAs("h.json", nil, flat)
	f.Enable()
	f2, _ := ParseAs("h.json", []byte(strings.Replace(string(f.Bytes()), "hook cursor post-tool-use", "hook cursor post-tool-use --old", 1)), flat)
	if p := f2.Problems(); len(p) != 1 || !strings.Contains(p[0], "not devlearn's current command") {
		t.Errorf("problems %v", p)
	}
	named := Profile{Agent: "gemini", Named: true, TimeoutScale: 1000, Hooks: []Hook{{Event: "SessionStart", Sub: "session-start", Timeout: 10}}}
	g, _ := ParseAs("s.json", []byte(`{"theme":"x"}`), named)
	g.Enable()
	if s := string(g.Bytes()); !strings.Contains(s, `"name": "devlearn-session-start"`) || !strings.Contains(s, `"timeout": 10000`) {
		t.Errorf("gemini entry:\n%s", s)
	}
	if !g.Registered() {
		t.Errorf("problems %v", g.Problems())
	}
	if (Profile{Agent: "codex"}).sub(Command("stop")) != "" || (Profile{Agent: "codex"}).sub(flat.Command("stop")) != "" {
		t.Error("another agent's command is read as Codex's")
	}
}
