package agentver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"codex-cli 0.123.0":   "0.123.0",
		"2.1.8 (Claude Code)": "2.1.8",
		"1.0.48":              "1.0.48",
		"GitHub Copilot CLI 1.0.79-9.\nRun 'copilot update'": "1.0.79",
		"0.26":                 "0.26.0",
		"v0.25.1":              "0.25.1",
		"1.7.52\n9a1b2c3\nx64": "1.7.52",
	} {
		v, ok := Parse(in)
		if !ok || v.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, v, ok, want)
		}
	}
	for _, in := range []string{"", "codex-cli", "build 7", "command not found"} {
		if v, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %v: not a version", in, v)
		}
	}
	if !MustParse("2.1.8").Less(MustParse("2.1.9")) || !MustParse("0.99.0").Less(MustParse("0.124.0")) || MustParse("1.0.49").Less(MustParse("1.0.49")) {
		t.Error("Less compares numbers, not text")
	}
}

// TestTable: every row names a source and a fix, and a version the
// table's own parser reads.
func TestTable(t *testing.T) {
	for _, g := range Gaps {
		if g.Source == "" || g.Fix == "" || g.Lost == "" || g.Agent == "" {
			t.Errorf("%+v: every row names what is lost, the fix and its source", g)
		}
		if g.Since != "" {
			MustParse(g.Since)
		}
	}
}

func TestDrops(t *testing.T) {
	for _, c := range []struct {
		agent, event, version string
		want                  bool
	}{
		{"claude", "PreToolUse", "2.1.8", true},
		{"claude", "PreToolUse", "2.1.9", false},
		{"claude", "PostToolUse", "2.1.8", false},
		{"codex", "PreToolUse", "0.128.0", true},
		{"codex", "PreToolUse", "0.129.0", false},
		{"codex", "PostToolUse", "0.120.0", false}, // a hook that runs was switched on
		{"copilot", "postToolUse", "1.0.48", true},
		{"copilot", "postToolUse", "1.0.49", false},
		{"copilot", "userPromptSubmitted", "1.0.64", true},
		{"copilot", "sessionStart", "1.0.10", true},
		{"cursor", "sessionStart", "0.1.0", false}, // which versions is not known: never acted on
		{"claude", "PreToolUse", "", false},        // unknown: served as always
	} {
		v, _ := Parse(c.version)
		if got := Drops(c.agent, c.event, v); got != c.want {
			t.Errorf("Drops(%s, %s, %q) = %v, want %v", c.agent, c.event, c.version, got, c.want)
		}
	}
}

// fake answers each command with a line, an error, or by waiting for its
// context to end.
func fake(out map[string]string, calls *[]string) Runner {
	return func(ctx context.Context, name string, args ...string) (string, error) {
		*calls = append(*calls, name+" "+strings.Join(args, " "))
		s, ok := out[name]
		switch {
		case !ok:
			return "", errors.New("not found")
		case s == "hang":
			<-ctx.Done()
			return "", ctx.Err()
		}
		return s, nil
	}
}

func TestReadCommand(t *testing.T) {
	var calls []string
	r := Reader{Run: fake(map[string]string{"codex": "codex-cli 0.123.0\n", "claude": "2.1.8 (Claude Code)\n", "gemini": "hang"}, &calls), Timeout: 50 * time.Millisecond}
	if f := r.Read(context.Background(), "codex"); f.Version.String() != "0.123.0" || f.From != "codex --version" {
		t.Errorf("codex: %+v", f)
	}
	if f := r.Read(context.Background(), "claude"); f.Version.String() != "2.1.8" {
		t.Errorf("claude: %+v", f)
	}
	start := time.Now()
	if f := r.Read(context.Background(), "gemini"); f.Version.Known() || f.From != "" {
		t.Errorf("a command that hangs gives no version: %+v", f)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("the timeout was not kept: %v", time.Since(start))
	}
	if f := r.Read(context.Background(), "copilot"); f.Version.Known() {
		t.Errorf("no copilot: %+v", f)
	}
}

