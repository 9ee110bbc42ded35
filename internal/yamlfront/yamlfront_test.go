package yamlfront

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"
)

// adrg splits data as adrg/frontmatter's YAML format does.
func adrg(data []byte) (front, rest []byte, ok bool) {
	var got []byte
	keep := func(b []byte, v any) error { got = append([]byte{}, b...); return nil }
	rest, err := frontmatter.MustParse(bytes.NewReader(data), new(any), frontmatter.NewFormat("---", "---", keep))
	if errors.Is(err, frontmatter.ErrNotFound) {
		return nil, data, false
	}
	return got, rest, true
}

// Split finds what adrg/frontmatter finds, on documents built from every
// kind of line it treats apart: blank ones, spaces around the markers,
// markers that are not alone, CRLF, and files that end without a newline.
func TestSplitIsAdrgFrontmatter(t *testing.T) {
	lines := []string{"---", "---yaml", " --- ", "---\r", "--- x", "----", "+++", "", "  ", "\t", "source: self-learning:obs_1",
		"key: value", "\u00a0---", "# Title", "text ---"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		var b strings.Builder
		for n := r.IntN(6); n > 0; n-- {
			b.WriteString(lines[r.IntN(len(lines))])
			if n > 1 || r.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		data := []byte(b.String())
		front, rest, line, ok := Split(data)
		wantFront, wantRest, wantOK := adrg(data)
		if ok != wantOK || !bytes.Equal(front, wantFront) || !bytes.Equal(rest, wantRest) {
			t.Fatalf("Split(%q) = %q, %q, %v; adrg/frontmatter %q, %q, %v", data, front, rest, ok, wantFront, wantRest, wantOK)
		}
		// line is where front starts: one line past every line before it.
		if ok {
			start := cap(data) - cap(front) // front is data[start:...]
			if want := bytes.Count(data[:start], []byte("\n")) + 1; line != want {
				t.Fatalf("Split(%q): front matter at line %d, want %d", data, line, want)
			}
		}
	}
}
