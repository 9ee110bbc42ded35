package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// ClawFlow's seven skills, mapped from its seven stages.
func TestDefaultsMatchTheStageMap(t *testing.T) {
	want := "brainstorming,code-review,completion,design-review,test-driven-development,verification,writing-plans"
	if got := strings.Join(Defaults(), ","); got != want {
		t.Fatal(got)
	}
	cfg := config.Default()
	for _, stage := range config.Stages {
		name, _ := cfg.Skills.Stages.For(stage)
		core, ok := defaultText(name, Core)
		ext, ok2 := defaultText(name, Extended)
		if !ok || !ok2 {
			t.Fatalf("stage %s: skill %s has no default core and extended", stage, name)
		}
		if err := Validate(name, Core, core); err != nil {
			t.Fatal(err)
		}
		_, body, _ := parseCore(name, core)
		// ~200-500 tokens for a core, ~1,000-3,000 for the detail.
		if n := tokens(body); n < 150 || n > 600 {
			t.Errorf("%s core: %d tokens", name, n)
		}
		if n := tokens(string(ext)); n < 400 || n > 3000 {
			t.Errorf("%s extended: %d tokens", name, n)
		}
	}
	tdd, _ := defaultText("test-driven-development", Core)
	if !strings.Contains(string(tdd), "Check domain knowledge before writing tests — existing lessons may inform your test cases") {
		t.Fatal("the TDD core carries the seed's line")
	}
	done, _ := defaultText("completion", Core)
	for _, line := range []string{"Summarize what was done", "Confirm all tests pass", "Do NOT ask about merging — the pipeline handles it.", "Report the final status"} {
		if !strings.Contains(string(done), line) {
			t.Errorf("completion core lacks %q", line)
		}
	}
}

