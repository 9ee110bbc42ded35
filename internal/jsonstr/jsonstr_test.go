package jsonstr

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/devlearn/devlearn/internal/jsonstr/jsonstrtest"
)

func TestAppendIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	for range 200000 {
		s := jsonstrtest.Text(r, 8)
		want, _ := json.Marshal(s)
		if got := Append(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, p := range jsonstrtest.Pieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
