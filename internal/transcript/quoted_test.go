package transcript

import "testing"

func TestQuotedLinesLeftOut(t *testing.T) {
	said := "## Done\n\n- **fallback機能**: 不足ファイルは古いアイコンで代替。\n- Android用アイコンは非常に複雑な命名規則。\n\nWhich PRD? e.g. `_bmad-output/planning-artifacts/prd.md`"
	for _, c := range []struct{ own, want string }{
		// the agent's lines quoted back, then the person's question
		{"fallback機能: 不足ファイルは古いアイコンで代替。\nこれはどういう意味？", "これはどういう意味？"},
		// all of it quoted: an answer picked from what the agent offered
		{"_bmad-output/planning-artifacts/prd.md", "_bmad-output/planning-artifacts/prd.md"},
		// a name or a URL repeated is pointed at, not quoted
		{"https://gogs.example.org/kim/Objective-C.git\nthis one exists", "https://gogs.example.org/kim/Objective-C.git\nthis one exists"},
		// short words any two people say
		{"Done\nnow push it", "Done\nnow push it"},
		// nothing of the agent's
		{"never push to main", "never push to main"},
	} {
		if got := unquoted(c.own, func() []byte { return []byte(said) }); got != c.want {
			t.Errorf("unquoted(%q) = %q, want %q", c.own, got, c.want)
		}
	}
	if got := unquoted("fallback機能: 不足ファイルは古いアイコンで代替。\nok", func() []byte { return nil }); got != "fallback機能: 不足ファイルは古いアイコンで代替。\nok" {
		t.Errorf("with no agent turn: %q", got)
	}
}

// Both readers leave the agent's lines the person quotes back out of the
// person's own words: the Claude Code one here, the other agents' in
// internal/agent/sessions.
func TestQuotedBackIsNotOwn(t *testing.T) {
	ch := read(t,
		user("u1", "fix the icons"),
		assistant("a1", text("Done.\n\n- **fallback**: missing files fall back to the old icon set")),
		user("u2", "fallback: missing files fall back to the old icon set\nwhy the old set?"),
	)
	if got := ch.UserSignals[1].Own; got != "why the old set?" {
		t.Errorf("own words: %q", got)
	}
}
