package extract

import (
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Areas are stored relative to the repository root with forward slashes,
// whatever the system the session ran on and whatever folder it ran in, so
// that a lesson learned in one clone fires in another.
func TestFailureAreasAreStoredRelativeToTheRoot(t *testing.T) {
	for _, tc := range []struct {
		name, root, cwd, path, want string
	}{
		{"windows session", "", `C:\Users\bob\shop`, `C:\Users\bob\shop\web\src\App.tsx`, "web/src/App.tsx"},
		{"session in a sub-folder", "/work/shop", "/work/shop/web", "/work/shop/web/src/App.tsx", "web/src/App.tsx"},
		{"another clone", "/work/shop", "/home/alice/shop", "/home/alice/shop/web/src/App.tsx", "web/src/App.tsx"},
		{"outside any of them", "/work/shop", "/work/shop", "/home/alice/notes/todo.md", "notes/todo.md"},
	} {
		ch := &transcript.Channels{Tools: []transcript.ToolCall{{
			Meta: transcript.Meta{SessionID: "s1", Line: 3}, Name: "Edit", Paths: []string{tc.path}, Cwd: tc.cwd,
			HasResult: true, IsError: true, Error: "Error: TypeError: cannot read properties of undefined (reading 'map')",
		}}}
		fs := Failures(ch, Options{Root: tc.root})
		if len(fs) != 1 || fs[0].Area != tc.want {
			t.Errorf("%s: %+v, want area %q", tc.name, fs, tc.want)
		}
	}
}
