package scrub

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/mdfront"
	"github.com/devlearn/devlearn/internal/redact"
)

const secret = "hunter2-correct-horse"

func literal(t testing.TB, s ...string) *Matcher {
	t.Helper()
	m, err := NewMatcher(redact.Extra{Literals: s})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTextOnlyWhatWasAsked(t *testing.T) {
	m := literal(t, secret)
	// A built-in secret elsewhere is not this scrub's business.
	in := "token ghp_5aB9cD3eF7gH1iJ5kL9mN3oP7qR1sT5uV9wX and " + secret + " twice " + secret
	out, n := m.Text(in)
	if n != 2 || strings.Contains(out, secret) || !strings.Contains(out, "ghp_5aB9") || strings.Count(out, "[REDACTED:literal]") != 2 {
		t.Errorf("%d: %q", n, out)
	}
	if out2, n := m.Text(out); n != 0 || out2 != out {
		t.Errorf("not idempotent: %d %q", n, out2)
	}
	p, err := NewMatcher(redact.Extra{Patterns: []string{`tok-[0-9]{4}`}})
	if err != nil {
		t.Fatal(err)
	}
	if out, n := p.Text("a tok-1234 b tok-12 c"); n != 1 || out != "a [REDACTED:pattern] b tok-12 c" {
		t.Errorf("%d %q", n, out)
	}
}

func TestJSONLinesDecodesStrings(t *testing.T) {
	m := literal(t, `say "hi" now`)
	// The literal holds quotes: in raw JSON it is escaped, and \u0073 hides
	// an "s" from a byte search; only a decoded search finds both.
	lines := []string{
		`{"op":"observe","id":"obs_1","pattern":"she said: say \"hi\" now","n":1.50,"ok":true}`,
		`{"op":"observe","id":"obs_2","details":"\u0073ay \"hi\" now, then go","evidence":[{"text":"x"}]}`,
		`{"op":"count","id":"entry:k"}`,
		`not json: say "hi" now`,
		``,
	}
	res := m.JSONLines([]byte(strings.Join(lines, "\n")))
	if res.count != 3 || !slices.Equal(res.lines, []int{1, 2, 4}) {
		t.Fatalf("count %d lines %v", res.count, res.lines)
	}
	got := strings.Split(string(res.data), "\n")
	if len(got) != len(lines) {
		t.Fatalf("%d lines out of %d", len(got), len(lines))
	}
	// Untouched bytes stay as they were (the number's form, key order).
	if want := `{"op":"observe","id":"obs_1","pattern":"she said: [REDACTED:literal]","n":1.50,"ok":true}`; got[0] != want {
		t.Errorf("line 1:\n got %s\nwant %s", got[0], want)
	}
	if want := `{"op":"observe","id":"obs_2","details":"[REDACTED:literal], then go","evidence":[{"text":"x"}]}`; got[1] != want {
		t.Errorf("line 2: %s", got[1])
	}
	if got[2] != lines[2] || got[3] != "not json: [REDACTED:literal]" || got[4] != "" {
		t.Errorf("lines 3-5: %q", got[2:])
	}
	for _, l := range got[:3] {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON any more: %s", l)
		}
	}
}

func TestJSONLinesKeepsTheFileEnd(t *testing.T) {
	m := literal(t, secret)
	for _, in := range []string{"", "\n", `{"a":"x"}` + "\n", `{"a":"x"}`, "{\"a\":\"" + secret + "\"}\n\n"} {
		res := m.JSONLines([]byte(in))
		if strings.Count(string(res.data), "\n") != strings.Count(in, "\n") {
			t.Errorf("%q became %q", in, res.data)
		}
	}
}

