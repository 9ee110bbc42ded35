package extract

import "testing"

// A line the shell prints before every command (a profile script that
// fails as it starts) is no command's error: the error is what follows it.
func TestWithoutAmbient(t *testing.T) {
	const profile = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted"
	ch := session("s", "user: x",
		"fail: rg --files -g '*.yaml' => Exit code: 1\nOutput:\n"+profile,
		"fail: pytest -q => Exit code: 127\nOutput:\n"+profile+"\nzsh:1: command not found: pytest",
		"fail: sed -n '1,200p' a/quickfix.py => Exit code: 1\nOutput:\n"+profile+"\nsed: a/quickfix.py: No such file or directory",
		"fail: make build => Command timed out after 2m 0.0s",
		"fail: npm run dev => Command timed out after 2m 0.0s\nserver listening on http://localhost:3000",
		"fail: go run . => Command timed out after 2m 0.0s\nlistening on :8080")
	got := withoutAmbient(ch)
	for i, want := range []string{
		"Exit code: 1\nOutput:\n" + profile, // all there is to go by
		"Exit code: 127\nOutput:\nzsh:1: command not found: pytest",
		"Exit code: 1\nOutput:\nsed: a/quickfix.py: No such file or directory",
		"Command timed out after 2m 0.0s",
		"Command timed out after 2m 0.0s\nserver listening on http://localhost:3000",
	} {
		if e := got.Tools[i].Error; e != want {
			t.Errorf("call %d: error %q, want %q", i, e, want)
		}
	}
	if ch.Tools[1].Error == got.Tools[1].Error {
		t.Error("the session read was changed in place")
	}
}
