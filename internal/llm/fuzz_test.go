package llm

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/observe"
)

// FuzzOutput: whatever a command prints, reading it never panics, and
// every observation accepted from it is one `devlearn observe` would store
// as it is: a known type, a pattern of one line within its length, no
// control characters, at most ten pieces of evidence, a well-formed id.
func FuzzOutput(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/llm/*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"observations":[{"type":"pitfall","pattern":"p","details":"d","evidence":["e"],"quality_ok":true}]}`,
		`{"result":"{\"observations\":[]}"}`, `{"structured_output":null,"result":null}`, `[]`, `[{"type":"result"}]`,
		`{"observations":[{"type":"pitfall","pattern":"\u0000\u202e","details":"","evidence":[],"quality_ok":true}]}`,
		`{"observations":[{"id":"obs_aaaaaa","type":"decision","pattern":"p","details":"","evidence":[],"quality_ok":false}]}`,
	} {
		f.Add([]byte(s))
	}
	idRE := regexp.MustCompile(idPattern)
	r := &Runner{Log: io.Discard}
	req := sampleRequest()
	f.Fuzz(func(t *testing.T, out []byte) {
		items, err := decodeOutput(out)
		if err != nil {
			return
		}
		for _, o := range r.accept(items, req) {
			if !observe.ValidType(o.Type) || !idRE.MatchString(o.ID) {
				t.Fatalf("type %q id %q", o.Type, o.ID)
			}
			if o.Pattern == "" || utf8.RuneCountInString(o.Pattern) > observe.MaxPatternRunes || strings.ContainsAny(o.Pattern, "\n\r") {
				t.Fatalf("pattern %q", o.Pattern)
			}
			if len(o.Evidence) > observe.MaxEvidence {
				t.Fatalf("%d pieces of evidence", len(o.Evidence))
			}
			for _, s := range append([]string{o.Pattern, o.Details}, o.Evidence...) {
				if strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
					t.Fatalf("control character in %q", s)
				}
			}
			if o.ID != observe.ID(o.Type, o.Pattern) && o.ID != req.Existing[0].ID {
				t.Fatalf("id %s is neither the pattern's nor an existing one", o.ID)
			}
		}
	})
}

func BenchmarkAccept(b *testing.B) {
	out, err := os.ReadFile("../../testdata/llm/hostile.json")
	if err != nil {
		b.Fatal(err)
	}
	r := &Runner{Log: io.Discard}
	req := sampleRequest()
	b.ReportAllocs()
	for b.Loop() {
		items, err := decodeOutput(out)
		if err != nil {
			b.Fatal(err)
		}
		r.accept(items, req)
	}
}
