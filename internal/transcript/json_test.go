package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValueEnd(t *testing.T) {
	tests := []struct {
		in    string
		end   int // -1: error expected
		trunc bool
	}{
		{`"abc"`, 5, false},
		{`"a\"b"x`, 6, false},
		{`"a\\"x`, 5, false},
		{`"a\\\"b"`, 8, false},
		{`"abc`, -1, true},
		{`"a\"`, -1, true},
		{`true,`, 4, false},
		{`tru`, -1, true},
		{`trux`, -1, false},
		{`null`, 4, false},
		{`-0.5e+10]`, 8, false},
		{`01`, 1, false}, // the number ends at 0; what follows is the caller's business
		{`-`, -1, true},
		{`1.`, -1, true},
		{`1.x`, -1, false},
		{`1e`, -1, true},
		{`{}`, 2, false},
		{`[]`, 2, false},
		{`[ ]`, 3, false},
		{`{"a":[1,{"b":null}],"c":"}"} tail`, 28, false},
		{`[1,2,3]`, 7, false},
		{`[[],[[]],{}]`, 12, false},
		{`[1,]`, -1, false},
		{`[,1]`, -1, false},
		{`{"a":1,}`, -1, false},
		{`{"a" 1}`, -1, false},
		{`{1:2}`, -1, false},
		{`[1 2]`, -1, false},
		{`[}`, -1, false},
		{`{]`, -1, false},
		{`{"a":[1,2}`, -1, false},
		{`{"a":{"b":`, -1, true},
		{`[[[`, -1, true},
		{`x`, -1, false},
	}
	var sk skipper
	for _, tt := range tests {
		end, err := sk.valueEnd([]byte(tt.in), 0)
		if tt.end < 0 {
			if err == nil {
				t.Errorf("valueEnd(%q) = %d, want an error", tt.in, end)
			} else if tt.trunc != errors.Is(err, errTruncated) {
				t.Errorf("valueEnd(%q) error %v, truncated want %v", tt.in, err, tt.trunc)
			}
			continue
		}
		if err != nil || end != tt.end {
			t.Errorf("valueEnd(%q) = %d, %v; want %d", tt.in, end, err, tt.end)
		}
	}
}

func TestValueEndDepth(t *testing.T) {
	var sk skipper
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if _, err := sk.valueEnd([]byte(deep), 0); !errors.Is(err, errTooDeep) {
		t.Fatalf("nesting past maxDepth: err = %v, want errTooDeep", err)
	}
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if end, err := sk.valueEnd([]byte(ok), 0); err != nil || end != len(ok) {
		t.Fatalf("nesting at maxDepth: %d, %v", end, err)
	}
}

func TestStrDecode(t *testing.T) {
	tests := []struct{ json, want string }{
		{`"plain"`, "plain"},
		{`"a\nb\tc\\d\/e\"f"`, "a\nb\tc\\d/e\"f"},
		{`"\u00e9\u4e2d"`, "é中"},
		{`"\ud83d\ude80 rocket"`, "🚀 rocket"},
		{`"lone \ud83d here"`, "lone \uFFFD here"},
		{`"lone \ude80"`, "lone \uFFFD"},
		{`"\b\f\r"`, "\b\f\r"},
	}
	for _, tt := range tests {
		got := asStr([]byte(tt.json)).String()
		if got != tt.want {
			t.Errorf("decode %s = %q, want %q", tt.json, got, tt.want)
		}
		var std string
		if err := json.Unmarshal([]byte(tt.json), &std); err != nil || std != got {
			t.Errorf("decode %s: encoding/json gives %q (%v), we give %q", tt.json, std, err, got)
		}
		if !asStr([]byte(tt.json)).Is(tt.want) {
			t.Errorf("Is(%q) false for %s", tt.want, tt.json)
		}
	}
	if asStr([]byte(`null`)) != nil || asStr([]byte(`12`)) != nil {
		t.Error("asStr of a non-string must be nil")
	}
}

func TestObjectIter(t *testing.T) {
	var sk skipper
	it := sk.object([]byte(` {"a" : 1 , "b":{"c":[1,2]}, "d":"x"} `))
	var keys, vals []string
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		keys = append(keys, string(k))
		vals = append(vals, string(v))
	}
	if it.err != nil {
		t.Fatal(it.err)
	}
	if strings.Join(keys, ",") != "a,b,d" || strings.Join(vals, "|") != `1|{"c":[1,2]}|"x"` {
		t.Fatalf("keys %v vals %v", keys, vals)
	}
	for _, bad := range []string{`{"a":1} x`, `{"a":1`, `{"a":1 "b":2}`, `{,}`, `[1]`, ``} {
		it := sk.object([]byte(bad))
		for {
			if _, _, ok := it.next(); !ok {
				break
			}
		}
		if it.err == nil {
			t.Errorf("object(%q): no error", bad)
		}
	}
}

// checkAgainstStd holds the lazy reader to encoding/json on one input: what
// encoding/json accepts, we accept, with the same members and the same
// decoded strings. We may accept more only where we choose to be lenient:
// inside strings (raw control characters, unknown escapes).
func checkAgainstStd(t *testing.T, data []byte) {
	var sk skipper
	i := skipSpace(data, 0)
	end, err := sk.valueEnd(data, i)
	ours := err == nil && skipSpace(data, end) == len(data)
	std := json.Valid(data)
	if std && !ours {
		t.Fatalf("encoding/json accepts %q, we do not (end %d, %v)", data, end, err)
	}
	lenient := bytes.IndexByte(data, '\\') >= 0 || bytes.ContainsFunc(data, func(r rune) bool { return r < 0x20 })
	if ours && !std && !lenient {
		t.Fatalf("we accept %q, encoding/json does not", data)
	}
	if !std || i >= len(data) || data[i] != '{' {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	got := map[string]string{}
	it := sk.object(data)
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		got[Str(k).String()] = string(v)
	}
	if it.err != nil {
		t.Fatalf("object iteration of valid JSON %q: %v", data, it.err)
	}
	if !utf8.Valid(data) {
		return // encoding/json replaces bad bytes in keys; we keep them
	}
	if len(got) != len(m) {
		t.Fatalf("members: ours %v, encoding/json %v", got, m)
	}
	for k, v := range m {
		if got[k] != string(v) {
			t.Fatalf("member %q: ours %s, encoding/json %s", k, got[k], v)
		}
		var s string
		if json.Unmarshal(v, &s) == nil && asStr([]byte(got[k])).String() != s {
			t.Fatalf("member %q decodes to %q, encoding/json %q", k, asStr([]byte(got[k])).String(), s)
		}
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{"type":"user","message":{"content":"hi \u00e9 \ud83d\ude80"}}`,
		`[1,2,{"x":[true,false,null]}]`, `"\\\""`, `-1.5e-7`, `{"a":"\u0000"}`, `{"a":{"b":{"c":[]}}}`,
		`{"a":1,"a":2}`, ` {"k\"ey":"v"} `, `{"a":1`, `[1,]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstStd(t, data)
	})
}