func TestSeedNeverOverwritesAPersonsEdit(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	res, err := Seed(ctx, home)
	if err != nil || len(res.Created) != 14 {
		t.Fatal(res, err)
	}
	res, err = Seed(ctx, home)
	if err != nil || len(res.Created)+len(res.Updated)+len(res.Kept) != 0 {
		t.Fatalf("second seed: %+v %v", res, err)
	}
	// A person edits one core; an older default of another is still as
	// devlearn seeded it.
	mine := filepath.Join(Dir(home), "code-review", "core.md")
	os.WriteFile(mine, []byte("---\ndescription: my review\n---\nMy own review rules.\n"), 0o644)
	oldDefault := []byte("---\ndescription: old\n---\nAn older default.\n")
	stale := filepath.Join(Dir(home), "verification", "core.md")
	os.WriteFile(stale, oldDefault, 0o644)
	var st seeded
	data, _ := os.ReadFile(filepath.Join(Dir(home), seededFile))
	json.Unmarshal(data, &st)
	st.Files["verification/core.md"] = sum(oldDefault)
	data, _ = json.Marshal(st)
	os.WriteFile(filepath.Join(Dir(home), seededFile), data, 0o644)
	os.Remove(filepath.Join(Dir(home), "completion", "extended.md"))

	res, err = Seed(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Kept, ",") != "code-review/core.md" || strings.Join(res.Updated, ",") != "verification/core.md" || strings.Join(res.Created, ",") != "completion/extended.md" {
		t.Fatalf("%+v", res)
	}
	if got, _ := os.ReadFile(mine); !strings.Contains(string(got), "My own review rules") {
		t.Fatal("edit overwritten")
	}
	s, err := Load(home, "code-review")
	if err != nil || !s.Edited || s.Description != "my review" || s.Core != "My own review rules.\n" {
		t.Fatalf("%+v %v", s, err)
	}
	// Kept again and again, never reported as anything else.
	res, _ = Seed(ctx, home)
	if len(res.Kept) != 1 || len(res.Updated)+len(res.Created) != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestValidateAndSave(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	for _, tc := range []struct{ tier, data, want string }{
		{Core, "no front matter", "starts with front matter"},
		{Core, "---\ndescription: x\n", "not closed"},
		{Core, "---\nname: x\n---\nbody\n", `unknown front matter key "name"`},
		{Core, "---\ndescription: \n---\nbody\n", "description is missing"},
		{Core, "---\ndescription: ok\n---\n\n", "the core is empty"},
		{Core, "---\ndescription: ok\n---\n" + strings.Repeat("x", MaxCore), "at most"},
		{Extended, "  \n", "empty"},
		{Extended, "\xff", "not UTF-8"},
		{"middle", "x", "not core or extended"},
	} {
		if err := Validate("s", tc.tier, []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %s", tc.tier, tc.data, err, tc.want)
		}
	}
	if _, err := Save(ctx, home, "my-skill", Extended, []byte("detail")); err == nil || !strings.Contains(err.Error(), "write its core first") {
		t.Fatal(err)
	}
	if _, err := Save(ctx, home, "../evil", Core, []byte("---\ndescription: x\n---\ny\n")); err == nil {
		t.Fatal("a path as a name")
	}
	if _, err := Save(ctx, home, "my-skill", Core, []byte("---\ndescription: Use when deploying\n---\nDeploy carefully.\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(ctx, home, "my-skill", Extended, []byte("All the details.\n")); err != nil {
		t.Fatal(err)
	}
	s, err := Load(home, "my-skill")
	if err != nil || s.Default || s.Extended != "All the details.\n" {
		t.Fatalf("%+v %v", s, err)
	}
	// A symbolic link is never read: it could serve any file.
	os.MkdirAll(filepath.Join(Dir(home), "linked"), 0o755)
	os.Symlink("/etc/passwd", filepath.Join(Dir(home), "linked", "core.md"))
	if _, err := Load(home, "linked"); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Fatal(err)
	}
	list, probs, err := List(home)
	if err != nil || len(list) != 1 || len(probs) != 1 {
		t.Fatalf("%v %v %v", list, probs, err)
	}
}

func TestRenderForClaudeKeepsWhatIsNotOurs(t *testing.T) {
	home := t.TempDir()
	Seed(context.Background(), home)
	s, _ := Load(home, "test-driven-development")
	files := RenderClaude(s)
	if len(files) != 2 || files[0].Path != "test-driven-development/SKILL.md" {
		t.Fatal(files)
	}
	skill := string(files[0].Data)
	if !strings.HasPrefix(skill, "---\nname: test-driven-development\ndescription: \"Use at the implement stage: write") ||
		!strings.Contains(skill, "read [extended.md](extended.md)") || !strings.Contains(skill, "# Test-driven development") {
		t.Fatal(skill)
	}
	if Owner(files[0].Data) != Ours || Owner(files[1].Data) != Ours || Owner([]byte("# mine\n")) != Foreign || Owner(nil) != Absent {
		t.Fatal("ownership")
	}
	edited := strings.Replace(skill, "Red:", "RED:", 1)
	if Owner([]byte(edited)) != Edited {
		t.Fatal("an edit is not seen")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "code-review"), 0o755)
	os.WriteFile(filepath.Join(dir, "code-review", "SKILL.md"), []byte("---\nname: code-review\ndescription: mine\n---\nmine\n"), 0o644)
	list, _, _ := List(home)
	plan, err := PlanRender(dir, list, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Written) != 13 || plan.Kept["code-review/SKILL.md"] == "" {
		t.Fatalf("%+v", plan)
	}
	for _, w := range plan.Write {
		p := filepath.Join(dir, w.Path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, w.Data, 0o644)
	}
	again, _ := PlanRender(dir, list, false)
	if len(again.Written) != 0 || len(again.Unchanged) != 13 {
		t.Fatalf("%+v", again)
	}
	gone, _ := PlanRender(dir, list, true)
	if len(gone.Removed) != 13 || gone.Kept["code-review/SKILL.md"] == "" {
		t.Fatalf("%+v", gone)
	}
}

