package configtoml

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

// Every shape mcp_servers is written in gets devlearn's server in a file
// that parses, with nothing else changed, and loses it again on
// Unregister, back to the person's bytes.
func TestRegisterEveryShape(t *testing.T) {
	for name, mine := range map[string]string{
		"none":                "model = \"gpt-5-codex\"\n",
		"empty file":          "",
		"tables":              "[mcp_servers.docs]\ncommand = \"docs-mcp\"\n",
		"inline":              "mcp_servers = { other = { command = \"x\" } }\n",
		"inline, empty":       "mcp_servers = {}\n[features]\nhooks = true\n",
		"inline, then tables": "# mine\nmcp_servers = { a = { command = \"a\", args = [\"}\"] } } # a brace in a string\n\n[profiles.x]\nmodel = \"o3\"\n",
		"inline, CRLF":        "model = \"m\"\r\nmcp_servers = { other = { command = \"x\" } }\r\n",
		"tables, CRLF":        "[mcp_servers.docs]\r\ncommand = \"docs-mcp\"\r\n",
		"table of inlines":    "[mcp_servers]\nfoo = { command = \"x\" } # keep me\n",
		"dotted at the root":  "mcp_servers.foo.command = \"x\"\n",
		"dotted in the table": "[mcp_servers]\nfoo.command = \"x\"\nfoo.args = [\"y\"]\n",
	} {
		out, changed, kept, err := Register([]byte(mine))
		if err != nil || !changed || kept {
			t.Errorf("%s: %v %v %v", name, changed, kept, err)
			continue
		}
		if st, err := ServerState(out); err != nil || st != Ours {
			t.Errorf("%s: registered, then read as %v, %v:\n%s", name, st, err, out)
		}
		back, changed, err := Unregister(out)
		if err != nil || !changed {
			t.Errorf("%s: Unregister: %v %v\n%s", name, changed, err, out)
			continue
		}
		if string(back) != mine {
			t.Errorf("%s: not the person's file again:\n%q\nwant\n%q", name, back, mine)
		}
	}
}

// What devlearn cannot register into is refused with the file, the line
// and what to add, and is not changed.
func TestRegisterRefusesWhatItCannotEdit(t *testing.T) {
	for _, mine := range []string{"mcp_servers = \"none\"\n", "model = \"m\"\nmcp_servers = [1, 2]\n"} {
		out, changed, _, err := Register([]byte(mine))
		if err == nil || changed || string(out) != mine || !strings.Contains(err.Error(), File+":") || !strings.Contains(err.Error(), `add it by hand: [mcp_servers.devlearn]`) {
			t.Errorf("%q: %v %v", mine, changed, err)
		}
	}
	if _, err := ServerState([]byte("a = 1\nb = \"open\n")); err == nil || !strings.HasPrefix(err.Error(), File+":2:") {
		t.Errorf("a broken file is not named with its line: %v", err)
	}
}

// What a person wrote after devlearn's table (a comment before their next
// table) stays when the table goes, and no blank line is doubled.
func TestUnregisterKeepsCommentsAfterTheTable(t *testing.T) {
	mine := "[mcp_servers.github]\ncommand = \"gh-mcp\"\n"
	out, _, _, err := Register([]byte(mine))
	if err != nil {
		t.Fatal(err)
	}
	later := "\n# --- profiles (mine) ---\n[profiles.fast]\nmodel = \"o4-mini\"\n"
	back, changed, err := Unregister(append(out, later...))
	if err != nil || !changed {
		t.Fatalf("Unregister: %v %v", changed, err)
	}
	if want := mine + later; string(back) != want {
		t.Errorf("got\n%q\nwant\n%q", back, want)
	}
}
