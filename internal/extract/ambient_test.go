package extract

import "testing"

// A line the shell prints before every command (a profile script that
// fails as it starts) is no command's error: the error is what follows it.
func TestWithoutAmbient(t *testing.T) {
	const profile = "/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted"
	const missing = "ModuleNotFoundError: No module named 'requests'"
	ch := session("s", "user: x",
		"fail: rg --files -g '*.yaml' => Exit code: 1\nOutput:\n"+profile,
		"fail: pytest -q => Exit code: 127\nOutput:\n"+profile+"\nzsh:1: command not found: pytest",
		"fail: sed -n '1,200p' a/quickfix.py => Exit code: 1\nOutput:\n"+profile+"\nsed: a/quickfix.py: No such file or directory",
		"fail: make build => Command timed out after 2m 0.0s",
		"fail: npm run dev => Command timed out after 2m 0.0s\nserver listening on http://localhost:3000",
		"fail: go run . => Command timed out after 2m 0.0s\nlistening on :8080",
		// One error the programs meet in turn, after what each printed
		// first: theirs, and kept.
		"fail: python app.py => Exit code 1\nTraceback (most recent call last):\n  File \"app.py\", line 1, in <module>\n"+missing,
		"fail: make run => Exit code 2\npython app.py\n"+missing+"\nmake: *** [run] Error 1",
		"fail: ./manage.py runserver => Exit code 1\n"+missing+"\nSee the docs",
		"fail: uv run app.py => Exit code 1\n"+missing+"\nSee the docs",
		"fail: pipenv run app => Exit code 1\n"+missing+"\nSee the docs",
		"hidden: git status 2>&1 | head => "+profile+"\nfatal: detected dubious ownership in repository at '/repo'")
	got := withoutAmbient(ch)
	for i, want := range []string{
		"Exit code: 1\nOutput:\n" + profile, // all there is to go by
		"Exit code: 127\nOutput:\nzsh:1: command not found: pytest",
		"Exit code: 1\nOutput:\nsed: a/quickfix.py: No such file or directory",
		"Command timed out after 2m 0.0s",
		"Command timed out after 2m 0.0s\nserver listening on http://localhost:3000",
		"Command timed out after 2m 0.0s\nlistening on :8080",
		"Exit code 1\nTraceback (most recent call last):\n  File \"app.py\", line 1, in <module>\n" + missing,
		"Exit code 2\npython app.py\n" + missing + "\nmake: *** [run] Error 1",
		"Exit code 1\n" + missing + "\nSee the docs",
	} {
		if e := got.Tools[i].Error; e != want {
			t.Errorf("call %d: error %q, want %q", i, e, want)
		}
	}
	if e := got.Tools[10].Error; e != "Exit code 1\n"+missing+"\nSee the docs" {
		t.Errorf("an error three programs open with: %q", e)
	}
	if h := got.Tools[11].Hidden; h != "fatal: detected dubious ownership in repository at '/repo'" {
		t.Errorf("what the filtered call printed: %q", h)
	}
	if ch.Tools[1].Error == got.Tools[1].Error {
		t.Error("the session read was changed in place")
	}
}
