package jsonpos

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestAt(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	for _, tc := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {19, 3, 8}, {-5, 1, 1}, {999, 4, 2}} {
		if l, c := At(data, tc.off); l != tc.line || c != tc.col {
			t.Errorf("At(%d) = %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}

// Both decoders point at the same byte: the x on line 3, column 8.
func TestOf(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": x\n}")
	var v any
	err := json.Unmarshal(data, &v)
	if l, c, ok := Of(data, err); !ok || l != 3 || c != 8 {
		t.Errorf("encoding/json: %d:%d %v (%v)", l, c, ok, err)
	}
	_, err = jsontext.NewDecoder(bytes.NewReader(data)).ReadValue()
	if l, c, ok := Of(data, err); !ok || l != 3 || c != 8 {
		t.Errorf("jsontext: %d:%d %v (%v)", l, c, ok, err)
	}
	if _, _, ok := Of(data, nil); ok {
		t.Error("nil error has a position")
	}
}
