package lang

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

func TestTablesParse(t *testing.T) {
	if errs := Check(); len(errs) > 0 {
		t.Fatal(errs)
	}
	var codes []string
	for _, tb := range Tables() {
		codes = append(codes, tb.Code)
		for _, k := range []string{Remember, Rule, Reproach, Contrast, Reject, Answer, Acknowledge, Intent} {
			if len(tb.phrases[k]) == 0 {
				t.Errorf("%s: no [%s] phrases", tb.Code, k)
			}
		}
	}
	for _, want := range []string{"en", "zh", "ja", "es", "de", "fr", "pt"} {
		if !slices.Contains(codes, want) {
			t.Errorf("no table for %s (have %v)", want, codes)
		}
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"code: xx\n[nope]\n", "x.phrases:2: unknown section [nope]"},
		{"code: xx\n[rule]\nnever {x}\n", "x.phrases:3: {x} only in [soften], [intent] and [reproach]"},
		{"code: xx\n[intent]\ni will\n", "x.phrases:3: want {x} at the start or the end"},
		{"[rule]\nnever\n", "x.phrases: no code"},
		{"code: xx\n[template]\ndont: No\n", "x.phrases:3: want key: text with {x}"},
		{"code: xx\ncolour: red\n", `x.phrases:2: unknown key "colour"`},
		{"code: xx\nrules: sometimes\n", "x.phrases:2: rules: want anywhere or at start"},
	} {
		_, err := Parse("x.phrases", c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.data, err, c.want)
		}
	}
}

func TestMayBeCorrection(t *testing.T) {
	yes := []string{
		"never run git yourself",
		"don't touch that file",
		"stop adding comments",
		"use uv, not pip",
		"X instead of Y, please",
		"nooo",
		"wrong.",
		"that's not what I asked",
		"save this in your memory",
		"from now on use pnpm",
		"you forgot to update the changelog",
		"不要改 vendor 目录",
		"用 pnpm，不要用 npm",
		"不对",
		"记住：提交信息用英文",
		"package-lock.json は絶対にコミットしないでください",
		"console.log じゃなくて logger を使って",
		"違う",
		"今後、PR の説明は日本語で",
		"No toques las migraciones",
		"Usa yarn en lugar de npm",
		"Recuerda que los tests necesitan Docker",
		"Lösch niemals die Dateien",
		"nimm pytest statt unittest",
		"Merk dir: wir nutzen black",
		"Ne modifie jamais ce fichier",
		"Utilise des f-strings au lieu de .format()",
		"Désormais, lance make lint",
		"Não use any",
		"Use date-fns em vez de moment",
		"A partir de agora, sempre rode o typecheck",
	}
	no := []string{
		"yes",
		"continue",
		"ok go ahead",
		"thanks!",
		"Add a logout button to the header.",
		"好的，继续",
		"はい",
		"vale, sigue",
		"ja, weiter",
		"oui, vas-y",
		"sim, pode continuar",
		"Can you add a dark mode toggle?",
		"特别好",
	}
	for _, s := range yes {
		if !MayBeCorrection(s) {
			t.Errorf("MayBeCorrection(%q) = false", s)
		}
	}
	for _, s := range no {
		if MayBeCorrection(s) {
			t.Errorf("MayBeCorrection(%q) = true", s)
		}
	}
}

func TestAcknowledges(t *testing.T) {
	for _, s := range []string{"You're absolutely right! Let me fix it.", "抱歉，我这就撤销", "すみません、修正します。", "Tienes razón.", "Du hast recht", "Vous avez raison", "Você tem razão, peço desculpas"} {
		if !Acknowledges(s) {
			t.Errorf("Acknowledges(%q) = false", s)
		}
	}
	for _, s := range []string{"I'll add the flag.", "Done. Tests pass.", "好的。", "了解です。"} {
		if Acknowledges(s) {
			t.Errorf("Acknowledges(%q) = true", s)
		}
	}
}

const templatesOnly = "[template]\ndont: {x}\ndont_run: {x}\ndont_edit: {x}\n"

