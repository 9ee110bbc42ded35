package observed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

func obs(id, typ, status, pattern, details string) observe.Observation {
	t := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	return observe.Observation{ID: id, Type: typ, Status: status, Pattern: pattern, Details: details, QualityOK: true, Count: 1, FirstSeen: t, LastSeen: t, Confidence: 0.5}
}

// What the log knows but has not made ready is a draft entry the hooks
// read as they read every entry; what was rendered or turned down is not;
// a file is rewritten only when what it says changed.
func TestSync(t *testing.T) {
	root := t.TempDir()
	list := []observe.Observation{
		obs("obs_aaaaaaaaaaaa", observe.Pitfall, observe.Observing, "`make migrate` fails with \"No rule\": add `-f db/Makefile`.", "area: make migrate; issue: x; impact: the command fails until it is fixed; resolution: run `make -f db/Makefile migrate` instead"),
		obs("obs_bbbbbbbbbbbb", observe.Pitfall, observe.Ready, "Never edit vendor/ by hand.", "area: vendor/; issue: the person had to point it out; impact: x; resolution: y"),
		obs("obs_cccccccccccc", observe.Procedural, observe.Created, "Rendered already.", ""),
		obs("obs_dddddddddddd", observe.Decision, observe.Deprecated, "Turned down.", ""),
	}
	n, err := Sync(root, list)
	if err != nil || n != 2 {
		t.Fatalf("Sync: %d files, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(root, project.LocalDir, ".gitignore")); err != nil {
		t.Fatalf("the local folder does not ignore itself: %v", err)
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: root})
	if len(set.Problems) > 0 || len(set.Items) != 2 {
		t.Fatalf("items %d, problems %v", len(set.Items), set.Problems)
	}
	for _, it := range set.Items {
		if !it.Learned() || !it.Draft() || !it.Active {
			t.Errorf("%s: learned %v, draft %v, active %v", it.ID, it.Learned(), it.Draft(), it.Active)
		}
		if it.ID == "obs-bbbbbbbbbbbb" && len(it.Match.Files) == 0 {
			t.Errorf("a pitfall's area gives no file trigger: %+v", it.Match)
		}
	}
	if n, _ := Sync(root, list); n != 0 {
		t.Errorf("nothing changed, yet %d files were written", n)
	}
	list[1].Status = observe.Created
	if n, _ := Sync(root, list); n != 1 {
		t.Errorf("one rendered since: %d files changed", n)
	}
	if err := Drop(root, "obs_aaaaaaaaaaaa"); err != nil {
		t.Fatal(err)
	}
	if set := knowledge.ReadAll(knowledge.Sources{Root: root}); len(set.Items) != 0 {
		t.Errorf("%d items left", len(set.Items))
	}
}

// A lesson rendered as a skill or a command reaches only the agents that
// load those files: it stays served, under its artifact's title (the
// person's once they edit it), until the artifact is gone. A section is
// served as itself.
func TestRenderedForSomeAgentsStaysServed(t *testing.T) {
	root := t.TempDir()
	skill := obs("obs_eeeeeeeeeeee", observe.Procedural, observe.Created, "Fale comigo em português do Brasil.", "trigger: the task at hand; steps: Fale comigo em português do Brasil.; source: the person stated a standing choice")
	skill.Artifact = ".claude/skills/fale-comigo/SKILL.md"
	gone := obs("obs_ffffffffffff", observe.Workflow, observe.Created, "Run the e2e tests.", "")
	gone.Artifact = ".claude/commands/self-learning/e2e.md"
	section := obs("obs_111111111111", observe.Pitfall, observe.Created, "Never edit vendor/ by hand.", "area: vendor/; issue: x; impact: y; resolution: z")
	section.Artifact = ".memory/knowledge/pitfalls.md"
	dir := filepath.Join(root, ".claude", "skills", "fale-comigo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: fale-comigo\n---\n\n# Responda sempre em português do Brasil.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sync(root, []observe.Observation{skill, gone, section}); err != nil {
		t.Fatal(err)
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: root})
	if len(set.Problems) > 0 || len(set.Items) != 1 {
		t.Fatalf("want only the skill's lesson served, got %d items, problems %v", len(set.Items), set.Problems)
	}
	it := set.Items[0]
	body, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(project.ObservedDir), "obs-eeeeeeeeeeee.md"))
	if it.ID != "obs-eeeeeeeeeeee" || it.Title != "Responda sempre em português do Brasil." || !strings.Contains(string(body), "Rendered as the skill `.claude/skills/fale-comigo/SKILL.md`, which only some agents load.") {
		t.Errorf("served %s %q as\n%s", it.ID, it.Title, body)
	}
}

