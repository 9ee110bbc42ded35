package propose

import "testing"

// A proposal is a command that can fail: formatters in their checking
// form, commands that cannot fail not proposed, the rest as written.
func TestCanFail(t *testing.T) {
	for _, c := range []struct{ in, want, name string }{
		{"gofmt", `files=$(gofmt -l .) && test -z "$files" || { echo "$files"; exit 1; }`, "gofmt -l"},
		{"gofmt -w -s ./cmd", `files=$(gofmt -l -s ./cmd) && test -z "$files" || { echo "$files"; exit 1; }`, "gofmt -l"},
		{"goimports -l .", `files=$(goimports -l .) && test -z "$files" || { echo "$files"; exit 1; }`, "goimports -l"},
		{"black .", "black --check .", "black --check"},
		{"black --check src", "black --check src", "black --check"},
		{"prettier --write src", "prettier --check src", "prettier --check"},
		{"isort", "isort --check-only .", "isort --check-only"},
		{"cargo fmt", "cargo fmt --check", "cargo fmt"},
		{"rustfmt", "cargo fmt --check", "cargo fmt"},
		{"terraform fmt", "terraform fmt -check .", "terraform fmt -check"},
		{"test -z \"$(gofmt -l .)\"", "test -z \"$(gofmt -l .)\"", "test -z"},
		{"gosec ./...", "gosec ./...", "gosec ./..."},
		{"make lint", "make lint", "make lint"},
		{"echo checked", "", ""},
		{"true", "", ""},
	} {
		got, name, ok := canFail(c.in)
		if ok != (c.want != "") || got != c.want || name != c.name {
			t.Errorf("canFail(%q) = %q, %q, %v; want %q, %q", c.in, got, name, ok, c.want, c.name)
		}
	}
}
