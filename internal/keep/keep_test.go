package keep

import (
	"testing"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/words"
)

// Requests to keep a lesson, in every language of the tables, and the
// sentence each becomes.
func TestFindStatesTheLesson(t *testing.T) {
	for _, tc := range []struct{ prompt, want string }{
		// en
		{"Remember that we use pnpm here, not npm.", "We use pnpm here, not npm."},
		{"remember to run make fmt before you commit", "Run make fmt before you commit."},
		{"No. From now on, use uv instead of pip", "Use uv instead of pip."},
		{"Use tabs in Go files from now on!", "Use tabs in Go files."},
		{"never run git push yourself", "Never run git push yourself."},
		{"That's wrong. I told you: never edit generated files", "Never edit generated files."},
		{"Please always add a test for each bug fix.", "Always add a test for each bug fix."},
		{"Add to CLAUDE.md: migrations need a down step", "Migrations need a down step."},
		{"Add to CLAUDE.md that the API returns snake_case", "The API returns snake_case."},
		{"save this in your memory: the staging db is read-only", "The staging db is read-only."},
		{"You should never touch vendor/ by hand", "Never touch vendor/ by hand."},
		// the condition it holds under is the lesson's
		{"When you change the schema, always run make migrate first.", "When you change the schema, always run make migrate first."},
		{"If the build fails on CI, never retry it blindly", "If the build fails on CI, never retry it blindly."},
		// said inside the sentence: the sentence whole, as it reads
		{"add a test and remember to run the linter", "Add a test and remember to run the linter."},
		// zh
		{"记住：不要自己运行 git push", "不要自己运行 git push。"},
		{"以后提交前都要先跑 make lint", "提交前都要先跑 make lint。"},
		{"永远不要直接修改 dist 目录", "永远不要直接修改 dist 目录。"},
		{"把这个写进 CLAUDE.md：接口返回 snake_case", "接口返回 snake_case。"},
		// ja
		{"覚えておいて：コミット前に必ず npm test を実行すること", "コミット前に必ず npm test を実行すること。"},
		{"今後は pnpm を使ってください", "pnpm を使ってください。"},
		{"デザインは、今後はこのサイトを参考にして", "デザインは、このサイトを参考にして。"},
		{"デプロイの手順はdocs/deploy.mdに記録してください", "デプロイの手順はdocs/deploy.mdに記録してください。"},
		{"絶対に main に直接プッシュしないで", "絶対に main に直接プッシュしないで。"},
		// es
		{"Recuerda que usamos pnpm, no npm", "Usamos pnpm, no npm."},
		{"De ahora en adelante, ejecuta los tests antes de hacer commit", "Ejecuta los tests antes de hacer commit."},
		{"nunca hagas push a main", "Nunca hagas push a main."},
		// de
		{"Merk dir: wir benutzen pnpm, nicht npm", "Wir benutzen pnpm, nicht npm."},
		{"Ab jetzt bitte immer zuerst die Tests laufen lassen", "Immer zuerst die Tests laufen lassen."},
		{"Niemals direkt auf main pushen", "Niemals direkt auf main pushen."},
		// fr
		{"Souviens-toi que la base de staging est en lecture seule", "La base de staging est en lecture seule."},
		{"Désormais, lance les tests avant chaque commit", "Lance les tests avant chaque commit."},
		{"Ne pousse jamais directement sur main", "Ne pousse jamais directement sur main."},
		// pt
		{"Lembre-se de rodar os testes antes do commit", "Rodar os testes antes do commit."},
		{"A partir de agora, use pnpm em vez de npm", "Use pnpm em vez de npm."},
		{"nunca faça push direto na main", "Nunca faça push direto na main."},
		// ru
		{"Запомни: никогда не пушь в main сам", "Никогда не пушь в main сам."},
		{"С этого момента пиши коммиты на английском", "Пиши коммиты на английском."},
		{"никогда не извиняйся передо мной", "Никогда не извиняйся передо мной."},
		{"Ты должен всегда запускать go vet перед коммитом", "Всегда запускать go vet перед коммитом."},
		// el, typed with and without accents
		{"Θυμήσου: τα μηνύματα των commit γράφονται στα αγγλικά.", "Τα μηνύματα των commit γράφονται στα αγγλικά."},
		{"απο δω και περα χρησιμοποιουμε pnpm, οχι npm", "Χρησιμοποιουμε pnpm, οχι npm."},
		{"Όταν αλλάζεις το σχήμα, πάντα τρέχε πρώτα το make migrate.", "Όταν αλλάζεις το σχήμα, πάντα τρέχε πρώτα το make migrate."},
		// ko
		{"기억해 둬: main에 직접 푸시하지 마", "main에 직접 푸시하지 마."},
		{"앞으로는 커밋 메시지를 영어로 써", "커밋 메시지를 영어로 써."},
		{"절대 운영 DB에 마이그레이션 돌리지 마", "절대 운영 DB에 마이그레이션 돌리지 마."},
		{"커밋하기 전에 테스트 실행하는 거 잊지 마", "커밋하기 전에 테스트 실행하는 거 잊지 마."},
		{"main에 직접 푸시하지 마 기억해", "main에 직접 푸시하지 마."},
		{"커밋하기 전에 테스트 돌리는 걸 잊지 마", "커밋하기 전에 테스트 돌리는 걸 잊지 마."},
		{"用 pnpm 以后", "用 pnpm。"},
		{"pnpmを使う 今後", "pnpmを使う。"},
	} {
		got := Find(tc.prompt)
		if len(got) != 1 || got[0].Lesson != tc.want {
			t.Errorf("%q:\n got %+v\nwant %q", tc.prompt, got, tc.want)
		}
	}
}