func TestMarkdownFrontMatterStaysYAML(t *testing.T) {
	m := literal(t, secret)
	in := "---\n" +
		"key: " + secret + "\n" +
		"summary: use " + secret + " for staging # " + secret + "\n" +
		"tags: [release, " + secret + "]\n" +
		"triggers:\n  files: [\"**/*.go\"]\n" +
		"---\n" +
		"Body with " + secret + ".\n\n- [ ] keep " + secret + "\n"
	res := m.Markdown([]byte(in))
	if res.count != 6 || !slices.Equal(res.lines, []int{2, 3, 4, 8, 10}) {
		t.Errorf("count %d lines %v", res.count, res.lines)
	}
	out := string(res.data)
	if strings.Contains(out, secret) {
		t.Fatalf("left in:\n%s", out)
	}
	fm, body, _, ok := mdfront.Split(res.data)
	if !ok {
		t.Fatalf("front matter lost:\n%s", out)
	}
	var v struct {
		Key      string   `yaml:"key"`
		Summary  string   `yaml:"summary"`
		Tags     []string `yaml:"tags"`
		Triggers struct {
			Files []string `yaml:"files"`
		} `yaml:"triggers"`
	}
	if err := yaml.Unmarshal(fm, &v); err != nil {
		t.Fatalf("front matter is not YAML any more: %v\n%s", err, fm)
	}
	if v.Key != "[REDACTED:literal]" || v.Summary != "use [REDACTED:literal] for staging" || !slices.Equal(v.Tags, []string{"release", "[REDACTED:literal]"}) || v.Triggers.Files[0] != "**/*.go" {
		t.Errorf("front matter means something else now: %+v\n%s", v, fm)
	}
	if string(body) != "Body with [REDACTED:literal].\n\n- [ ] keep [REDACTED:literal]\n" {
		t.Errorf("body %q", body)
	}
	// No front matter, or none with a match: plain text.
	plain := "## PF-001: use " + secret + "\n"
	if res := m.Markdown([]byte(plain)); string(res.data) != "## PF-001: use [REDACTED:literal]\n" {
		t.Errorf("%q", res.data)
	}
	onlyBody := "---\nkey: k\n---\n" + secret + "\n"
	if res := m.Markdown([]byte(onlyBody)); string(res.data) != "---\nkey: k\n---\n[REDACTED:literal]\n" {
		t.Errorf("%q", res.data)
	}
}

func BenchmarkJSONLines(b *testing.B) {
	data := benchLog()
	m := literal(b, secret)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if res := m.JSONLines(data); res.count != 1 {
			b.Fatal(res.count)
		}
	}
}

// BenchmarkJSONLinesPattern: a pattern cannot skip a line unread; every
// string of every line is decoded and searched.
func BenchmarkJSONLinesPattern(b *testing.B) {
	data := benchLog()
	m, err := NewMatcher(redact.Extra{Patterns: []string{`hunter2-[a-z]+-horse`}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if res := m.JSONLines(data); res.count != 1 {
			b.Fatal(res.count)
		}
	}
}

// benchLog is a 5,000-line observation log with the secret on one line.
func benchLog() []byte {
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString(`{"op":"observe","eid":"e_0123456789abcdef","at":"2026-04-01T09:00:00Z","src":"sess-`)
		sb.WriteString(strings.Repeat("x", i%7))
		sb.WriteString(`","id":"obs_aaaaaaaaaaaa","type":"pitfall","pattern":"Run the migrations before the integration tests","details":"The tests read the tables the migrations create.","evidence":[{"text":"user: no, run make migrate first"}],"quality_ok":true}`)
		sb.WriteByte('\n')
		if i == 2500 {
			sb.WriteString(`{"op":"observe","id":"obs_b","details":"` + secret + `"}` + "\n")
		}
	}
	return []byte(sb.String())
}

func TestStructural(t *testing.T) {
	for _, tc := range []struct {
		extra redact.Extra
		want  string
	}{
		{redact.Extra{Literals: []string{secret}}, ""},
		{redact.Extra{Literals: []string{"observe-token-7f3a9c21"}}, ""},
		{redact.Extra{Patterns: []string{`corp-[0-9a-f]{16}`}}, ""},
		{redact.Extra{Literals: []string{"serv"}}, "observe"},
		{redact.Extra{Literals: []string{"pattern"}}, "pattern"},
		{redact.Extra{Literals: []string{"quality"}}, "quality_ok"},
		{redact.Extra{Literals: []string{"Status"}}, "Status"},
		{redact.Extra{Literals: []string{"self-learn"}}, "self-learning:"},
		{redact.Extra{Literals: []string{"contentHash"}}, "contentHash"},
		{redact.Extra{Literals: []string{"triggers"}}, "triggers"},
		{redact.Extra{Patterns: []string{`[a-z]+`}}, "actions"},
	} {
		m, err := NewMatcher(tc.extra)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Structural()
		if (tc.want == "") != (got == "") || (got != "" && m.Count(got) == 0) {
			t.Errorf("%+v: %q, want a word like %q", tc.extra, got, tc.want)
		}
		if tc.want != "" && !slices.Contains(structuralWords(), tc.want) {
			t.Errorf("%q is not a structural word", tc.want)
		}
	}
	if n := len(structuralWords()); n < 80 {
		t.Errorf("only %d structural words: %v", n, structuralWords())
	}
}
