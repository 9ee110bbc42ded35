package settings

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A settings file as people leave them: tabs, odd spacing, keys in their
// own order, other tools' hooks, numbers and escapes as typed.
const odd = "{\n\t\"model\" :   \"opus\",\n\t\"env\": {\"A\":\"1\",   \"B\": \"\\u00e9\"},\n\t\"hooks\": {\n\t\t\"PreToolUse\": [ { \"matcher\": \"Bash\", \"hooks\": [ {\"type\":\"command\",\"command\":\"./lint.sh\",\"timeout\": 30} ] } ],\n\t\t\"Notification\": [{\"hooks\":[{\"type\":\"command\",\"command\":\"notify-send hi\"}]}]\n\t},\n\t\"permissions\": {\"allow\": [\"Bash(go test:*)\"], \"ratio\": 1.50}\n}\n"

func mustParse(t *testing.T, data string) *File {
	t.Helper()
	f, err := Parse("settings.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON after the edit: %v\n%s", err, b)
	}
	return m
}

func TestEnableKeepsEverythingElse(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"missing file", ""},
		{"empty object", "{}"},
		{"empty object on lines", "{\n}\n"},
		{"other keys only", `{"model": "opus"}`},
		{"hooks null", `{"hooks": null, "x": 1}`},
		{"odd formatting and other hooks", odd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.in)
			if !f.Enable() {
				t.Fatal("first enable changed nothing")
			}
			out := f.Bytes()
			m := decode(t, out)
			if !f.Registered() {
				t.Fatalf("not registered after enable: %v\n%s", f.Problems(), out)
			}
			// Again, from the bytes: nothing changes (enable twice = one entry).
			g := mustParse(t, string(out))
			if g.Enable() || string(g.Bytes()) != string(out) {
				t.Fatalf("second enable changed the file:\n%s", g.Bytes())
			}
			n := 0
			for _, e := range g.Entries() {
				if IsDevlearn(e.Command) {
					n++
				}
			}
			if n != len(Hooks) {
				t.Fatalf("%d devlearn entries, want %d", n, len(Hooks))
			}
			if tc.in == odd {
				// Bytes outside "hooks" are exactly as written.
				for _, keep := range []string{"\t\"model\" :   \"opus\",\n\t\"env\": {\"A\":\"1\",   \"B\": \"\\u00e9\"},\n", "\t\"permissions\": {\"allow\": [\"Bash(go test:*)\"], \"ratio\": 1.50}\n}\n"} {
					if !strings.Contains(string(out), keep) {
						t.Fatalf("lost %q:\n%s", keep, out)
					}
				}
				hooks := m["hooks"].(map[string]any)
				pre := hooks["PreToolUse"].([]any)
				if len(pre) != 2 || !strings.Contains(string(out), `"command": "./lint.sh"`) || hooks["Notification"] == nil {
					t.Fatalf("other hooks lost:\n%s", out)
				}
				if !strings.Contains(string(out), "\n\t\t\"SessionStart\"") {
					t.Fatalf("hooks not indented as the file is:\n%s", out)
				}
			}
		})
	}
}

func TestDisableRemovesOnlyDevlearn(t *testing.T) {
	f := mustParse(t, odd)
	f.Enable()
	g := mustParse(t, string(f.Bytes()))
	removed := g.Disable()
	if len(removed) != len(Hooks) {
		t.Fatalf("removed %d, want %d", len(removed), len(Hooks))
	}
	m := decode(t, g.Bytes())
	hooks := m["hooks"].(map[string]any)
	if len(hooks) != 2 || hooks["SessionStart"] != nil {
		t.Fatalf("hooks after disable: %v", hooks)
	}
	if g.Any() {
		t.Fatal("devlearn hook left")
	}
	if len(g.Disable()) != 0 {
		t.Fatal("second disable removed something")
	}
	// A file that only had devlearn's hooks loses the "hooks" key.
	h := mustParse(t, `{"model": "opus"}`)
	h.Enable()
	k := mustParse(t, string(h.Bytes()))
	k.Disable()
	if got := string(k.Bytes()); got != `{"model": "opus"}` {
		t.Fatalf("got %q", got)
	}
}

func TestEnableReplacesOldForms(t *testing.T) {
	in := `{"hooks": {
  "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": "devlearn hook session-start", "timeout": 10}, {"type": "command", "command": "echo mine"}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "devlearn hook subagent-stop"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "` + Command("stop") + `", "timeout": 10}]}, {"hooks": [{"type": "command", "command": "` + Command("stop") + `", "timeout": 10}]}]
}}`
	f := mustParse(t, in)
	probs := strings.Join(f.Problems(), "\n")
	for _, want := range []string{"SessionStart: \"devlearn hook session-start\" is not guarded", "Stop: registered 2 times", "SubagentStop: devlearn has no SubagentStop hook", "UserPromptSubmit: not registered"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems lack %q:\n%s", want, probs)
		}
	}
	f.Enable()
	if !f.Registered() {
		t.Fatal(f.Problems())
	}
	if !strings.Contains(string(f.Bytes()), `"command": "echo mine"`) {
		t.Fatalf("the other command in a shared group was lost:\n%s", f.Bytes())
	}
}

