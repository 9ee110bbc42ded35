package hookcmd

import "testing"

// The calls of every prompt and tool call, and the status line, keep the
// signals' default effect; whatever can start a command (Stop's gates) or
// run for long (session start's reconcile, the worker's start, the
// maintenance commands) ends what it started first.
func TestStartsNothing(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"pre-tool-use"}, true},
		{[]string{"post-tool-use"}, true},
		{[]string{"user-prompt-submit"}, true},
		{[]string{"hook", "pre-tool-use"}, true},
		{[]string{"codex", "pre-tool-use"}, true},
		{[]string{"hud", "--stdin"}, true},
		{[]string{"stop"}, false},
		{[]string{"codex", "stop"}, false},
		{[]string{"session-start"}, false},
		{[]string{"session-end"}, false},
		{[]string{"render-ready"}, false},
		{[]string{"reconcile"}, false},
		{[]string{"pre-tool-use", "--help"}, false},
		{[]string{"codex"}, false},
		{nil, false},
	} {
		if got := startsNothing(c.args); got != c.want {
			t.Errorf("startsNothing(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
