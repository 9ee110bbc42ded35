package extract

import (
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Paths are stored relative to the repository root with forward slashes,
// whatever the system the session ran on and whatever folder it ran in, so
// that a lesson learned in one clone fires in another.
func TestPathsAreStoredRelativeToTheRoot(t *testing.T) {
	for _, tc := range []struct {
		name, root, cwd, path, want string
	}{
		{"windows session", "", `C:\Users\bob\shop`, `C:\Users\bob\shop\web\src\App.tsx`, "web/src/App.tsx"},
		{"session in a sub-folder", "/work/shop", "/work/shop/web", "/work/shop/web/src/App.tsx", "web/src/App.tsx"},
		{"another clone", "/work/shop", "/home/alice/shop", "/home/alice/shop/web/src/App.tsx", "web/src/App.tsx"},
		{"outside any of them", "/work/shop", "/work/shop", "/home/alice/notes/todo.md", "notes/todo.md"},
	} {
		orig := &transcript.Channels{Tools: []transcript.ToolCall{{
			Meta: transcript.Meta{SessionID: "s1", Line: 3}, Name: "Edit", Paths: []string{tc.path}, Cwd: tc.cwd,
		}}}
		ch := rooted(orig, tc.root)
		if got := lastEdit(ch.Tools); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if orig.Tools[0].Paths[0] != tc.path {
			t.Errorf("%s: the caller's channels were changed", tc.name)
		}
	}
}
