package knowledge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/words"
)

// What a lesson's own words make it about, by class: the files a change
// happens to, the commands it warns against or reports failing, the
// package it is about; and what they do not (a file mentioned in passing,
// the command it recommends, a program named as a thing).
func TestDeriveTriggers(t *testing.T) {
	for _, tc := range []struct {
		name, title, body   string
		files, cmds, topics string
	}{
		{"the issue's pitfall: the file whose change causes it",
			"Forgot to bump the version in the marketplace file when changing the plugin file",
			"- **Issue**: plugin.json was changed and the version in marketplace.json was left as it was",
			"**/plugin.json **/marketplace.json", "", ""},
		{"a change to a file, named after a cue word",
			"Locale files out of step", "- **Resolution**: add every new key to each file of web/src/i18n/ (de.json, fr.json)",
			"**/web/src/i18n/**", "", ""},
		{"a file mentioned in passing is no trigger",
			"The Dockerfile copies the source before downloading modules", "- **Resolution**: copy go.mod and go.sum, download, then copy the rest",
			"**/Dockerfile", "", ""},
		{"a command warned against, not the one recommended",
			"Use pnpm, not npm, for the web app", "Add a dependency with `pnpm add`, install with `pnpm install --frozen-lockfile`.",
			"", "npm", ""},
		{"never, in backticks, several",
			"Deploys go through the workflow", "Never run `kubectl apply` or `kubectl edit` against prod by hand.",
			"", "kubectl apply, kubectl edit", ""},
		{"a failing command reported in backticks; the remedy is not a trigger",
			"Terraform applied without a saved plan", "`terraform apply -auto-approve` applied a change nobody reviewed. Always `terraform plan -out=tfplan`, then `terraform apply tfplan`.",
			"", "terraform apply", ""},
		{"the moment a lesson applies: before running a command, when changing a file",
			"Check the plan first", "Before running `terraform apply`, run `terraform plan`. When changing terraform/modules/db.tf, ask the DBA.",
			"**/terraform/modules/db.tf", "terraform apply", ""},
		{"a moment names the command after it, not the remedy after that",
			"Before `git push`, run `git -C <worktree> pull --rebase origin main`: without it, `git push` fails", "`vercel deploy` fails: add `npx`.",
			"", "git push, vercel deploy", ""},
		{"in prose, a moment must say the command is run",
			"The Dockerfile copies the source first", "COPY . . came before go mod download. Before running go test, start the database.",
			"**/Dockerfile", "go test", ""},
		{"a git action warned against without the program's name",
			"Never commit without signing.", "Don't force push to main. A commit message names the ticket; push when the tests pass.",
			"", "git commit, git push", ""},
		{"a program named as a thing is not a command",
			"Use go-git for merges, not the git binary", "The server image has no git binary.",
			"", "", ""},
		{"prose: a known program and its subcommand",
			"go test fails in CI with a data race", "Never pip install into the system Python.",
			"", "go test, pip install", ""},
		{"a package convention",
			"Money is integer cents in package billing", "In the auth package, compare tokens in constant time.",
			"**/billing/** **/auth/**", "", "billing auth"},
		{"a component named in the title is a topic; brands and hyphenated words are not",
			"CartButton re-renders when GitHub is slow", "", "", "", "cartbutton"},
		{"prose that is not a path",
			"Retries and/or timeouts, e.g. for Node.js", "See https://example.com/a/b.md and the web/ folder. Version 1.2.3 changed.",
			"", "", ""},
		{"a glob and a folder of two segments",
			"Queries live in db/queries/*.sql", "The Go code in internal/db/queries is generated.",
			"**/db/queries/*.sql **/internal/db/queries **/internal/db/queries/**", "", ""},
		{"Windows and absolute paths in the text",
			"Edited web\\src\\App.tsx by hand", "- **Issue**: /home/alice/shop/internal/x.go was changed",
			"**/web/src/App.tsx /home/alice/shop/internal/x.go", "", ""},
		{"a route group is a folder of the path",
			"Page error fixed in `src/app/(dashboard)/items/page.tsx`", "Never compute f(a/b) twice.",
			"**/src/app/(dashboard)/items/page.tsx", "", ""},
		{"backticks in any language",
			"发布前", "不要运行 `npm publish`，修改 `.claude-plugin/plugin.json` 时",
			"", "npm publish", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := deriveTriggers(tc.title, tc.body)
			var cmds []string
			for _, c := range d.commands {
				cmds = append(cmds, c.String())
			}
			if got := strings.Join(d.files, " "); got != tc.files {
				t.Errorf("files %q, want %q", got, tc.files)
			}
			if got := strings.Join(cmds, ", "); got != tc.cmds {
				t.Errorf("commands %q, want %q", got, tc.cmds)
			}
			if got := strings.Join(d.topics, " "); got != tc.topics {
				t.Errorf("topics %q, want %q", got, tc.topics)
			}
		})
	}
}

