package mcpconfig

import (
	"strings"
	"testing"
)

func TestRegisterKeepsTheRestAndUndoes(t *testing.T) {
	mine := "model = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"
	out, changed, kept, err := Register([]byte(mine))
	if err != nil || !changed || kept {
		t.Fatalf("Register: %v %v %v", changed, kept, err)
	}
	if !strings.HasPrefix(string(out), mine) || !strings.HasSuffix(string(out), table) {
		t.Errorf("registered:\n%s", out)
	}
	if again, changed, _, _ := Register(out); changed || string(again) != string(out) {
		t.Error("a second Register changed the file")
	}
	back, changed, err := Unregister(out)
	if err != nil || !changed || string(back) != mine {
		t.Errorf("Unregister: %v %v\n%q", changed, err, back)
	}
	empty, _, _ := Unregister([]byte(table))
	if len(empty) != 0 {
		t.Errorf("a file of devlearn's table alone: %q", empty)
	}
}

func TestAnotherServerNamedDevlearnIsKept(t *testing.T) {
	theirs := "[mcp_servers.devlearn]\ncommand = \"something-else\"\n"
	if _, changed, kept, _ := Register([]byte(theirs)); changed || !kept {
		t.Errorf("Register took over: %v %v", changed, kept)
	}
	if _, changed, _ := Unregister([]byte(theirs)); changed {
		t.Error("Unregister removed another program's server")
	}
	if _, _, _, err := Register([]byte("not = [toml")); err == nil || !strings.Contains(err.Error(), File) {
		t.Errorf("broken file: %v", err)
	}
}
