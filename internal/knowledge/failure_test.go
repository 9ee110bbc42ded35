package knowledge

import (
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/words"
)

// learnedDraft is the item of a draft the observed folder holds for a
// failure: its summary, its failing command as trigger, its details.
func learnedDraft(summary, area, issue string) *Item {
	return learnedFix(summary, area, issue, "")
}

// learnedFix is learnedDraft with the resolution its details record.
func learnedFix(summary, area, issue, resolution string) *Item {
	_, c, _ := AreaTriggers(area, issue, true)
	body := "Seen in 1 session: a command failed and this is what made it pass.\n\n- area: " + area + "\n- issue: " + issue + "\n- impact: the command fails"
	if resolution != "" {
		body += "\n- resolution: " + resolution
	}
	e := &Entry{Key: "obs-1", Summary: summary, Status: StatusDraft, Kind: "warning", Priority: "MEDIUM",
		Triggers: Triggers{Commands: []string{c.String()}}, Body: body}
	return FromEntry(e, ScopeProject, ".memory/.local/observed/obs-1.md")
}

func bashCall(cmd string) *Call {
	return &Call{Tool: "Bash", Commands: Segments(cmd), Words: words.NewHaystack(cmd), Line: cmd}
}

// A failure of the call's own arguments (the fix put others in their
// place) is served where a call passes one of them again; one of the
// project's or the machine's (what a fix ran first, a program missing) at
// every call of its program, as before.
func TestFailureOfTheCallsOwnArguments(t *testing.T) {
	ownPath := learnedDraft("`get-content` fails with \"dashboard: The term 'dashboard' is not recognized\": use `'src/app/(dashboard)/layout.tsx'` instead of `src/app/(dashboard)/layout.tsx`.",
		"get-content", "`Get-Content -Path src/app/(dashboard)/layout.tsx` fails with \"dashboard: The term 'dashboard' is not recognized\"")
	pattern := learnedDraft("`rg -n \"- \\[ \\]\" specs/001-item/tasks.md` is not supported here: it fails with \"rg: unrecognized flag -\".",
		"rg", "rg does not take these arguments here")
	port := learnedDraft("`curl` fails with \"curl: (7) Failed to connect to localhost port 8080\": use `https://api.example.com/health` instead of `http://localhost:8080/health`.",
		"curl", "`curl -s http://localhost:8080/health` fails with \"curl: (7) Failed to connect to localhost port 8080\"")
	first := learnedDraft("Before `git commit`, run `git config user.email \"a@b.c\"`: without it, `git commit` fails with \"Author identity unknown\".",
		"git commit", "`git commit -m \"fix login\"` fails with \"Author identity unknown\"")
	cut := learnedDraft("`get-content` fails with \"dashboard: The term 'dashboard' is not recognized as a name of a cmdlet, function, script file, or…\": use `\"src/app/(dashboard)/layout.tsx\"` instead of…",
		"get-content", "`Get-Content -Path src/app/(dashboard)/layout.tsx` fails with \"dashboard: The term 'dashboard' is not recognized\"")
	python := learnedDraft("`python` fails with \"/bin/bash: line <n>: python: command not found\": use `python3` instead of `python`.",
		"python", "`python manage.py migrate` fails with \"/bin/bash: line <n>: python: command not found\"")
	short := learnedDraft("`rg` fails with \"rg: x.py: No such file or directory (os error 2)\": use `src/x.py` instead of `x.py`.",
		"rg", "`rg foo x.py` fails with \"rg: x.py: No such file or directory (os error 2)\"")
	missing := learnedDraft("`jq` is not available here: `jq .` fails with \"jq: command not found\".",
		"jq", "jq is not installed where the agent runs")
	// The title cut right after the fix; a Windows path.
	cutEarly := learnedFix("`get-content` fails with \"dashboard: The term 'dashboard' is not recognized as a name of a cmdlet, function, script file, or…\": use `-LiteralPath \"src\\app\\(dashboard)\\settings\\users\\page.tsx\"`…",
		"get-content", "`Get-Content src\\app\\(dashboard)\\settings\\users\\page.tsx` fails with \"dashboard: The term 'dashboard' is not recognized\"",
		"run `Get-Content -LiteralPath \"src\\app\\(dashboard)\\settings\\users\\page.tsx\"` instead")
	// Run as root, then without: sudo is what the fix left out.
	root := learnedFix("`rm` fails with \"sudo: a terminal is required to read the password\": leave out `sudo`.",
		"rm", "`sudo rm -rf /opt/homebrew/Caskroom/app && rm -rf ~/Library/Caches/Homebrew/downloads/*app*` fails with \"sudo: a terminal is required to read the password\"",
		"run `rm -rf /opt/homebrew/Caskroom/app` instead")
	glob := learnedFix("`rm` fails with \"(eval):1: no matches found: ~/Library/Caches/Homebrew/downloads/*mdpreview*\": leave out `rm -rf ~/Library/Caches/Homebrew/downloads/*mdpreview* &&`.",
		"rm", "`rm -rf /opt/homebrew/Caskroom/mdpreview && rm -rf ~/Library/Caches/Homebrew/downloads/*mdpreview* && brew install x` fails with \"(eval):1: no matches found\"",
		"run `rm -rf /opt/homebrew/Caskroom/mdpreview` instead")
	// Handed to a shell; the file the fix read too is no cause.
	handed := learnedFix("`rg` fails with \"rg: regex parse error: (?:header className\\=\\)\": use `\"header className\"` instead of `\"header className\\=\\\"bg-white\\\"\"`.",
		"rg", "`pwsh.exe -NoLogo -Command rg -n \"header className\\=\\\"bg-white\\\"\" frontend/src/pages/ConfirmEditPage.tsx` fails with \"rg: regex parse error: (?:header className\\=\\)\"",
		"run `rg -n \"header className\" frontend/src/pages/ConfirmEditPage.tsx` instead")
	// An assignment before the program; the host both reached.
	assigned := learnedFix("`psql` fails with \"psql: error: connection to server failed: FATAL: password authentication failed\": leave out `-d barber_system`.",
		"psql", "`cd <worktree>/backend && PGPASSWORD='x' psql -h 5.78.113.107 -U postgres -d barber_system -c \"\\dt\"` fails with \"psql: error: connection to server failed\"",
		"run `psql -h 5.78.113.107 -U postgres -c \"\\l\"` instead")
	module := learnedDraft("The Python module `eq_param_lightning` is not installed here: importing it fails with \"ModuleNotFoundError: No module named 'eq_param_lightning'\"; the run that passed used `data_module` instead.",
		"python", "`python -c \"from eq_param_lightning import Model\"` fails with \"ModuleNotFoundError: No module named 'eq_param_lightning'\"")
	// Run as root, fixed by another name: root is no cause.
	unit := learnedFix("`systemctl` fails with \"Failed to restart nginx.servce.service: Unit nginx.servce.service not found.\": use `nginx.service` instead of `nginx.servce`.",
		"systemctl restart", "`sudo systemctl restart nginx.servce` fails with \"Failed to restart nginx.servce.service: Unit nginx.servce.service not found.\"",
		"run `systemctl restart nginx.service` instead")
	// A wrapper's flags, and a script handed to a shell in quotes.
	asUser := learnedFix("`psql` fails with \"psql: error: FATAL: database \"shop_test\" does not exist\": leave out `-d shop_test`.",
		"psql", "`sudo -u postgres psql -d shop_test -c \"select 1\"` fails with \"psql: error: FATAL: database \"shop_test\" does not exist\"",
		"run `psql -c \"select 1\"` instead")
	quoted := learnedFix("`rg` fails with \"rg: regex parse error\": use `\"header\"` instead of `\"header\\=x\"`.",
		"rg", "`pwsh -NoLogo -Command \"rg -n header\\=x src/App.tsx\"` fails with \"rg: regex parse error\"",
		"run `rg -n header src/App.tsx` instead")
	// More arguments than are kept: the fix's are taken away first.
	many := learnedFix("`rm` fails with \"rm: cannot remove 'wrong.txt': No such file or directory\": leave out `wrong.txt`.",
		"rm", "`rm a1.txt a2.txt a3.txt a4.txt a5.txt a6.txt a7.txt a8.txt wrong.txt` fails with \"rm: cannot remove 'wrong.txt'\"",
		"run `rm a1.txt a2.txt a3.txt a4.txt a5.txt a6.txt a7.txt a8.txt` instead")
	dotted := learnedDraft("The Python module `matplotlib` is not installed here: importing it fails with \"ModuleNotFoundError: No module named 'matplotlib'\".",
		"python", "`python -c \"import matplotlib\"` fails with \"ModuleNotFoundError: No module named 'matplotlib'\"")
	// What the fix ran first names what the call passed: the failure is
	// that argument's.
	busy := learnedFix("Before `cp`, run `killall power-applet`: without it, `cp` fails with \"cp: cannot create regular file '~/.local/bin/power-applet': Text file busy\".",
		"cp", "`cp <worktree>/target/release/power-applet ~/.local/bin/ && chmod +x ~/.local/bin/power-applet` fails with \"cp: cannot create regular file '~/.local/bin/power-applet': Text file busy\"",
		"run `killall power-applet` first")
	rejected := learnedFix("Before `git push`, run `git pull --rebase origin main`: without it, `git push` fails with \"! [rejected] main -> main (fetch first)\".",
		"git push", "`git push origin main` fails with \"! [rejected] main -> main (fetch first)\"",
		"run `git pull --rebase origin main` first")
	rootPull := learnedFix("Before `git push`, run `sudo git pull --rebase origin main`: without it, `git push` fails with \"! [rejected] main -> main (fetch first)\".",
		"git push", "`git push origin main` fails with \"! [rejected] main -> main (fetch first)\"",
		"run `sudo git pull --rebase origin main` first")
	service := learnedFix("Before `psql`, run `brew services start postgres`: without it, `psql` fails with \"psql: error: connection to server on socket failed\".",
		"psql", "`psql -f postgres/schema.sql` fails with \"psql: error: connection to server on socket failed\"",
		"run `brew services start postgres` first")
	// A ";" in a recorded command is stored as ",".
	semi := learnedFix("Before `cp`, run `killall power-applet, sleep 1`: without it, `cp` fails with \"Text file busy\".",
		"cp", "`cp target/release/power-applet ~/.local/bin/power-applet, chmod +x ~/.local/bin/power-applet` fails with \"cp: cannot create regular file: Text file busy\"",
		"run `killall power-applet, sleep 1` first")
	locked := learnedFix("Before `rm`, run `chmod -R 777 <worktree>/.git`: without it, `rm` fails with \"sudo: a terminal is required to read the password\".",
		"rm", "`sudo rm -rf <worktree>/.git && echo done` fails with \"sudo: a terminal is required to read the password\"",
		"run `chmod -R 777 <worktree>/.git` first")
	opts := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	for _, tc := range []struct {
		name string
		item *Item
		cmd  string
		want bool
	}{
		{"what the fix ran first named the file: that file again", busy, `cp build/power-applet ~/.local/bin/`, true},
		{"what the fix ran first named the file: another copy", busy, `cp -R "/Volumes/Disk/Other.app" /Applications/`, false},
		{"what the fix ran first names the branch pushed: every push", rejected, `git push`, true},
		{"the fix of the same program run as root: every push", rootPull, `git push`, true},
		{"a service the fix started: every run", service, `psql -d app -c "select 1"`, true},
		{"the file before a semicolon again", semi, `cp target/release/power-applet ~/.local/bin/`, true},
		{"the file before a semicolon: another copy", semi, `cp notes.txt ~/Documents/`, false},
		{"what the fix ran first named the folder: that folder again", locked, `sudo rm -rf .git`, true},
		{"what the fix ran first named the folder: another file", locked, `cd mcp && rm -f simple_server.py`, false},
		{"the same route group", ownPath, `Get-Content -Path src\app\(dashboard)\items\page.tsx`, true},
		{"another file", ownPath, `Get-Content .specify/templates/spec-template.md`, false},
		{"another file, the title cut short", cut, `Get-Content .specify/templates/spec-template.md`, false},
		{"the same route group, the title cut short", cut, `Get-Content "src/app/(dashboard)/items/page.tsx"`, true},
		{"the same pattern", pattern, `rg -n "- \[ \]" specs/002-other/tasks.md`, true},
		{"another pattern", pattern, `rg -n "TODO" src`, false},
		{"the same host", port, `curl -s http://localhost:8080/api/overview`, true},
		{"another host", port, `curl -s https://api.example.com/data`, false},
		{"what the fix ran first: every commit", first, `git commit -m "another change"`, true},
		{"a missing program: every run", missing, `curl -s x | jq '.items'`, true},
		{"another program in its place: every run", python, `python other.py`, true},
		{"a file name inside another", short, `rg foo index.py`, false},
		{"the same file name", short, `rg bar lib/x.py`, true},
		{"another file, the title cut after the fix", cutEarly, `Get-Content .codex/prompts/speckit.specify.md`, false},
		{"the same route group, the title cut after the fix", cutEarly, `Get-Content src\app\(dashboard)\items\page.tsx`, true},
		{"not as root", root, `rm -rf build/App.app`, false},
		{"as root again", root, `sudo rm -rf /opt/homebrew/Caskroom/other`, true},
		{"another folder", glob, `rm -rf ~/Library/Containers/dev.x.mdpreview`, false},
		{"the same glob", glob, `rm -rf ~/Library/Caches/Homebrew/downloads/*mdpreview*`, true},
		{"another pattern, handed to no shell", handed, `rg "/api" frontend/src`, false},
		{"the file the fix read too", handed, `rg -n "useState" frontend/src/pages/ConfirmEditPage.tsx`, false},
		{"the same pattern again", handed, `rg -n "header className\=\"bg-white\"" src`, true},
		{"the same host and user, another database", assigned, `psql -h 5.78.113.107 -U postgres -d barbe -c "\dt"`, false},
		{"the database again", assigned, `PGPASSWORD=x psql -h 5.78.113.107 -U postgres -d barber_system`, true},
		{"a script that imports other modules", module, `python train.py`, false},
		{"a script that imports the module", module, `python -c "import eq_param_lightning as e"`, true},
		{"as root, another unit", unit, `sudo systemctl restart postgresql`, false},
		{"the misspelt unit again", unit, `sudo systemctl restart nginx.servce`, true},
		{"as another user, another database", asUser, `sudo -u postgres psql -d shop -c "select 1"`, false},
		{"as another user, the database again", asUser, `sudo -u postgres psql -d shop_test`, true},
		{"handed in quotes, another pattern", quoted, `rg -n footer src`, false},
		{"handed in quotes, the pattern again", quoted, `rg -n "header\=x" lib`, true},
		{"past the eighth argument", many, `rm wrong.txt`, true},
		{"the files the fix removed too", many, `rm a1.txt`, false},
		{"a module's part", dotted, `python -c "import matplotlib.pyplot as plt"`, true},
		{"another module", dotted, `python -c "import numpy"`, false},
	} {
		call := bashCall(tc.cmd)
		b := Score(tc.item, call, opts.Weights)
		if got := b.Serve(call, opts.Threshold); got != tc.want {
			t.Errorf("%s (%q): served %v, want %v; args %v", tc.name, tc.cmd, got, tc.want, tc.item.Match.Commands)
		}
	}
	if why := Explain(port, bashCall("curl -s https://api.example.com/data"), DefaultWeights).Why; !slices.ContainsFunc(why, func(s string) bool {
		return s == "command: curl is run, but with none of what the call that failed passed (localhost:8080)"
	}) {
		t.Errorf("knowledge why does not say why the failure was not served: %q", why)
	}
}