// What is no request: a question, a memory of the person's own, a rule
// word that does not start a clause, a one-off, words Claude Code wrote.
func TestFindKeepsOutWhatIsNoRequest(t *testing.T) {
	for _, prompt := range []string{
		"Do you remember where the config lives?",
		"I don't remember which flag it was",
		"i remember seeing this before",
		"我记得上次也是这个错误",
		"前にやったのを覚えてる",
		"【注意点】",
		"今後のための記録とします。",
		"このサイトが私の今後の指針になるのかなと思っている。",
		"見落としがちな点、注意すべき点も指摘してください。",
		"vc lembra o que estava fazendo",
		"it never worked on CI anyway",
		"Never mind, let's do the parser first",
		"Always the same error, look at this",
		"always?",
		"For now, skip the flaky test",
		"use npm this time",
		"<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>",
		"Here is the log:\n```\nnever retry: always fail\n```",
		"> remember to rotate the keys\nwhat does this line mean",
		"yes",
		"continue",
		"不记得了",
		"¿Recuerdas dónde está el archivo?",
		"Ich erinnere mich nicht",
		"ты помнишь, где лежит конфиг?",
		"я никогда не пользуюсь этим устройством",
		"всегда одна и та же ошибка",
		"пока что пропусти этот тест",
		"기억나? 설정 파일 어디 있는지",
		"항상 같은 에러가 나",
		"절대 경로가 로그에 찍혀",
		"일단 이번에는 npm으로 설치해",
		// el: ";" is Greek's question mark, whatever word stands before it
		"Από δω και πέρα θα τρέχεις πάντα το make lint πριν το commit;",
		"Θυμάσαι πού είναι το αρχείο ρυθμίσεων;",
		"πάντα το ίδιο σφάλμα",
		"προς το παρόν χρησιμοποίησε το npm",
	} {
		if got := Find(prompt); len(got) != 0 {
			t.Errorf("%q gave %+v", prompt, got)
		}
	}
}

// A request that only points back is found, its lesson left for the
// agent to state.
func TestFindReferringRequest(t *testing.T) {
	for _, prompt := range []string{"Please remember this.", "Remember that for next time", "记住这个", "Merk dir das!", "Retiens ça.", "Запомни это.", "이거 기억해 둬",
		// two phrases of one request, pointing at what follows
		"以下をCLAUDE.mdに記録してほしい。", "Add the following to CLAUDE.md:"} {
		got := Find(prompt)
		if len(got) != 1 || got[0].Lesson != "" || got[0].Evidence == "" {
			t.Errorf("%q gave %+v", prompt, got)
		}
	}
	// The lesson said just before the request, in the same prompt, is the
	// request's: "X. Remember that." reads X.
	got := Find("Use the staging bucket for uploads. Remember that.")
	if len(got) != 1 || got[0].Lesson != "Use the staging bucket for uploads." || got[0].Evidence != "Use the staging bucket for uploads. Remember that." {
		t.Fatalf("%+v", got)
	}
	got = Find("課題解決のために必要に感じる場合にMCPサーバーを使用してほしい。これもCLAUDE.mdに記録してほしい")
	if len(got) != 1 || got[0].Lesson != "課題解決のために必要に感じる場合にMCPサーバーを使用してほしい。" {
		t.Fatalf("%+v", got)
	}
}

