package observe

import (
	"regexp"
	"strings"
	"testing"
)

// The ids below are golden: they are stored in every log and artifact, so a
// change to ID or Normalize would orphan every existing observation. If this
// test fails, the change is wrong, not the test. They were computed outside
// Go, with Python's unicodedata (NFKC, category P*) and hashlib, as a second
// implementation of the observation ids rule of docs/architecture.md.
func TestIDGolden(t *testing.T) {
	for _, tc := range []struct{ typ, pattern, want string }{
		{"pitfall", "Hook scripts grow into god scripts", "obs_5c370eb6abf0"},
		{"pitfall", "  HOOK scripts, grow into god scripts! ", "obs_5c370eb6abf0"},
		{"decision", "Hook scripts grow into god scripts", "obs_9256a1974160"},
		{"workflow", "Run the release checklist", "obs_fb47ca22d0e3"},
		{"procedural", "ﬁle names are lower case", "obs_e8d62a965ec9"}, // NFKC: the "fi" ligature
	} {
		if got := ID(tc.typ, tc.pattern); got != tc.want {
			t.Errorf("ID(%q, %q) = %s, want %s", tc.typ, tc.pattern, got, tc.want)
		}
	}
}

// ValidID is IDPattern written out; the regexp is the specification.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"obs_5c370eb6abf0", "obs_abcde", "obs_abcdef", "obs_" + strings.Repeat("a", 40), "obs_" + strings.Repeat("a", 41), "OBS_abcdef", "obs_ABCDEF", "obs_abc-ef", "obs_abcdef\n", ""} {
		f.Add(s)
	}
	re := regexp.MustCompile(IDPattern)
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), re.MatchString(id); got != want {
			t.Fatalf("ValidID(%q) = %v, the pattern says %v", id, got, want)
		}
	})
}