// What of an argument names a thing: a file, a host, a route group, a
// pattern; not a folder every path passes through, a short word, a number,
// a word cut short or a placeholder.
func TestDistinctiveArguments(t *testing.T) {
	for arg, want := range map[string][]string{
		"src/app/(dashboard)/layout.tsx":     {"(dashboard)", "layout.tsx"},
		`C:\Users\x\proj\src\app\page.tsx`:   {"page.tsx"},
		"http://localhost:8080/health":       {"localhost:8080"},
		"- \\[ \\]":                          {"- \\[ \\]"},
		"build":                              {"build"},
		"src":                                nil,
		"12345":                              nil,
		"specs/001-item…":                    nil,
		"<worktree>/x.go":                    {"x.go"},
		"<worktree>":                         nil,
		"~/downloads/*mdpreview*":            {"*mdpreview*"},
		`header\=x`:                          {`header\=x`}, // a pattern's escape, no path
		`.\scripts\run`:                      {},
		"api.zbarbe.example.com.br/api/data": {"api.zbarbe.example.com.br"},
	} {
		if got := distinctive(arg); !slices.Equal(got, want) {
			t.Errorf("distinctive(%q) = %q, want %q", arg, got, want)
		}
	}
}

// An error met again is the recorded one whatever its numbers, case and
// the folder it names after its start; a generic start is no evidence.
func TestSameError(t *testing.T) {
	for _, tc := range []struct {
		recorded, got string
		want          bool
	}{
		{"curl: (7) Failed to connect to localhost port 8080 after 1 ms: Connection refused",
			"Exit code 7\ncurl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server", true},
		{"/bin/bash: line <n>: jq: command not found", "/bin/bash: line 1: jq: command not found", true},
		{"/bin/bash: line <n>: jq: command not found", "/bin/bash: line 1: yq: command not found", false},
		{"fatal: pathspec '<worktree>/a.md' did not match any files", "fatal: pathspec '/home/u/wt/b.md' did not match any files", true},
		{"error: x", "error: x", false},
		{"", "anything", false},
		// An error's own brackets and angles are its words.
		{"error[E0425]: cannot find value `x` in this scope", "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5", true},
		{"[ERROR] Failed to execute goal org.apache.maven.plugins", "[INFO] Scanning\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler", true},
		{"Type 'Promise<string>' is not assignable to type 'string'", "src/a.ts(3,7): error TS2322: Type 'Promise<string>' is not assignable to type 'string'.", true},
	} {
		if got := ReadError(tc.got).Holds(tc.recorded); got != tc.want {
			t.Errorf("ReadError(%q).Holds(%q) = %v, want %v", tc.got, tc.recorded, got, tc.want)
		}
	}
	for text, want := range map[string]string{
		"`jq` is not available here: `jq .` fails with \"/bin/bash: line <n>: jq: command not…\".":                                                             "/bin/bash: line <n>: jq: command not",
		"`npm run build` fails with \"npm error Missing script: \"build\"\": …\n\n- issue: `npm run build` fails with \"npm error Missing script: \"build\"\"": `npm error Missing script: "build"`,
		"`x` fails with \"a long error cut sho…": "a long error cut sho",
	} {
		if got := FailedWith(text); got != want {
			t.Errorf("FailedWith(%q) = %q, want %q", text, got, want)
		}
	}
}