func TestSegmentsAndCommandMatch(t *testing.T) {
	segs := Segments(`cd web && NODE_ENV=test npm i date-fns | tee log; sudo /usr/bin/git push --force origin main; npx playwright test "a b"`)
	var got []string
	for _, s := range segs {
		got = append(got, s.Verb+" "+strings.Join(s.Words, " "))
	}
	want := []string{"cd web", "npm i date-fns", "tee log", "sudo ", "git push origin main", "npx playwright test a b", "playwright test a b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("segments %q, want %q", got, want)
	}
	for _, tc := range []struct {
		cmd  Command
		line string
		want bool
	}{
		{Command{Verb: "npm"}, "cd web && npm install date-fns", true},
		{Command{Verb: "sudo"}, "sudo apt install ripgrep", true},
		{Command{Verb: "sudo"}, "apt list --installed", false},
		{Command{Verb: "npm", Words: []string{"install"}}, "npm i date-fns", true},
		{Command{Verb: "npm", Words: []string{"install"}}, "pnpm install", false},
		{Command{Verb: "git", Words: []string{"push"}}, "git -C x push --force origin main", true},
		{Command{Verb: "git", Words: []string{"push"}}, "git pull", false},
		{Command{Verb: "go", Words: []string{"test"}}, `C:\Go\bin\go.exe test ./...`, true},
		{Command{Verb: "terraform", Words: []string{"apply"}}, "cd terraform/staging && terraform apply -auto-approve", true},
		{Command{Verb: "playwright", Words: []string{"test"}}, "npx playwright test", true},
		{Command{Verb: "kubectl", Words: []string{"apply"}}, "echo 'kubectl apply'", false},
		// A wrapper's flags, and a command handed to a shell, are read past.
		{Command{Verb: "psql"}, "sudo -u postgres psql -d shop", true},
		{Command{Verb: "npm", Words: []string{"test"}}, `bash -c "cd web && npm test"`, true},
		{Command{Verb: "rg"}, `pwsh -NoLogo -Command rg -n TODO src`, true},
		{Command{Verb: "powershell"}, `powershell.exe -Command Get-Date`, true}, // the shell runs too
		{Command{Verb: "bash", Words: []string{"start-test.sh"}}, "bash start-test.sh", true},
	} {
		hit := false
		for _, s := range Segments(tc.line) {
			hit = hit || tc.cmd.Match(s)
		}
		if hit != tc.want {
			t.Errorf("%s on %q: %v, want %v", tc.cmd, tc.line, hit, tc.want)
		}
	}
}

func TestRequestCall(t *testing.T) {
	c := RequestCall("/work/shop", "/work/shop/web", "Fix src/api/client.ts, then run `npm install` and the e2e tests with playwright; see /changelog")
	if got := strings.Join(c.Paths, " "); got != "web/src/api/client.ts" {
		t.Errorf("paths %q", got)
	}
	var cmds []string
	for _, s := range c.Commands {
		cmds = append(cmds, strings.TrimSpace(s.Verb+" "+strings.Join(s.Words, " ")))
	}
	if got := strings.Join(cmds, ", "); got != "npm install, playwright" {
		t.Errorf("commands %q", got)
	}
}

// A decision learned as "pnpm, not npm" is served when npm runs, and a
// request that names a file a pitfall is about is served that pitfall.
func TestCommandsAndRequestsServe(t *testing.T) {
	dec := fromSection(kindDecisions, sectionOf(t, "## ADR-001: Use pnpm, not npm, for the web app\n\n- **Status**: Accepted\n"), "d.md")
	o := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	bash := &Call{Tool: "Bash", Commands: Segments("cd web && npm install date-fns"), Words: words.NewHaystack("cd web && npm install date-fns")}
	if got := Rank([]*Item{dec}, bash, o); len(got) != 1 || got[0].Command != 0.4 || got[0].Score != 0.9 {
		t.Fatalf("npm install: %+v", got)
	}
	pnpm := &Call{Tool: "Bash", Commands: Segments("pnpm install"), Words: words.NewHaystack("pnpm install")}
	if got := Rank([]*Item{dec}, pnpm, o); len(got) != 0 {
		t.Fatalf("served while the agent does the right thing: %+v", got)
	}
	pf := fromSection(kindPitfalls, sectionOf(t, "## PF-008: API client changed without regenerating its types\n\n- **Area**: web/src/api/client.ts\n- **Status**: Active\n"), "p.md")
	for _, req := range []string{"add the refunds call to web/src/api/client.ts", "add the refunds call to client.ts"} {
		if got := Rank([]*Item{pf}, RequestCall("/r", "/r", req), o); len(got) != 1 {
			t.Errorf("%q: not served: %+v", req, Explain(pf, RequestCall("/r", "/r", req), DefaultWeights).Why)
		}
	}
	if got := Rank([]*Item{pf}, RequestCall("/r", "/r", "add the refunds call to the API"), o); len(got) != 0 {
		t.Errorf("served a request that names nothing of it: %+v", got)
	}
}

