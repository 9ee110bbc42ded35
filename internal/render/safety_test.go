package render

import (
	"regexp"
	"strings"
	"testing"
)

var slugRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Learned text becomes a file name only through Slug: whatever it holds,
// the name is plain ASCII, at most 50 characters, and stays in its folder.
func TestHostilePatternsStayInTheirFolder(t *testing.T) {
	for _, pattern := range []string{
		"../../etc/passwd",
		"/etc/passwd",
		`..\..\windows\system32`,
		"a\x00b",
		strings.Repeat("very long pattern ", 40),
		"!!!",
		"раураl login flow", // Cyrillic look-alikes
		"ＦＵＬＬ ｗｉｄｔｈ",
		"..",
		"-leading-dash-",
		"con:aux|nul*?<>",
	} {
		slug := slugFor(pattern, "obs_0123456789ab")
		if !slugRe.MatchString(slug) || len(slug) > MaxSlug {
			t.Errorf("%q: slug %q is not plain ASCII of at most %d characters", pattern, slug, MaxSlug)
		}
		for _, dir := range []string{".claude/commands/self-learning", ".claude/skills"} {
			p, err := within(dir, slug+".md")
			if err != nil || !strings.HasPrefix(p, dir+"/") || strings.Contains(p, "..") {
				t.Errorf("%q: %q, %v", pattern, p, err)
			}
		}
	}
	if got := Slug("ＦＵＬＬ ｗｉｄｔｈ"); got != "full-width" {
		t.Errorf("NFKC: %q", got)
	}
	if got := slugFor("!!!", "obs_0123456789ab"); got != "lesson-0123456789ab" {
		t.Errorf("fallback: %q", got)
	}
	for _, name := range []string{"../x.md", "a/b.md", ".."} {
		if _, err := within(".claude/skills", name); err == nil {
			t.Errorf("within accepted %q", name)
		}
	}
}