// At a failure, the item's command counts whatever the arguments: the
// error is the evidence.
func TestRunsIgnoresTheFailedArguments(t *testing.T) {
	port := learnedDraft("`curl` fails with \"curl: (7) Failed to connect\": use `https://a.example.com` instead of `http://localhost:8080`.",
		"curl", "`curl -s http://localhost:8080/health` fails with \"curl: (7) Failed to connect\"")
	if !port.Runs(bashCall("curl -s https://other.example.com")) || port.Runs(bashCall("wget x")) {
		t.Error("Runs: want curl with any arguments, and no other program")
	}
}

// A double-quoted argument is kept as written, an escaped quote inside it
// included, so that the next call that passes it as written is found.
func TestShellTokensKeepAnEscapedQuote(t *testing.T) {
	segs := shellTokens(`rg "say \"hi\" now" notes.md | head`, false)
	if len(segs) != 2 || len(segs[0]) != 3 || segs[0][1].text != `say \"hi\" now` || !segs[0][1].quoted {
		t.Fatalf("shellTokens: %+v", segs)
	}
	c := bashCall(`rg -n "say \"hi\" now" other.md`)
	if !passesArgs(c.lowerLine(), []string{segs[0][1].text}) {
		t.Error("the same quoted pattern was not found again")
	}
}

