package identity

import "testing"

func TestGeneralize(t *testing.T) {
	in := Instance{Branches: []string{"feature-a", "main"}, Folders: []string{"/srv/wt/feature-a"}, Home: "/home/alice"}
	for _, c := range []struct{ text, want string }{
		{"`make migrate` fails in /srv/wt/feature-a: cd /srv/wt/feature-a/db first", "`make migrate` fails in <worktree>: cd <worktree>/db first"},
		{"add `--set-upstream origin feature-a`", "add `--set-upstream origin <branch>`"},
		{"push to main, never to feature-abc", "push to main, never to feature-abc"},
		{"commit 3f9a1c2b broke it", "commit <hash> broke it"},
		{"session 0d7e3f1a-2b4c-4d6e-8f01-23456789abcd", "session <id>"},
		{"see /home/alice/notes.md and /home/bob/x", "see ~/notes.md and ~/x"},
		{"cannot read /tmp/go-build123/x.a", "cannot read <tmp>"},
		{"main.go:142:7: undefined: Foo", "main.go:<n>: undefined: Foo"},
		{"the dev server runs on 5173, ws://127.0.0.1:43172", "the dev server runs on 5173, ws://127.0.0.1:43172"},
		{"deadbeef is a word, 1234567 a number", "deadbeef is a word, <n> a number"},
		{"push rejected: GH013 Push cannot contain secrets", "push rejected: GH013 Push cannot contain secrets"},
	} {
		if got := Generalize(c.text, in); got != c.want {
			t.Errorf("Generalize(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A request also names the items it is about (a task, a ticket): those
// are instances; a version, a standard or a model's name is not.
func TestGeneralizeRequest(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"implementa de la T009 hasta T013", "implementa de la <id> hasta <id>"},
		{"close PROJ-1234 and KAN-42 first", "close <id> and <id> first"},
		{"target ES2020 on an A100, encode H264, keep UTF-8 and SHA-256", "target ES2020 on an A100, encode H264, keep UTF-8 and SHA-256"},
		{"rebase feature-a on main", "rebase <branch> on main"},
	} {
		if got := GeneralizeRequest(c.text, Instance{Branches: []string{"feature-a"}}); got != c.want {
			t.Errorf("GeneralizeRequest(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// A turn says a lesson again when it holds the lesson's words, with more
// around them or not; a fragment of the lesson, or a turn that only names
// the same things, does not.
func TestSays(t *testing.T) {
	for _, c := range []struct {
		turn, lesson string
		says         bool
	}{
		{"Please commit all of my changes so we can make a PR.", "Commit all of my changes so we can make a PR.", true},
		{"ok. sempre converse comigo em português do Brasil, continue a implementar o checkout", "Sempre converse comigo em português do Brasil.", true},
		{"analisa a tela cliente depois da correção. Criar uma nova imagem no Docker Swarm, realizar o build sem cache com uma nova tag e efetuar o redeploy.",
			"Criar uma nova imagem no Docker Swarm, realizar o build sem cache com uma nova tag e efetuar o redeploy.", true},
		{"ありがとうございます。", "なるほど、ありがとうございます。固定案1から3は今のままで合意済みで問題なくて、4から7は1点ずつ意見をいただけます。", false},
		{"Quiero que hagas el paso 1 y 2 sobre el xml sin código y me digas lo que encuentras",
			"Me parecen bien los puntos 1 y 2. Los comentarios y los mensajes de log los quiero dejar en castellano.", false},
		{"run the tests", "Run the tests before committing, every time.", false},
	} {
		if got := Says(KeyOf(c.turn), KeyOf(c.lesson)); got != c.says {
			t.Errorf("Says(%q, %q) = %v", c.turn, c.lesson, got)
		}
	}
}

// One lesson worded twice is one; two lessons that share most words but
// not their names are two.
func TestSame(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Use pnpm, not npm.", "use `pnpm` instead of `npm`", true},
		{"Run the linter before committing.", "Run the tests before committing.", false},
		{"Always run the linter before you hand it back.", "Run the linter before handing it back.", true},
		{"Write the commit messages in English.", "write commit messages in english", true},
		{"Use pnpm, not npm.", "Use npm, not yarn.", false},
		{"`git push` fails with \"fatal: no upstream\": add `--set-upstream origin <branch>`.", "`git push` fails with \"The current branch has no upstream branch\": add `--set-upstream origin <branch>`.", true},
		{"`git push` fails with \"x\": add `--set-upstream origin <branch>`.", "`git push` fails with \"x\": add `-u origin <branch>`.", false},
		{"Never edit files under vendor/.", "Never edit files under testdata/.", false},
		{"提交信息一律用英文写。", "提交信息都用英文写。", true},
		{"提交信息一律用英文写。", "注释一律用中文写。", false},
		{"Schreibe alles auf deutsch.", "schreibe alles auf deutsch", true},
		// Korean joins endings to its words: one request, three endings.
		{"현재 파일 구조 파악 좀 해볼래", "전체 파일 구조 파악해볼래", true},
		{"커밋 메시지는 영어로 써줘", "커밋 메시지는 영어로 작성해", true},
		{"커밋 메시지는 영어로 써줘", "주석은 한국어로 써줘", false},
		{"필터 적용 버튼 글씨 크기를 14px로 바꿔줘", "현재 파일 구조 파악해봐", false},
		// devlearn's frame around what was said is no part of it: in
		// another script its English words would be anchors all share.
		{Answer("где лежит конфиг?", AgentOwnedUp, "Вы правы. Я не проверил папку настроек."), Answer("какой пакет ты ставишь?", AgentOwnedUp, "Вы правы. Я ошибся с названием пакета."), false},
		{Answer("配置文件在哪里？", PersonAnswered, "在项目根目录下面"), Answer("配置文件在哪里", PersonAnswered, "在项目根目录下面。"), true},
		// The shell that said an error, and its line number, name no
		// part of the lesson: two errors it wrote share them and nothing else.
		{"`jq` is not available here: `jq .` fails with \"/bin/bash: line <n>: jq: command not found\".", "`npm run build` fails with \"/bin/bash: line <n>: cd: frontend: No such file or directory\": leave out `cd frontend &&`.", false},
		{"`jq` is not available here: `jq .` fails with \"/bin/bash: line <n>: jq: command not found\".", "`jq` is not available here: `jq .` fails with \"/data/data/com.termux/files/usr/bin/bash: line <n>: jq: command not found\".", true},
		// Long enough, half the words shared is one lesson reworded; a
		// lesson said alone and again at the start of a longer message is
		// one lesson.
		{"No hagas nada hasta que yo te lo diga.", "No quiero que implementes nada hasta que te lo diga.", true},
		{"Fale comigo em português do Brasil.", "Fale comigo em Português do Brasil, devemos conseguir concluir as configurações do Firebase.", true},
		{"Run the linter before committing.", "Run the linter before committing, then open the pull request against develop and ask Ana to review it.", true},
		// Said alone, then first in a longer message as a clause of its
		// own: one lesson, however few its words.
		{"Sempre converse em pt-br.", "Sempre converse em pt-br, continue a implementar: pedidos e orçamentos vão juntos no checkout.", true},
		{"总是用中文回答。", "总是用中文回答，然后继续修复登录页面的问题。", true},
		{"Sempre converse em pt-br.", "Sempre converse em pt-br com o time de vendas.", false},
		{"Use pnpm.", "Use pnpm workspaces for the monorepo, not npm.", false},
		{"Stop.", "Stop, the build is broken again after the merge.", false},
		{"Use `pnpm`.", "Use `pnpm`, and `node 20` on every machine.", true},
		{"Use pnpm.", "Use pnpm — the lockfile is pnpm's.", true},
		{"Toujours répondre en français.", "Toujours répondre en français : le client ne lit pas l'anglais.", true},
		{"Use pnpm.", "Use pnpm-workspaces for the monorepo.", false},
		// An answer opens with its question, which is not what was said.
		{"The config lives in /etc/app.", Answer("The config lives in /etc/app, right?", PersonAnswered, "it moved to ~/app/config"), false},
		{"Run the linter before committing.", "Before committing, run the tests and open the pull request against develop.", false},
		{"Keep the weather widget simple: location, temperature, high and low.", "Keep the clock widget simple: time and date, no seconds, no weekday.", false},
	} {
		if got := Same(KeyOf(c.a), KeyOf(c.b)); got != c.same {
			t.Errorf("Same(%q, %q) = %v, want %v (shared %.2f, anchors %v / %v)", c.a, c.b, got, c.same, Shared(KeyOf(c.a), KeyOf(c.b)), KeyOf(c.a).Anchors, KeyOf(c.b).Anchors)
		}
	}
}

func TestIndexFind(t *testing.T) {
	x := NewIndex()
	x.Add("obs_1", "procedural", "Run the linter before you hand it back.")
	x.Add("obs_2", "procedural", "Write the commit messages in English.")
	x.Add("obs_3", "decision", "Run the linter before you hand it back.")
	if got := x.Find("procedural", "always run the linter before handing it back"); len(got) != 1 || got[0] != "obs_1" {
		t.Errorf("Find = %v", got)
	}
	if got := x.Find("procedural", "Deploy on Fridays."); len(got) != 0 {
		t.Errorf("Find = %v", got)
	}
}

func TestOneErrorMessage(t *testing.T) {
	const (
		params  = "\"Error: Route \"/items/[id]/edit\" used `params.id`. `params` is a Promise and must be unwrapped with `await`…\" (the person's run): fixed by changing `src/app/items/[id]/edit/page.tsx`."
		search  = "\"Error: Route \"/items\" used `searchParams.page`. `searchParams` is a Promise and must be unwrapped with…\" (the person's run): fixed by changing `src/app/items/page.tsx`."
		headers = "\"Error: Route \"/login\" used `...headers()` or similar iteration. `headers()` returns a Promise and must be…\" (the person's run): fixed by changing `src/app/login/page.tsx`."
	)
	for _, c := range []struct {
		a, b string
		same bool
	}{
		// One message filled with other names, cut at other places.
		{params, search, true},
		// Another message of the same program.
		{params, headers, false},
		// A short message: many programs print it, about many things.
		{"`tree` is not available here: `tree -L 2` fails with \"bash: tree: command not found\".", "`wg` is not available here: `wg show` fails with \"bash: wg: command not found\".", false},
		// The name is a word of the message: another program.
		{"`python` fails with \"'python' is not recognized as an internal or external command, operable program or batch file.\": use `py`.",
			"`node` fails with \"'node' is not recognized as an internal or external command, operable program or batch file.\": use `nodejs`.", false},
		// A name that was not there is the lesson: two names, two lessons.
		{"`sed` fails with \"sed: can't read apps/api/api/utils.py: No such file or directory\": use `'1,200p' apps/api/api/views/utils.py` instead of `'1,160p' apps/api/api/utils.py`.",
			"`sed` fails with \"sed: can't read src/components/ui/slider.jsx: No such file or directory\": use `'200,420p' src/features/filters/QuickFilters.jsx` instead of `'1,80p' src/components/ui/slider.jsx`.", false},
		// Two scripts missing, two commands that held the shell: each is
		// about its name.
		{"`npm run typecheck` names no script or target of this project: it fails with \"npm error Missing script: \"typecheck\"\".",
			"`npm start` names no script or target of this project: it fails with \"npm error Missing script: \"start\"\".", false},
		{"`flask` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`).",
			"`npm run dev` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`).", false},
		// Cut short, the rest must still be where the other goes on.
		{"\"Error: Route \"/a\" used `x`. `x` is a Promise and must be unwrapped with…\" (the person's run).", "\"Error: Route \"/b\" used `y`. `y` is a Promise and must never be unwrapped with `await`.\" (the person's run).", false},
	} {
		a, b := keyOf("pitfall", c.a), keyOf("pitfall", c.b)
		if got := sameFrame(a, b); got != c.same {
			t.Errorf("sameFrame(%q, %q) = %v, want %v (frames %q / %q)", c.a, c.b, got, c.same, a.frame, b.frame)
		}
	}
	// Two commands that held the shell share the advice and the names in
	// it: still two lessons, one for each command.
	held := NewIndex()
	held.Add("obs_flask", "pitfall", "`flask` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`).")
	if got := held.Find("pitfall", "`npm run dev` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)."); len(got) != 0 {
		t.Errorf("another command that held the shell: %v", got)
	}
	if got := held.Find("pitfall", "`flask` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)"); len(got) != 1 {
		t.Errorf("the same command again: %v", got)
	}
	// Only pitfalls quote a program's message: a frame of prose is one
	// rule said of other tools.
	x := NewIndex()
	x.Add("obs_1", "pitfall", params)
	x.Add("obs_2", "procedural", "Run `go test ./internal/...` before you commit any change to the packages of this repository.")
	if got := x.Find("pitfall", search); len(got) != 1 || got[0] != "obs_1" {
		t.Errorf("Find(pitfall) = %v", got)
	}
	if got := x.Find("procedural", "Run `npm test --workspaces` before you commit any change to the packages of this repository."); len(got) != 0 {
		t.Errorf("Find(procedural) = %v", got)
	}
}

// A session's folder is written as its kind where a path names it whole,
// and nowhere else.
func TestReplaceFolder(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"cd /app && make", "cd <worktree> && make"},
		{"edit src/app/page.tsx", "edit src/app/page.tsx"},
		{"see https://x.dev/app/x", "see https://x.dev/app/x"},
		{"it runs from /app.", "it runs from <worktree>."},
		{"/app/app and /app.bak, /apple", "<worktree>/app and /app.bak, /apple"},
		{"'/app'", "'<worktree>'"},
		{"更新/app/docs/ui.md，在/app中找", "更新<worktree>/docs/ui.md，在<worktree>中找"},
		{"gcc -I/app/include -L/app/lib", "gcc -I<worktree>/include -L<worktree>/lib"},
		{"it runs from /app... and from /app…", "it runs from <worktree>... and from <worktree>…"},
	} {
		if got := ReplaceFolder(c.text, "/app", "<worktree>"); got != c.want {
			t.Errorf("ReplaceFolder(%q) = %q, want %q", c.text, got, c.want)
		}
	}
	if got := ReplaceFolder("/home/me/项目二/x and /home/me/项目/y", "/home/me/项目", "<worktree>"); got != "/home/me/项目二/x and <worktree>/y" {
		t.Errorf("a folder named in Chinese: %q", got)
	}
}
