package scrub

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/mdfront"
)

// FuzzJSONLines: scrubbing never panics, keeps the number of lines, leaves
// a line without a match byte for byte, keeps a JSON line JSON, and leaves
// no match behind.
func FuzzJSONLines(f *testing.F) {
	for _, s := range []string{
		`{"a":"hunter2-correct-horse"}`,
		`{"a":"x\"hunter2-correct-horse\"","b":[1,2.50,null,{"hunter2-correct-horse":true}]}`,
		`{"a":"\u0068unter2-correct-horse"}`,
		"torn hunter2-correct-horse\n{\"ok\":1}\n",
		`["hunter2-correct-horsehunter2-correct-horse"]`,
		"{\"a\":\"\xff hunter2-correct-horse\"}",
		"",
	} {
		f.Add([]byte(s))
	}
	m := literal(f, secret)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := m.JSONLines(data)
		in := bytes.Split(data, []byte("\n"))
		out := bytes.Split(res.data, []byte("\n"))
		if len(in) != len(out) {
			t.Fatalf("%d lines became %d", len(in), len(out))
		}
		changed := 0
		for i := range in {
			if bytes.Equal(in[i], out[i]) {
				continue
			}
			changed++
			if json.Valid(in[i]) && !json.Valid(out[i]) {
				t.Fatalf("line %d is not JSON any more: %q -> %q", i+1, in[i], out[i])
			}
		}
		if changed != len(res.lines) {
			t.Fatalf("%d lines changed, %d reported", changed, len(res.lines))
		}
		for _, l := range out {
			if json.Valid(l) {
				var v any
				json.Unmarshal(l, &v)
				b, _ := json.Marshal(v)
				if strings.Contains(string(b), secret) && !bytes.Contains(l, []byte(secret)) {
					// Found only once decoded: must have been scrubbed.
					t.Fatalf("an escaped match survived: %q", l)
				}
			}
			if bytes.Contains(l, []byte(secret)) {
				t.Fatalf("a match survived: %q", l)
			}
		}
	})
}

// FuzzMarkdown: no match survives, and front matter that was YAML stays
// YAML.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"---\nkey: hunter2-correct-horse\ntags: [a, hunter2-correct-horse]\n---\nbody hunter2-correct-horse\n",
		"---\n# hunter2-correct-horse\nk: 'x hunter2-correct-horse'\n---\n",
		"---\nk: |\n  hunter2-correct-horse\n---\n",
		"---\nhunter2-correct-horse: 1\n---\n",
		"## PF-001: hunter2-correct-horse\n",
	} {
		f.Add([]byte(s))
	}
	m := literal(f, secret)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := m.Markdown(data)
		if bytes.Contains(res.data, []byte(secret)) {
			t.Fatalf("a match survived: %q", res.data)
		}
		fm, _, _, ok := mdfront.Split(data)
		if !ok {
			return
		}
		var before any
		if yaml.Unmarshal(fm, &before) != nil {
			return
		}
		fm2, _, _, ok := mdfront.Split(res.data)
		if !ok {
			t.Fatalf("front matter lost: %q -> %q", data, res.data)
		}
		var after any
		if err := yaml.Unmarshal(fm2, &after); err != nil && res.count > 0 && m.Count(string(fm)) > 0 {
			// Scrubbed as YAML unless a match straddled a key and its value.
			if y, ok := m.yaml(fm); ok && m.Count(string(y)) == 0 {
				t.Fatalf("front matter is not YAML any more: %v\n%q -> %q", err, fm, fm2)
			}
		}
	})
}
