package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// Gates are lists of objects inside objects: a typo or a bad value deep
// in one is named by its index and line, like any other key.
func TestGateErrorsNameTheGate(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"{\"gates\": {\"stop\": [\n  {\"name\": \"tests\", \"command\": \"go test ./...\", \"timout\": 5}\n]}}", `project.json:2: key "gates.stop[0].timout": unknown key (allowed here: name, command, cwd, timeout, required)`},
		{"{\"gates\": {\"post\": {\"implement\": [\n  {\"name\": \"a\", \"command\": \"true\"},\n  {\"name\": \"b\", \"command\": \"true\", \"timeout\": -1}\n]}}}", `project.json:3: key "gates.post.implement[1].timeout": -1 is out of range (allowed: 0 to 3600000)`},
		{"{\"gates\": {\"pre\": {\"implemnt\": []}}}", `project.json:1: key "gates.pre.implemnt": unknown key (allowed here: brainstorm, design_review, plan, implement, code_review, verify, done)`},
		{"{\"gates\": {\"stop\": [\n  {\"name\": \"\", \"command\": \"true\"}]}}", `project.json:2: key "gates.stop[0].name": must not be empty`},
		{"{\"gates\": {\"stop\": {\"name\": \"x\"}}}", `project.json:1: key "gates.stop": must be a list ([{...}, ...])`},
		{"{\"gates\": {\"stop\": [\"go test\"]}}", `project.json:1: key "gates.stop[0]": must be an object ({...})`},
		{"{\"mcp\": {\"tools\": {\"pipeline\": [\"fetch_knowledge\", \"rm_rf\"]}}}", `project.json:1: key "mcp.tools.pipeline": "rm_rf" is not allowed`},
		{"{\"skills\": {\"stages\": {\"plan\": \"\"}}}", `project.json:1: key "skills.stages.plan": must not be empty`},
	} {
		p := write(t, dir, "project.json", tc.body)
		_, err := Load("", p)
		if err == nil {
			t.Errorf("%s: no error", tc.body)
			continue
		}
		if got := strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
}

func TestGatesLoadAndOverride(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "global.json", `{"gates": {"stop": [{"name": "lint", "command": "make lint", "required": true}], "post": {"implement": [{"name": "build", "command": "go build ./...", "timeout": 30000, "required": true}]}}}`)
	p := write(t, dir, "project.json", `{"gates": {"stop": [{"name": "tests", "command": "go test ./...", "timeout": 200}]}}`)
	l, err := Load(g, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Gates.Stop) != 1 || l.Gates.Stop[0].Name != "tests" || l.Gates.Stop[0].Timeout != 200 || l.Gates.Stop[0].Required {
		t.Fatalf("a project's list replaces the global one: %+v", l.Gates.Stop)
	}
	if got, ok := l.Gates.Post.For("implement"); !ok || len(got) != 1 || got[0].Name != "build" {
		t.Fatalf("a list the project leaves alone stays global: %+v", got)
	}
	if _, ok := l.Gates.Post.For("deploy"); ok {
		t.Fatal("unknown stage")
	}
	for _, s := range Stages {
		if sk, ok := l.Skills.Stages.For(s); !ok || sk == "" {
			t.Fatalf("stage %s has no skill", s)
		}
	}
}

func TestJSONKeysSetLists(t *testing.T) {
	k, ok := LookupKey("gates.stop")
	if !ok || k.Kind != "json" {
		t.Fatalf("%+v", k)
	}
	v, err := k.ParseValue(`[{"name":"t","command":"go test ./..."}]`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := SetIn([]byte(`{"enabled": true}`), "gates.stop", v)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("learning.json", out)
	if err != nil || len(c.Gates.Stop) != 1 {
		t.Fatal(err, string(out))
	}
	if _, err := k.ParseValue("go test"); err == nil {
		t.Fatal("not JSON")
	}
}
