package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzScan: the reader never panics, hands every non-blank line to fn
// exactly once without its line ending, and every line fn rejects becomes
// one Problem with the right number.
func FuzzScan(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"))
	f.Add([]byte("\n\n\r\n{"))
	f.Add([]byte("x\ny\r\nz"))
	f.Add(bytes.Repeat([]byte("a"), 70000))
	f.Fuzz(func(t *testing.T, in []byte) {
		var nonBlank, rejected int
		last := 0
		problems, err := Scan(bytes.NewReader(in), func(n int, line []byte) error {
			if n <= last {
				t.Fatalf("line numbers not increasing: %d after %d", n, last)
			}
			last = n
			if bytes.HasSuffix(line, []byte("\n")) || bytes.HasSuffix(line, []byte("\r")) {
				t.Fatalf("line %d keeps its ending: %q", n, line)
			}
			nonBlank++
			if !json.Valid(line) {
				rejected++
				return errors.New("bad")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) != rejected {
			t.Fatalf("%d problems for %d rejected lines", len(problems), rejected)
		}
		want := 0
		for _, l := range bytes.Split(in, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				want++
			}
		}
		if nonBlank != want {
			t.Fatalf("fn saw %d lines, want %d", nonBlank, want)
		}
	})
}