// A kept lesson ends as its language ends a sentence.
func TestSentence(t *testing.T) {
	for in, want := range map[string]string{"never push to main": "Never push to main.", "不要自己运行 git push": "不要自己运行 git push。", "main에 직접 푸시하지 마": "main에 직접 푸시하지 마.", "package.json stays as it is": "package.json stays as it is."} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStandingParses(t *testing.T) {
	xs, err := parseExtras(standingYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range lang.Tables() {
		x := xs[tb.Code]
		if x == nil || len(x.standing) == 0 {
			t.Errorf("%s: a phrase table without standing words in standing.yaml", tb.Code)
		}
	}
	for code, x := range xs {
		if lang.Get(code) == nil {
			t.Errorf("standing.yaml: %s is no phrase table's code", code)
		}
		for _, m := range x.standing {
			for _, p := range m.pieces {
				if p == "" {
					t.Errorf("%s: standing %q has an empty piece", code, m.text)
				}
			}
		}
	}
}

func TestAbout(t *testing.T) {
	for _, tc := range []struct {
		text, lesson string
		want         bool
	}{
		{"No! don't push yourself, I do the pushing", "Never run git push yourself.", false},
		{"I said it before: never run git push on your own", "Never run git push yourself.", true},
		{"use pnpm not npm, again", "We use pnpm here, not npm.", true},
		{"use tabs", "We use pnpm here, not npm.", false},
		{"不要自己运行 git push，我说过了", "不要自己运行 git push。", true},
		{"不要修改 dist 目录", "不要自己运行 git push。", false},
		// The folders of the machine a path runs through are no words
		// of a rule: two rules about one folder are two.
		{"Remember: never edit the files in /tmp/go-test-script670115345/script-capture_work_folder/repo/api/generated/ by hand, make gen writes them.",
			"Always start the dev server from /tmp/go-test-script670115345/script-capture_work_folder/repo/api, not from the root.", false},
		{"Remember: never edit the files in “/tmp/go-test-script670115345/script-capture_work_folder/repo/api/generated/” by hand, make gen writes them.",
			"Always start the dev server from “/tmp/go-test-script670115345/script-capture_work_folder/repo/api”, not from the root.", false},
		{"I told you: start the dev server from C:\\Users\\alice\\src\\shop\\api", "Always start the dev server from /home/bob/shop/api, not from the root.", true},
	} {
		if got := About(tc.text, tc.lesson); got != tc.want {
			t.Errorf("About(%q, %q) = %v", tc.text, tc.lesson, got)
		}
	}
}

// The same sentence with another thing in one or two places is another
// rule, whether said alone or inside a longer text; said again in other
// words, or inflected, it is the same one.
func TestRefills(t *testing.T) {
	for _, tc := range []struct {
		text, lesson string
		want         bool
	}{
		{"Always run make lint before you commit.", "Always run make test before you commit.", true},
		{"Never edit generated files in api/.", "Never edit generated files in web/.", true},
		{"Use pnpm, not npm.", "Use yarn, not npm.", true},
		{"No, stop running make test before you commit, it takes too long.", "Always run make lint before you commit.", true},
		{"不要自己运行 git push。", "不要自己运行 git pull。", true},
		{"Run the tests, lint and vet before you push.", "Run the docs, build and bench before you deploy.", true},
		{"Always run make lint before you commit.", "always run make lint before you commit", false},
		{"Always run the linter before commits.", "Always run the linter before committing.", false},
		{"Never run git push yourself.", "Never run git push on your own.", false},
		{"I said it before: never run git push on your own", "Never run git push yourself.", false},
		{"you forgot again to run make lint before the commit", "Always run make lint before you commit.", false},
		{"Use pnpm.", "Use yarn.", false},
	} {
		if got := refills(words.Words(tc.text), words.Words(tc.lesson)); got != tc.want {
			t.Errorf("refills(%q, %q) = %v, want %v", tc.text, tc.lesson, got, tc.want)
		}
	}
	if !Restates("I said it before: never run git push on your own", "Never run git push yourself.") {
		t.Error("a rule said again in other words is not restated")
	}
	if Restates("No, stop running make test before you commit, it takes too long.", "Always run make lint before you commit.") {
		t.Error("a rule for another command restates the first")
	}
}

func TestHoldsAbsolutePath(t *testing.T) {
	for s, want := range map[string]bool{
		"run it from /srv/app":               true,
		"keep it in `~/src/shop`":            true,
		`see C:\Users\alice\shop`:            true,
		"edit src/api/client.ts and/or docs": false,
		"read https://x.dev/a/b":             false,
		"start it from “/srv/app/api”":       true,
		"start it from „/srv/app/api“":       true,
		"start it from ‘/srv/app/api’":       true,
	} {
		if got := holdsAbsolutePath(s); got != want {
			t.Errorf("holdsAbsolutePath(%q) = %v", s, got)
		}
	}
}

// Text that is not UTF-8 is read as it is, without a panic: offsets in
// the lowered text are the original's.
func TestFindInvalidUTF8(t *testing.T) {
	for _, s := range []string{"Y\xff以后만약 всегда ", "remember: \xffnever push to main", "\xff\xfe从现在开始用 pnpm"} {
		_ = Find(s)
	}
	if got := lowerSameLength("A\xffB"); got != "a\xffb" {
		t.Errorf("lowerSameLength = %q", got)
	}
}
