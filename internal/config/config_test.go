package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProjectOverridesGlobalKeyByKey(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.json", `{"thresholds": {"workflow": {"required": 5, "spread_days": 1}}, "serve": {"max_items": 5}}`)
	p := write(t, dir, "project.json", `{
  "$schema": "./learning.schema.json",
  "thresholds": {"workflow": {"required": 4}}
}`)
	l, err := Load(g, p)
	if err != nil {
		t.Fatal(err)
	}
	w := l.Thresholds.Workflow
	if w.Required != 4 || w.SpreadDays != 1 || w.Promote != 0.60 {
		t.Fatalf("workflow threshold %+v, want required from project, spread from global, promote default", w)
	}
	if l.Serve.MaxItems != 5 || l.Serve.Threshold != 0.7 || l.Thresholds.Decision.Required != 2 {
		t.Fatalf("untouched keys must keep global or default values: %+v", l.Serve)
	}
	if len(l.Sources) != 2 {
		t.Fatalf("sources %d", len(l.Sources))
	}
}

func TestMissingFilesAreDefaults(t *testing.T) {
	l, err := Load(filepath.Join(t.TempDir(), "nope.json"), "")
	if err != nil || l.Thresholds.Procedural.Required != 4 {
		t.Fatal(err, l)
	}
}

func TestErrorsNameFileLineKeyAndAllowedValues(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"{\n  \"thresholds\": {\n    \"workflow\": {\"promote\": 1.5}\n  }\n}", `project.json:3: key "thresholds.workflow.promote": 1.5 is out of range (allowed: 0 to 0.95)`},
		{"{\n  \"serve\": {\n    \"wieghts\": {}\n  }\n}", `project.json:3: key "serve.wieghts": unknown key (allowed here: enabled, threshold, max_items, budget_chars, prompt_max_items, prompt_budget_chars, weights, read_only_tools, drafts)`},
		{"{\"enabled\": \"yes\"}", `project.json:1: key "enabled": is string, want true or false`},
		{"{\n\"log\": {\"max_observing\": 5}}", `project.json:2: key "log.max_observing": 5 is out of range (allowed: 10 to 1000000)`},
		{"{\n  \"enabled\": true,\n  oops\n}", `project.json:3: not valid JSON: invalid character 'o' looking for beginning of object key string`},
		{"[1, 2]", `project.json:1: must be a JSON object ({...})`},
		{"{\"thresholds\": 3}", `project.json:1: key "thresholds": must be an object ({...})`},
		{"{\"serve\": {\"read_only_tools\": [1]}}", `project.json:1: key "serve.read_only_tools": is number, want a string`},
		{"{\"enabled\": true,\n  \"serve\": {\n    \"max_items\": \"five\"}}", `project.json:3: key "serve.max_items": is string, want a whole number`},
	} {
		p := write(t, dir, "project.json", tc.body)
		_, err := Load("", p)
		if err == nil {
			t.Errorf("%s: no error", tc.body)
			continue
		}
		if got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
}

// What no file sets keeps its default, which loading does not check
// again: every default must pass the checks a file's value would.
func TestDefaultsAreValid(t *testing.T) {
	if errs := Default().Validate(); len(errs) > 0 {
		t.Fatalf("the defaults fail their own checks: %v", errs[0])
	}
}

// A bad value in force is blamed on the file that set it.
func TestValidationBlamesTheFileThatSetTheValue(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.json", "{\n\n\"worker\": {\"batch_size\": 0}}")
	p := write(t, dir, "project.json", `{"enabled": true}`)
	_, err := Load(g, p)
	if err == nil || !strings.Contains(err.Error(), "global.json:3: key \"worker.batch_size\"") {
		t.Fatalf("got %v", err)
	}
}

// The published schema is derived from the struct: regenerate it with
// `go test ./internal/config -update` after changing Config.
func TestSchemaFileIsCurrent(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "templates", "learning.schema.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date: run go test ./internal/config -update", path)
	}
}

// BenchmarkLoad is what every hook pays for a project with both files.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	g, p := filepath.Join(dir, "config.json"), filepath.Join(dir, "learning.json")
	os.WriteFile(g, []byte("{\n  \"serve\": {\n    \"max_items\": 3,\n    \"threshold\": 0.4\n  },\n  \"worker\": {\n    \"batch_size\": 2\n  }\n}\n"), 0o644)
	os.WriteFile(p, []byte("{\n  \"serve\": {\n    \"budget_chars\": 6000,\n    \"read_only_tools\": [\"Read\", \"Grep\", \"Glob\"]\n  },\n  \"knowledge\": {\n    \"index_budget_tokens\": 800\n  }\n}\n"), 0o644)
	if _, err := Load(g, p); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Load(g, p)
	}
}