// Each kind of lesson says where it came from; none says the person said
// what only the tool calls showed.
func TestHow(t *testing.T) {
	for details, want := range map[string]string{
		"area: x; issue: `make` fails; impact: the command fails until it is fixed; resolution: y":                                                     "a command failed and this is what made it pass",
		"area: docs/old/; issue: `ls docs/old/` fails; impact: the agent looks for it in session after session; resolution: z":                         "the agent looked for this path in several sessions and never found it",
		"area: src/app/page.tsx; issue: Error: x must be awaited; impact: the error comes back until it is fixed; resolution: change src/app/page.tsx": "the person reported this error and this is what fixed it",
		"area: sleep; issue: Blocked: sleep 30 followed by: tail x; impact: the harness refuses the call; resolution: use Monitor":                     "the agent's harness refused the call and said what to do instead",
		"request: run the linter; sessions: 3":                                                                          "the person asked for it in several sessions",
		"trigger: the task at hand; steps: use pnpm; source: the person corrected the agent":                            "the person said it",
		"trigger: the task at hand; steps: x; source: the agent's recap of the session says the person corrected it: y": "the agent's recap of a session says the person corrected it",
		"trigger: the task at hand; steps: x; source: the agent wrote it into CLAUDE.md when the person asked":          "the agent wrote it into its instructions when the person asked",
		"x; source: the agent kept it in its memory (feedback)":                                                         "the agent kept it in its memory",
		"source: the agent kept it in its memory (project)":                                                             "the agent kept it in its memory",
		"trigger: the task at hand; steps: Pull request: user rejected the title; source: the agent's recap of the session says the person corrected it: Pull request: user rejected the title": "the agent's recap of a session says the person corrected it",
	} {
		if got := how(&observe.Observation{Details: details}); got != want {
			t.Errorf("how(%q) = %q, want %q", details, got, want)
		}
	}
}

// A failure whose program refused a flag is served where a call passes
// that flag, not at every run of the program; one refused for another
// reason, at every run.
func TestRefusedFlag(t *testing.T) {
	for _, tc := range []struct {
		area, issue, want string
	}{
		{"grep", "`golangci-lint run ./... | grep -oP '\\(\\w+\\)'` fails with \"grep: invalid option -- P\"", "grep -P"},
		{"docker stack deploy", "`docker stack deploy --force-update -c s.yml app` fails with \"unknown flag: --force-update\"", "docker stack deploy --force-update"},
		{"npm create", "`npm create vite@latest x -y` fails with \"error: unknown option ''-y''\"", "npm create -y"},
		{"rg", "`rg -n \"- [ ]\" specs` fails with \"rg: unrecognized flag -\"", "rg"},
		{"sudo", "`sudo rm -rf x` fails with \"sudo: a terminal is required to read the password", "sudo"},
	} {
		e := Entry(ptr(obs("obs_aaaaaaaaaaaa", observe.Pitfall, observe.Observing, "x", "area: "+tc.area+"; issue: "+tc.issue+"; impact: the command fails until it is fixed; resolution: y")))
		if got := strings.Join(e.Triggers.Commands, ","); got != tc.want {
			t.Errorf("%s: commands %q, want %q", tc.area, got, tc.want)
		}
	}
	c, ok := knowledge.CommandTrigger("grep -P")
	if !ok {
		t.Fatal("grep -P is no trigger")
	}
	for line, want := range map[string]bool{
		"grep -oP '\\w+' x.txt":   true,
		"grep -r canonical site/": false,
		"grep -p x":               false,
	} {
		hit := false
		for _, s := range knowledge.Segments(line) {
			hit = hit || c.Match(s)
		}
		if hit != want {
			t.Errorf("%s matches %q: %v, want %v", c, line, hit, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
