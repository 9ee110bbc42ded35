// Package render turns ready observations into artifacts: slash commands,
// skills, ADR and pitfall sections, through the one writer, in the render
// order of docs/architecture.md (intent, artifacts, manifest, created) so that a crash at any point is completed by the next run.
package render

import (
	"fmt"
	"path"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// MaxSlug is devflow's slug length.
const MaxSlug = 50

// Slug is devflow's slug: lower case, every run of characters outside
// [a-z0-9] becomes one "-", trimmed, at most 50 characters. NFKC first, so
// full-width letters become their ASCII selves; other scripts and
// look-alikes become separators, so a slug is always plain ASCII.
func Slug(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > MaxSlug {
		out = strings.TrimRight(out[:MaxSlug], "-")
	}
	return out
}

// slugFor is the slug of an observation, with a fallback built from its id
// when the pattern has no letters or digits at all.
func slugFor(pattern, id string) string {
	if s := Slug(pattern); s != "" {
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
	return p, nil
}
