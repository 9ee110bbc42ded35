package render

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/template"
	"text/template/parse"

	"github.com/devlearn/devlearn/templates"
)

// walk writes every template of templates/render as text/template writes
// it, on data with every field empty or not, lists of none to several, and
// every kind of text.
func TestWalkIsTextTemplate(t *testing.T) {
	want := template.Must(template.New("").Funcs(template.FuncMap(templateFuncs)).ParseFS(templates.Render, "render/*.tmpl"))
	r := rand.New(rand.NewPCG(9, 9))
	text := func() string {
		if r.IntN(4) == 0 {
			return ""
		}
		return randomPieces(r)
	}
	list := func() []string {
		var out []string
		for n := r.IntN(4); n > 0; n-- {
			out = append(out, text())
		}
		return out
	}
	var names []string
	for _, tt := range want.Templates() {
		if strings.HasSuffix(tt.Name(), ".tmpl") {
			names = append(names, tt.Name())
		}
	}
	if len(names) != len(artifactTemplates()) || len(names) < 4 {
		t.Fatalf("text/template has %v, walk %d templates", names, len(artifactTemplates()))
	}
	for i := range 20000 {
		d := artifactData{ID: text(), Anchor: text(), Date: text(), Pattern: text(), Lower: text(), FrontMatter: text(),
			Body: text(), Steps: list(), Evidence: list(),
			fields: map[string]string{"context": text(), "decision": text(), "area": text(), "issue": text()}}
		name := names[i%len(names)]
		var got, exp bytes.Buffer
		if err := walk(artifactTemplates()[name], &d, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := want.ExecuteTemplate(&exp, name, d); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), exp.Bytes()) {
			t.Fatalf("%s with %+v:\n got %q\nwant %q", name, d, got.String(), exp.String())
		}
	}
}

// An action walk does not know is an error, not a guess.
func TestWalkRefusesOtherActions(t *testing.T) {
	for _, src := range []string{`a {{printf "%s" .Pattern}} b`, `{{.Pattern | inc}}`, `{{with .Body}}x{{end}}`, `{{.Missing}}`, `{{$x := .ID}}`} {
		trees, err := parse.Parse("t", src, "", "", templateFuncs, map[string]any{"printf": true})
		if err != nil {
			t.Fatal(err)
		}
		if err := walk(trees["t"], &artifactData{Pattern: "p"}, &bytes.Buffer{}); err == nil {
			t.Errorf("walk wrote %s", src)
		}
	}
}