// A core.md declares the filtered directive types its stage loads; a name
// that is not one is reported with its line and what to write, and the
// rest still counts.
func TestDirectivesDeclaration(t *testing.T) {
	for _, tc := range []struct {
		name, front string
		want        []string
		problems    []string
	}{
		{"none", "description: x\n", nil, nil},
		{"empty", "description: x\ndirectives: []\n", nil, nil},
		{"flow", "description: x\ndirectives: [TESTING.md, CHECKLIST.md, TESTING.md]\n", []string{"TESTING.md", "CHECKLIST.md"}, nil},
		{"block", "description: x\ndirectives:\n  - PITFALLS.md\n  - testing.md\n  - AGENTS.md\n  - NOTES.md\n  - TEMPLATE\n", []string{"PITFALLS.md"}, []string{
			`core.md:5: "testing.md" is not a directive type: write TESTING.md (ignored until fixed)`,
			"core.md:6: AGENTS.md is a core type, always given in full: declare only TESTING.md, PITFALLS.md, CONTRIBUTING.md, TEMPLATE.md, CHECKLIST.md (ignored until fixed)",
			`core.md:7: "NOTES.md" is not a directive type a skill can declare: one of TESTING.md, PITFALLS.md, CONTRIBUTING.md, TEMPLATE.md, CHECKLIST.md (ignored until fixed)`,
			`core.md:8: "TEMPLATE" is not a directive type: write TEMPLATE.md (ignored until fixed)`,
		}},
		{"scalar", "description: x\ndirectives: TESTING.md\n", nil, []string{"core.md:3: directives is a list of directive types, such as 'directives: [TESTING.md, CHECKLIST.md]': nothing is declared until it is one"}},
		{"nested", "description: x\ndirectives: [[TESTING.md]]\n", nil, []string{"core.md:3: each entry of directives is a file name such as TESTING.md: ignored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, err := parseCore("core.md", []byte("---\n"+tc.front+"---\nBody.\n"))
			if err != nil || body != "Body.\n" || fm.Description != "x" {
				t.Fatalf("%+v %q %v", fm, body, err)
			}
			if strings.Join(fm.Directives, ",") != strings.Join(tc.want, ",") {
				t.Errorf("declared %q, want %q", fm.Directives, tc.want)
			}
			if strings.Join(fm.Problems, "\n") != strings.Join(tc.problems, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(fm.Problems, "\n"), strings.Join(tc.problems, "\n"))
			}
			// 'skill edit' refuses what the hook would ignore.
			err = Validate("s", Core, []byte("---\n"+tc.front+"---\nBody.\n"))
			if (err != nil) != (len(tc.problems) > 0) {
				t.Errorf("Validate: %v", err)
			}
		})
	}
	if _, _, err := parseCore("core.md", []byte("---\ndescription: x\nwhen: now\n---\nB\n")); err == nil || !strings.Contains(err.Error(), `core.md:3: unknown front matter key "when" (allowed: description, directives)`) {
		t.Fatal(err)
	}
}

// What each stage's default skill declares (the engine's directives: /implement, /fix
// and /test declare CHECKLIST.md), read from the seeded file, from the
// embedded default before any seeding, and nothing from a person's core
// without the key.
func TestDeclaredByStage(t *testing.T) {
	cfg := config.Default()
	home := t.TempDir()
	want := map[string]string{
		"brainstorm": "", "design_review": "PITFALLS.md", "plan": "TESTING.md,PITFALLS.md",
		"implement": "TESTING.md,PITFALLS.md,TEMPLATE.md,CHECKLIST.md", "code_review": "CONTRIBUTING.md,CHECKLIST.md",
		"verify": "TESTING.md,PITFALLS.md,CHECKLIST.md", "done": "CHECKLIST.md", "stop": "", "nowhere": "",
	}
	check := func(when string) {
		for stage, w := range want {
			d, err := Declared(home, &cfg.Skills.Stages, stage)
			if err != nil || strings.Join(d.Directives, ",") != w || len(d.Problems) > 0 {
				t.Errorf("%s, %s: %+v %v, want %s", when, stage, d, err, w)
			}
		}
	}
	check("not seeded")
	if _, err := Seed(context.Background(), home); err != nil {
		t.Fatal(err)
	}
	check("seeded")
	mine := filepath.Join(Dir(home), "test-driven-development", "core.md")
	os.WriteFile(mine, []byte("---\ndescription: my way\n---\nMine.\n"), 0o644)
	if res, _ := Seed(context.Background(), home); strings.Join(res.Kept, ",") != "test-driven-development/core.md" {
		t.Fatalf("%+v", res)
	}
	if d, err := Declared(home, &cfg.Skills.Stages, "implement"); err != nil || len(d.Directives) != 0 || d.Skill != "test-driven-development" {
		t.Fatalf("%+v %v", d, err)
	}
	cfg.Skills.Stages.Implement = "missing"
	if _, err := Declared(home, &cfg.Skills.Stages, "implement"); err == nil || !strings.Contains(err.Error(), `no skill "missing" for the implement stage`) {
		t.Fatal(err)
	}
}

// BenchmarkDeclared is what post-tool-use adds for a session whose task
// is at a stage: one core.md read and its front matter parsed.
func BenchmarkDeclared(b *testing.B) {
	cfg := config.Default()
	home := b.TempDir()
	if _, err := Seed(context.Background(), home); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if d, err := Declared(home, &cfg.Skills.Stages, "implement"); err != nil || len(d.Directives) != 4 {
			b.Fatal(d, err)
		}
	}
}

// A skill's name is a folder in the repository: one Windows keeps for a
// device would break every checkout there.
func TestValidNameRefusesDevices(t *testing.T) {
	for _, name := range []string{"con", "aux", "nul", "prn", "com1", "lpt9"} {
		if ValidName(name) == nil {
			t.Errorf("ValidName(%q) = nil", name)
		}
	}
	for _, name := range []string{"console", "aux-tools", "com10"} {
		if err := ValidName(name); err != nil {
			t.Errorf("ValidName(%q): %v", name, err)
		}
	}
}
