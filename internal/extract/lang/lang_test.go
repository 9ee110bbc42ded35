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
	for _, want := range []string{"en", "zh", "ja", "es", "de", "fr", "pt", "ru", "ko"} {
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
		{"code: xx\n[rule]\n*ай\n", "x.phrases:3: * only opens the last word"},
		{"code: xx\nedges: 主要\n", `x.phrases:2: unknown key "edges" (want code, name, spaces, rules, kana, words, starts)`},
		{"code: xx\n[rule]\nне *ай *яй\n", "x.phrases:3: * only opens the last word"},
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
		"you run it", "сам запусти и смотри вывод",
		"FYI, the staging database is read-only", "pour info les CR hebdo ne peuvent pas être modifiés",
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
		"Запомни: никогда не пушь в main",
		"конфиг не трогай",
		"Используй pnpm, а не npm",
		"нет, не так",
		"ты опять удалил тесты",
		"с этого момента пиши коммиты на английском",
		"блять",
		"앞으로는 커밋 메시지를 영어로 써",
		"절대 main에 직접 푸시하지 마",
		"수정하지 마세요",
		"npm 말고 pnpm 써",
		"아니",
		"기억해 둬: 테스트는 docker로 돌려",
		"테스트 돌리라고 했잖아",
		// How the work must behave, said of the thing itself.
		"The same user should not be able to join the same table twice",
		"Le bot doit comprendre la demande",
		"Der Export soll die Preise runden",
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
		"да",
		"ок, продолжай",
		"всё ещё не работает",
		"Можешь добавить тёмную тему?",
		"네",
		"ㅇㅋ 진행해 주세요",
		"아직도 안 돼",
		"다크 모드 버튼 추가해 줄래?",
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
	for _, s := range []string{"You're absolutely right! Let me fix it.", "抱歉，我这就撤销", "すみません、修正します。", "Tienes razón.", "Du hast recht", "Vous avez raison", "Você tem razão, peço desculpas",
		"Вы правы, исправлю.", "Извините, я удалил не тот файл.", "Понял, моя ошибка.", "죄송합니다. 바로 되돌리겠습니다.", "맞는 말씀입니다.", "제가 잘못 이해했네요."} {
		if !Acknowledges(s) {
			t.Errorf("Acknowledges(%q) = false", s)
		}
	}
	// "Понял", "알겠습니다": understood, "맞아요": right; said to every request
	// or question, no mistake owned.
	for _, s := range []string{"I'll add the flag.", "Done. Tests pass.", "好的。", "了解です。", "Понял. Сейчас добавлю флаг.", "Готово, тесты проходят.", "알겠습니다! 플래그를 추가할게요.", "완료했습니다.", "맞아요! 변경사항을 확인해볼게요."} {
		if Acknowledges(s) {
			t.Errorf("Acknowledges(%q) = true", s)
		}
	}
}

const templatesOnly = "[template]\ndont: {x}\ndont_run: {x}\ndont_edit: {x}\nrun_yourself: {x}\npropose_first: {x}\n"

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

// checkFound checks, for each text, whether the table finds a phrase of
// kind in it.
func checkFound(t *testing.T, tb *Table, kind string, cases map[string]bool) {
	t.Helper()
	for s, want := range cases {
		if x := Fold(s); tb.Has(x, kind, 0, len(x.Low())) != want {
			t.Errorf("%q: a %s phrase found %v, want %v", s, kind, !want, want)
		}
	}
}

// A table without spaces names the words its phrases never end inside of,
// and those they never start inside of.
func TestWordsAPhraseNeverCuts(t *testing.T) {
	tb, err := Parse("x.phrases", "code: xx\nspaces: no\nwords: 前端 前台\n[recurring]\n部署前\n"+templatesOnly)
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, tb, Recurring, map[string]bool{"部署前先跑测试": true, "部署前，跑测试": true, "帮我部署前端": false, "部署前台": false, "部署前": true})
	checkFound(t, Get("zh"), Hedge, map[string]bool{"要是失败了": true, "主要是数据库的问题": false, "尽可能使用TypeScript": false, "可能是缓存": true})
}

// A phrase whose last word is an ending finds any verb of that form, not
// a short word that ends so.
func TestPhraseEnding(t *testing.T) {
	tb, err := Parse("x.phrases", "code: xx\nspaces: yes\n[rule]\nне *ай\nне *уйте\n"+templatesOnly)
	if err != nil {
		t.Fatal(err)
	}
	checkFound(t, tb, Rule, map[string]bool{
		"не поднимай версии вручную": true,
		"Не форматируйте код":        true,
		"не трогай":                  true,
		"не чай":                     false,
		"не поднимать":               false,
		"вне поднимай":               false,
		"не поднимай2":               false,
	})
}

// The doubt "かな" is a particle after a verb, not the same two letters
// inside a verb's negative or another word: "時間は書かないとダメだよ"
// (the time must be written) doubts nothing.
func TestJapaneseDoubtIsAParticle(t *testing.T) {
	checkFound(t, Get("ja"), Hedge, map[string]bool{
		"それでいいかな":      true,
		"これで合ってるかなと思う": true,
		"時間は書かないとダメだよ": false,
		"書かなければダメ":     false,
		"なかなか動かなかった":   false,
		"かなり大事です":      false,
		"かならずテストして":    false,
	})
}