// In a table without spaces a phrase matches inside a word, and its space
// matches a space or none: Korean attaches endings to words ("수정하지
// 마세요") and spaces them as it likes ("하지마"). A table with spaces keeps
// its words whole and its spaces as written.
func TestLooseSpaces(t *testing.T) {
	loose, err := Parse("x.phrases", "code: xx\nspaces: no\n[rule]\n지 마\n[remember]\n이제 부터\n"+templatesOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text, kind, want string
	}{
		{"README는 수정하지 마세요", Rule, "지 마"},
		{"README는 수정하지마", Rule, "지마"},
		{"README는 수정 하지   마", Rule, "지   마"},
		{"이제부터 pnpm을 써", Remember, "이제부터"},
		{"이제 부터 pnpm을 써", Remember, "이제 부터"},
	} {
		x := Fold(c.text)
		ms := loose.Find(x, c.kind, 0, len(x.Low()))
		if len(ms) != 1 || x.Span(ms[0].Start, ms[0].End) != c.want {
			t.Errorf("%q: %s %+v, want %q", c.text, c.kind, ms, c.want)
		}
	}
	whole, err := Parse("y.phrases", "code: yy\nspaces: yes\n[rule]\nне трогай\n"+templatesOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"конфиг не трогайте", "нетрогай конфиг", "не  трогай"} {
		if x := Fold(s); whole.Has(x, Rule, 0, len(x.Low())) {
			t.Errorf("%q: a rule found", s)
		}
	}
}

// A table may let its rule phrases count anywhere in a clause.
func TestRulesAnywhere(t *testing.T) {
	for data, want := range map[string]bool{"code: xx\n": false, "code: xx\nrules: at start\n": false, "code: xx\nrules: anywhere\n": true} {
		tb, err := Parse("x.phrases", data+templatesOnly)
		if err != nil || tb.RulesAnywhere != want {
			t.Errorf("%q: RulesAnywhere %v, %v", data, tb != nil && tb.RulesAnywhere, err)
		}
	}
}

// Russian writes ё or е as it likes: both read as е, offsets kept.
func TestFoldYo(t *testing.T) {
	s := "ВСЁ ещё не работает"
	x := Fold(s)
	if x.Low() != "все еще не работает" || len(x.Low()) != len(s) || x.Span(0, len(x.Low())) != s {
		t.Errorf("Fold(%q) = %q", s, x.Low())
	}
}

// Before a phrase, {x} starts after a comma too: "네, {x}하겠습니다".
func TestSlotBeforeStopsAtComma(t *testing.T) {
	tb, err := Parse("x.phrases", "code: xx\nspaces: no\n[intent]\n{x}겠습니다\n"+templatesOnly)
	if err != nil {
		t.Fatal(err)
	}
	x := Fold("네, 캐시 폴더를 되돌리겠습니다.")
	if ms := tb.Find(x, Intent, 0, len(x.Low())); len(ms) != 1 || ms[0].X(x) != "캐시 폴더를 되돌리" {
		t.Errorf("intent %+v", ms)
	}
}

func TestFoldKeepsOffsets(t *testing.T) {
	s := "Nooo, DON’T touch ÉTÉ.go — 不要"
	x := Fold(s)
	if got, want := x.Low(), "no, don't touch été.go — 不要"; got != want {
		t.Fatalf("Low() = %q, want %q", got, want)
	}
	i := strings.Index(x.Low(), "don't")
	if got := x.Span(i, i+len("don't touch été.go")); got != "DON’T touch ÉTÉ.go" {
		t.Errorf("Span = %q", got)
	}
}

func TestSlots(t *testing.T) {
	en := Get("en")
	x := Fold("The test is flaky. I'll disable it for now with t.Skip so CI goes green. Done.")
	ms := en.Find(x, Intent, 0, len(x.Low()))
	if len(ms) != 1 || ms[0].X(x) != "disable it for now with t.Skip so CI goes green" {
		t.Fatalf("intent = %+v", ms)
	}
	ja := Get("ja")
	y := Fold("すみません。README を全面的に書き直します。")
	ms = ja.Find(y, Intent, 0, len(y.Low()))
	if len(ms) != 1 || ms[0].X(y) != "README を全面的に書き直" {
		t.Fatalf("ja intent = %+v", ms)
	}
}

// The hook path asks MayBeCorrection: the package must stay light.
func TestImportsStayLight(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(imp, ".") {
			t.Errorf("lang imports %s: only the standard library, please", imp)
		}
	}
}

func BenchmarkMayBeCorrection(b *testing.B) {
	prompt := strings.Repeat("Please add pagination to the orders endpoint and update the handler tests. ", 12)
	Tables()
	b.SetBytes(int64(len(prompt)))
	b.ReportAllocs()
	for b.Loop() {
		MayBeCorrection(prompt)
	}
}

// BenchmarkLoad is what a hook pays once, on its first question.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range []string{"de", "en", "es", "fr", "ja", "pt", "zh"} {
			data, _ := files.ReadFile(n + ".phrases")
			if _, err := Parse(n, string(data)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