// TestReadSessionFiles: with no command, the newest session file's
// version, in the shapes upstream writes (testdata/agents/README.md).
func TestReadSessionFiles(t *testing.T) {
	files := map[string][]string{
		"codex":   {"../../testdata/agents/codex-rollout-0.123.0.jsonl"},
		"copilot": {"../../testdata/agents/copilot-events-1.0.48.jsonl"},
		"claude":  {"../../testdata/transcripts/d-kimuson+claude-code-viewer/mock-global-claude-dir__projects__sample-project__1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"},
		"gemini":  {"../../testdata/agents/README.md"},
	}
	var calls []string
	r := Reader{Run: fake(nil, &calls), Sessions: func(agent string) []string { return files[agent] }}
	for agent, want := range map[string]string{"codex": "0.123.0", "copilot": "1.0.48", "claude": "1.0.98", "gemini": "unknown"} {
		f := r.Read(context.Background(), agent)
		if f.Version.String() != want {
			t.Errorf("%s: %+v, want %s", agent, f, want)
		}
		if want != "unknown" && f.From != filepath.Clean(f.From) && f.From != files[agent][0] {
			t.Errorf("%s: read from %q", agent, f.From)
		}
	}
	if len(calls) != 4 {
		t.Errorf("the command is asked first: %v", calls)
	}
}

func TestSays(t *testing.T) {
	found := func(s string) Found { v, _ := Parse(s); return Found{Version: v, From: "x --version"} }
	d, fix, level := Assess("codex", found("0.123.0"), nil).Says()
	if level != Nothing || !strings.Contains(d, "no hook runs") || !strings.Contains(fix, "codex_hooks = true") || !strings.Contains(fix, "0.129.0") {
		t.Errorf("codex 0.123 without the flag: %v %q %q", level, d, fix)
	}
	d, fix, level = Assess("codex", found("0.123.0"), func(Gap) bool { return true }).Says()
	if level != Partial || strings.Contains(d, "no hook runs") || fix != "upgrade Codex to 0.129.0 or later" {
		t.Errorf("codex 0.123 with the flag: %v %q %q", level, d, fix)
	}
	d, fix, level = Assess("copilot", found("1.0.48"), nil).Says()
	if level != Partial || fix != "upgrade Copilot CLI to 1.0.65 or later" || !strings.Contains(d, "postToolUse") {
		t.Errorf("copilot 1.0.48: %v %q %q", level, d, fix)
	}
	d, fix, level = Assess("claude", found("2.1.101"), nil).Says()
	if level != Fine || fix != "" || !strings.HasSuffix(d, "receives everything devlearn gives it") {
		t.Errorf("claude 2.1.101: %v %q %q", level, d, fix)
	}
	// Before the release known to run PostToolUseFailure: a failure's fix
	// at its error is lost, and said to be lost there only (it is not
	// served at a later event); the fix is the release that no longer
	// skips a settings file naming an event it does not know.
	d, fix, level = Assess("claude", found("2.1.12"), nil).Says()
	if level != Partial || fix != "upgrade Claude Code to 2.1.101 or later" || !strings.Contains(d, "PostToolUseFailure") || strings.Contains(d, "serves it at the next event") {
		t.Errorf("claude 2.1.12: %v %q %q", level, d, fix)
	}
	d, _, level = Assess("claude", Found{}, nil).Says()
	if level != Fine || !strings.HasPrefix(d, "version unknown") || !strings.Contains(d, "before 2.1.9") {
		t.Errorf("claude unknown: %v %q", level, d)
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "devlearn")
	if err := Save(dir, state, map[string]Found{"codex": {}}, "2026-05-10T09:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if Load(state) != nil {
		t.Error("nothing known: no file")
	}
	v, _ := Parse("2.1.8")
	if err := Save(dir, state, map[string]Found{"claude": {Version: v, From: "claude --version"}}, "2026-05-10T09:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if err := Save(dir, state, map[string]Found{"codex": {Version: MustParse("0.128.0"), From: "codex --version"}}, "2026-05-10T09:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if Cached(state, "claude").String() != "2.1.8" || Cached(state, "codex").String() != "0.128.0" {
		t.Errorf("cache: %+v", Load(state))
	}
	if err := Save(dir, state, map[string]Found{"claude": {}}, "2026-05-10T09:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if Cached(state, "claude").Known() || !Cached(state, "codex").Known() {
		t.Errorf("an unknown version drops the agent's entry, and only it: %+v", Load(state))
	}
}