func TestMalformedIsReportedWithLineAndColumn(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}", "settings.json:3:13: not valid JSON"},
		{"{\n  \"a\": 1\n", "settings.json:3:1: not valid JSON: the file ends too early"},
		{"[1]", "settings.json:1:1: must be a JSON object"},
		{"{\"hooks\": []}", "settings.json:1:2: \"hooks\" must be an object"},
		{"{\"hooks\": {\"Stop\": {}}}", "settings.json:1:2: hooks.Stop must be a list"},
		{"{} {}", "settings.json:1:4: more than one JSON value"},
	} {
		_, err := Parse("settings.json", []byte(tc.in))
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s...", tc.in, err, tc.want)
		}
	}
}

func TestDevflowLearningHooks(t *testing.T) {
	in := `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "/home/u/.devflow/scripts/hooks/run-hook stop-update-memory", "timeout": 10}]},
           {"hooks": [{"type": "command", "command": "/home/u/.devflow/scripts/hooks/run-hook stop-update-learning", "timeout": 10}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "/home/u/.devflow/scripts/hooks/run-hook session-end-learning"}, {"type": "command", "command": "./mine.sh"}]},
                 {"hooks": [{"type": "command", "command": "/home/u/.devflow/scripts/hooks/run-hook session-end-decisions"}]}]
}}`
	f := mustParse(t, in)
	if n := len(f.Devflow()); n != 4 {
		t.Fatalf("found %d devflow hooks, want 4", n)
	}
	removed := f.RemoveDevflowLearning()
	if len(removed) != 3 {
		t.Fatalf("removed %v", removed)
	}
	out := string(f.Bytes())
	if !strings.Contains(out, "stop-update-memory") || !strings.Contains(out, "./mine.sh") || strings.Contains(out, "learning") || strings.Contains(out, "decisions") {
		t.Fatalf("got:\n%s", out)
	}
}

func TestStatusLine(t *testing.T) {
	f := mustParse(t, `{"statusLine": {"type": "command", "command": "~/bin/mine.sh"}}`)
	if changed, kept := f.SetStatusLine(false); changed || kept != "~/bin/mine.sh" {
		t.Fatalf("someone else's status line replaced: %v %q", changed, kept)
	}
	if f.RemoveStatusLine() {
		t.Fatal("removed someone else's status line")
	}
	if changed, _ := f.SetStatusLine(true); !changed || f.StatusLine() != StatusLineCommand {
		t.Fatal("force did not set it")
	}
	g := mustParse(t, string(f.Bytes()))
	if changed, _ := g.SetStatusLine(false); changed {
		t.Fatal("set twice")
	}
	if !g.RemoveStatusLine() || string(g.Bytes()) != "{\n}" {
		t.Fatalf("got %q", g.Bytes())
	}
	// A person's own line that calls the HUD, as init advises when it keeps
	// theirs, is still theirs; the line init wrote before is devlearn's.
	mine := mustParse(t, `{"statusLine": {"type": "command", "command": "echo \"$(~/bin/git-branch.sh) | $(devlearn hud --stdin)\""}}`)
	if changed, kept := mine.SetStatusLine(false); changed || kept == "" {
		t.Fatal("a person's line with the HUD in it replaced")
	}
	if mine.RemoveStatusLine() {
		t.Fatal("a person's line with the HUD in it removed")
	}
	old := mustParse(t, `{"statusLine": {"type": "command", "command": "command -v devlearn >/dev/null 2>&1 && exec devlearn hud --stdin || true"}}`)
	if changed, _ := old.SetStatusLine(false); !changed || old.StatusLine() != StatusLineCommand {
		t.Fatal("devlearn's earlier line not brought up to date")
	}
}

func TestCommandsAreGuarded(t *testing.T) {
	for _, h := range Hooks {
		c := Command(h.Sub)
		if !strings.HasPrefix(c, "command -v devlearn-hook >/dev/null 2>&1 && exec devlearn-hook "+h.Sub+" || command -v devlearn >/dev/null 2>&1 && exec devlearn hook "+h.Sub+" || ") || !strings.HasSuffix(c, " || true") || !IsDevlearn(c) {
			t.Errorf("%s: %q", h.Event, c)
		}
	}
}

// Only devflow's own hooks are devflow's: a person's script named after
// the idea, or another tool whose name holds "devflow", is theirs, and
// init removes devflow's learning hooks only.
func TestIsDevflowIsDevflowsOwn(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/home/u/.devflow/scripts/hooks/run-hook stop-update-learning":    true,
		`C:\Users\u\.devflow\scripts\hooks\run-hook session-end-learning`: true,
		"npx devflow-kit learn --background":                              true,
		`python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/self-learning.py`:    false,
		"npx devflow-cli lint --decisions docs/adr":                       false,
		"./tools/run-hook learn":                                          false,
	} {
		if got := IsDevflowLearning(cmd); got != want {
			t.Errorf("IsDevflowLearning(%q) = %v, want %v", cmd, got, want)
		}
	}
}