// A broad glob says where; when the item also sets keywords, they must
// say what.
func TestBroadGlobNeedsItsKeywords(t *testing.T) {
	pii := entryItem(t, "---\nsummary: Never log personal data\npriority: CRITICAL\ntriggers:\n  tools: [Edit]\n  files: [\"internal/**/*.go\"]\n  actions: [log]\n---\n")
	o := Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}
	edit := func(prompt string) *Call {
		return &Call{Tool: "Edit", Paths: []string{"internal/billing/invoice.go"}, FileScoped: true, Words: words.NewHaystack(prompt)}
	}
	if got := Rank([]*Item{pii}, edit("add a discount to invoices"), o); len(got) != 0 {
		t.Errorf("served on a Go edit that does not log: %+v", got)
	}
	if got := Rank([]*Item{pii}, edit("log the invoice id"), o); len(got) != 1 {
		t.Errorf("not served on a Go edit that logs")
	}
	for _, g := range []struct {
		p     string
		broad bool
	}{{"**/*.go", true}, {"internal/**/*.go", true}, {"*.md", true}, {"db/migrations/**", false}, {"**/module5/*.go", false}, {"**/*_test.go", false}, {"**/plugin.json", false}} {
		if compileGlob(g.p).Broad() != g.broad {
			t.Errorf("%s: broad %v", g.p, !g.broad)
		}
	}
}

var (
	kindDecisions = knowfile.Decisions
	kindPitfalls  = knowfile.Pitfalls
)

func sectionOf(t *testing.T, text string) *knowfile.Section {
	t.Helper()
	kind := knowfile.Decisions
	if strings.HasPrefix(text, "## PF-") {
		kind = knowfile.Pitfalls
	}
	doc := knowfile.Parse(kind, []byte(kind.Title+"\n\n"+text))
	if len(doc.Sections) != 1 {
		t.Fatalf("%d sections in %q", len(doc.Sections), text)
	}
	return doc.Sections[0]
}

// BenchmarkDerive is what reading a lesson's text costs: once per item when
// the cache is built, and once per item a hook serves (it reads the served
// item from its file again): a pitfall section of the usual length.
func BenchmarkDerive(b *testing.B) {
	title := "Forgot to bump the version in the marketplace file when changing the plugin file"
	body := "- **Issue**: plugin.json was changed (a new command) and the version in marketplace.json was left as it was, so nobody received the update\n" +
		"- **Impact**: the release had to be redone\n" +
		"- **Resolution**: every change to .claude-plugin/plugin.json bumps the version in .claude-plugin/marketplace.json too; never run `npm publish` by hand\n"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		deriveTriggers(title, body)
	}
}

// An entry whose author set only tools is served on every call of them,
// whatever its text names; the cache's index must not narrow it to what
// the text names.
func TestToolsOnlyEntryStaysAlwaysScored(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.dir(), 0o755)
	os.WriteFile(filepath.Join(s.dir(), "every-bash.md"), []byte("---\nsummary: Shell commands run in the dev container\npriority: HIGH\ntriggers:\n  tools: [Bash]\n---\nNever run `npm publish` from it; edit web/src/api/client.ts in the editor.\n"), 0o644)
	s.age()
	s.load(Full)
	call := &Call{Tool: "Bash", Commands: Segments("ls -la"), Words: words.NewHaystack("ls -la")}
	set, err := Candidates(s.src, s.cache, call)
	if err != nil || set.Rebuilt {
		t.Fatalf("not from the index: %v", err)
	}
	if got := Rank(set.Items, call, Options{Weights: DefaultWeights, Threshold: 0.7, MaxItems: 3}); len(got) != 1 || got[0].File != 0.2 {
		t.Fatalf("a tools-only entry was not served on a Bash call: %+v", got)
	}
}

// A route group's parentheses are part of the path: the lesson about one
// page is not served on every file of the app.
func TestRouteGroupGlobMatches(t *testing.T) {
	g := compileGlob(AreaGlobs("src/app/(dashboard)/items/page.tsx")[0])
	if !g.Match("src/app/(dashboard)/items/page.tsx") || g.Match("src/app/api/items/route.ts") || g.Match("src/app/(dashboard)/warehouses/page.tsx") {
		t.Errorf("%s matches the wrong pages", g.Shown)
	}
}

// A lesson devlearn learned reads as one title: a program it names in
// passing is no trigger there, though a person's entry saying the same
// names it; the command it names with its subcommand, and one it warns
// against, are.
func TestLearnedDraftNamesNoProgram(t *testing.T) {
	e := &Entry{Key: "obs-0123456789ab", Summary: "In this environment git has no author identity: git commit fails until user.name is set. Don't run `npm`.", Status: StatusDraft}
	commands := func(it *Item) string {
		var out []string
		for _, c := range it.Match.Commands {
			out = append(out, c.String())
		}
		return strings.Join(out, ", ")
	}
	learned := FromEntry(e, "project", project.ObservedDir+"/obs-0123456789ab.md")
	if got, want := commands(learned), "git commit, npm"; got != want {
		t.Errorf("learned: commands %q, want %q", got, want)
	}
	if got, want := commands(FromEntry(e, "project", ".memory/knowledge/entries/x.md")), "git, npm"; got != want {
		t.Errorf("a person's entry: commands %q, want %q", got, want)
	}
}
