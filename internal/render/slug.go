// Package render turns ready observations into artifacts: slash commands,
// skills, ADR and pitfall sections, through the one writer, in the render
// order of docs/architecture.md (intent, artifacts, manifest, created) so that a crash at any point is completed by the next run.
package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/devlearn/devlearn/internal/textkey"
)

// slugFor is the slug of an observation, with a fallback built from its id
// when the pattern leaves no Latin letter: a lesson written in another
// script keeps only its digits ("1 виджет за раз" is "1"), a name that says
// nothing and that the next such lesson would want too. So does a slug
// Windows keeps for a device ("aux", "con").
func slugFor(pattern, id string) string {
	if s := textkey.Slug(pattern); strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && !textkey.Reserved(s) {
		return s
	}
	return "lesson-" + strings.TrimPrefix(id, "obs_")
}

// within joins name onto dir and proves the result stays inside dir.
func within(dir, name string) (string, error) {
	p := path.Join(dir, name)
	if !strings.HasPrefix(p, dir+"/") || strings.Contains(name, "/") || strings.Contains(name, "..") {
		return "", fmt.Errorf("refusing %q: it would leave %s", name, dir)
	}
	if textkey.Reserved(name) {
		return "", fmt.Errorf("refusing %q: Windows keeps the name for a device", name)
	}
	return p, nil
}