// The files a learned failure's text names are what its call passed: an
// edit of one runs nothing that fails. A request naming it is the moment
// the agent may run the command on it.
func TestFailureNamesNoFileToEdit(t *testing.T) {
	it := learnedFix("`git add` fails with \"fatal: ../CLAUDE.md: '../CLAUDE.md' is outside repository at…\": use `CLAUDE.md` instead of `../CLAUDE.md`.",
		"git add", "`git add ../CLAUDE.md && git status` fails with \"fatal: ../CLAUDE.md: '../CLAUDE.md' is outside repository at…\"",
		"run `git add CLAUDE.md` instead")
	edit := &Call{Tool: "Edit", Paths: []string{"CLAUDE.md"}, FileScoped: true, Words: words.NewHaystack("")}
	if b := Score(it, edit, DefaultWeights); b.Serve(edit, 0.7) {
		t.Errorf("a git add failure served at an edit of the file it passed: %+v", b)
	}
	if why := Explain(it, edit, DefaultWeights).Why; !slices.ContainsFunc(why, func(s string) bool { return strings.Contains(s, "named by the failure, count at a request only") }) ||
		slices.ContainsFunc(why, func(s string) bool { return strings.Contains(s, "file miss") }) {
		t.Errorf("knowledge why at the edit: %q", why)
	}
	request := RequestCall("/repo", "/repo", "add ../CLAUDE.md to the commit")
	if b := Score(it, request, DefaultWeights); !b.Serve(request, 0.7) {
		t.Errorf("not served at a request naming the file it passed: %+v", b)
	}
}

