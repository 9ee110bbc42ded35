package mdfront

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in, front, rest string
		line            int
		ok              bool
	}{
		{"---\nkey: v\n---\nbody\n", "key: v\n", "body\n", 2, true},
		{"\n  \n---\nkey: v\n---\n", "key: v\n", "", 4, true},
		{" --- \r\na: 1\r\n---\r\nx", "a: 1\r\n", "x", 2, true},
		{"---\n---\nbody", "", "body", 2, true},
		{"# Title\n---\na: 1\n---\n", "", "# Title\n---\na: 1\n---\n", 0, false},
		{"---\na: 1\n", "", "---\na: 1\n", 0, false},
		{"---", "", "---", 0, false},
		{"", "", "", 0, false},
	} {
		front, rest, line, ok := Split([]byte(c.in))
		if string(front) != c.front || string(rest) != c.rest || line != c.line || ok != c.ok {
			t.Errorf("Split(%q) = %q, %q, %d, %v; want %q, %q, %d, %v", c.in, front, rest, line, ok, c.front, c.rest, c.line, c.ok)
		}
	}
}

// The line Split gives is where front starts, on documents built from
// every kind of line adrg/frontmatter treats apart: blank ones, spaces
// around the markers, markers not alone, CRLF, no final newline.
func TestSplitLine(t *testing.T) {
	lines := []string{"---", "---yaml", " --- ", "---\r", "--- x", "+++", "", "  ", "\t", "key: value", "# Title"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for n := r.IntN(6); n > 0; n-- {
			b.WriteString(lines[r.IntN(len(lines))])
			if n > 1 || r.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		data := []byte(b.String())
		front, rest, line, ok := Split(data)
		if !ok {
			if !bytes.Equal(rest, data) {
				t.Fatalf("Split(%q): no front matter, rest %q", data, rest)
			}
			continue
		}
		// The lines before front are blank but one, the opening "---".
		before := strings.Split(b.String(), "\n")[:line-1]
		for i, l := range before {
			want := ""
			if i == len(before)-1 {
				want = "---"
			}
			if strings.TrimSpace(l) != want {
				t.Fatalf("Split(%q): front at line %d, after %q", data, line, before)
			}
		}
		if !bytes.HasSuffix(data, rest) || !bytes.Contains(data, front) {
			t.Fatalf("Split(%q) = %q, %q", data, front, rest)
		}
	}
}
