package textsim

import "testing"

// BenchmarkSimilarity is one comparison of two lessons, which the curator
// makes for every new lesson against every bullet of its group, and ingest
// for every sighting against every item applied in the session.
func BenchmarkSimilarity(b *testing.B) {
	x := "Sanitize user input with html.EscapeString before rendering templates"
	y := "Always sanitise user inputs with html.EscapeString() before template rendering"
	for b.Loop() {
		Similarity(x, y)
	}
}