// A request naming a file of the same name in another folder names
// another file.
func TestMatchNamed(t *testing.T) {
	g := compileGlob("**/_bmad/bmm/workflows/1-analysis/brainstorming/workflow.md")
	for path, want := range map[string]bool{
		"workflow.md":               true,
		"brainstorming/workflow.md": true,
		"@_bmad/bmm/workflows/1-analysis/brainstorming/workflow.md":          true,
		"/home/x/p/_bmad/bmm/workflows/1-analysis/brainstorming/workflow.md": true,
		"bmad/bmm/workflows/3-solutioning/create-architecture/workflow.md":   false,
		"readme.md": false,
	} {
		if got := g.MatchNamed(path); got != want {
			t.Errorf("MatchNamed(%q) = %v, want %v", path, got, want)
		}
	}
	// Asked from a folder of the project, the path is matched as written.
	it := learnedFix("Use `_bmad/core/workflows/brainstorming/workflow.md`: `_bmad/bmm/workflows/1-analysis/brainstorming/workflow.md` does not exist.",
		"_bmad/bmm/workflows/1-analysis/brainstorming/workflow.md", "`Read _bmad/bmm/workflows/1-analysis/brainstorming/workflow.md` fails with \"File does not exist.\"", "")
	if r := RequestCall("/repo", "/repo/_bmad/bmm", "update brainstorming/workflow.md"); !Score(it, r, DefaultWeights).Evidence {
		t.Errorf("a request from a sub-folder naming brainstorming/workflow.md: no evidence (paths %q)", r.Paths)
	}
}

