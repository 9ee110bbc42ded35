package extract

import (
	"strings"
	"testing"
)

func TestHiddenSkipped(t *testing.T) {
	cases := []struct {
		name   string
		script []string
		want   string // the lesson's pattern; "" for none
	}{
		{"a glob found in a hidden folder",
			[]string{"user: fix the specs",
				"fail: rg --files -g '*.butler.yaml' => Exit code: 1\nWall time: 0.1 seconds\nOutput:\n",
				"bash: find . -name '*.butler.yaml'",
				"read: /repo/.ai-clean/specs/doc-1.butler.yaml"},
			"`rg --files` leaves out hidden folders: `*.butler.yaml` is in `.ai-clean/specs/`, which it did not search; add `--hidden` or use `find`."},
		{"a list piped into a filter, the file read by a command",
			[]string{"user: read the copilot guide",
				"fail: rg --files | rg 'copilot-instructions\\.md' => Process exited with code 1",
				"bash: sed -n '1,200p' .github/copilot-instructions.md"},
			"`rg --files` leaves out hidden folders: `copilot-instructions.md` is in `.github/`, which it did not search; add `--hidden` or use `find`."},
		{"a glob given with =, quoted, among a type and a redirection",
			[]string{"user: x", "fail: rg --files --glob='*.yaml' -t yaml 2>/dev/null => Exit code 1", "read: /repo/.ci/a.yaml"},
			"`rg --files` leaves out hidden folders: `*.yaml` is in `.ci/`, which it did not search; add `--hidden` or use `find`."},
		{"any of several globs, braces expanded",
			[]string{"user: x", "fail: rg --files -g '*.md' -g '*.{yml,yaml}' => Exit code 1", "read: /repo/.ci/a.yaml"},
			"`rg --files` leaves out hidden folders: `*.{yml,yaml}` is in `.ci/`, which it did not search; add `--hidden` or use `find`."},
		{"grep's basic syntax",
			[]string{"user: x", "fail: rg --files | grep 'agents\\|claude' => Exit code 1", "bash: cat .codex/agents.md"},
			"`rg --files` leaves out hidden folders: `agents.md` is in `.codex/`, which it did not search; add `--hidden` or use `find`."},
		{"grep's extended syntax, its -E no flag with a value",
			[]string{"user: x", "fail: rg --files | grep -E 'agents|claude' => Exit code 1", "bash: cat .codex/agents.md"},
			"`rg --files` leaves out hidden folders: `agents.md` is in `.codex/`, which it did not search; add `--hidden` or use `find`."},
		{"a file the agent then wrote: it was not there",
			[]string{"user: x", "fail: rg --files | rg 'copilot-instructions\\.md' => Exit code 1", "write: /repo/.github/copilot-instructions.md"}, ""},
		{"a probe with a fallback passes either way",
			[]string{"user: x", "fail: rg --files | rg 'copilot-instructions\\.md' => Exit code 1", "bash: cat .github/copilot-instructions.md 2>/dev/null || echo missing"}, ""},
		{"a sed expression is no path",
			[]string{"user: x", "fail: rg --files -g 'bar' => Exit code 1", "bash: sed -n 's/.foo/bar/p' x.txt"}, ""},
		{"a glob and a filter: both must match",
			[]string{"user: x", "fail: rg --files -g '*.yaml' | rg foo => Exit code 1", "read: /repo/.ci/a.yaml"}, ""},
		{"a filter's option value is no pattern",
			[]string{"user: x", "fail: rg --files | grep -m 1 copilot => Exit code 1", "read: /repo/.x/v1.txt"}, ""},
		{"a hidden folder searched by name is searched",
			[]string{"user: x", "fail: rg --files .venv -g 'site.py' => Exit code 1", "read: /repo/.venv/lib/site.py"}, ""},
		{"a folder ignored anyway: --hidden would not find it either",
			[]string{"user: x", "fail: rg --files -g 'site.py' => Exit code 1", "read: /repo/.venv/lib/site.py"}, ""},
		{"after a cd, what was searched is not known",
			[]string{"user: x", "fail: cd web && rg --files -g '*.yaml' => Exit code 1", "read: /repo/.ci/a.yaml"}, ""},
		{"hidden folders searched already",
			[]string{"user: x", "fail: rg --files --hidden -g '*.yaml' => Exit code 1", "read: /repo/.ci/a.yaml"}, ""},
		{"the file found where the search looked: not hidden",
			[]string{"user: x", "fail: rg --files -g '*.yaml' => Exit code 1", "read: /repo/ci/a.yaml"}, ""},
		{"another file in a hidden folder",
			[]string{"user: x", "fail: rg --files -g '*.butler.yaml' => Exit code 1", "read: /repo/.devenv/config.toml"}, ""},
		{"outside the folders searched",
			[]string{"user: x", "fail: rg --files -g '*.yaml' src => Exit code 1", "read: /repo/.ci/a.yaml"}, ""},
		{"an error of the search, not nothing found",
			[]string{"user: x", "fail: rg --files -g '*.yaml' nope => Exit code: 2\nOutput:\nrg: nope: No such file or directory (os error 2)", "read: /repo/.ci/a.yaml"}, ""},
		{"the person spoke before the file came up",
			[]string{"user: x", "fail: rg --files -g '*.yaml' => Exit code 1", "user: it is in .ci", "read: /repo/.ci/a.yaml"}, ""},
		{"a search of contents, not of names",
			[]string{"user: x", "fail: rg -n 'TODO' => Exit code 1", "read: /repo/.ci/a.yaml"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			for _, o := range hiddenSkipped(session("s", c.script...), "/repo") {
				got = o.Pattern
			}
			if got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

// The lesson reaches the session's observations, with the search as its
// area: its next run is the moment it is served for.
func TestHiddenSkippedInSession(t *testing.T) {
	ch := session("s", "user: fix the specs",
		"fail: rg --files -g '*.butler.yaml' => Exit code: 1\nOutput:\n/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted",
		"read: /repo/.ai-clean/specs/doc-1.butler.yaml")
	var found *Observation
	obs := Session(ch, Options{Root: "/repo"}).Observations
	for i := range obs {
		if strings.Contains(obs[i].Pattern, "leaves out hidden folders") {
			found = &obs[i]
		}
	}
	if found == nil {
		t.Fatalf("no lesson among %+v", obs)
	}
	if !strings.HasPrefix(found.Details, "area: rg --files;") || found.Type != Pitfall || !found.QualityOK {
		t.Errorf("observation %+v", *found)
	}
}

// A search names no folder: it searched the one it ran in, and a hidden
// folder elsewhere in the project is not what it left out.
func TestHiddenSkippedFromSubfolder(t *testing.T) {
	for _, c := range []struct{ read, want string }{
		{"/repo/.ci/a.yaml", ""},
		{"/repo/src/.ci/a.yaml", "`rg --files` leaves out hidden folders: `*.yaml` is in `src/.ci/`, which it did not search; add `--hidden` or use `find`."},
	} {
		ch := session("s", "user: x", "fail: rg --files -g '*.yaml' => Exit code 1", "read: "+c.read)
		ch.Tools[0].Cwd = "/repo/src"
		got := ""
		for _, o := range hiddenSkipped(ch, "/repo") {
			got = o.Pattern
		}
		if got != c.want {
			t.Errorf("read %s: got %q, want %q", c.read, got, c.want)
		}
	}
}
