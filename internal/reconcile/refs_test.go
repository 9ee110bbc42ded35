package reconcile

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestCodeRefs(t *testing.T) {
	for in, want := range map[string][]string{
		"area: scripts/hooks/; issue: one script does everything":         {"scripts/hooks/"},
		"Run scripts/release.sh with the new version, then CHANGELOG.md.": {"scripts/release.sh", "CHANGELOG.md"},
		"see `src/server.js` (routes)":                                    {"src/server.js"},
		"input/output and/or read/write":                                  nil,
		"https://example.com/a/b.js and /etc/passwd and ~/x.go":           nil,
		"version 0.7.3, v1.2/3.4 e.g. i.e.":                               nil,
		"../../etc/passwd.md":                                             nil,
		"src/*.go and ${HOME}/x.sh":                                       nil,
		"README.md README.md":                                             {"README.md"},
	} {
		if got := codeRefs(in); !reflect.DeepEqual(got, want) {
			t.Errorf("codeRefs(%q) = %q, want %q", in, got, want)
		}
	}
}

// codeRefsBefore is codeRefs as it was before it cut tokens by byte: the
// oracle the faster one must agree with.
func codeRefsBefore(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == ';' || r == '(' || r == ')' ||
			r == '[' || r == ']' || r == '"' || r == '\'' || r == '`' || r == '<' || r == '>' || r == '|'
	}) {
		if tok = refToken(tok); tok != "" && !seen[tok] {
			seen[tok] = true
			out = append(out, tok)
		}
	}
	return out
}

// Random texts of paths, words, separators, punctuation and bytes of
// longer UTF-8 sequences (valid or not): the same references, in the same
// order, as the rune-by-rune split of all the texts joined by newlines.
func TestCodeRefsAgreesWithFieldsFunc(t *testing.T) {
	pieces := []string{"src/", "server.js", "a", "/", ".", "..", "README.md", "x.go", "scripts/hooks/", " ", "\t", "\n",
		",", ";", "(", ")", "[", "]", "\"", "'", "`", "<", ">", "|", ":", "!", "?", "é", "\xe2\x80\xa8", "\xff", "\xc3",
		"https://", "~", "-", "*", "{", "$", "=", "1.2", "w/", "CHANGELOG.MD", "v1.2/3.4", "日本/語.md"}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b strings.Builder
		for n := rng.IntN(30); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		first, more := text(), make([]string, rng.IntN(3))
		for k := range more {
			more[k] = text()
		}
		want := codeRefsBefore(strings.Join(append([]string{first}, more...), "\n"))
		if got := codeRefs(first, more...); !reflect.DeepEqual(got, want) {
			t.Fatalf("codeRefs(%q, %q) = %q, want %q", first, more, got, want)
		}
	}
}

// BenchmarkCodeRefs is what a full check asks of each ready or created
// observation: its details and evidence; "fieldsfunc" is the split rune by
// rune it replaced, on the same texts joined.
func BenchmarkCodeRefs(b *testing.B) {
	details := "area: scripts/hooks/12; issue: issue 12; impact: untestable; resolution: one job per script, see src/server.js"
	evidence := []string{"user: you forgot the hook again", "assistant: I will run scripts/release.sh first."}
	b.Run("bytes", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			codeRefs(details, evidence...)
		}
	})
	b.Run("fieldsfunc", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			codeRefsBefore(details + "\n" + strings.Join(evidence, "\n"))
		}
	})
}
