package render

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// walk writes every template of templates/render as text/template writes
// it, on data with every field empty or not, lists of none to several,
// and every kind of text; and it does write each of them (no template of
// ours falls back to text/template, where the speed would be lost
// silently).
func TestWalkIsTextTemplate(t *testing.T) {
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
	names := []string{"command.md.tmpl", "skill.md.tmpl", "adr.md.tmpl", "pitfall.md.tmpl"}
	for _, name := range names {
		if tmpl().Lookup(name) == nil {
			t.Fatalf("no template %s", name)
		}
	}
	for i := range 20000 {
		d := artifactData{ID: text(), Anchor: text(), Date: text(), Pattern: text(), Lower: text(), FrontMatter: text(),
			Body: text(), Steps: list(), Evidence: list(),
			fields: map[string]string{"context": text(), "decision": text(), "area": text(), "issue": text()}}
		name := names[i%len(names)]
		var got, want bytes.Buffer
		if !walk(tmpl(), name, &d, &got) {
			t.Fatalf("walk could not write %s", name)
		}
		if err := tmpl().ExecuteTemplate(&want, name, d); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%s with %+v:\n got %q\nwant %q", name, d, got.String(), want.String())
		}
	}
}

// An action walk does not know is left to text/template, with nothing
// written.
func TestWalkLeavesOtherActions(t *testing.T) {
	tt := tmpl().Lookup("command.md.tmpl")
	other, err := tt.Clone()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.New("other").Parse(`a {{printf "%s" .Pattern}} b`); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("kept")
	if walk(other, "other", &artifactData{Pattern: "p"}, &buf) {
		t.Fatal("walk wrote a printf action")
	}
	if buf.String() != "kept" {
		t.Fatalf("walk left %q, want what was there before", buf.String())
	}
}