// A failure refused for a path outside the project meets only a call that
// names such a path: a cd into a folder of the project is not refused.
func TestRefusedOutside(t *testing.T) {
	cd := learnedFix("Claude Code blocks `cd` into a folder outside the session's working folders: run it from the session's folder with absolute paths, without cd.",
		"cd", "ERROR: cd to '~/Library/CloudStorage/Drive' was blocked. For security, Claude Code may only change directories to child directories of the original…",
		"run it from the session's folder with absolute paths, without cd")
	add := learnedFix("`git add` fails with \"fatal: ../CLAUDE.md: '../CLAUDE.md' is outside repository at…\": use `CLAUDE.md` instead of `../CLAUDE.md`.",
		"git add", "`git add ../CLAUDE.md && git status` fails with \"fatal: ../CLAUDE.md: '../CLAUDE.md' is outside repository at…\"",
		"run `git add CLAUDE.md` instead")
	for _, tc := range []struct {
		name    string
		item    *Item
		cmd     string
		outside bool
		want    bool
	}{
		{"into a folder of the project", cd, "cd todos/app && tail -n 100 backend.log", false, false},
		{"out of the project", cd, "cd ~/Library/CloudStorage/Other && ls", true, true},
		{"the file, inside", add, "git add CLAUDE.md", false, false},
		{"the file, outside again", add, "git add ../CLAUDE.md", true, true},
	} {
		call := bashCall(tc.cmd)
		for i := range call.Commands {
			call.Commands[i].Outside = tc.outside
		}
		b := Score(tc.item, call, DefaultWeights)
		if got := b.Serve(call, 0.7); got != tc.want {
			t.Errorf("%s (%q): served %v, want %v", tc.name, tc.cmd, got, tc.want)
		}
	}
	if why := Explain(cd, bashCall("cd todos/app"), DefaultWeights).Why; !slices.Contains(why, "command: cd is run, but on no path outside the project, which the call that failed named") {
		t.Errorf("knowledge why does not say why: %q", why)
	}
}

// An area that is the folder the session worked in is where the lesson
// was said: it gives no trigger. A folder in it does.
func TestAreaOfTheSessionsFolder(t *testing.T) {
	if files, _, ok := AreaTriggers("services/api", lesson.WorkFolderIssue, true); len(files) > 0 || ok {
		t.Errorf("the session's folder gave triggers: %v %v", files, ok)
	}
	if files, _, _ := AreaTriggers("services/api/generated/", "the person had to point it out", true); len(files) == 0 {
		t.Error("a folder in it gave no file trigger")
	}
}