// A borrowed word is one run of katakana: a phrase of the Japanese table
// does not start a longer one, a long vowel mark may close it, and the
// end of a compound ("ファイルパス") may be a phrase unless the table
// names the word ("ダイアログ") or the phrase is a doubt ("エラーログ").
func TestKatakanaWordsStayWhole(t *testing.T) {
	ja := Get("ja")
	checkFound(t, ja, Hedge, map[string]bool{
		"ログを見ると": true, "エラーが出る": true, "ログイン画面では": false, "ダイアログは": false, "ブログ記事は": false,
		"ビルドエラーは直して": false, "エラーログは": false, "アナログ時計": false,
	})
	checkFound(t, ja, Rule, map[string]bool{"この関数はダメ": true, "ダメージ計算は": false})
	checkFound(t, ja, Place, map[string]bool{
		"どのフォルダ？": true, "どのフォルダー？": true, "サポートに聞いて": false, "パスワードを": false, "ファイルパスは？": true,
	})
}

// The Korean and Russian tables as they read people: Korean rules are
// endings, spaced either way; Russian forms are whole words, ё or е.
func TestKoreanAndRussianMatching(t *testing.T) {
	ko, ru := Get("ko"), Get("ru")
	for _, c := range []struct {
		tb         *Table
		text, kind string
	}{
		{ko, "README는 수정하지 마세요", Rule},
		{ko, "README는 수정하지마", Rule},
		{ko, "README는 수정 하지 마", Rule},
		{ko, "절대 푸시하지 말아 줘", Rule},
		{ko, "main에 직접 푸시하면 안돼", Rule},
		{ko, "이제부터 pnpm을 써", Remember},
		{ko, "이제 부터 pnpm을 써", Remember},
		{ko, "CLAUDE.md에 추가해 줘", Remember},
		{ru, "конфиг не трогайте", Rule},
		{ru, "всё ещё не работает", Report},
		{ru, "все еще не работает", Report},
	} {
		if x := Fold(c.text); !c.tb.Has(x, c.kind, 0, len(x.Low())) {
			t.Errorf("%s %q: no [%s]", c.tb.Code, c.text, c.kind)
		}
	}
	for _, c := range []struct {
		tb         *Table
		text, kind string
	}{
		{ko, "버튼을 앞으로 옮겨줘", Remember}, // forward, not from now on
		{ko, "오늘 배포해", Always},        // 늘 is not listed: it is in 오늘
		{ko, "아직도 안 돼", Rule},         // a report
		{ko, "조금만 수정하면 안되나", Rule},    // "couldn't we…": a suggestion asked
		{ko, "거기서는 안되는 거야", Rule},     // "doesn't it work there?"
		{ru, "нетрогай", Rule},
		{ru, "этого хватит", Rule}, // ^хватит: only where a clause starts
	} {
		if x := Fold(c.text); c.tb.Has(x, c.kind, 0, len(x.Low())) {
			t.Errorf("%s %q: a [%s] found", c.tb.Code, c.text, c.kind)
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

// A phrase and a text meet whether or not either was typed with its
// accents; a kana's voicing mark is a letter of its own.
func TestFoldWithoutAccents(t *testing.T) {
	for _, s := range []string{"Tienes razon, lo cambio.", "Tienes razón, lo cambio.", "TIENES RAZÓN."} {
		if !Acknowledges(s) {
			t.Errorf("%q: no acknowledgement read", s)
		}
	}
	if got := Fold("Não, já está ção").Low(); got != "nao, ja esta cao" {
		t.Errorf("Low() = %q", got)
	}
	if got := Fold("がぎ й").Low(); got != "がぎ й" {
		t.Errorf("Low() = %q", got)
	}
}

// Greek is read without its accents and with ς as σ, as capitals and
// quick typing write it; its question mark reads as ";".
func TestFoldGreek(t *testing.T) {
	s := "ΠΟΤΕ ποτέ Ποτε, τους ΐ ΰ ϊ\u037e"
	x := Fold(s)
	if got, want := x.Low(), "ποτε ποτε ποτε, τουσ ι υ ι;"; got != want {
		t.Fatalf("Low() = %q, want %q", got, want)
	}
	if got := x.Span(0, len(x.Low())); got != s {
		t.Errorf("Span = %q", got)
	}
	for _, s := range []string{"Έχεις δίκιο, το αλλάζω.", "ΕΧΕΙΣ ΔΙΚΙΟ.", "εχεις δικιο"} {
		if !Acknowledges(s) {
			t.Errorf("%q: no acknowledgement read", s)
		}
	}
}

// A semicolon asks at the end of a Greek sentence, whatever word stands
// before it; elsewhere it is a semicolon.
func TestAsks(t *testing.T) {
	for s, want := range map[string]bool{
		"Did you run it?":              true,
		"你运行了吗？":                       true,
		"Το έτρεξες;":                  true,
		"Το έτρεξες με το make test;":  true,
		"Το έτρεξες με το make test; ": true,
		"Το έτρεξες\u037e":             true,
		"Run it; then commit.":         false,
		"Τρέξε το make test.":          false,
		"x = 1;":                       false,
		"Done. Run `make test`;":       false,
		"Έτοιμο. Τρέξε το; και μετά πες μου": false,
	} {
		if got := EndsAsking(s); got != want {
			t.Errorf("EndsAsking(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestFoldKeepsOffsets(t *testing.T) {
	s := "Nooo, DON’T touch ÉTÉ.go — 不要"
	x := Fold(s)
	if got, want := x.Low(), "no, don't touch ete.go — 不要"; got != want {
		t.Fatalf("Low() = %q, want %q", got, want)
	}
	i := strings.Index(x.Low(), "don't")
	if got := x.Span(i, i+len("don't touch ete.go")); got != "DON’T touch ÉTÉ.go" {
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
		for _, n := range []string{"de", "en", "es", "fr", "ja", "ko", "pt", "ru", "zh"} {
			data, _ := files.ReadFile(n + ".phrases")
			if _, err := Parse(n, string(data)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// A phrase naming CLAUDE.md holds for the other agents' instruction files,
// in every table, without the tables saying it three times.
func TestInstructionFiles(t *testing.T) {
	for _, c := range []struct{ code, text string }{
		{"en", "Add this to AGENTS.md: use pnpm."},
		{"en", "add to gemini.md that we use pnpm"},
		{"zh", "写进 agents.md：用 pnpm"},
		{"zh", "帮我写进codex全局，变量要加注释"},
		{"ru", "запиши в agents.md: используй pnpm"},
		{"en", "Bake this to claude.md"},
		{"en", "document it in AGENTS.md"},
	} {
		x := Fold(c.text)
		if ms := Get(c.code).Find(x, Remember, 0, len(x.Low())); len(ms) == 0 {
			t.Errorf("%s %q: no request to remember read", c.code, c.text)
		}
	}
}

// A Latin phrase is a word of its own among Latin letters, in a table
// whose words are not spaced too, and a hyphen joins two words into one:
// the Korean table's "ok" is no answer inside "book", its "claude" no
// name called inside "M-Claude", nor English "up" inside "follow-up".
func TestLatinWordsStayWhole(t *testing.T) {
	ko, en := Get("ko"), Get("en")
	for _, c := range []struct {
		tb         *Table
		text, kind string
		want       bool
	}{
		{ko, "ok", Answer, true},
		{ko, "좋아 ok 진행해", Answer, true},
		{ko, "check the book", Answer, false},
		{ko, "push to M-Claude", Filler, false},
		{ko, "claude, push", Filler, true},
		{ko, "클로드야 push", Filler, true},
		{en, "ok - go ahead", Answer, true},
		{en, "a non-ok state", Answer, false},
	} {
		if x := Fold(c.text); c.tb.Has(x, c.kind, 0, len(x.Low())) != c.want {
			t.Errorf("%s %q: [%s] found %v, want %v", c.tb.Code, c.text, c.kind, !c.want, c.want)
		}
	}
}

// A word of two languages is the language's the sentence reads as: the
// Spanish table's "no" opens a rule in Spanish, not in English.
func TestForeign(t *testing.T) {
	es, en := Get("es"), Get("en")
	for _, c := range []struct {
		text    string
		tb      *Table
		foreign bool
	}{
		{"no in this current branch", es, true},
		{"no for the storage i mean", es, true},
		{"no toques el archivo de config", es, false},
		{"no uses npm", es, false}, // no common word: either language's
		{"no in this current branch", en, false},
		{"nunca hagas push a main", es, false},
		{"don't push, it is broken", en, false},
		{"ne jamais pousser sur main, je préfère une pull request", Get("fr"), false},
		{"ne jamais pousser sur main, je préfère une pull request", Get("pt"), true},
		// Japanese writes with Chinese characters, and kana beside them.
		{"見落としがちな点、注意すべき点も指摘してください", Get("zh"), true},
		{"以后注意不要直接修改生成的文件", Get("zh"), false},
		{"見落としがちな点、注意すべき点も指摘してください", Get("ja"), false},
	} {
		x := Fold(c.text)
		if got := c.tb.Foreign(x, 0, len(x.Low())); got != c.foreign {
			t.Errorf("%s.Foreign(%q) = %v, want %v", c.tb.Code, c.text, got, c.foreign)
		}
	}
}

// A common word two tables list tells neither language: it counts for
// none.
func TestSharedCommonWordsCountForNone(t *testing.T) {
	if !sharedCommon()["ou"] {
		t.Errorf("ou is French and Portuguese: want it shared")
	}
	x := Fold("ou ou ou")
	for _, tb := range Tables() {
		if n := tb.commonIn(x, 0, len(x.Low())); n != 0 {
			t.Errorf("%s counts %d common words in %q, want 0", tb.Code, n, "ou ou ou")
		}
	}
}
