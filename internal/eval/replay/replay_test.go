package replay

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestMapFolder(t *testing.T) {
	for _, tc := range []struct{ s, from, want string }{
		{"/home/dev/shop/web/x.ts", "/home/dev/shop", "/R/web/x.ts"},
		{"/home/dev/shop", "/home/dev/shop", "/R"},
		{"/home/dev/shopping/x.ts", "/home/dev/shop", "/home/dev/shopping/x.ts"},
		{"cd /home/dev/shop/web && npm i", "/home/dev/shop", "cd /R/web && npm i"},
		{`c:\users\CAROL\shop\Web\src\A.tsx`, `C:\Users\carol\shop`, `/R\Web\src\A.tsx`},
		{"relative/path.go", "/home/dev/shop", "relative/path.go"},
	} {
		if got := mapFolder(tc.s, tc.from, "/R"); got != tc.want {
			t.Errorf("mapFolder(%q, %q) = %q, want %q", tc.s, tc.from, got, tc.want)
		}
	}
}

// TestHookCalls derives the hook calls of a replay's transcript: a session
// start, then each prompt and each tool call in order, with the recorded
// folder mapped to the clone.
func TestHookCalls(t *testing.T) {
	calls, err := hookCalls(filepath.Join("..", "..", "..", "testdata", "replay", "tune", "long-session-migration", "session.jsonl"), "/clone")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.name+" "+c.tool+" "+c.target)
	}
	want := []string{
		"SessionStart  ", "UserPromptSubmit  ", "PreToolUse Read README.md", "PreToolUse Edit README.md",
		"UserPromptSubmit  ", "PreToolUse Read Makefile", "PreToolUse Edit Makefile",
		"UserPromptSubmit  ", "PreToolUse Edit docs/development.md",
		"UserPromptSubmit  ", "PreToolUse Glob db/migrations/*.sql", "PreToolUse Write db/migrations/0043_add_customer_phone.sql",
		"PreToolUse Bash make migrate",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hook calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(string(calls[3].input), `"file_path":"/clone/README.md"`) || !strings.Contains(string(calls[3].input), `"cwd":"/clone"`) {
		t.Errorf("the recorded folder is not mapped to the clone: %s", calls[3].input)
	}
}
