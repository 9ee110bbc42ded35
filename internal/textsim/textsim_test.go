package textsim

import (
	"slices"
	"testing"
)

func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b     string
		min, max float64
	}{
		{"Run the tests before committing", "Always run the tests before you commit", 1, 1},
		{"Run the tests before committing.", "run the TESTS before committing", 1, 1},
		{"Run the tests before committing", "Run gofmt before committing", 0, 0.34},
		{"Sanitize user input with html.EscapeString before rendering templates", "Always sanitise user inputs with html.EscapeString() before template rendering", 0.5, 1},
		{"Bump the version in plugin.json and pyproject.toml", "Keep configuration in plain JSON files", 0, 0.1},
		{"the", "a", 0, 0},
	} {
		got := Similarity(c.a, c.b)
		if got < c.min || got > c.max {
			t.Errorf("Similarity(%q, %q) = %.2f, want %.2f..%.2f (words %v / %v)", c.a, c.b, got, c.min, c.max, Words(c.a), Words(c.b))
		}
	}
}

func TestWords(t *testing.T) {
	if got := Words("Never commit changes without running the tests"); !slices.Equal(got, []string{"commit", "chang", "test"}) {
		t.Fatalf("%v", got)
	}
}
