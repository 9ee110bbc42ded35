package settings

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMCPRegisterKeepsOtherServers(t *testing.T) {
	in := "{\n  \"mcpServers\": {\n    \"github\": {\"command\": \"gh-mcp\", \"args\": [\"--ro\"], \"env\": {\"TOKEN\": \"${GH}\"}}\n  },\n  \"other\": 1\n}\n"
	f, err := ParseMCP(".mcp.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if changed, kept := f.Register(); !changed || kept {
		t.Fatal(changed, kept)
	}
	var got struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
		Other int `json:"other"`
	}
	if err := json.Unmarshal(f.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, f.Bytes())
	}
	d, gh := got.MCPServers["devlearn"], got.MCPServers["github"]
	if d.Command != "devlearn" || strings.Join(d.Args, " ") != "mcp" || d.Type != "stdio" || gh.Command != "gh-mcp" || gh.Env["TOKEN"] != "${GH}" || got.Other != 1 {
		t.Fatalf("%s", f.Bytes())
	}
	if strings.Join(f.Names(), ",") != "github,devlearn" {
		t.Fatal(f.Names())
	}
	// Twice is once.
	again, _ := ParseMCP(".mcp.json", f.Bytes())
	if changed, _ := again.Register(); changed || !again.Registered() {
		t.Fatal("second register changed the file")
	}
	// Unregister takes devlearn's only.
	if !again.Unregister() || again.Registered() || !strings.Contains(string(again.Bytes()), `"gh-mcp"`) || !strings.Contains(string(again.Bytes()), `"other": 1`) {
		t.Fatalf("%s", again.Bytes())
	}
	if again.Unregister() {
		t.Fatal("nothing left to remove")
	}
}

func TestMCPFromNothingAndBack(t *testing.T) {
	f, _ := ParseMCP(".mcp.json", nil)
	f.Register()
	if !strings.Contains(string(f.Bytes()), "\"devlearn\": {") {
		t.Fatalf("%s", f.Bytes())
	}
	back, _ := ParseMCP(".mcp.json", f.Bytes())
	back.Unregister()
	if !back.Empty() {
		t.Fatalf("%s", back.Bytes())
	}
}

func TestMCPNeverTakesAnotherProgramsName(t *testing.T) {
	f, _ := ParseMCP(".mcp.json", []byte(`{"mcpServers": {"devlearn": {"command": "npx", "args": ["other-devlearn"]}}}`))
	if changed, kept := f.Register(); changed || !kept {
		t.Fatal(changed, kept)
	}
	if f.Unregister() {
		t.Fatal("removed another program's server")
	}
	if _, err := ParseMCP(".mcp.json", []byte(`{"mcpServers": []}`)); err == nil || !strings.Contains(err.Error(), `"mcpServers" must be an object`) {
		t.Fatal(err)
	}
	if _, err := ParseMCP(".mcp.json", []byte(`{"mcpServers": {`)); err == nil || !strings.Contains(err.Error(), ".mcp.json:1:") {
		t.Fatal(err)
	}
}
