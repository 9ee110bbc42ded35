package jsonstr

import (
	"bytes"
	"encoding/json"
	"math"
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

// textJSON is s as an Encoder with SetEscapeHTML(false) writes it.
func textJSON(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendTextIsEncodingJSONWithoutHTMLEscaping(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	for range 200000 {
		s := jsonstrtest.Text(r, 8)
		if got, want := AppendText(nil, s), textJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("AppendText(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendText(f *testing.F) {
	for _, p := range jsonstrtest.Pieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendText(nil, s), textJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("AppendText(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestAppendFloatIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 18))
	fs := []float64{0, 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, -2.5e-9, 1e20, 1e21, 123456789012, 0.1 + 0.2, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for range 100000 {
		fs = append(fs, math.Float64frombits(r.Uint64()), r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, f := range fs {
		want, err := json.Marshal(f)
		got, ok := AppendFloat(nil, f)
		if (err == nil) != ok || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("AppendFloat(%v) = %s, %v; encoding/json: %s, %v", f, got, ok, want, err)
		}
	}
}
