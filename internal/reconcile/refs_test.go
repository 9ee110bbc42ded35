package reconcile

import (
	"reflect"
	"testing"
)

func TestCodeRefs(t *testing.T) {
	for in, want := range map[string][]string{
		"area: scripts/hooks/; issue: one script does everything":         {"scripts/hooks/"},
		"Run scripts/release.sh with the new version, then CHANGELOG.md.": {"scripts/release.sh", "CHANGELOG.md"},
		"see `src/server.js` (routes)":                                    {"src/server.js"},
		"input/output and/or read/write":                                  nil,
		"https://example.com/a/b.js and /etc/passwd and ~/x.go":           nil,
		"version 0.7.3, v1.2/3.4 e.g. i.e.":                               nil,
		"../../etc/passwd.md":                                             nil,
		"src/*.go and ${HOME}/x.sh":                                       nil,
		"README.md README.md":                                             {"README.md"},
	} {
		if got := codeRefs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("codeRefs(%q) = %q, want %q", in, got, want)
		}
	}
}
