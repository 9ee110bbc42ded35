package textcase

import "testing"

func TestCase(t *testing.T) {
	for _, c := range []struct{ in, lower, upper string }{
		{"Always run make migrate", "always run make migrate", "Always run make migrate"},
		{"API keys stay in .env", "API keys stay in .env", "API keys stay in .env"},
		{"Écris en français", "écris en français", "Écris en français"},
		{"всегда читай лог", "всегда читай лог", "Всегда читай лог"},
		{"提交前运行测试", "提交前运行测试", "提交前运行测试"},
		{"config/settings.yaml is generated", "config/settings.yaml is generated", "config/settings.yaml is generated"},
		{"package.json holds the version", "package.json holds the version", "package.json holds the version"},
		{"user_id is a UUID", "user_id is a UUID", "user_id is a UUID"},
		{"e.g. use pnpm", "e.g. use pnpm", "E.g. use pnpm"},
		{"i.e. never push", "i.e. never push", "I.e. never push"},
		{"node.js is pinned", "node.js is pinned", "node.js is pinned"},
		{"run it. then stop", "run it. then stop", "Run it. then stop"},
		{"", "", ""},
	} {
		if got := LowerFirst(c.in); got != c.lower {
			t.Errorf("LowerFirst(%q) = %q, want %q", c.in, got, c.lower)
		}
		if got := UpperFirst(c.in); got != c.upper {
			t.Errorf("UpperFirst(%q) = %q, want %q", c.in, got, c.upper)
		}
	}
}
