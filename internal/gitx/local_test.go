package gitx

import (
	"path"
	"strings"
	"testing"
)

// The working tree's session state (.memory/.local/) is never merged by
// the driver: no route of .gitattributes, and no rule of devlearn merge,
// reaches into it.
func TestLocalStateIsNotRouted(t *testing.T) {
	for _, p := range []string{".memory/.local/sessions/s1/directives.jsonl", ".memory/.local/.gitignore", ".memory/.local/x.jsonl"} {
		if IsDevlearnFile(p) {
			t.Errorf("%s is routed to the merge driver", p)
		}
		for _, line := range strings.Split(GitAttributes(), "\n") {
			pattern, _, _ := strings.Cut(line, " ")
			if ok, _ := path.Match(pattern, p); ok && !strings.HasPrefix(line, "#") {
				t.Errorf("%s matches .gitattributes line %q", p, line)
			}
		}
	}
}
