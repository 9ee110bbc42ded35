package extract

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/transcript"
)

// session builds channels from a script: "user: text", "reason: text" (the
// person refusing the last tool call, with a reason), "assistant: text",
// "edit: /path", "read: /path", "write: /path", "bash: command", "fail: command => error",
// "alongside: command" (a call issued in parallel with the one before it),
// "task: what for" (a sub-agent sent out),
// "refuse: command" (a call the person refused), "escalatedfail: command
// => error" (one run outside the sandbox that failed), "escalated: command" (a
// call run outside Codex's sandbox), "unsandboxed: command" (one run with
// Claude Code's sandbox turned off), "hidden: command => output" (one that
// passed because a filter ends its pipeline, and what it printed).
func session(id string, script ...string) *transcript.Channels {
	outsideBy := func(kind string) string {
		switch kind {
		case "escalated":
			return transcript.EscalatedPermissions
		case "unsandboxed":
			return transcript.SandboxDisabled
		}
		return ""
	}
	ch := &transcript.Channels{SessionID: id}
	var turn *transcript.DialogPair
	said := "" // the agent's words since its last call, as a transcript keeps them (ToolCall.Said)
	for i, step := range script {
		calls := len(ch.Tools)
		line := i + 1
		kind, text, _ := strings.Cut(step, ": ")
		meta := transcript.Meta{UUID: fmt.Sprintf("%s-r%d", id, line), SessionID: id, Timestamp: fmt.Sprintf("2026-01-01T00:00:%02dZ", line), Line: line}
		switch kind {
		case "user", "reason":
			said = ""
			s := transcript.UserSignal{Meta: meta, Text: text, Own: transcript.OwnWords(text), Cwd: "/repo", Rejection: kind == "reason"}
			if kind == "reason" {
				last := &ch.Tools[len(ch.Tools)-1]
				s.Meta = transcript.Meta{UUID: last.ResultUUID, SessionID: id, Timestamp: meta.Timestamp, Line: last.Line}
			}
			ch.UserSignals = append(ch.UserSignals, s)
			if turn != nil {
				turn.Reply = &ch.UserSignals[len(ch.UserSignals)-1]
				ch.DialogPairs = append(ch.DialogPairs, *turn)
				turn = nil
			}
		case "assistant":
			if turn == nil {
				turn = &transcript.DialogPair{SessionID: id, FromLine: line}
			}
			turn.Assistant = strings.TrimSpace(turn.Assistant + "\n\n" + text)
			said = strings.TrimSpace(said + "\n\n" + text)
			turn.AssistantUUID, turn.Timestamp = meta.UUID, meta.Timestamp
		case "edit", "read", "write":
			name := map[string]string{"edit": "Edit", "read": "Read", "write": "Write"}[kind]
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: name, Paths: []string{text}, Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res"})
		case "bash", "escalated", "unsandboxed":
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Bash", Command: text, Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res", Unsandboxed: outsideBy(kind)})
		case "hidden":
			// Passed because a filter ends its pipeline; what it printed.
			cmd, out, _ := strings.Cut(text, " => ")
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Bash", Command: cmd, Cwd: "/repo", HasResult: true, Hidden: out, ResultUUID: meta.UUID + "-res", ResultLine: line + 1})
		case "alongside":
			// Issued with the call before it, before that one's result.
			meta.Line = ch.Tools[len(ch.Tools)-1].Line
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Bash", Command: text, Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res"})
		case "task":
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Task", Cwd: "/repo", HasResult: true, ResultUUID: meta.UUID + "-res"})
		case "refuse":
			ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta, Name: "Bash", Command: text, Cwd: "/repo", HasResult: true, IsError: true, Rejected: true, ResultUUID: meta.UUID + "-res"})
		case "fail", "failedit", "failread", "escalatedfail":
			cmd, errText, _ := strings.Cut(text, " => ")
			tc := transcript.ToolCall{Meta: meta, Name: "Bash", Command: cmd, Cwd: "/repo", HasResult: true, IsError: true, Error: errText, ResultUUID: meta.UUID + "-res", ResultLine: line + 1, Unsandboxed: outsideBy(strings.TrimSuffix(kind, "fail"))}
			switch kind {
			case "failedit":
				tc.Name, tc.Command, tc.Paths = "Edit", "", []string{cmd}
			case "failread":
				tc.Name, tc.Command, tc.Paths = "Read", "", []string{cmd}
			}
			tc.Protocol = transcript.ProtocolError(errText)
			ch.Tools = append(ch.Tools, tc)
		default:
			panic("bad step " + step)
		}
		if len(ch.Tools) > calls {
			ch.Tools[len(ch.Tools)-1].Said, said = said, ""
		}
	}
	if turn != nil {
		ch.DialogPairs = append(ch.DialogPairs, *turn)
	}
	return ch
}

// lessonsOf runs the per-session extractors and returns "type: pattern"
// of each observation.
func lessonsOf(ch *transcript.Channels) []string {
	var out []string
	for _, o := range Session(ch, Options{}).Observations {
		out = append(out, o.Type+": "+o.Pattern)
	}
	return out
}

// afterPlan is lessonsOf a session where the person says said right after
// the agent stated its plan: a turn read on its own, not a first message.
func afterPlan(said string) []string {
	return lessonsOf(session("s", "user: go", "assistant: Here is the plan.", "user: "+said))
}

// noLesson checks that each of said, read after the agent's plan, keeps
// nothing; why says what it is instead.
func noLesson(t *testing.T, why string, said ...string) {
	t.Helper()
	for _, s := range said {
		if got := afterPlan(s); got != nil {
			t.Errorf("%q kept (%s): %q", s, why, got)
		}
	}
}

// oneLesson checks that each of said, read after the agent's plan, keeps
// one lesson.
func oneLesson(t *testing.T, said ...string) {
	t.Helper()
	for _, s := range said {
		if got := afterPlan(s); len(got) != 1 {
			t.Errorf("%q: %q, want one lesson", s, got)
		}
	}
}

// said is a turn of the person and the lessons it should give.
type said struct {
	said string
	want []string
}

// checkAfterPlan checks the lessons of each turn said right after the
// agent stated its plan (afterPlan); a nil want is no lesson.
func checkAfterPlan(t *testing.T, cases []said) {
	t.Helper()
	for _, c := range cases {
		if got := afterPlan(c.said); !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.said, got, c.want)
		}
	}
}

// checkSaid plays each turn after the script before, the agent replying
// reply, and checks the lessons it gives.
func checkSaid(t *testing.T, before []string, reply string, cases []said) {
	t.Helper()
	for _, c := range cases {
		script := append(slices.Clone(before), "user: "+c.said, "assistant: "+reply)
		if got := lessonsOf(session("s", script...)); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.said, got, c.want)
		}
	}
}

// replied is a turn of the person after a task done, the agent's reply to
// it, and the lessons they give.
type replied struct {
	said, reply string
	want        []string
}

// checkReplies plays each turn after a task the agent did, with its reply.
func checkReplies(t *testing.T, cases []replied) {
	t.Helper()
	for _, c := range cases {
		got := lessonsOf(session("s", "user: build it", "assistant: Built.", "bash: make", "user: "+c.said, "assistant: "+c.reply))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.said, got, c.want)
		}
	}
}

func TestCorrectionBecomesASentence(t *testing.T) {
	tests := []scripted{
		{"a prohibition, 'that file' named", []string{"user: add a limit parameter", "assistant: I'll edit the handler.", "edit: /repo/internal/api/api.gen.go",
			"user: ok, don't touch that file, it's generated. Change the spec instead."},
			[]string{"pitfall: Don't touch internal/api/api.gen.go, it's generated."}},
		{"a rule that opens with a filler keeps its rule word", []string{"user: add a test", "assistant: I'll mock the database.", "edit: /repo/retry_test.go",
			"user: please don't mock the database in tests"},
			[]string{"procedural: Don't mock the database in tests."}},
		{"contrast", []string{"user: install zod", "assistant: Installing.", "bash: npm install zod", "user: no, use pnpm instead of npm"},
			[]string{"decision: Use pnpm instead of npm."}},
		{"remember, the marker taken off", []string{"user: go", "assistant: Done.", "user: From now on, run make fmt before committing."},
			[]string{"procedural: Run make fmt before committing."}},
		{"a reproach", []string{"user: fix it", "assistant: Fixed.", "edit: /repo/a.go", "user: you forgot to update CHANGELOG.md"},
			[]string{"pitfall: Update CHANGELOG.md."}},
		{"told before: what was said is the lesson", []string{"user: regenerate the client", "assistant: Done, I edited the client by hand.", "edit: /repo/api/client.gen.go",
			"user: I told you not to edit generated files by hand"},
			[]string{"procedural: Do not edit generated files by hand."}},
		{"told before, in French", []string{"user: mets à jour", "assistant: Fait.", "bash: git push --force", "user: je t'ai dit de toujours passer par une pull request"},
			[]string{"procedural: Toujours passer par une pull request."}},
		{"told before, in Japanese", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: テストを先に書いてって言ったよね"},
			[]string{"procedural: テストを先に書いてって言ったよね。"}},
		{"two rules in a row are one lesson", []string{"user: push", "assistant: Pushed to main.", "bash: git push origin main",
			"user: Never push to main. Always open a pull request."},
			[]string{"procedural: Never push to main. Always open a pull request."}},
		{"Chinese", []string{"user: 装一下 lodash", "assistant: 好的。", "bash: npm install lodash", "user: 用 pnpm，不要用 npm"},
			[]string{"decision: 用 pnpm，不要用 npm。"}},
		{"Japanese", []string{"user: コミットして", "assistant: しました。", "bash: git commit -am x", "user: package-lock.json は絶対にコミットしないでください。"},
			[]string{"pitfall: package-lock.json は絶対にコミットしないでください。"}},
		{"Spanish", []string{"user: instala dayjs", "assistant: Instalo.", "bash: npm install dayjs", "user: Usa yarn en lugar de npm, el proyecto tiene yarn.lock."},
			[]string{"decision: Usa yarn en lugar de npm, el proyecto tiene yarn.lock."}},
		{"German", []string{"user: Tests", "assistant: Ich lösche die Datei.", "user: Lösch niemals die Dateien in testdata/golden."},
			[]string{"procedural: Lösch niemals die Dateien in testdata/golden."}},
		{"French", []string{"user: commite", "assistant: Fait.", "user: Désormais, lance `make lint` avant chaque commit."},
			[]string{"procedural: Lance `make lint` avant chaque commit."}},
		{"Portuguese", []string{"user: tipa", "assistant: Usei any.", "user: Não use any no TypeScript deste projeto."},
			[]string{"procedural: Não use any no TypeScript deste projeto."}},
		// Asked, not told, where the language marks a question by a word.
		{"a Chinese question without a question mark", []string{"user: 修一下", "assistant: 我改成了 From_Multicast。", "edit: /repo/a.lua",
			"user: 为什么一定要这个From_Multicast呢。"}, nil},
		{"a Japanese question without a question mark", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go",
			"user: このファイルは生成されたものではないですか。"}, nil},
		// "no" opens a Spanish rule; in English it answers.
		{"an English no is no Spanish rule", []string{"user: fix the tests", "assistant: I rebased onto main.", "bash: git rebase main", "user: no in this current branch"}, nil},
		{"a Spanish rule opening with no", []string{"user: arregla", "assistant: Cambié la configuración.", "edit: /repo/config.yaml", "user: no toques el archivo de configuración, es generado"},
			[]string{"procedural: No toques el archivo de configuración, es generado."}},
		// A sentence too short to tell its language reads as its turn.
		{"a short English sentence in an English turn", []string{"user: run the migration", "assistant: Here is the SQL.", "user: I ran it in the editor. No rows returned."}, nil},
		{"a short Spanish sentence in a Spanish turn", []string{"user: arregla", "assistant: Cambié la configuración.", "edit: /repo/config.yaml", "user: ya lo vi en el editor. No toques config.yaml."},
			[]string{"pitfall: Ya lo vi en el editor. No toques config.yaml."}},
		// だめ says how things went as often as what not to do.
		{"a Japanese report that it did not work", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: リロードしたけどだめだったよ。"}, nil},
		{"a Japanese report, no good", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: だめだね。"}, nil},
		{"a Japanese report, seems no good", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: ダメそう。"}, nil},
		{"a Japanese rule with だめ", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: main に直接プッシュしてはだめ。"},
			[]string{"procedural: main に直接プッシュしてはだめ。"}},
		// Japanese words that hold a rule phrase: 非常に (very) holds 常に
		// (always), がないです (there is no) holds ないで (don't), a heading
		// 注意事項 (notes) holds 注意 (mind); しないです (we don't) is a rule.
		{"a Japanese approval, very good", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: なるほど、非常にいいと思います。"}, nil},
		{"a Japanese report, there is no such API", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: Places APIっていうのがないですね。"}, nil},
		{"a Japanese way of working said as we don't", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: このリポジトリでは main に直接プッシュしないです。"},
			[]string{"procedural: このリポジトリでは main に直接プッシュしないです。"}},
		{"a Japanese heading alone", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: ## 注意事項"}, nil},
		// A program's message that says "never" of something: no rule.
		{"a linter's warning pasted", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: the check failed: components/Queue.tsx#L2 'User' is defined but never used"}, nil},
		{"a Japanese rule with 常に", []string{"user: 直して", "assistant: 修正しました。", "edit: /repo/a.go", "user: 常に日本語で答えてください。"},
			[]string{"procedural: 常に日本語で答えてください。"}},
	}
	checkLessons(t, tests)
}

// A lesson ends as its language ends a sentence: Chinese and Japanese with
// 。 and no capital, Korean with a full stop and no capital either.
func TestFinish(t *testing.T) {
	for in, want := range map[string]string{
		"don't touch vendor/": "Don't touch vendor/.",
		"用 pnpm，不要用 npm":      "用 pnpm，不要用 npm。",
		"main ブランチにプッシュしないで":  "main ブランチにプッシュしないで。",
		"main에 직접 푸시하지 마!":    "main에 직접 푸시하지 마.",
		"не трогай конфиг":    "Не трогай конфиг.",
	} {
		if got := finish(in); got != want {
			t.Errorf("finish(%q) = %q, want %q", in, got, want)
		}
	}
}

// A closing "OK" in Chinese is taken off only where it stands apart:
// written on to the character before it, it ends a word of the lesson
// ("运行" run, "可行" feasible, "就可以" will do).
func TestClosingWordWrittenOn(t *testing.T) {
	checkLessons(t, []scripted{
		{"运行 keeps its 行", []string{"user: go", "assistant: Here is the plan.", "user: 发布之前先确认能正常运行", "assistant: Done."},
			[]string{"procedural: 发布之前先确认能正常运行。"}},
		{"可行 keeps its 行", []string{"user: go", "assistant: Here is the plan.", "user: 部署之前先检查配置是否可行", "assistant: Done."},
			[]string{"procedural: 部署之前先检查配置是否可行。"}},
		{"a closing 行 apart is dropped", []string{"user: go", "assistant: Here is the plan.", "user: 部署之前先跑测试，行", "assistant: Done."},
			[]string{"procedural: 部署之前先跑测试。"}},
		{"就可以 keeps its 可以", []string{"user: go", "assistant: Here is the plan.", "user: 部署之前先跑测试就可以", "assistant: Done."},
			[]string{"procedural: 部署之前先跑测试就可以。"}},
		// Interjections and what follows a closing particle still close it;
		// an opening answer stands apart after a full-width comma too.
		{"a closing 哦", []string{"user: go", "assistant: Here is the plan.", "user: 每次提交前先跑测试哦", "assistant: Done."},
			[]string{"procedural: 每次提交前先跑测试。"}},
		{"好 after 吧", []string{"user: go", "assistant: Here is the plan.", "user: 每次提交前先跑测试吧好", "assistant: Done."},
			[]string{"procedural: 每次提交前先跑测试吧。"}},
		{"an opening 行，", []string{"user: go", "assistant: Here is the plan.", "user: 行，每次提交前先跑测试", "assistant: Done."},
			[]string{"procedural: 每次提交前先跑测试。"}},
	})
}

func TestRejection(t *testing.T) {
	tests := []scripted{
		{"a bare no: the agent's plan", []string{"user: logs are too loud", "assistant: I'll remove the logging section from config.yaml.", "edit: /repo/config.yaml", "user: nooo"},
			[]string{"pitfall: Do not remove the logging section from config.yaml."}},
		{"a bare no: the agent's action", []string{"user: clean up", "assistant: Cleaning.", "bash: rm -rf build dist", "user: wrong"},
			[]string{"procedural: Do not run `rm -rf build dist`."}},
		{"the reason given for refusing a call", []string{"user: add zod", "assistant: Installing.", "refuse: npm install zod", "reason: use pnpm"},
			[]string{"procedural: Use pnpm."}},
		// A reason that only says "not now" teaches nothing, in any table.
		{"refused: wait", []string{"user: deploy", "assistant: Pushing.", "refuse: git push origin main", "reason: hold on"}, nil},
		{"refused: espera ainda", []string{"user: commita", "assistant: Commitando.", "refuse: git add docs/HANDOFF.md", "reason: Espera ainda."}, nil},
		{"refused: 等一下", []string{"user: 部署", "assistant: 好的。", "refuse: git push origin main", "reason: 等一下"}, nil},
		{"a refusal's reason is the lesson whole, a marker in it or not", []string{"user: show a spinner", "assistant: Editing the view model.", "refuse: ./edit.sh shared/BudgetViewModel.ts",
			"reason: I don't want changes to the ViewModel files. Read the loading state from the application service instead."},
			[]string{"procedural: I don't want changes to the ViewModel files. Read the loading state from the application service instead."}},
		{"in the agent's language", []string{"user: 修一下", "assistant: 我来删除旧测试。", "bash: git rm -r tests/old", "user: 不对"},
			[]string{"procedural: 不要删除旧测试。"}},
		{"no answering a question is an answer", []string{"user: add a column", "assistant: Added. Should I backfill the rows too?", "edit: /repo/m.sql", "user: no"},
			nil},
		{"no answering a question whose answers are offered after it", []string{"user: implement it", "assistant: Some checklists are incomplete.\n\nDo you want to proceed anyway? (yes/no)", "bash: ./check.ps1 -Json", "user: no"},
			nil},
		{"no answering a question followed by how to reply", []string{"user: clarify the spec", "assistant: **Question 2**: Which routes are public?\n\nYou can reply with the option letter (e.g., \"A\"), or say \"yes\" to accept it.", "bash: ./check.ps1 -Json", "user: no"},
			nil},
		{"nothing done, nothing to reject", []string{"user: what is this?", "assistant: It is the cache.", "user: no"},
			nil},
		{"no, then how things stand: a report", []string{"user: fix it", "assistant: Fixed the handler.", "edit: /repo/h.go", "user: no, it still doesn't work"},
			nil},
	}
	checkLessons(t, tests)
}

func TestAcknowledged(t *testing.T) {
	for _, c := range []struct {
		name   string
		script []string
		want   string
	}{
		{"a soft suggestion read as the instruction it is", []string{"user: add a retry loop", "assistant: I'll write a loop.", "edit: /repo/sender.go",
			"user: hmm, I think we should reuse the helper in internal/retry", "assistant: You're right, I'll reuse internal/retry."},
			"procedural: Reuse the helper in internal/retry."},
		// A point made over its sentences keeps them all: the first alone
		// ("The field names are wrong.") loses what they should be.
		{"a point over its sentences", []string{"user: map the rows", "assistant: I'll map them.", "edit: /repo/sync.ts",
			"user: The field names are wrong. Look at db/schema.sql and adjust. For example, 'accounts' should be 'be_accounts'.", "assistant: You're right! Let me check db/schema.sql."},
			"pitfall: The field names are wrong. Look at db/schema.sql and adjust. For example, 'accounts' should be 'be_accounts'."},
		// So does a soft one: what follows "I think" says what was wrong.
		{"a soft point and what it is about", []string{"user: tag the notes", "assistant: I'll add wiki links.", "edit: /repo/notes.md",
			"user: i think you are using the wrong link syntax in the notes app. [[ ]] does not create links there, block refs do", "assistant: You're right, let me check the syntax it uses."},
			"procedural: You are using the wrong link syntax in the notes app. [[ ]] does not create links there, block refs do."},
	} {
		if got := lessonsOf(session("s", c.script...)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	// Without the agent owning up, the same words are a suggestion, not a lesson.
	if got := lessonsOf(session("s", "user: add a retry loop", "assistant: ok", "user: hmm, I think we should reuse the helper in internal/retry", "assistant: Sure.")); got != nil {
		t.Errorf("no acknowledgement, still %q", got)
	}
	// What the agent owned up to is kept with the lesson: it often says
	// in general what the person said of this task.
	obs := Session(session("s", "user: set up the project", "assistant: I'll commit everything.", "bash: git add -A",
		"user: crea el fichero requirements.txt",
		"assistant: Tienes razón. La carpeta `.venv` no debe estar en el repositorio y necesitamos un `requirements.txt`. Vamos a solucionarlo."), Options{}).Observations
	if len(obs) != 1 || !strings.Contains(obs[0].Details, `impact: the agent acknowledged the person's correction: "Tienes razón. La carpeta `+"`.venv`"+` no debe estar en el repositorio`) {
		t.Errorf("the agent's admission is not in the details: %+v", obs)
	}
}

// A question the agent owns up to keeps what the agent admitted: the
// question alone only asks.
func TestChallenged(t *testing.T) {
	checkReplies(t, []replied{
		{"where is the changelog entry?", "You're right — I skipped the changelog entry for this release. Adding it now.",
			[]string{`procedural: Asked "where is the changelog entry?", the agent owned up: You're right — I skipped the changelog entry for this release. Adding it now.`}},
		{"ノートのまとめはどこ？", "おっしゃる通りです。番号付きのノートのまとめを作り忘れていました。",
			[]string{`procedural: Asked "ノートのまとめはどこ？", the agent owned up: おっしゃる通りです。番号付きのノートのまとめを作り忘れていました。`}},
		// "Fair." opening the reply owns up as "You're right" does
		{"ginkgo of course, why would you suggest plain go tests?", "Fair. I'll write the new cases as Ginkgo specs like the rest of the suite.",
			[]string{`procedural: Asked "ginkgo of course, why would you suggest plain go tests?", the agent owned up: Fair. I'll write the new cases as Ginkgo specs like the rest of the suite.`}},
		// a guess confirmed is no challenge
		{"so this device is the monitor's speaker?", "Yes, you're right: that device is the monitor's audio over DisplayPort.", nil},
		// an apology further on is not what the reply opens with
		{"where is that file?", "The file sits in the folder we work in, next to the script; sorry if that was unclear.", nil},
		// owning up with nothing said of what
		{"really?", "You're right.", nil},
		// an accident owned up to is a slip to undo
		{"why is the button grey now?", "Sorry, I changed its colour by accident. Restoring it now.", nil},
	})
}

// A turn the agent answers by taking on a way of working for good: the
// agent's sentence says what, whole, where the person asked as a question
// or briefly.
func TestCommitted(t *testing.T) {
	checkReplies(t, []replied{
		{"Me puedes hablar a partir de ahora en castellano?", "¡Por supuesto! A partir de ahora te hablaré en castellano. He actualizado el archivo.",
			[]string{"procedural: A partir de ahora te hablaré en castellano."}},
		{"Sound_Name 这个能不能也配置一下，不用每次去输入", "可以。我会在 `SoundMgr` 里增加统一的 `SoundName` 配置表，以后调用时写 `SoundMgr.SoundName.UI_Error`，不再手输字符串。",
			[]string{"procedural: 我会在 `SoundMgr` 里增加统一的 `SoundName` 配置表，以后调用时写 `SoundMgr.SoundName.UI_Error`，不再手输字符串。"}},
		// what the person points at ("this site"), the agent's reply names
		{"今後はデザインを考えるときはこのサイトを参考にして", "了解しました！今後のデザイン作業では https://atlassian.design/components を標準参考サイトとして使用します。",
			[]string{"procedural: 今後のデザイン作業では https://atlassian.design/components を標準参考サイトとして使用します。"}},
		{"from now on, follow this page for the API style", "Got it. From now on I'll follow https://google.aip.dev/general for the API style.",
			[]string{"procedural: From now on I'll follow https://google.aip.dev/general for the API style."}},
		// a promise the agent volunteered after a task is no request taken on
		{"Refactor the config loader to read env vars.", "Done. Going forward, I'll always validate env vars at startup.", nil},
		// what it takes on, past the reply's opening, is no answer to the turn
		{"can you tidy the imports", "Done. I removed two unused imports. The build passes. I also sorted them, and from now on the formatter will keep them sorted on save.", nil},
		// a turn at length is a brief, not a request taken on
		{"Build the page. Add a form. Validate the email. Send it to the API.", "Sure. From now on I will validate every form on the client as well.", nil},
	})
}

// A filter last in a pipeline makes its status the command's: what the
// command printed first says whether it failed, when a program of it or
// the shell said so.
func TestHiddenByAFilter(t *testing.T) {
	tests := []scripted{
		{"git's own error through head", []string{"user: how big is the repo?", "assistant: Counting.",
			"hidden: git count-objects -v 2>&1 | head -20 => fatal: detected dubious ownership in repository at '/repo'\nTo add an exception for this directory, call:",
			"bash: git config --global --add safe.directory /repo && git -C /repo count-objects -v 2>&1"},
			[]string{"pitfall: Before `git count-objects`, run `git config --global --add safe.directory <worktree>`: without it, `git count-objects` fails with \"fatal: detected dubious ownership in repository at '<worktree>'\"."}},
		{"the shell's, through tail", []string{"user: build it", "assistant: Building.",
			"hidden: cargo build 2>&1 | tail -5 => zsh: command not found: cargo",
			"bash: source $HOME/.cargo/env && cargo build 2>&1 | tail -5"},
			[]string{"pitfall: `cargo build` fails with \"zsh: command not found: cargo\": add `source $HOME/.cargo/env &&`."}},
		{"zsh's, through head, run by the harness's eval", []string{"user: run the tests", "assistant: Running them.",
			"hidden: python -m pytest --tb=short 2>&1 | head -100 => (eval):1: command not found: python",
			"bash: python3 -m pytest --tb=short 2>&1 | head -100"},
			[]string{"pitfall: `python -m pytest` fails with \"(eval):1: command not found: python\": use `python3` instead of `python`."}},
		{"a line of what the build printed is no program's word", []string{"user: build it", "assistant: Building.",
			"hidden: npm run build 2>&1 | tail -3 => src/a.ts(3,1): error TS2304: Cannot find name 'x'.",
			"bash: npm install && npm run build 2>&1 | tail -3"},
			nil},
		{"an option naming the folder it ran in is no fix", []string{"user: how big is the repo?", "assistant: Counting.",
			"fail: git count-objects -v => fatal: unable to read index",
			"bash: git -C /repo count-objects -v"},
			nil},
		{"a log's error line is what was asked for", []string{"user: why is the api down?", "assistant: Reading its logs.",
			"hidden: docker logs api 2>&1 | tail -5 => ERROR: connection refused to db:5432",
			"bash: docker compose up -d db && docker logs api 2>&1 | tail -5"},
			nil},
	}
	checkLessons(t, tests)
}

func TestExplicit(t *testing.T) {
	ch := session("s",
		"user: seed staging", "assistant: Inserting.", "fail: psql -f seed.sql => ERROR: cannot execute INSERT in a read-only transaction",
		"user: The staging DB is read-only. Save this in your memory.",
		"assistant: Noted.",
		"user: use the admin API, not psql",
		"assistant: Right.",
		"user: remember that",
	)
	obs := Session(ch, Options{}).Observations
	if len(obs) != 2 {
		t.Fatalf("%+v", obs)
	}
	if obs[0].Pattern != "The staging DB is read-only." || !obs[0].Explicit || obs[0].Class != ClassRemember {
		t.Errorf("a sentence kept by 'save this in your memory': %+v", obs[0])
	}
	if obs[1].Pattern != "Use the admin API, not psql." || !obs[1].Explicit || len(obs[1].Evidence) < 2 {
		t.Errorf("'remember that' keeps the lesson before it: %+v", obs[1])
	}
}

// A request to keep something that names it by a pronoun, and says
// nothing else but when ("for next time"), keeps the turn's other sentence.
func TestExplicitByPronoun(t *testing.T) {
	for _, said := range []string{
		"it's npm run dev in this repo. put that in CLAUDE.md so you know next time",
		"it's npm run dev in this repo. Save it to your memory for next time.",
	} {
		obs := Session(session("s", "user: start it", "assistant: Running npm start.", "fail: npm start => npm error Missing script: \"start\"", "user: "+said), Options{}).Observations
		var got []string
		for _, o := range obs {
			if o.Class == ClassRemember {
				got = append(got, o.Pattern)
			}
		}
		if want := []string{"It's npm run dev in this repo."}; !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", said, got, want)
		}
	}
}

// A request to keep that points at what follows ("add the following to
// CLAUDE.md:", "以下をCLAUDE.mdに記録してほしい") keeps what follows:
// its marked sentences as they are, the others as one lesson more, a
// document's headings left out. One that points back ("これも") keeps
// the sentence before it, not itself.
func TestRememberWhatFollows(t *testing.T) {
	for _, c := range []struct {
		said string
		want []string
	}{
		{"add the following to CLAUDE.md:\n- the staging database is read-only\n- deploys go through the admin API",
			[]string{"The staging database is read-only. Deploys go through the admin API."}},
		{"以下をCLAUDE.mdに記録してほしい。\n## ルール\n- コードを書いたら必ず実行してエラーを確認する\n- push は私がする",
			[]string{"コードを書いたら必ず実行してエラーを確認する。", "push は私がする。"}},
		{"请把以下内容记录到CLAUDE.md：\n- 每次提交前运行测试\n- 使用 pnpm",
			[]string{"每次提交前运行测试。", "使用 pnpm。"}},
		{"課題解決のために必要に感じる場合にMCPサーバーを使用してほしい。これもCLAUDE.mdに記録してほしい",
			[]string{"課題解決のために必要に感じる場合にMCPサーバーを使用してほしい。"}},
	} {
		obs := Session(session("s", "user: start it", "assistant: Running npm start.", "bash: npm start", "user: "+c.said), Options{}).Observations
		var got []string
		for _, o := range obs {
			if !o.Explicit {
				t.Errorf("%q: %q is not kept as asked", c.said, o.Pattern)
			}
			got = append(got, o.Pattern)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", c.said, got, c.want)
		}
	}
}

// A rule after the clause that says when it holds keeps that clause: its
// "when" or "if" is the condition, not a doubt.
func TestRuleKeepsItsCondition(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"When you change the schema, always run make migrate first.", "When you change the schema, always run make migrate first."},
		{"If the build fails on CI, never retry it blindly; read the log first.", "If the build fails on CI, never retry it blindly."},
		{"After editing the proto files, never forget to regenerate the stubs.", "After editing the proto files, regenerate the stubs."},
		{"Если сборка падает, всегда сначала читай лог.", "Если сборка падает, всегда сначала читай лог."},
		{"Если сборка падает, лог сначала всегда читай.", "Если сборка падает, лог сначала всегда читай."},
		{"もしスキーマを変更したら、必ずマイグレーションを実行してください。", "もしスキーマを変更したら、必ずマイグレーションを実行してください。"},
		{"もしスキーマを変更したら、マイグレーションを忘れないでください。", "もしスキーマを変更したら、マイグレーションを忘れないでください。"},
		{"만약 스키마를 바꾸면, 항상 마이그레이션을 실행해.", "만약 스키마를 바꾸면, 항상 마이그레이션을 실행해."},
		// A condition that holds a word the doubts hold too is still one.
		{"If the error says permission denied, always restart the server.", "If the error says permission denied, always restart the server."},
		{"When the log shows a timeout, never retry.", "When the log shows a timeout, never retry."},
		{"Если в логе ошибка, всегда перезапускай сервер.", "Если в логе ошибка, всегда перезапускай сервер."},
		{"결과가 맞다면 항상 스냅샷을 업데이트해.", "결과가 맞다면 항상 스냅샷을 업데이트해."},
		{"出力が正しければ必ずスナップショットを更新して。", "出力が正しければ必ずスナップショットを更新して。"},
	} {
		got := afterPlan(c.said)
		if !slices.Contains(got, "procedural: "+c.want) {
			t.Errorf("%q: %q, want %q", c.said, got, c.want)
		}
	}
	// The same words before a rule in its own clause are a doubt, and so
	// is a doubt put as a condition, or "maybe" that starts like "if".
	noLesson(t, "a doubted rule", "もし忘れたらしないでください。", "만약 스키마를 바꾸면 마이그레이션을 하지 마.",
		"Если не ошибаюсь, мы всегда используем pnpm.", "もし間違ってなければ、テストはいつもCIで実行される。",
		"만약 제가 맞다면, 테스트는 항상 CI에서 돌아요.", "If I'm not mistaken, always use pnpm.", "もしかしたら、このテストは消さないでください。")
}

// "We should not" binds as "do not" does, softened or not; asked, it is
// a question.
func TestShouldNotIsARule(t *testing.T) {
	for _, said := range []string{
		"I think we should not be placing my password even if temporary into the user file we uploaded to github.",
		"You shouldn't run the migrations by hand.",
		"If we're not able to do Analyze or Generate, we shouldn't include those buttons.",
	} {
		got := afterPlan(said)
		if !slices.Contains(got, "procedural: "+said) {
			t.Errorf("%q: %q", said, got)
		}
	}
	if got := afterPlan("why should we not do this?"); got != nil {
		t.Errorf("a question kept: %q", got)
	}
}

// How the work must behave, said of the thing itself after the task was
// set, is a requirement that holds; said of a pronoun, doubted, added to
// what is there, asked, or in a turn that reports, it is not.
func TestRequirementSaidOfAThing(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"Next hand should autostart.", "Next hand should autostart."},
		{"The same user should not be able to join the same table twice.", "The same user should not be able to join the same table twice."},
		{"Ok so the logic should be in the resolver.", "The logic should be in the resolver."},
		{"La page d'accueil doit afficher les skills sans connexion.", "La page d'accueil doit afficher les skills sans connexion."},
		{"El usuario debe poder cerrar sesión desde el menú.", "El usuario debe poder cerrar sesión desde el menú."},
		{"Die nächste Runde soll automatisch starten.", "Die nächste Runde soll automatisch starten."},
	} {
		if got := afterPlan(c.said); !slices.Contains(got, "procedural: "+c.want) {
			t.Errorf("%q: %q, want %q", c.said, got, c.want)
		}
	}
	noLesson(t, "no lesson", "It should work now.",
		"I think the tests should pass.",
		"We should be able to know when the sync is done.",
		"How many colors should i get from the palette.",
		"The orders endpoint should also accept a limit.",
		"It still fails. The settings page should load the theme.",
		"Should the button be blue?",
		"Мне нужно чтобы ты нашел файлы.")
	if got := lessonsOf(session("s", "user: The settings page should load the theme.", "assistant: Done.")); got != nil {
		t.Errorf("the task of a first message kept: %q", got)
	}
	// A brief laid out in items and sections is this task's specification,
	// as a first message is.
	spec := "Task: rebuild the learning dashboard as one grid of tiles, like a phone home screen.\n\nCore Requirements:\n\n" +
		"1. The grid must scroll both ways and snap to the nearest tile when the user lets go of it.\n" +
		"2. The roadmap tile must show the current progress of the textbook in percent.\n" +
		"3. The achievements log should sit in a section below the roadmap, with its own heading.\n" +
		"4. The phrasebook tiles should be placed to the right of the vocabulary tiles, in two columns.\n\n" +
		"Physics & Boundaries:\n\nEach tile must keep its place in a single layer of the grid.\n" +
		"Scrolling beyond the content must pull the view back with a rubber-band effect, as phones do."
	if got := afterPlan(spec); got != nil {
		t.Errorf("a task's brief kept: %q", got)
	}
}

// A tool chosen, or dropped, in Korean's plain and polite endings, and a
// name with a particle glued to it ("created_at을"), is a standing choice.
func TestChoiceInKoreanEndings(t *testing.T) {
	for _, said := range []string{
		"next.js는 더이상 사용하지 않는다 vite로 옮겼다.",
		"created_at을 사용하세요.",
		"timestamptz 형식을 사용합니다.",
	} {
		got := afterPlan(said)
		if !slices.Contains(got, "decision: "+said) {
			t.Errorf("%q: %q", said, got)
		}
	}
	noLesson(t, "a task about unused code, no tool named", "사용하지 않는 코드를 제거해줘.", "이 함수는 더 이상 사용하지 않으니 지워줘.")
}

// "I asked you to X" is a reproach, its lesson X, in each table's
// language; a doubt in the clause before it ("if I understood you") does
// not make it one.
func TestAskedBefore(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"нет локализация будет позже если я тебя правильно понял, я тебя просил работать со мной на русском", "Работать со мной на русском."},
		{"eu pedi para usar o pnpm", "Usar o pnpm."},
		{"je t'avais demandé de lancer les tests avant", "Lancer les tests avant."},
		{"I asked you to run the linter first", "Run the linter first."},
	} {
		got := afterPlan(c.said)
		if !slices.Contains(got, "procedural: "+c.want) {
			t.Errorf("%q: %q, want %q", c.said, got, c.want)
		}
	}
	if got := lessonsOf(session("s", "user: go", "assistant: Here is the plan.", "user: maybe you forgot to update the docs")); got != nil {
		t.Errorf("a doubted reproach kept: %q", got)
	}
}

func TestNotLessons(t *testing.T) {
	for _, script := range [][]string{
		{"user: hide the group instead of all its items", "assistant: Done."}, // the task, not a correction
		{"user: go", "assistant: Done.", "user: don't worry about tests for now"},
		{"user: go", "assistant: Done.", "user: if you forgot to push, push now"},
		{"user: go", "assistant: Done.", "user: maybe never mind the warnings"},
		{"user: go", "assistant: Done.", "user: if you forgot to push, never mind, I'll do it"},
		{"user: go", "assistant: Done.", "user: did you remember to push the tag?"},
		// an aside in brackets, as a pasted text says how things are
		{"user: go", "assistant: Done.", "user: http://localhost:3000/ui/ から画像を送信（同一オリジンのためプロキシ不要）"},
		{"user: go", "assistant: Done.", "user: restart the server (no need to rebuild, don't touch the cache)"},
		{"user: go", "assistant: Done.", "user: I don't know why it fails"},
		{"user: go", "assistant: Done.", "user: He told me \"never deploy on Fridays\" yesterday."},
		{"user: go", "assistant: Done.", "user: Here is the log:\n```\nERROR: never retry\n```"},
		{"user: go", "assistant: Done.", "user: yes"},
		{"user: go", "assistant: Done.", "user: ok, continue"},
		{"user: go", "assistant: Done.", "user: 好的，继续"},
		// what happens, and not knowing why it did ("为什么没有" after
		// "不知道" is no reproach)
		{"user: go", "assistant: Done.", "edit: /repo/ui.lua", "user: 我运行了，奇怪，不知道为什么没有显示出来"},
		// what the person meant this time, although the agent apologises
		{"user: update the install section", "assistant: I'll update docs/install.md.", "edit: /repo/docs/install.md",
			"user: that's the wrong file, I meant README.md at the root", "assistant: Sorry, editing README.md."},
		{"user: actualiza la sección de instalación", "assistant: Actualizo docs/install.md.", "edit: /repo/docs/install.md",
			"user: ese no es el archivo, me refería al README.md", "assistant: Perdón, tienes razón, edito README.md."},
	} {
		if got := lessonsOf(session("s", script...)); got != nil {
			t.Errorf("%q: %q", script[len(script)-1], got)
		}
	}
}

func TestObservationFields(t *testing.T) {
	obs := Session(session("s1",
		"user: bump the version", "assistant: I'll update the version.", "edit: /repo/internal/version/version.go",
		"assistant: Done, the version is now 1.4.0.",
		"user: You forgot to update CHANGELOG.md, as always.",
		"assistant: Sorry, updating it.", "edit: /repo/CHANGELOG.md",
	), Options{}).Observations
	want := Observation{
		ID:         observe.ID(Pitfall, "Update CHANGELOG.md."),
		Type:       Pitfall,
		Pattern:    "Update CHANGELOG.md.",
		Details:    "area: CHANGELOG.md; issue: the person had to point it out; impact: the person corrected the agent; resolution: Update CHANGELOG.md.",
		Evidence:   []string{"user: You forgot to update CHANGELOG.md, as always.", "assistant: Done, the version is now 1.4.0.", "assistant: Sorry, updating it."},
		QualityOK:  true,
		SessionID:  "s1",
		RecordUUID: "s1-r5",
		Extractor:  ExtractorCorrection,
		Timestamp:  "2026-01-01T00:00:05Z",
		Class:      ClassRule,
	}
	if len(obs) != 1 || !reflect.DeepEqual(obs[0], want) {
		t.Fatalf("got\n%+v\nwant\n%+v", obs, want)
	}
}

func TestFailureFix(t *testing.T) {
	tests := []struct {
		name   string
		script []string
		want   []string
	}{
		{"a step before the same command", []string{"user: commit", "assistant: ok",
			"fail: git commit -am x => [INFO] Stashing unstaged files\nblack....Failed\n- files were modified by this hook",
			"bash: black src/", "bash: git commit -am x"},
			[]string{"pitfall: Before `git commit`, run `black src/`: without it, `git commit` fails with \"black....Failed\"."}},
		// A step chained after the failed part is no part of its fix: the
		// step run between is.
		{"a step after the same command, one run between", []string{"user: switch", "assistant: ok",
			"fail: git checkout develop 2>&1 => error: Your local changes to the following files would be overwritten by checkout:\n\tweb/",
			"bash: git stash 2>&1", "bash: git checkout develop && git pull origin develop 2>&1"},
			[]string{"pitfall: Before `git checkout`, run `git stash 2>&1`: without it, `git checkout` fails with \"error: Your local changes to the following files would be overwritten by checkout: web/\"."}},
		// The error names the later link's subcommand: that link failed,
		// the first one passed (it printed "Switched to branch").
		{"a later link of the same program failed", []string{"user: sync main", "assistant: ok",
			"fail: git checkout main && git pull => Switched to branch 'main'\nM\t.gitignore\n  (use \"git pull\" to update your local branch)\nerror: cannot pull with rebase: You have unstaged changes.\nerror: Please commit or stash them.",
			"bash: git stash && git pull && git stash pop"},
			[]string{"pitfall: Before `git pull`, run `git stash`: without it, `git pull` fails with \"error: cannot pull with rebase: You have unstaged changes.\"."}},
		// Only a count the error never named changed: no fix. A number
		// the error names is what was wrong.
		{"a count changed that the error does not name", []string{"user: logs", "assistant: ok",
			"fail: ssh prod 'cd app && pm2 logs --lines 20' => bash: line 1: cd: app: No such file or directory",
			"bash: ssh prod 'cd app && pm2 logs --lines 30'"},
			nil},
		{"a number changed when the error is about an amount", []string{"user: build", "assistant: ok",
			"fail: timeout 60 make release => make: *** [release] Terminated: the build ran out of time",
			"bash: timeout 300 make release"},
			[]string{"pitfall: `make release` fails with \"make: *** [release] Terminated: the build ran out of time\": use `300` instead of `60`."}},
		{"a number the error names changed", []string{"user: serve", "assistant: ok",
			"fail: python -m http.server 3000 => OSError: [Errno 98] Address already in use: port 3000",
			"bash: python -m http.server 3001"},
			[]string{"pitfall: `python -m http.server` fails with \"OSError: [Errno 98] Address already in use: port 3000\": use `3001` instead of `3000`."}},
		{"a later script of the same runner failed", []string{"user: check", "assistant: ok",
			"fail: npm run build && npm run e2e => Error: e2e needs the server listening on port 3000",
			"bash: npm run serve:bg && npm run e2e"},
			[]string{"pitfall: Before `npm run e2e`, run `npm run serve:bg`: without it, `npm run e2e` fails with \"Error: e2e needs the server listening on port 3000\"."}},
		// A subcommand's word inside a path, in quotes or in a commit's
		// subject further on is not the error naming that link.
		{"a path that holds a later subcommand's word", []string{"user: check", "assistant: ok",
			"fail: go build ./... && go test ./... => internal/test/helpers.go:4:2: no required module provides package github.com/x/y; to add it:",
			"bash: go mod tidy", "bash: go build ./... && go test ./..."},
			[]string{"pitfall: Before `go build`, run `go mod tidy`: without it, `go build` fails with \"internal/test/helpers.go:<n>: no required module provides package github.com/x/y; to add it:\"."}},
		{"a commit's subject that holds a later subcommand's word", []string{"user: ship", "assistant: ok",
			"fail: git rebase main && git push --force-with-lease => error: could not apply 1a2b3c4... Add push notifications",
			"bash: git rebase --abort", "bash: git rebase main && git push --force-with-lease"},
			[]string{"pitfall: `git rebase` fails with \"error: could not apply <hash>... Add push notifications\": use `--abort` instead of `main && git push --force-with-lease`."}},
		{"the change got it further: it fixed the first error", []string{"user: lint", "assistant: ok",
			"fail: uv run ruff check . => error: Failed to spawn: `ruff`\n  Caused by: No such file or directory (os error 2)",
			"fail: uv run --with ruff ruff check . => F401 `os` imported but unused\nFound 1 error.",
			"edit: /repo/app.py", "bash: uv run --with ruff ruff check ."},
			[]string{"pitfall: `ruff` fails with \"error: Failed to spawn: `ruff`\": add `--with ruff`."}},
		{"further, but a step ran between: no telling what fixed it", []string{"user: lint", "assistant: ok",
			"fail: uv run ruff check . => error: Failed to spawn: `ruff`", "bash: uv add --dev ruff",
			"fail: uv run --with ruff ruff check . => F401 `os` imported but unused", "edit: /repo/app.py", "bash: uv run --with ruff ruff check ."},
			nil},
		{"the shell was in the folder already: a slip, no lesson", []string{"user: build", "assistant: ok",
			"fail: cd frontend && npm run build => /bin/bash: line 1: cd: frontend: No such file or directory", "bash: npm run build"},
			nil},
		{"the change of folder made another step: a slip, no lesson", []string{"user: convert", "assistant: ok",
			"fail: cd src/res && magick a.png b.webp => bash: line 1: cd: src/res: No such file or directory", "bash: pwd && magick a.png b.webp"},
			nil},
		{"a password prompt is not answered by naming the remote: the prompt is the lesson", []string{"user: push", "assistant: ok",
			"fail: git push => fatal: could not read Username for 'https://github.com': No such device or address", "bash: git push origin main"},
			[]string{"pitfall: `git push` cannot ask for a username or password in the agent's shell, which has no terminal: give it a token or a credential helper (`gh auth setup-git` for GitHub), or ask the person to run it."}},
		{"a credential helper set on the rerun is its fix", []string{"user: push", "assistant: ok",
			"fail: git push => fatal: could not read Username for 'https://github.com': No such device or address", "bash: git -c credential.helper=store push"},
			[]string{"pitfall: `git push` fails with \"fatal: could not read Username for 'https://github.com': No such device or address\": add `-c credential.helper=store`."}},
		{"another file read, other lines of it, in place of a missing one: the agent moved on", []string{"user: look", "assistant: ok",
			"fail: sed -n '1,200p' src/ui/slider.jsx => sed: can't read src/ui/slider.jsx: No such file or directory", "bash: sed -n '200,420p' src/filters/QuickFilter.jsx"},
			nil},
		{"another folder: the path was wrong", []string{"user: build", "assistant: ok",
			"fail: cd frontend && npm run build => /bin/bash: line 1: cd: frontend: No such file or directory", "bash: cd web && npm run build"},
			[]string{"pitfall: `npm run build` fails with \"/bin/bash: line <n>: cd: frontend: No such file or directory\": use `web` instead of `frontend`."}},
		{"a word replaced by a redirection was left out", []string{"user: check", "assistant: ok",
			"fail: blocky validate => Error: unknown command \"validate\" for \"blocky\"", "bash: blocky 2>&1"},
			[]string{"pitfall: `blocky` fails with \"Error: unknown command \"validate\" for \"blocky\"\": leave out `validate`."}},
		{"no such script, never fixed: the project has none", []string{"user: test it", "assistant: ok",
			"fail: yarn test:web --grep x => Usage Error: Couldn't find a script named \"test:web\".", "bash: ls"},
			[]string{"pitfall: `yarn test:web --grep x` names no script or target of this project: it fails with \"Usage Error: Couldn't find a script named \"test:web\".\"."}},
		{"the error names what to run instead", []string{"user: test it", "assistant: ok",
			"fail: yarn test Calc --grep x => Use command \"yarn test_webdb --grep=\"My test name\"\" with correct grep for test name", "bash: ls"},
			[]string{"pitfall: `yarn test Calc --grep x` fails, and says what to run instead: \"Use command \"yarn test_webdb --grep=\"My test name\"\" with correct grep for test name\"."}},
		{"an exception the code raised names its own fix: the work", []string{"user: run it", "assistant: ok",
			"fail: python extract.py => AttributeError: 'str' object has no attribute 'decode'. Did you mean: 'encode'?", "bash: ls"},
			nil},
		{"a changed command", []string{"user: push", "assistant: ok",
			"fail: git push => fatal: The current branch x has no upstream branch.", "bash: git push --set-upstream origin x"},
			[]string{"pitfall: `git push` fails with \"fatal: The current branch x has no upstream branch.\": add `--set-upstream origin x`."}},
		{"the program called by its full path, spaces and all", []string{"user: check gh", "assistant: ok",
			"fail: gh auth status => /usr/bin/bash: line 1: gh: command not found", `bash: "C:\Program Files\GitHub CLI\gh.exe" auth status`},
			[]string{"pitfall: `gh auth status` fails with \"/usr/bin/bash: line <n>: gh: command not found\": use `\"C:\\Program Files\\GitHub CLI\\gh.exe\"` instead of `gh`."}},
		{"a wrapper is the same command", []string{"user: test", "assistant: ok",
			"fail: pytest => E   ModuleNotFoundError: No module named 'app'", "bash: uv run pytest"},
			[]string{"pitfall: `pytest` fails with \"E ModuleNotFoundError: No module named 'app'\": add `uv run`."}},
		{"a step chained before the same command", []string{"user: build", "assistant: ok",
			"fail: npm run build => error: The engine \"node\" is incompatible with this module. Expected version \">=20\".", "bash: nvm use 20 && npm run build"},
			[]string{"pitfall: Before `npm run build`, run `nvm use 20`: without it, `npm run build` fails with \"error: The engine \"node\" is incompatible with this module. Expected version \">=20\".\"."}},
		{"only a cd chained before: the command as it ran", []string{"user: test", "assistant: ok",
			"fail: go test ./... => go: cannot find main module", "bash: cd app && go test ./..."},
			[]string{"pitfall: `go test` fails with \"go: cannot find main module\": add `cd app &&`."}},
		{"a chained command with other arguments is another command", []string{"user: test", "assistant: ok",
			"fail: go test ./internal/render/... => --- FAIL: TestRenderSkill (0.01s)", "bash: rm testdata/x.md && go test ./internal/render/... -update"}, nil},
		{"steps chained before it in both commands are no fix: the script's values changed", []string{"user: query it", "assistant: ok",
			"fail: $a = @{ q = 'x y' }; $r = $a | ConvertTo-Json -Depth 10; curl.exe -d $r => Script failed\nWall time 0.2 seconds\nOutput:\n\nScript error:\nExit code: 1\nOutput:\n{\"error\":{\"code\":-32603,\"message\":\"parse error\"}}curl: (3) unmatched close brace/bracket in URL position 27:",
			"bash: $a = @{ q = 'x' }; $r = $a | ConvertTo-Json -Depth 10; curl.exe -d $r"}, nil},
		{"a script that cannot start is a failure, a dry run or not; output plumbing added on the rerun is no fix", []string{"user: run it", "assistant: ok",
			"fail: cd ~/M && ./scripts/u.sh new --dry-run => (eval):1: ./scripts/u.sh: bad interpreter: /bin/bash^M: no such file or directory",
			"bash: cd ~/M && dos2unix scripts/u.sh 2>/dev/null || sed -i 's/\\r$//' scripts/u.sh",
			"bash: cd ~/M && ./scripts/u.sh new --dry-run 2>&1 | head -60"},
			[]string{"pitfall: Before `u.sh`, run `cd ~/M && dos2unix scripts/u.sh 2>/dev/null || sed -i 's/\\r$//' scripts/u.sh`: without it, `u.sh` fails with \"(eval):1: ./scripts/u.sh: bad interpreter: /bin/bash^M: no such file…"}},
		{"output piped to tail on the rerun hides the exit status: no fix", []string{"user: test", "assistant: ok",
			"fail: pytest -x => FAILED tests/test_a.py::test_one - AssertionError", "bash: pytest -x 2>&1 | tail -5"}, nil},
		{"a path that is not there, and the one that is", []string{"user: read it", "assistant: ok",
			"fail: sed -n '1,200p' _bmad/core/tasks/bmad-help.md => sed: can't read _bmad/core/tasks/bmad-help.md: No such file or directory",
			"bash: sed -n '1,200p' _bmad/core/tasks/help.md"},
			[]string{"pitfall: `_bmad/core/tasks/bmad-help.md` does not exist: use `_bmad/core/tasks/help.md` instead (`sed` fails with \"sed: can't read _bmad/core/tasks/bmad-help.md: No such file or directory\")."}},
		{"the missing path, and a line range changed with it", []string{"user: read it", "assistant: ok",
			"fail: sed -n '1,160p' apps/api/api/utils.py => sed: can't read apps/api/api/utils.py: No such file or directory",
			"bash: sed -n '1,200p' apps/api/api/views/utils.py"},
			[]string{"pitfall: `apps/api/api/utils.py` does not exist: use `apps/api/api/views/utils.py` instead (`sed` fails with \"sed: can't read apps/api/api/utils.py: No such file or directory\")."}},
		{"a file read where it is not, then found elsewhere under its name", []string{"user: load the agent", "assistant: ok",
			"fail: cat bmad/bmm/agents/pm.md => cat: bmad/bmm/agents/pm.md: No such file or directory",
			"bash: ls", "bash: rg --files -g 'pm.md'", "bash: cat _bmad/bmm/agents/pm.md"},
			[]string{"pitfall: Use `_bmad/bmm/agents/pm.md`: `bmad/bmm/agents/pm.md` does not exist."}},
		{"the read tool's miss, then the same file read elsewhere", []string{"user: read the protocol", "assistant: ok",
			"failread: /repo/code/docs/06_dev_protocol.md => <tool_use_error>File does not exist.</tool_use_error>",
			"bash: ls code/docs", "read: /repo/code/docs/protocol/06_dev_protocol.md"},
			[]string{"pitfall: Use `code/docs/protocol/06_dev_protocol.md`: `code/docs/06_dev_protocol.md` does not exist."}},
		{"the read tool's miss under a misspelled name, then the file in the same folder", []string{"user: read the guide", "assistant: ok",
			"failread: /repo/docs/guides/deploymnet.md => <tool_use_error>File does not exist.</tool_use_error>",
			"bash: ls docs/guides", "read: /repo/docs/guides/deployment.md"},
			[]string{"pitfall: Use `docs/guides/deployment.md`: `docs/guides/deploymnet.md` does not exist."}},
		// Without a look for it, a name spelled otherwise is another
		// file the agent moved on to.
		{"the read tool's miss, then a name spelled otherwise, no look around", []string{"user: read the model", "assistant: ok",
			"failread: /repo/src/employer.py => <tool_use_error>File does not exist.</tool_use_error>",
			"read: /repo/src/employee.py"},
			nil},
		{"the read tool's miss under the other language's extension", []string{"user: read the routes", "assistant: ok",
			"failread: /repo/src/server/routes.js => <tool_use_error>File does not exist.</tool_use_error>",
			"read: /repo/src/server/routes.ts"},
			[]string{"pitfall: Use `src/server/routes.ts`: `src/server/routes.js` does not exist."}},
		{"the read tool's miss, then the next file of a series: no lesson", []string{"user: read the steps", "assistant: ok",
			"failread: /repo/steps/step-02-init.md => <tool_use_error>File does not exist.</tool_use_error>",
			"read: /repo/steps/step-01-init.md"},
			nil},
		{"a cd into a folder that is not there, then the same step from another", []string{"user: check the repo", "assistant: ok",
			"fail: cd /home/ana/shop && git status => bash: cd: /home/ana/shop: No such file or directory",
			"bash: find /home/ana -maxdepth 3 -name shop -type d",
			"bash: cd /home/ana/work/clients/shop && git status --short && ls"},
			[]string{"pitfall: `~/shop` does not exist: use `~/work/clients/shop` instead (`git status` fails with \"bash: cd: ~/shop: No such file or directory\")."}},
		// Named from the root inside the folder the shell stood in, the
		// folder is the relative slip of the moment, and stored from the
		// project's folder its lesson would name the wrong one.
		{"a cd from the root into a folder inside the current one, then another", []string{"user: check the repo", "assistant: ok",
			"fail: cd /repo/shop && git status => bash: cd: /repo/shop: No such file or directory",
			"bash: cd /repo/apps/shop && git status --short"},
			nil},
		// Where the shell stood, a folder named from there has no place of
		// its own to name.
		{"a cd from the root into a folder not there, then a relative one", []string{"user: check the repo", "assistant: ok",
			"fail: cd /home/ana/shop && git status => bash: cd: /home/ana/shop: No such file or directory",
			"bash: cd shop && git status --short"},
			nil},
		{"a cd on a server into a folder that is not there, then another", []string{"user: show the logs", "assistant: ok",
			"fail: ssh prod 'cd shop-api && npm run logs' => bash: line 1: cd: shop-api: No such file or directory",
			"bash: ssh prod 'ls'", "bash: ssh prod 'cd apps/shop-api && npm run logs'"},
			[]string{"pitfall: `shop-api` does not exist: use `apps/shop-api` instead (`ssh npm run logs` fails with \"bash: line <n>: cd: shop-api: No such file or directory\")."}},
		{"git mv refused on new files, then mv over the same files", []string{"user: move the notes", "assistant: ok",
			"fail: mkdir -p docs/notes && git mv drafts/plan.md docs/notes/plan.md 2>&1 => fatal: not under version control, source=drafts/plan.md, destination=docs/notes/plan.md",
			"bash: mv drafts/plan.md drafts/todo.md docs/notes/", "bash: git add docs/notes/ && git status"},
			[]string{"pitfall: `git mv` fails with \"fatal: not under version control, source=drafts/plan.md, destination=docs/notes/plan.md\": git does not track these files; use `mv`, then `git add`."}},
		// The folder both moves go to is no file of the one refused.
		{"git mv refused, then mv of another file to the same folder", []string{"user: move the notes", "assistant: ok",
			"fail: git mv old/a.md . => fatal: not under version control, source=old/a.md, destination=a.md",
			"bash: mv old/b.md ."},
			nil},
		// Issued with the refused call, before git answered: no answer to it.
		{"git mv refused, mv issued alongside", []string{"user: move the notes", "assistant: ok",
			"fail: git mv old/a.md docs/a.md => fatal: not under version control, source=old/a.md, destination=docs/a.md",
			"alongside: mv old/a.md docs/a.md"},
			nil},
		// "did not match any files" is as much git add's error.
		{"git add finding nothing, then rm of the file git rm named", []string{"user: tidy", "assistant: ok",
			"fail: git add notes/new.md && git rm notes/old.md => fatal: pathspec 'notes/new.md' did not match any files",
			"bash: rm notes/old.md"},
			nil},
		{"git rm --cached finding nothing, then rm: another thing, no lesson", []string{"user: drop the cache", "assistant: ok",
			"fail: git rm -r --cached .cache/ => fatal: pathspec '.cache/' did not match any files",
			"bash: rm -rf .cache/"},
			nil},
		{"reads of several files in one command, one found elsewhere later", []string{"user: read the sources", "assistant: ok",
			"fail: cat src-tauri/main.rs; cat src-tauri/config.rs => cat: src-tauri/main.rs: No such file or directory\ncat: src-tauri/config.rs: No such file or directory",
			"bash: ls src-tauri", "bash: cat src-tauri/src/main.rs | head -200"},
			[]string{"pitfall: Use `src-tauri/src/main.rs`: `src-tauri/main.rs` does not exist."}},
		{"PowerShell's reads, each error naming its file, the second found", []string{"user: read the sources", "assistant: ok",
			"fail: Get-Content -Raw src-tauri/main.rs; Get-Content -Raw src-tauri/oauth.rs => \x1b[31;1mGet-Content: \x1b[31;1mCannot find path 'C:\\app\\src-tauri\\main.rs' because it does not exist.\x1b[0m\nGet-Content: Cannot find path 'C:\\app\\src-tauri\\oauth.rs' because it does not exist.",
			"read: /repo/src-tauri/src/oauth.rs"},
			[]string{"pitfall: Use `src-tauri/src/oauth.rs`: `src-tauri/oauth.rs` does not exist."}},
		{"reads of several files, then a search and probes that pass whatever they find: no lesson", []string{"user: read the sources", "assistant: ok",
			"fail: cat src/a.rs; cat src/b.rs => cat: src/a.rs: No such file or directory\ncat: src/b.rs: No such file or directory",
			"bash: rg --files -g 'a.rs'", "bash: cat src/x/a.rs || echo missing", "bash: cat src/x/a.rs; cat src/b.rs", "refuse: cat src/y/a.rs"}, nil},
		{"a folder listed, then its files missed: the files, not the folder", []string{"user: read the docs", "assistant: ok",
			"fail: ls docs/ && cat docs/guide.md docs/api.md => cat: docs/guide.md: No such file or directory\ncat: docs/api.md: No such file or directory",
			"bash: ls website/docs/"}, nil},
		{"files missed on another machine are its own", []string{"user: check the server", "assistant: ok",
			"fail: ssh box 'cat app/config.yml; cat app/db.yml' => cat: app/config.yml: No such file or directory\ncat: app/db.yml: No such file or directory",
			"read: /repo/config/config.yml"}, nil},
		{"the read tool's miss, then another file read: no lesson", []string{"user: read the plan", "assistant: ok",
			"failread: /repo/docs/plan.md => <tool_use_error>File does not exist.</tool_use_error>", "read: /repo/README.md"}, nil},
		{"a file read where it is not, then another file read: no lesson", []string{"user: load the help", "assistant: ok",
			"fail: cat _bmad/core/tasks/bmad-help.md => cat: _bmad/core/tasks/bmad-help.md: No such file or directory",
			"bash: cat _bmad/bmm/config.yaml"}, nil},
		{"a file read where it is not, and nothing after it: no lesson", []string{"user: read it", "assistant: ok",
			"fail: cat docs/plan.md => cat: docs/plan.md: No such file or directory", "bash: npm test"}, nil},
		{"a program given a file that is not there, then another: a lesson", []string{"user: deploy it", "assistant: ok",
			"fail: kubectl apply -f deploy.yaml => error: the path \"deploy.yaml\" does not exist", "bash: kubectl apply -f k8s/service.yaml"},
			[]string{"pitfall: `deploy.yaml` does not exist: use `k8s/service.yaml` instead (`kubectl apply` fails with \"error: the path \"deploy.yaml\" does not exist\")."}},
		{"a path that is not there, then another file read: no lesson", []string{"user: read it", "assistant: ok",
			"fail: sed -n '1,200p' src/styles/ticket.css => sed: src/styles/ticket.css: No such file or directory",
			"bash: sed -n '1,200p' src/App.tsx"}, nil},
		{"passes as it was: a flake", []string{"user: install", "assistant: ok", "fail: npm install => npm error code ETIMEDOUT", "bash: npm install"}, nil},
		{"passes after edits: the work itself", []string{"user: fix", "assistant: ok", "fail: go test ./... => --- FAIL: TestX", "edit: /repo/x.go", "bash: go test ./..."}, nil},
		// What the agent read on the way is no step of the fix.
		{"reads on the way", []string{"user: go", "assistant: ok",
			"fail: ip link show eth0 => Cannot open netlink socket: Operation not permitted", "bash: sed -n '1,220p' /repo/include/lcm.h", "escalated: ip link show eth0"},
			[]string{"pitfall: `ip` fails with \"Cannot open netlink socket: Operation not permitted\" in the sandbox: run it with escalated permissions."}},
		// The program asked for something else: the agent moved on,
		// unless the error said the command itself was wrong.
		{"another subcommand", []string{"user: go", "assistant: ok",
			"fail: claude mcp remove rag-webfetch => No local MCP server found with name: rag-webfetch", "bash: claude mcp list"}, nil},
		{"another subcommand, the first", []string{"user: go", "assistant: ok",
			"fail: ibus list-engine => Can't connect to IBus.", "bash: ibus read-cache"}, nil},
		{"another subcommand, the first unknown", []string{"user: go", "assistant: ok",
			"fail: compact clear => Comando desconhecido: clear", "bash: compact restart"},
			[]string{"pitfall: `compact` fails with \"Comando desconhecido: clear\": use `restart` instead of `clear`."}},
		{"passes after edits, the error saying the rule broken", []string{"user: check the db", "assistant: ok",
			"fail: node src/test-db.js => file:///repo/src/test-db.js:1\nReferenceError: require is not defined in ES module scope, you can use import instead", "edit: /repo/src/test-db.js", "bash: node src/test-db.js"},
			[]string{"pitfall: `node test-db.js` fails with \"ReferenceError: require is not defined in ES module scope, you can use import instead\": fixed by changing `src/test-db.js`."}},
		{"gets further after edits, the error saying the rule broken", []string{"user: check the db", "assistant: ok",
			"fail: node src/test-db.js => ReferenceError: require is not defined in ES module scope, you can use import instead", "edit: /repo/src/test-db.js",
			"fail: node src/test-db.js => Error: password authentication failed for user \"postgres\""},
			[]string{"pitfall: `node test-db.js` fails with \"ReferenceError: require is not defined in ES module scope, you can use import instead\": fixed by changing `src/test-db.js`."}},
		{"passes after edits, the code not right yet: the work", []string{"user: fix", "assistant: ok",
			"fail: node app.js => TypeError: Cannot read properties of undefined (reading 'id')", "edit: /repo/app.js", "bash: node app.js"}, nil},
		{"never passes", []string{"user: build", "assistant: ok", "fail: make => make: *** [all] Error 1", "bash: ls"}, nil},
		{"the person steps in: not the agent's fix", []string{"user: build", "assistant: ok", "fail: make build => Error 1", "user: run make deps first", "bash: make deps", "bash: make build"}, nil},
		{"another name of the program", []string{"user: go", "assistant: ok",
			"fail: python - <<'PY' => /bin/bash: line 1: python: command not found", "bash: python3 - <<'PY'"},
			[]string{"pitfall: `python` fails with \"/bin/bash: line <n>: python: command not found\": use `python3` instead of `python`."}},
		{"a program that is not there, and no fix", []string{"user: go", "assistant: ok",
			"fail: python - <<'PY' => /bin/bash: line 1: python: command not found", "bash: awk '{print $1}' f.md"},
			[]string{"pitfall: `python` is not available here: `python - <<'PY'` fails with \"/bin/bash: line <n>: python: command not found\"."}},
		{"a chain the agent continued over lines with backslashes is one line", []string{"user: stats", "assistant: Updating.",
			"fail: cd /tmp/evolution-map && \\\n  cp a.json b.json && \\\n  echo \"✅ done\" && \\\n  jq '.statistics' b.json => ✅ done\n/data/data/com.termux/files/usr/bin/bash: line 5: jq: command not found",
			"bash: cd /tmp/evolution-map && python3 << 'EOF'\nimport json\nprint(json.load(open('b.json'))['statistics'])\nEOF"},
			[]string{"pitfall: `jq` is not available here: `jq '.statistics' b.json` fails with \"/data/data/com.termux/files/usr/bin/bash: line <n>: jq: command not found\"."}},
		{"a call run alongside the failure is no step of its fix", []string{"user: check", "assistant: ok",
			"fail: npm run lint => Error: ENOENT: no such file or directory, open '/repo/vitest.config.ts.timestamp-1.mjs'", "alongside: npm test", "bash: npm run lint"}, nil},
		{"a program missing on the machine ssh reaches is missing there, not here", []string{"user: check", "assistant: ok",
			"fail: ssh root@10.0.0.1 \"hostname\" => ash: hostname: not found", "bash: ls"},
			[]string{"pitfall: `hostname` is not available on the machine `ssh` reaches: `hostname` fails with \"ash: hostname: not found\"."}},
		{"a program not on the PATH, run later by where it is, is called so", []string{"user: install it on the phone", "assistant: ok",
			"fail: adb devices => Exit code 127\n(eval):1: command not found: adb", "bash: ./gradlew installDebug",
			"user: now take a screenshot", "assistant: ok", "bash: find ~/Library/Android/sdk -name adb -type f",
			"bash: ~/Library/Android/sdk/platform-tools/adb shell screencap -p /sdcard/s.png"},
			[]string{"pitfall: `adb` is not on the PATH here: `adb devices` fails with \"(eval):1: command not found: adb\"; run it as `~/Library/Android/sdk/platform-tools/adb`."}},
		{"a program missing, then installed in the session, is no lesson", []string{"user: build", "assistant: ok",
			"fail: cargo build => zsh: command not found: cargo", "bash: sh /tmp/rustup-init.sh -y", "bash: ~/.cargo/bin/cargo --version", "bash: ls"}, nil},
		{"a bypassed check is no fix", []string{"user: commit", "assistant: ok",
			"fail: git commit -m x => error: gpg failed to sign the data", "bash: git commit --no-gpg-sign -m x"}, nil},
		{"a check turned off along with another change is no fix", []string{"user: pull", "assistant: ok",
			"fail: git pull --rebase => error: gpg failed to sign the data", "bash: git pull --no-rebase --no-gpg-sign"}, nil},
		{"a hook bypassed is no fix", []string{"user: commit", "assistant: ok",
			"fail: git commit -m x => black....Failed", "bash: git commit --no-verify -m x"}, nil},
		{"a script rewritten below the same first line is no small change", []string{"user: run", "assistant: ok",
			"fail: PYTHONPATH=lib:. python - <<'PY'\nimport torch\nprint(check(torch.zeros(77)))\nPY => RuntimeError: The size of tensor a (77) must match the size of tensor b (78)",
			"bash: python - <<'PY'\nfrom src.bvh import parse\nprint(len(parse('a.bvh')))\nPY"}, nil},
		{"an inline script rewritten as a heredoc is no small change", []string{"user: run", "assistant: ok",
			"fail: python -c \"import json\nprint(f\\\"{d[\\\"a\\\"]}\\\")\" => SyntaxError: f-string: expecting '}'",
			"bash: python - <<'EOF'\nimport json\nprint(d['a'])\nEOF"}, nil},
		{"the same script under a changed first line is that change", []string{"user: run", "assistant: ok",
			"fail: python - <<'PY'\nprint(1)\nPY => /bin/bash: line 1: python: command not found",
			"bash: python3 - <<'PY'\nprint(1)\nPY"},
			[]string{"pitfall: `python` fails with \"/bin/bash: line <n>: python: command not found\": use `python3` instead of `python`."}},
		{"outside the sandbox", []string{"user: push", "assistant: ok",
			"fail: git push => ssh: Could not resolve hostname github.com: Temporary failure in name resolution", "escalated: git push"},
			[]string{"pitfall: `git push` fails with \"ssh: Could not resolve hostname github.com: Temporary failure in name resolution\" in the sandbox: run it with escalated permissions."}},
		{"outside the sandbox, reworded on the way", []string{"user: commit", "assistant: ok",
			"fail: git add app.js && git commit -m \"fix: paths\" => fatal: Unable to create '/repo/.git/index.lock': Permission denied",
			"escalated: git add -A && git commit -m \"fix: relative paths\""},
			[]string{"pitfall: `git add` fails with \"fatal: Unable to create '<worktree>/.git/index.lock': Permission denied\" in the sandbox: run it with escalated permissions."}},
		{"outside the sandbox after the person asked again", []string{"user: commit", "assistant: ok",
			"fail: git add app.js && git commit -m x => fatal: Unable to create '/repo/.git/index.lock': Permission denied",
			"user: push it", "assistant: ok", "escalated: git add -A && git commit -m x && git push"},
			[]string{"pitfall: `git add` fails with \"fatal: Unable to create '<worktree>/.git/index.lock': Permission denied\" in the sandbox: run it with escalated permissions."}},
		{"a branch the repository does not have, looked at under its name", []string{"user: what is on the hotfix branch?", "assistant: ok",
			"fail: git log hotfix/x --not main --oneline => fatal: ambiguous argument 'main': unknown revision or path not in the working tree.",
			"bash: git branch -a", "bash: git log hotfix/x --not master --oneline"},
			[]string{"pitfall: `git log` fails with \"fatal: ambiguous argument 'main': unknown revision or path not in the working tree.\": use `master` instead of `main`."}},
		{"a range from a branch the repository does not have", []string{"user: diff it", "assistant: ok",
			"fail: git diff main...HEAD --stat => fatal: ambiguous argument 'main...HEAD': unknown revision or path not in the working tree.",
			"bash: git diff master...HEAD --stat"},
			[]string{"pitfall: `git diff` fails with \"fatal: ambiguous argument 'main...HEAD': unknown revision or path not in the working tree.\": use `master...HEAD` instead of `main...HEAD`."}},
		{"a revision counted from HEAD is this moment's, not a name", []string{"user: what changed?", "assistant: ok",
			"fail: git diff HEAD~5 --stat => fatal: ambiguous argument 'HEAD~5': unknown revision or path not in the working tree.",
			"bash: git diff HEAD~2 --stat"}, nil},
		{"a mistyped hash is no name", []string{"user: show it", "assistant: ok",
			"fail: git show abc1234 => fatal: bad revision 'abc1234'", "bash: git show abc1243"}, nil},
		{"another branch looked at after an unknown one: the agent moved on", []string{"user: look", "assistant: ok",
			"fail: git log feature-a --oneline => fatal: ambiguous argument 'feature-a': unknown revision or path not in the working tree.",
			"bash: git log --oneline -5"}, nil},
		{"outside the sandbox after workarounds: the first refusal", []string{"user: commit", "assistant: ok",
			"fail: git add app.js && git commit -m x => fatal: Unable to create '/repo/.git/index.lock': Permission denied",
			"fail: export GIT_INDEX_FILE=/tmp/gitindex && git add -A && git commit -m x => fatal: Unable to create '/tmp/gitindex.lock': Permission denied",
			"user: push it", "assistant: ok", "escalated: git add -A && git commit -m x && git push"},
			[]string{"pitfall: `git add` fails with \"fatal: Unable to create '<worktree>/.git/index.lock': Permission denied\" in the sandbox: run it with escalated permissions."}},
		{"outside the sandbox after a workaround, the person silent: the first refusal", []string{"user: commit", "assistant: ok",
			"fail: git add app.js && git commit -m x => fatal: Unable to create '/repo/.git/index.lock': Permission denied",
			"bash: ls -l .git",
			"fail: export GIT_INDEX_FILE=/tmp/gitindex && git add -A && git commit -m x => fatal: Unable to create '/tmp/gitindex.lock': Permission denied",
			"escalated: git add -A && git commit -m x"},
			[]string{"pitfall: `git add` fails with \"fatal: Unable to create '<worktree>/.git/index.lock': Permission denied\" in the sandbox: run it with escalated permissions."}},
		{"a flag named for a sandbox is no refusal of the agent's", []string{"user: screenshot", "assistant: ok",
			"fail: chromium --headless --screenshot https://x.test => Running as root without --no-sandbox is not supported.",
			"escalated: chromium --headless --no-sandbox --screenshot https://x.test"}, nil}, // and a check turned off is no fix
		{"outside Claude Code's sandbox", []string{"user: open the PR", "assistant: ok",
			"fail: gh pr create --draft --title x => Post \"https://api.github.com/graphql\": dial tcp: lookup api.github.com: operation not permitted",
			"unsandboxed: gh pr create --draft --title x"},
			[]string{"pitfall: `gh pr create` fails with \"Post \"https://api.github.com/graphql\": dial tcp: lookup api.github.com: operation not permitted\" in the sandbox: run it with dangerouslyDisableSandbox."}},
		{"outside the sandbox, piped into a filter that found nothing", []string{"user: branch", "assistant: ok",
			"fail: git ls-remote --heads origin | rg -n \"refs/heads/1-x$\" => Exit code: 1\nWall time: 0 seconds\nOutput:\nssh: Could not resolve hostname github.com: Temporary failure in name resolution",
			"escalatedfail: git ls-remote --heads origin | rg -n \"refs/heads/1-x$\" => Exit code: 1\nWall time: 2.1 seconds\nOutput:"},
			[]string{"pitfall: `git ls-remote` fails with \"ssh: Could not resolve hostname github.com: Temporary failure in name resolution\" in the sandbox: run it with escalated permissions."}},
		{"a filter that found nothing after the same failure is no fix", []string{"user: look", "assistant: ok",
			"fail: git ls-remote origin | rg x => ssh: Could not resolve hostname github.com",
			"fail: git ls-remote origin | rg x => ssh: Could not resolve hostname github.com"}, nil},
		{"a setting changed", []string{"user: push", "assistant: ok",
			"fail: git push => remote: error: File .cache/bin is 125.00 MB; this exceeds GitHub's file size limit of 100.00 MB", "edit: /repo/.gitignore", "bash: git push"},
			[]string{"pitfall: `git push` fails with \"remote: error: File .cache/bin is 125.00 MB; this exceeds GitHub's file size limit of 100.00 MB\" until .gitignore is changed."}},
		{"a setting the agent was working on is the work", []string{"user: fix ci", "assistant: ok", "edit: /repo/.github/ci.yml",
			"fail: act => Error: Job 'test' failed", "edit: /repo/.github/ci.yml", "bash: act"}, nil},
		{"a lock held by another run", []string{"user: remove", "assistant: ok",
			"fail: ssh root@10.0.0.1 \"opkg remove x\" => Could not lock /var/lock/opkg.lock: Resource temporarily unavailable.", "bash: sleep 3", "bash: ssh root@10.0.0.1 \"opkg remove x\""},
			[]string{"pitfall: `ssh opkg remove` fails with \"Could not lock /var/lock/opkg.lock: Resource temporarily unavailable.\" while another run holds it: wait a moment and run it again."}},
		{"a lock held by another run, the pause chained before the rerun", []string{"user: install", "assistant: ok",
			"fail: brew install bfg => Error: A `brew install bfg` process has already locked /opt/homebrew/var/homebrew/locks/bfg.formula.lock", "bash: sleep 5 && brew install bfg"},
			[]string{"pitfall: `brew install` fails with \"Error: A `brew install bfg` process has already locked…\" while another run holds it: wait a moment and run it again."}},
		{"another command through the same shell is another step", []string{"user: audit", "assistant: ok",
			"fail: powershell.exe -Command \"Get-NetTCPConnection | Where-Object State -eq Listen\" => ParserError: unexpected token", "bash: powershell.exe -Command \"Get-Service -Name x\""}, nil},
		{"a probe that finds nothing", []string{"user: look", "assistant: ok",
			"fail: grep -rn TODO src => Exit code 1", "bash: grep -rn FIXME src"}, nil},
		{"PowerShell's Set-Location is a cd: the build failed, reading a file is no fix", []string{"user: build", "assistant: ok",
			"fail: Set-Location frontend; npm run build => src/pages/Edit.tsx(1,31): error TS6133: 'useRef' is declared but its value is never read.",
			"bash: Set-Location frontend; Get-Content src/services/permission.ts"}, nil},
		{"another file removed in place of a missing one is no fix", []string{"user: clean up", "assistant: ok",
			"fail: Remove-Item backend/docker-compose.yml => Remove-Item: Cannot find path 'C:\\app\\backend\\docker-compose.yml' because it does not exist.",
			"bash: Remove-Item .dockerignore"}, nil},
		{"a flag added to a removal is a fix", []string{"user: clean up", "assistant: ok",
			"fail: rm build => rm: cannot remove 'build': Is a directory", "bash: rm -r build"},
			[]string{"pitfall: `rm` fails with \"rm: cannot remove 'build': Is a directory\": add `-r`."}},
		{"an action turned into a look around is no fix", []string{"user: install java", "assistant: ok",
			"fail: pkg install openjdk-17 => Error: Unable to locate package openjdk-17", "bash: pkg search openjdk"}, nil},
		{"how much output was read is no part of a fix", []string{"user: install", "assistant: ok",
			"fail: npm install 2>&1 | tail -1 => npm error A complete log of this run can be found in: /x.log", "bash: npm install 2>&1 | tail -3"}, nil},
		{"skipping install scripts is no fix", []string{"user: install", "assistant: ok",
			"fail: npm install => npm error gyp ERR! build error", "bash: npm install --ignore-scripts"}, nil},
		{"files named one by one are one change", []string{"user: commit", "assistant: ok",
			"fail: git add . => fatal: unable to stat '.npm/_logs/debug-0.log': No such file or directory",
			"bash: git add index.html styles.css script.js backend.py manager.py requirements.txt .gitignore"},
			[]string{"pitfall: `git add` fails with \"fatal: unable to stat '.npm/_logs/debug-0.log': No such file or directory\": use `index.html styles.css script.js backend.py manager.py requirements.txt…` instead of `.`."}},
		{"a command changed beyond a few words is another", []string{"user: fix", "assistant: ok",
			"fail: npm run build -- --mode production --watch => error TS2345", "bash: npm run build:prod -- --quiet --skip-lint --no-cache --emit"}, nil},
		{"a script named for a check is no look around", []string{"user: run", "assistant: ok",
			"fail: python3 test_checkbox.py doc.docx => Traceback (most recent call last):\n  File \"/repo/test_checkbox.py\", line 11, in <module>\n    from docx import Document\nModuleNotFoundError: No module named 'docx'",
			"bash: source .venv/bin/activate && python test_checkbox.py doc.docx"},
			[]string{"pitfall: `python test_checkbox.py` fails with \"ModuleNotFoundError: No module named 'docx'\": use `source .venv/bin/activate && python` instead of `python3`."}},
		{"the machine's text encoding, whatever came next", []string{"user: show it", "assistant: ok",
			"fail: python -c \"from pathlib import Path\nprint(Path('app/page.tsx').read_text())\" => Traceback (most recent call last):\n  File \"<string>\", line 2, in <module>\nUnicodeDecodeError: 'cp932' codec can't decode byte 0x87 in position 838: illegal multibyte sequence",
			"bash: cat app/page.tsx"},
			[]string{"pitfall: Python here reads and prints text as cp932 unless told: pass `encoding='utf-8'` to `open()` and `read_text()`, and set `PYTHONIOENCODING=utf-8` for output."}},
		{"what the program was built without, whatever came next", []string{"user: convert it", "assistant: ok",
			"fail: ffmpeg -i a.mp4 -vcodec libwebp_anim -quality 70 out.webp => Exit code 2\n[vost#0:0 @ 0x99eca4000] Unknown encoder 'libwebp_anim'\n[vost#0:0 @ 0x99eca4000] Error selecting an encoder",
			"bash: img2webp -loop 0 -q 70 frames/*.png -o out.webp"},
			[]string{"pitfall: `ffmpeg` here was built without `libwebp_anim` (\"Unknown encoder 'libwebp_anim'\"): check what this build supports before asking for it, or use another program."}},
		{"an image format without its delegate", []string{"user: convert it", "assistant: ok",
			"fail: convert photo.heic photo.jpg => convert: no decode delegate for this image format `HEIC' @ error/constitute.c/ReadImage/746.",
			"bash: sips -s format jpeg photo.heic --out photo.jpg"},
			[]string{"pitfall: `convert` here was built without `HEIC` (\"no decode delegate for this image format HEIC\"): check what this build supports before asking for it, or use another program."}},
		{"a systemd unit that is not there, even asked of a status", []string{"user: restart the bot", "assistant: ok",
			"fail: systemctl status pi_bot.service => Unit pi_bot.service could not be found.",
			"bash: kill 326830 && nohup python3 /home/jules/scripts/pi_bot.py > /tmp/pi_bot.log 2>&1 &"},
			[]string{"pitfall: There is no systemd unit `pi_bot.service` here (\"Unit pi_bot.service could not be found\"): find how it runs (`ps aux`) before restarting it as a service."}},
		{"a unit the session then makes was only not there yet", []string{"user: set up the tunnel", "assistant: ok",
			"fail: sudo systemctl status cloudflared => Unit cloudflared.service could not be found.",
			"bash: sudo cloudflared service install",
			"bash: cat /etc/systemd/system/cloudflared.service"}, nil},
		{"a UTF-8 codec's error is the data's", []string{"user: show it", "assistant: ok",
			"fail: python -c \"print(open('a.bin').read())\" => UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
			"bash: xxd a.bin"}, nil},
		{"a module missing, and the script rewritten without it", []string{"user: inspect the model", "assistant: ok",
			"fail: python3 -c \"import onnx\nm = onnx.load('models/face.onnx')\nprint(m.graph.input)\" => Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'onnx'",
			"bash: python3 -c \"import onnxruntime as ort\ns = ort.InferenceSession('models/face.onnx')\nprint(s.get_inputs())\""},
			[]string{"pitfall: The Python module `onnx` is not installed here: importing it fails with \"ModuleNotFoundError: No module named 'onnx'\"; the run that passed used `onnxruntime` instead."}},
		{"a module probed for, then other work: nothing took its place", []string{"user: register", "assistant: ok",
			"fail: python -c \"import teaser; print('teaser available')\" => ModuleNotFoundError: No module named 'teaser'",
			"bash: python -c \"import pandas as pd\nprint(pd.read_parquet('roi/quality.parquet').head())\""}, nil},
		{"a module installed meanwhile is another lesson", []string{"user: inspect the model", "assistant: ok",
			"fail: python3 -c \"import onnx\nm = onnx.load('models/face.onnx')\nprint(m.graph.input)\" => ModuleNotFoundError: No module named 'onnx'",
			"bash: pip install onnx",
			"bash: python3 -c \"import onnx\nm = onnx.load('models/face.onnx')\nprint(m.graph.input)\""},
			[]string{"pitfall: Before `python`, run `pip install onnx`: without it, `python` fails with \"ModuleNotFoundError: No module named 'onnx'\"."}},
		{"a substitution the harness escaped, whatever came next", []string{"user: check the certificates", "assistant: ok",
			"fail: docker exec $(docker ps -q --filter name=traefik | head -1) ls /etc/traefik => /bin/bash: eval: line 1: syntax error near unexpected token `('\n/bin/bash: eval: line 1: `docker exec \\$ ( docker ps -q --filter name\\=traefik < /dev/null | head -1 ) ls /etc/traefik'",
			"bash: docker ps -q --filter name=traefik"},
			[]string{"pitfall: The agent's shell here escapes `$(…)` before bash reads it (`\\$ (`: \"syntax error near unexpected token\"): run the inner command first and use its output as it is, or put the command in a script file."}},
		{"a substitution the agent wrote wrong is its own slip", []string{"user: check", "assistant: ok",
			"fail: echo $(ls (x) => /bin/bash: -c: line 1: syntax error near unexpected token `x'", "bash: ls x"}, nil},
		{"nothing staged for a commit is git's report, not an error", []string{"user: commit", "assistant: ok",
			"fail: git add vercel.json && git commit -m x => On branch master\nChanges not staged for commit:\n\tmodified:   ../vercel.json\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")",
			"bash: git add ../vercel.json && git commit -m x"}, nil},
		{"a heredoc PowerShell could not parse, whatever came next", []string{"user: check", "assistant: ok",
			"fail: python - <<'PY'\nprint('hi')\nPY => Exit code: 1\nOutput:\n\x1b[31;1mParserError: \x1b[0m\n\x1b[31;1mLine |\x1b[0m\n   1 |  python - <<'PY'\n     |           ~\n     | Missing file specification after redirection operator.",
			"bash: python -c \"print('hi')\""},
			[]string{"pitfall: The agent's shell here is PowerShell, where a bash heredoc (`<<'EOF'`) does not parse: pass a script with `python -c` or a PowerShell here-string (`@'…'@`), and make edits with the edit tool."}},
		{"PowerShell 5 names the error in English in every language", []string{"user: patch it", "assistant: ok",
			"fail: powershell.exe -NoProfile -Command ApplyPatch << 'PATCH'\n*** Begin Patch\n*** End Patch\nPATCH => In Zeile:1 Zeichen:13\n+ ApplyPatch << 'PATCH'\n+             ~\nDateispezifikation nach dem Umleitungsoperator fehlt.\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n    + FullyQualifiedErrorId : MissingFileSpecification",
			"edit: backend/src/config/settings.py"},
			[]string{"pitfall: The agent's shell here is PowerShell, where a bash heredoc (`<<'EOF'`) does not parse: pass a script with `python -c` or a PowerShell here-string (`@'…'@`), and make edits with the edit tool."}},
		{"a heredoc that ran and failed on its own is not the shell's", []string{"user: check", "assistant: ok",
			"fail: python - <<'PY'\nimport yaml\nPY => ModuleNotFoundError: No module named 'yaml'", "bash: ls"}, nil},
		{"a certificate not verified, never fixed: ask the person", []string{"user: look at the pr", "assistant: ok",
			"fail: gh pr view 1972 => Post \"https://api.github.com/graphql\": tls: failed to verify certificate: x509: OSStatus -26276", "bash: ls"},
			[]string{"pitfall: `gh` cannot verify the server's TLS certificate from the agent's shell here: ask the person to run it, and do not turn the check off."}},
		{"a script in quotes the shell could not read, fed through a heredoc", []string{"user: check the zones", "assistant: ok",
			"fail: node -e \"const tz='Australia/Sydney';console.log(new Intl.DateTimeFormat('ja-JP',{timeZone:tz}).format(new Date(\\\"x\\\")))\" => bash: -c: line 1: unexpected EOF while looking for matching `\"'",
			"bash: node <<'NODE'\nconst tz='Australia/Sydney';\nconsole.log(tz)\nNODE"},
			[]string{"pitfall: `node -e` with a long script in quotes broke the shell's quoting: pass the script through a quoted heredoc (`node <<'EOF'`)."}},
		{"a quote the agent left open in a pattern is its own slip", []string{"user: find it", "assistant: ok",
			"fail: rg -n \"add_parser\\(\\\"gcode => bash: -c: line 1: unexpected EOF while looking for matching `\"'",
			"bash: rg -n add_parser opk/cli/__main__.py"}, nil},
		{"a program not found, in the shell's own language", []string{"user: look at the sizes", "assistant: ok",
			"fail: tree -L 2 -h --du => /bin/bash: 行 1: tree: 未找到命令", "bash: du -sh *"},
			[]string{"pitfall: `tree` is not available here: `tree -L 2 -h --du` fails with \"/bin/bash: 行 1: tree: 未找到命令\"."}},
		{"PowerShell's not recognized, in French", []string{"user: search", "assistant: ok",
			"fail: grep -rn TODO src => grep : Le terme «grep» n'est pas reconnu comme nom d'applet de commande, fonction, fichier de script ou programme exécutable.", "bash: Select-String -Path src\\*.ts -Pattern TODO"},
			[]string{"pitfall: `grep` is not available here: `grep -rn TODO src` fails with \"grep : Le terme «grep» n'est pas reconnu comme nom d'applet de commande, fonction, fichier de…\"."}},
		{"a chain Windows PowerShell 5 refused is the shell's lesson, whatever it ran", []string{"user: build", "assistant: ok",
			"fail: cd frontend && npm run build => At line:1 char:13\n+ cd frontend && npm run build\n+             ~~\nDas Token \"&&\" ist in dieser Version kein gültiges Anweisungstrennzeichen.\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n    + FullyQualifiedErrorId : InvalidEndOfLine",
			"bash: cd frontend; npm run build"},
			[]string{"pitfall: The agent's shell here is Windows PowerShell 5, where `&&` does not chain commands: use `;`, or `if ($?) { … }` to run the next only when the first passed."}},
		{"Claude Code's tool protocol is no failure", []string{"user: edit", "assistant: ok",
			"failedit: /repo/a.go => <tool_use_error>String to replace not found in file.</tool_use_error>", "read: /repo/a.go", "edit: /repo/a.go"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range Session(session("s", tt.script...), Options{}).Observations {
				if o.Extractor == ExtractorFailureFix {
					got = append(got, o.Type+": "+o.Pattern)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestErrorLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"npm warn old lockfile\nnpm error code EUSAGE", "npm error code EUSAGE"},
		{"[INFO] Scanning\n[WARNING] profile\n[ERROR] Tests run: 12, Failures: 1", "[ERROR] Tests run: 12, Failures: 1"},
		{"time=\"x\" level=warning msg=\"unset\"\nError response from daemon: port is already allocated", "Error response from daemon: port is already allocated"},
		{"WARN ty is pre-release software\n\nerror[call-non-callable]: Object", "error[call-non-callable]: Object"},
		{"#1 [internal] load build definition\n#7 ERROR: failed to calculate checksum", "#7 ERROR: failed to calculate checksum"},
		{"Exit code 1\nsomething odd happened", "something odd happened"},
		// Codex's script runner wraps the command's own output in its report.
		{"Script failed\nWall time 0.2 seconds\nOutput:\n\nScript error:\nExit code: 1\nWall time: 0.2 seconds\nOutput:\ncurl: (3) unmatched close brace", "curl: (3) unmatched close brace"},
		// Colour codes a terminal would have drawn: a logger's level, PowerShell's error.
		{"\x1b[90m12:12PM\x1b[0m \x1b[33mWRN\x1b[0m \x1b[1mInvalid .gitleaksignore entry\x1b[0m", "12:12PM WRN Invalid .gitleaksignore entry"},
		{"\x1b[31;1mGet-Content: \x1b[31;1mThe term 'dashboard' is not recognized\x1b[0m", "Get-Content: The term 'dashboard' is not recognized"},
		{"\x1b]8;;http://x\x07link\x1b]8;;\x07 failed", "link failed"},
		// pytest: the line it marks E, not its headings or the test's source.
		{"==================================== ERRORS ====================================\n_______________ ERROR collecting tests/test_bundle.py ________________\nImportError while importing test module '/repo/tests/test_bundle.py'.\nTraceback:\ntests/test_bundle.py:2: in <module>\n    from opk.core.bundle import build_bundle\nE   ModuleNotFoundError: No module named 'opk'\n=========================== short test summary info ============================", "ModuleNotFoundError: No module named 'opk'"},
		{"============================= FAILURES =============================\n____________________________ test_add ____________________________\n    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4", "assert 3 == 4"},
		// A heading between rules announces the error below it.
		{"----- Captured stderr -----\nfatal: bad revision 'HEAD~3'", "fatal: bad revision 'HEAD~3'"},
		// An E-line outside pytest's output is no mark.
		{"E   this line\nerror: the real one", "error: the real one"},
	} {
		if got := errorLine(c.in); got != c.want {
			t.Errorf("errorLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// commandKey names what a command does, without its arguments: "git
// push", "go test", "npm run build", "pytest", "ssh opkg remove".
func commandKey(cmd string) string { return parseStep(cmd, "").key }

func TestCommandKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"git push --set-upstream origin x", "git push"},
		{"cd /repo && GOTOOLCHAIN=go1.24.0 go vet ./...", "go vet"},
		{"uv run pytest -q", "pytest"},
		{"npm run build -- --watch", "npm run build"},
		{"npx prettier --write src/App.tsx", "prettier"},
		{"make test", "make test"},
		{"black src/", "black"},
		{"./gradlew test", "gradlew test"},
		{"ssh root@10.0.0.1 \"opkg remove gl-sdk4\"", "ssh opkg remove"},
		{"powershell.exe -NoProfile -Command \"Get-Service -Name x\"", "get-service"},
		{"cmd //c ipconfig /all", "ipconfig"},
		{"uv run --with ruff ruff check .", "ruff"},
		{"python3.11 -m pytest", "python -m pytest"},
		{"python scripts/build.py --fast", "python build.py"},
		{"$x = Get-Content a.txt", ""},
		{"params = @{ name = 'ue_read'", ""},
		{"arguments = $arguments } }", ""},
		{"kubectl exec -n t pod-0 -c app -- ls /opt", "kubectl exec ls"},
		{"gh auth setup-git", "gh auth setup-git"},
		{`git -c user.name="E Z" -c user.email=e@x commit -m "x"`, "git commit"},
		{"make -C build test", "make test"},
		{"git status | grep x", "git status"},
		{"curl -s localhost | jq .x", "curl"},
		// A subcommand is the step, not followed by its own word again as a script.
		{"pip install UnityPy", "pip install"},
		{"bun run build", "bun run build"},
		{"deno run main.ts", "deno run main.ts"},
		{"bun scripts/seed.ts", "bun seed.ts"},
	} {
		if got := commandKey(c.in); got != c.want {
			t.Errorf("commandKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A routine asked for over other items each time ("implement T009 to
// T013", then T014 to T020) is one request: the items' ids are instances.
func TestRepeatedRequestOverOtherItems(t *testing.T) {
	var results []Result
	for i, ids := range []string{"T009 hasta T013", "T014 hasta T020", "T021 hasta T025"} {
		ch := session(fmt.Sprint("s", i), "user: implementa de la "+ids, "assistant: ok", "edit: /repo/src/a.ts", "user: implementa de la T0"+fmt.Sprint(40+i)+" hasta T050", "edit: /repo/src/b.ts")
		results = append(results, Session(ch, Options{}))
	}
	obs := Across(results, Options{})
	if len(obs) != 3 || obs[0].Pattern != "Implementa de la <id> hasta <id>." || obs[0].ID != obs[2].ID {
		t.Fatalf("want one workflow sighted once in each of the three sessions, got %+v", obs)
	}
}

func TestRepeatedRequests(t *testing.T) {
	s1 := session("s1", "user: please run the linter and fix the warnings", "assistant: ok", "bash: golangci-lint run ./...", "edit: /repo/a.go", "user: continue", "bash: go test ./...")
	s2 := session("s2", "user: Run the linter and fix the warnings!", "assistant: ok", "bash: golangci-lint run", "user: continue", "bash: go test ./...")
	s3 := session("s3", "user: can you run the linter and fix the warnings", "bash: golangci-lint run", "user: continue", "bash: go vet")
	s4 := session("s4", "user: add a readme section", "edit: /repo/README.md", "user: add a readme section", "edit: /repo/README.md")
	s5 := session("s5", "user: run the linter and fix the warnings", "assistant: Which linter?") // nothing done
	var results []Result
	for _, ch := range []*transcript.Channels{s1, s2, s3, s4, s5} {
		results = append(results, Session(ch, Options{}))
	}
	obs := Across(results, Options{})
	if len(obs) != 3 {
		t.Fatalf("want one workflow per session for the linter request, nothing for 'continue', a request repeated in one session, or one nothing was done for: %+v", obs)
	}
	for i, o := range obs {
		if o.Type != Workflow || o.Pattern != "Run the linter and fix the warnings." || o.SessionID != fmt.Sprint("s", i+1) || o.Extractor != ExtractorRepeatedRequest || o.ID != obs[0].ID {
			t.Errorf("%+v", o)
		}
	}
	if obs[0].Details != "request: run the linter and fix the warnings; sessions: 3; steps: Bash: golangci-lint run ./..., Edit a.go" || !obs[0].QualityOK {
		t.Errorf("details %q quality %v", obs[0].Details, obs[0].QualityOK)
	}
	if got := RepeatedRequests(results[0].Requests, Options{MinSessions: 1}); len(got) != 1 {
		t.Errorf("MinSessions 1: %+v", got)
	}
}

// A survey the person asks for at the start of every session changes
// nothing, and is a routine all the same; in Korean, its wordings differ by
// their endings.
func TestRepeatedSurvey(t *testing.T) {
	s1 := session("k1", "user: 클로드야 현재 파일 구조 파악 좀 해볼래?", "assistant: 네", "bash: ls -la /srv/site", "read: /srv/site/README.md")
	s2 := session("k2", "user: 클로드야 전체 파일 구조 파악해볼래?", "assistant: 네", "task: explore the site")
	s3 := session("k3", "user: 이 함수는 뭐야?", "assistant: 설명") // asked, nothing looked at
	var results []Result
	for _, ch := range []*transcript.Channels{s1, s2, s3} {
		results = append(results, Session(ch, Options{}))
	}
	obs := Across(results, Options{})
	if len(obs) != 2 || obs[0].ID != obs[1].ID || obs[0].Type != Workflow {
		t.Fatalf("want one workflow sighted in k1 and k2: %+v", obs)
	}
	if !strings.Contains(obs[0].Details, "steps: Bash: ls -la /srv/site, Read ") {
		t.Errorf("details %q", obs[0].Details)
	}
}

// One routine worded five ways over five sessions is one workflow: a
// wording the same as any wording of a group joins it, and one the same as
// wordings of two groups joins them ("파악 좀 해" is both "파악 좀 해볼래"
// and "파악해봐" said again, which are not alike enough to each other).
func TestRepeatedWordingsJoin(t *testing.T) {
	var results []Result
	for i, said := range []string{"현재 파일 구조 파악 좀 해볼래", "전체 파일 구조 파악해볼래", "현재 파일들 구조 파악해봐", "현재 파일 구조 파악해봐", "현재 파일 구조 파악 좀 해"} {
		ch := session(fmt.Sprint("k", i), "user: 클로드야 "+said+"?", "assistant: 네", "bash: ls -la /srv/site")
		results = append(results, Session(ch, Options{}))
	}
	ids := map[string][]string{}
	var pattern string
	for _, o := range Across(results, Options{}) {
		ids[o.ID] = append(ids[o.ID], o.SessionID)
		pattern = o.Pattern
	}
	if len(ids) != 1 {
		t.Fatalf("want one workflow, got %v", ids)
	}
	for _, ss := range ids {
		if !slices.Equal(ss, []string{"k0", "k1", "k2", "k3", "k4"}) {
			t.Errorf("sighted in %v, want k0 to k4", ss)
		}
	}
	if pattern != "현재 파일 구조 파악 좀 해볼래." {
		t.Errorf("pattern %q, want the first wording", pattern)
	}
}

// A routine asked for again with praise before it, and once with a thing
// named that the other leaves out, is one routine; two requests naming
// different things are two.
func TestRepeatedWithPraiseAndAnInstance(t *testing.T) {
	var results []Result
	for i, said := range []string{
		"yes, please continue unsupervised until either tcc is self hosting on darwin8 or until I stop you. document everything. cut releases as appropriate.",
		"great work. please continue unsupervised until I stop you. document everything, cut releases as appropriate.",
	} {
		ch := session(fmt.Sprint("u", i), "user: build it", "assistant: Built.", "user: "+said, "assistant: Continuing.", "bash: make release")
		results = append(results, Session(ch, Options{}))
	}
	ids := map[string]int{}
	for _, o := range Across(results, Options{}) {
		ids[o.ID]++
	}
	if len(ids) != 1 {
		t.Errorf("want one routine seen twice, got %v", ids)
	}
	results = results[:0]
	for i, said := range []string{"run the migrations in `api/` and restart the server", "run the migrations in `web/` and restart the server"} {
		results = append(results, Session(session(fmt.Sprint("v", i), "user: go", "assistant: ok", "user: "+said, "assistant: Done.", "bash: make migrate"), Options{}))
	}
	if got := Across(results, Options{}); len(got) != 0 {
		t.Errorf("two things named: want no routine, got %d observations", len(got))
	}
}

// An instruction given again and again in one session is a routine known
// from that session on, the same observation a later session's repeat is
// sighted as; twice, or an answer however often, is none.
func TestRoutineInOneSession(t *testing.T) {
	ch := session("j1", "user: この状態でgitに保存して", "bash: git add -A && git commit -m a", "assistant: 保存しました",
		"user: 時刻を大きくして", "edit: /repo/app.js", "assistant: 変更しました",
		"user: ここでgitに保存して", "bash: git add -A && git commit -m b", "assistant: 保存しました",
		"user: yes please", "edit: /repo/app.js",
		"user: gitに保存して", "bash: git add -A && git commit -m c",
		"user: yes please", "edit: /repo/app.js",
		"user: yes please", "edit: /repo/app.js")
	var routines []Observation
	for _, o := range Session(ch, Options{}).Observations {
		if o.Type == Workflow {
			routines = append(routines, o)
		}
	}
	if len(routines) != 1 {
		t.Fatalf("want one routine (the save to git, asked three times), got %+v", routines)
	}
	r := routines[0]
	if r.Pattern != "この状態でgitに保存して。" || !strings.Contains(r.Details, "times in the session: 3") || r.Extractor != ExtractorRepeatedRequest || r.Class != ClassRepeated {
		t.Errorf("%+v", r)
	}
	later := Session(session("j2", "user: この状態でgitに保存して", "bash: git add -A && git commit -m d"), Options{})
	across := Across([]Result{Session(ch, Options{}), later}, Options{})
	if len(across) != 2 || across[0].Pattern != r.Pattern || across[0].RecordUUID != r.RecordUUID || across[1].Pattern != r.Pattern {
		t.Errorf("a later session's repeat should be sighted as the same observation, from the same record: %+v", across)
	}
	twice := session("j3", "user: gitに保存して", "bash: git commit -am a", "user: gitに保存して", "bash: git commit -am b")
	for _, o := range Session(twice, Options{}).Observations {
		if o.Type == Workflow {
			t.Errorf("asked twice is no routine yet: %+v", o)
		}
	}
	// Work going on is no routine: each time a different change.
	goingOn := session("e1", "user: continue with the next task", "edit: /repo/a.go", "bash: go test ./a",
		"user: continue with the next task", "edit: /repo/b.go", "bash: npm run lint",
		"user: continue with the next task", "edit: /repo/c.go")
	for _, o := range Session(goingOn, Options{}).Observations {
		if o.Type == Workflow {
			t.Errorf("a different change each time is no routine: %+v", o)
		}
	}
}

func TestRequest(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Hey Claude, can you please push to github? Thanks", "push to github"},
		{"bump the version to 1.2.3", "bump the version to 1.2.3"},
		{"push to M-Claude", "push to M-Claude"}, // a name, not the agent called
		{"OK so now let's deploy to staging", "deploy to staging"},
		{"Genera los tipos de la API con openapi-typescript, por favor", "Genera los tipos de la API con openapi-typescript"},
		{"continue", ""},
		{"yes please", ""},
		{"好的，继续", ""},
		{"可以，开始实施。", ""}, // approving a proposal is an answer
		{"改一下吧", ""},
		{"実施して。", ""},
		{"README的版本号帮我改一下", "README的版本号帮我改一下"},
		{"把README的版本号改一下吧", "把README的版本号改一下吧"}, // ending a request, an approval's words are its verb
		{"按照方案二开始实施", "按照方案二开始实施"},
		{"READMEを直してやって", "READMEを直してやって"},
		{"2 + 2", ""},
		{"Brandon", ""},
		{strings.Repeat("word ", 61), ""},
		{"Read claude.md, the docs and the grand plan.\nThen summarise where we are.", "Read claude.md, the docs and the grand plan. Then summarise where we are"},
		// How things stand, with or without what was pasted after it.
		{"it fails now:", ""},
		{"still not working", ""},
		{"same error, have a look", ""},
	} {
		if got := request(c.in); got != c.want {
			t.Errorf("request(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseKnowledgeBlocks(t *testing.T) {
	text := "Done.\n\n[PROCESS_KNOWLEDGE]\nkey: version-bump-checklist\nsummary: Bumping a version means four files, not one\nkind: checklist\npriority: CRITICAL\ntriggers:\n  tools: [Write, Edit]\n  files: [\"**/plugin.json\", \"**/*version*\"]\n  actions: [version bump]\nbody: |\n  - [ ] pyproject.toml\n  - [ ] plugin.json\n[/PROCESS_KNOWLEDGE]\n\n" +
		"Mentioning [PROCESS_KNOWLEDGE] in prose is not a block.\n\n" +
		"  [PROCESS_KNOWLEDGE]\n```yaml\nkey: fenced\nsummary: a fenced block\n```\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\n- just\n- a list\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\nkey: [unclosed\n[/PROCESS_KNOWLEDGE]\n" +
		"[PROCESS_KNOWLEDGE]\nkey: never-closed\n"
	blocks, errs := ParseKnowledgeBlocks(text, Options{})
	if len(blocks) != 2 {
		t.Fatalf("blocks %+v", blocks)
	}
	e := blocks[0].Entry
	if e["key"] != "version-bump-checklist" || e["priority"] != "CRITICAL" || e["body"] != "- [ ] pyproject.toml\n- [ ] plugin.json" {
		t.Errorf("entry %+v", e)
	}
	trig := e["triggers"].(map[string]any)
	if !reflect.DeepEqual(trig["files"], []any{"**/plugin.json", "**/*version*"}) || !reflect.DeepEqual(trig["tools"], []any{"Write", "Edit"}) {
		t.Errorf("triggers not as written: %+v", trig)
	}
	if !strings.HasPrefix(blocks[0].Raw, "[PROCESS_KNOWLEDGE]\nkey: version-bump-checklist") || !strings.HasSuffix(blocks[0].Raw, "[/PROCESS_KNOWLEDGE]") {
		t.Errorf("raw %q", blocks[0].Raw)
	}
	if blocks[1].Entry["key"] != "fenced" {
		t.Errorf("fenced block %+v", blocks[1])
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	want := []string{
		"knowledge block at line 25: not a YAML mapping",
		"knowledge block at line 29: not a YAML mapping",
		"knowledge block at line 32: no [/PROCESS_KNOWLEDGE]",
	}
	if len(msgs) != len(want) {
		t.Fatalf("errors %q", msgs)
	}
	for i := range want {
		if !strings.HasPrefix(msgs[i], want[i]) {
			t.Errorf("error %q, want prefix %q", msgs[i], want[i])
		}
	}
	same := KnowledgeBlock{Raw: strings.ReplaceAll(blocks[0].Raw, "\n", "  \r\n")}
	if same.Hash() != blocks[0].Hash() || (KnowledgeBlock{Raw: blocks[1].Raw}).Hash() == blocks[0].Hash() {
		t.Error("Hash must ignore line endings and trailing spaces, and only them")
	}
}

func TestKnowledgeCandidatesOnce(t *testing.T) {
	block := "[PROCESS_KNOWLEDGE]\nkey: k\nsummary: s\n[/PROCESS_KNOWLEDGE]"
	ch := session("s1", "user: please record this:\n"+block, "assistant: Recorded.\n"+block, "user: thanks")
	cands, errs := KnowledgeCandidates(ch, Options{})
	if len(errs) != 0 || len(cands) != 1 || cands[0].RecordUUID != "s1-r1" || cands[0].Extractor != ExtractorKnowledgeBlock || cands[0].Hash == "" {
		t.Fatalf("%+v %v", cands, errs)
	}
}

// TestRealTranscripts runs every extractor over the real transcripts: no
// failure, and every observation well formed.
func TestRealTranscripts(t *testing.T) {
	files, err := filepath.Glob("../../testdata/transcripts/*/*.jsonl")
	if err != nil || len(files) != 21 {
		t.Fatalf("%d transcripts, %v", len(files), err)
	}
	var results []Result
	for _, f := range files {
		ch, err := transcript.ReadFiles([]string{f}, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := Session(ch, Options{})
		results = append(results, r)
		for _, o := range r.Observations {
			checkObservation(t, o)
		}
	}
	for _, o := range Across(append(results, results...), Options{}) {
		checkObservation(t, o)
	}
}

func checkObservation(t *testing.T, o Observation) {
	t.Helper()
	if !slices.Contains([]string{Workflow, Procedural, Decision, Pitfall}, o.Type) || o.Pattern == "" || o.SessionID == "" || o.RecordUUID == "" || o.Extractor == "" || o.Class == "" {
		t.Errorf("incomplete observation %+v", o)
	}
	keys := map[string][]string{
		Pitfall:    {"area", "issue", "impact", "resolution"},
		Decision:   {"context", "decision", "rationale"},
		Procedural: {"trigger", "steps", "source"},
		Workflow:   {"request", "sessions", "steps"},
	}[o.Type]
	// After its own keys, in order, a pitfall may say what the failing
	// call printed, the runtime it ran on and the fix the person's run
	// needed (docs/capture.md), each once.
	extra := map[string]bool{"output": o.Type == Pitfall, "runtime": o.Type == Pitfall, "fix": o.Type == Pitfall}
	for i, part := range strings.Split(o.Details, "; ") {
		k, _, ok := strings.Cut(part, ": ")
		if ok && i >= len(keys) && extra[k] {
			extra[k] = false
			continue
		}
		if !ok || i >= len(keys) || k != keys[i] {
			t.Errorf("details %q do not follow the %s convention (%s)", o.Details, o.Type, strings.Join(keys, ", "))
			break
		}
	}
	if len(o.Evidence) == 0 || len(o.Evidence) > observe.MaxEvidence {
		t.Errorf("%d evidence quotes", len(o.Evidence))
	}
}

// What the person remembers is no request to remember: "I remember seeing
// this before" taught nothing; a request after such a clause still is one.
func TestRecalledIsNoRequest(t *testing.T) {
	checkSaid(t, nil, "Ok.", []said{
		{"i remember seeing this before", nil},
		{"I don't remember which flag it was", nil},
		{"我记得上次也是这个错误", nil},
		{"前にやったのを覚えてる", nil},
		{"I don't know why it fails, but remember to run the linter before you commit", []string{"procedural: Run the linter before you commit."}},
		{"remember under the hood slices are just pointers", []string{"procedural: Under the hood slices are just pointers."}},
	})
}

// A standing choice is whole in two words ("em portugues", "use pnpm"):
// its quality holds, so it is served before it is ready, where a
// two-word rule ("never squash") is too short to act on.
func TestStandingChoiceOfTwoWordsIsConfirmed(t *testing.T) {
	for _, c := range []struct {
		said string
		ok   bool
	}{
		{"em portugues", true},
		{"auf Deutsch bitte", true},
		{"never squash", false},
	} {
		obs := Session(session("s", "user: fix the login", "assistant: Fixed it.", "user: "+c.said, "assistant: Ok."), Options{}).Observations
		if len(obs) == 0 {
			t.Errorf("%q: nothing kept", c.said)
			continue
		}
		if obs[0].QualityOK != c.ok {
			t.Errorf("%q: quality %v, want %v", c.said, obs[0].QualityOK, c.ok)
		}
	}
}

// Japanese writes with Chinese characters: a Chinese phrase ("注意", pay
// attention) is not read in it ("注意すべき点", points to watch), while
// Japanese's own words are ("不要", not wanted). A request whose verb ends
// the sentence keeps it: cut out, the lesson would end on its particle.
func TestJapaneseIsNotReadAsChinese(t *testing.T) {
	checkSaid(t, []string{"user: 画面を直して", "assistant: 修正しました。"}, "はい。", []said{
		{"見落としがちな点、注意すべき点も指摘してください。", nil},
		{"フォールバックは不要。", []string{"procedural: フォールバックは不要。"}},
		{"デプロイの手順はdocs/deploy.mdに記録してください", []string{"procedural: デプロイの手順はdocs/deploy.mdに記録してください。"}},
		{"以后注意不要直接修改生成的文件", []string{"procedural: 注意不要直接修改生成的文件。"}},
	})
}

// A Chinese rule word is not read inside a longer word: "要不要" asks
// whether to, "主要是" (mainly) holds no "要是" (if).
func TestChineseWordsStayWhole(t *testing.T) {
	checkSaid(t, []string{"user: 修一下页面", "assistant: 已修复。"}, "好的。", []said{
		{"要不要加个测试", nil},
		{"主要是数据库的问题，必须先备份。", []string{"procedural: 主要是数据库的问题，必须先备份。"}},
		{"主要不要改数据库结构。", []string{"procedural: 主要不要改数据库结构。"}},
	})
}

// A word of the Japanese table guards the edge it names: "かな" (a doubt)
// does not end inside "書かない", and "ないで" (don't) starts inside it;
// a doubt is not the end of a katakana compound ("エラーログ").
func TestJapaneseRuleAfterAVerbInKa(t *testing.T) {
	checkAfterPlan(t, []said{
		{"エラーログは必ず確認して。", []string{"procedural: エラーログは必ず確認して。"}},
		{"ビルドエラーは必ず直してからコミットして。", []string{"procedural: ビルドエラーは必ず直してからコミットして。"}},
		{"本番のAPIを叩かないでください。", []string{"procedural: 本番のAPIを叩かないでください。"}},
		{"ドキュメントにはパスワードを書かないで。", []string{"procedural: ドキュメントにはパスワードを書かないで。"}},
		{"コードにAPIキーを書かないようにしてください。", []string{"procedural: コードにAPIキーを書かないようにしてください。"}},
		{"時間は書かないとダメだよ。", []string{"procedural: 時間は書かないとダメだよ。"}},
	})
}

// An answer word that ends a lesson is one of its words, unless
// punctuation sets it apart or it only thanks.
func TestClosingAnswerStandsApart(t *testing.T) {
	checkAfterPlan(t, []said{
		{"Always run the tests before you mark the task as done.", []string{"procedural: Always run the tests before you mark the task as done."}},
		{"Never push to main, ok.", []string{"procedural: Never push to main."}},
		{"Always check the health endpoint returns ok.", []string{"procedural: Always check the health endpoint returns ok."}},
		{"以后都用 pnpm ok", []string{"procedural: 都用 pnpm。"}},
		{"앞으로는 pnpm 써 ok", []string{"procedural: pnpm 써."}},
		{"今後はpnpmを使ってok", []string{"procedural: pnpmを使って。"}},
		{"Never push to main thanks", []string{"procedural: Never push to main."}},
		{"Siempre escribe los tests bien.", []string{"procedural: Siempre escribe los tests bien."}},
		{"Nunca hagas push a main gracias", []string{"procedural: Nunca hagas push a main."}},
		{"Всегда пиши тесты хорошо.", []string{"procedural: Всегда пиши тесты хорошо."}},
		{"Никогда не пушь в main, спасибо.", []string{"procedural: Никогда не пушь в main."}},
	})
}

// Korean spaces its words but ends on its verb: a request to keep that
// ends the sentence is its verb, kept, not taken out ("마이그레이션을."
// would end on its particle).
func TestKoreanRequestKeepsItsVerb(t *testing.T) {
	checkSaid(t, []string{"user: 화면을 고쳐줘", "assistant: 고쳤습니다."}, "네.", []said{
		{"마이그레이션을 잊지 마세요.", []string{"procedural: 마이그레이션을 잊지 마세요."}},
		{"커밋하기 전에 테스트 실행하는 거 잊지 마.", []string{"procedural: 커밋하기 전에 테스트 실행하는 거 잊지 마."}},
		{"배포 전에 백업하는 건 잊지 마.", []string{"procedural: 배포 전에 백업하는 건 잊지 마."}},
		{"デプロイ前にバックアップを 忘れないでください", []string{"procedural: デプロイ前にバックアップを 忘れないでください。"}},
	})
}

// The ways of working people state plainly, in each table's language: a
// preference ("I'd rather"), a step before the work is handed back,
// Russian's "не" with any verb in the imperative, Japanese "…ないように
// して" (see that it does not).
func TestPlainWaysOfWorking(t *testing.T) {
	for _, said := range []string{
		"I'd rather we keep tabs here.", "Run the linter before you hand it back.", "Run the tests before you tell me it's done.",
		"Mir wäre lieber, wir bleiben hier bei Tabs.", "Lass den Linter laufen, bevor du es zurückgibst.",
		"Prefiero que usemos tabs aquí.", "Pasa el linter antes de devolvérmelo.",
		"Je préfère qu'on garde les tabulations ici.", "Lance le linter avant de me le rendre.",
		"Prefiro que a gente mantenha tabs aqui.", "Rode o linter antes de me devolver.",
		"Я бы предпочёл оставить здесь табы.", "Прогони линтер, прежде чем отдавать мне.",
		"Θα προτιμούσα να κρατήσουμε tabs εδώ.", "Τρέξε τον linter πριν μου το δώσεις πίσω.",
		"ここはタブのままにしてほしい。", "私に返す前にリンターを走らせて。",
		"这里我更希望保留 tab。", "交给我之前先跑一下 linter。",
		"여기서는 탭을 유지하는 게 좋겠어.", "돌려주기 전에 린터 돌려.",
		"Не поднимай версии вручную.", "Не форматируйте код сами.",
		"console.logは残さないようにして。",
	} {
		if got := afterPlan(said); len(got) != 1 || !strings.HasSuffix(got[0], ": "+said) {
			t.Errorf("%q: %q", said, got)
		}
	}
	// A noun taken for a verb, and what happens before something else is
	// done, are no ways of working.
	noLesson(t, "no way of working", "Это не случай для рефакторинга.", "Это не сарай, а проект.", "Это не обычай команды.", "给我之前的版本。", "関数が値を返す前にログを出力している。",
		"引数を渡す前にnullチェックが走る。", "It crashed before declaring the type.")
}

// A hyphen that ends a word is the word's: a name ("caigudong-") keeps it,
// where a dash after a space only set the end apart.
func TestNameEndingInAHyphen(t *testing.T) {
	for said, want := range map[string]string{
		"仓库叫886caigudong/caigudong-":     "procedural: 仓库叫886caigudong/caigudong-。",
		"the repo is called acme-tools-": "procedural: The repo is called acme-tools-.",
		"the repo is called acme/web -":  "procedural: The repo is called acme/web.",
	} {
		if got := afterPlan(said); !slices.Equal(got, []string{want}) {
			t.Errorf("%q: %q, want %q", said, got, want)
		}
	}
}

// One place named the source of truth, for good, is a standing rule in
// every table's language; asked about, denied or past, it is none.
func TestSingleSourceOfTruth(t *testing.T) {
	oneLesson(t,
		"make models.yaml the single source of truth",
		"config/models.yaml ist die Single Source of Truth für alle Modelle",
		"models.yaml es la única fuente de verdad",
		"models.yaml est la source unique de vérité",
		"models.yaml é a única fonte de verdade",
		"models.yaml — единственный источник истины",
		"το models.yaml είναι η μοναδική πηγή αλήθειας",
		"models.yaml を信頼できる唯一の情報源にして",
		"把models.yaml作为唯一真实源头",
		"models.yaml가 단일 진실 공급원이야")
	noLesson(t, "no rule", "is models.yaml the single source of truth?", "where is the single source of truth",
		"models.yaml used to be the single source of truth", "there is no single source of truth right now, which is the bug",
		"この問題に唯一の正解はない。")
}

// A question asked without its mark, by its first words, holds no rule
// however it names one; a rule that only mentions such words is one.
func TestQuestionWithoutItsMark(t *testing.T) {
	noLesson(t, "a question", "where is the build always run", "is there a reason we always use pnpm",
		"why do we always rebuild", "does it always fail like this")
	for _, said := range []string{"Where possible, always use pnpm.", "Always check what is in the cache."} {
		if got := afterPlan(said); len(got) != 1 || !strings.HasSuffix(got[0], ": "+said) {
			t.Errorf("%q: %q", said, got)
		}
	}
}

// Japanese "ではなく" (instead of) is a choice; "ではなくなった" (it is no
// longer so) reports what changed.
func TestJapaneseNoLongerIsNoChoice(t *testing.T) {
	noLesson(t, "a report", "値が N/A ではなくなったが、0% だ。", "エラーじゃなくなったけど、まだ表示されない。")
	oneLesson(t, "ドキュメントではなく、ソースコードを見て", "手動ではなくなるべくスクリプトを使って")
}

// Standing choices people state plainly, with no rule word, the first
// message included: the language to work in, the tool for a job, where
// something is. A mention in passing, a question, a translation, a choice
// for now only are none.
func TestStandingChoices(t *testing.T) {
	checkSaid(t, nil, "Ok.", []said{
		{"schreibe alles auf deutsch", []string{"procedural: Schreibe alles auf deutsch."}},
		{"Fale comigo em Português do Brasil", []string{"procedural: Fale comigo em Português do Brasil."}},
		{"answer in French from now on", []string{"procedural: Answer in French."}},
		{"请用中文回答", []string{"procedural: 用中文回答。"}},
		{"日本語で説明してください", []string{"procedural: 日本語で説明してください。"}},
		{"escribe los comentarios en inglés", []string{"procedural: Escribe los comentarios en inglés."}},
		{"отвечай только на русском", []string{"procedural: Отвечай только на русском."}},
		{"모든 설명은 한국어로 해줘", []string{"procedural: 모든 설명은 한국어로 해."}},
		{"パッケージ管理はuvを利用してください", []string{"decision: パッケージ管理はuvを利用してください。"}},
		{"use `pnpm` for everything here", []string{"decision: Use `pnpm` for everything here."}},
		{"usa nuqs en todo el proyecto", []string{"decision: Usa nuqs en todo el proyecto."}},
		{"die genaue beschreibung findest du in der Datei docs/Lastenheft_v.2.txt", []string{"pitfall: Die genaue beschreibung findest du in der Datei docs/Lastenheft_v.2.txt."}},
		{"claude.md is moved to /root/capsule/.claude", []string{"pitfall: claude.md is moved to /root/capsule/.claude."}},
		{"le fichier prd à utiliser est le fichier _bmad-output/planning-artifacts/prd.md", []string{"pitfall: Le fichier prd à utiliser est le fichier _bmad-output/planning-artifacts/prd.md."}},
		{"the config to use is deploy/prod.yaml", []string{"pitfall: The config to use is deploy/prod.yaml."}},
		{"all of my conversations with claude are now in /Users/cell/claude/convos/", []string{"pitfall: All of my conversations with claude are now in ~/claude/convos/."}},
		// What a thing is named, the name written as code writes one.
		{"The branch is called release/v2.", []string{"procedural: The branch is called release/v2."}},
		{"El bucket se llama media-prod-01.", []string{"procedural: El bucket se llama media-prod-01."}},
		{"仓库叫886caigudong/caigudong", []string{"procedural: 仓库叫886caigudong/caigudong。"}},
		{"What is the repo called?", nil},
		{"codexが参照するのはAGENTS.mdか？", nil},
		// A place said in words, a folder or a host, is a place all the same.
		{"M-Claude is in the Documents folder", []string{"procedural: M-Claude is in the Documents folder."}},
		{"Общие настройки хранятся в скрытой папке .gemini в домашней папке", []string{"procedural: Общие настройки хранятся в скрытой папке .gemini в домашней папке."}},
		{"is M-Claude in the Documents folder?", nil},
		{"the bug is in the folder view", nil},
		// What the person works on, the system named.
		{"i'm on ubuntu 22.04", []string{"procedural: I'm on ubuntu 22.04."}},
		{"utilizo windows", []string{"procedural: Utilizo windows."}},
		// What is said of it after goes on it; what is said of anything else does not.
		{"I'm on Ubuntu 22.04. You should know this... I'm not headless, I type in a GUI session.", []string{"procedural: I'm on Ubuntu 22.04. I'm not headless, I type in a GUI session."}},
		{"I'm on Ubuntu 22.04. The settings page still fails.", []string{"procedural: I'm on Ubuntu 22.04."}},
		{"I'm on the settings page and it still fails", nil},
		{"when you commit, write the message in English", []string{"procedural: When you commit, write the message in English."}},
		{"todas las apis que hagas deben pedir el usuario autenticado", []string{"procedural: Todas las apis que hagas deben pedir el usuario autenticado."}},
		{"every page must work on mobile", []string{"procedural: Every page must work on mobile."}},
		{"the whole codebase should log through slog", []string{"procedural: The whole codebase should log through slog."}},
		{"das ganze Projekt muss ohne Docker laufen", []string{"procedural: Das ganze Projekt muss ohne Docker laufen."}},
		{"the whole codebase is slow", nil},
		{"alle Endpunkte müssen eine Anmeldung verlangen", []string{"procedural: Alle Endpunkte müssen eine Anmeldung verlangen."}},
		// How the work is paced.
		{"我们一步一步来吧，你一步一步仔细教我", []string{"procedural: 我们一步一步来吧，你一步一步仔细教我。"}},
		{"작은거에 집중 한개씩 분석 완성", []string{"procedural: 작은거에 집중 한개씩 분석 완성."}},
		{"explain it step by step, one change per message", []string{"procedural: Explain it step by step, one change per message."}},
		{"can you go step by step?", nil},
		// A language said alone is the one to go on in.
		{"em portugues", []string{"procedural: Em portugues."}},
		{"auf Deutsch bitte", []string{"procedural: Auf Deutsch."}},
		// Not standing choices.
		{"em portugues, o README", nil},
		{"the README in English is out of date", nil},
		{"must every page work on mobile?", nil},
		{"this page must work on mobile", nil},
		{"translate the README into German", nil},
		{"can you answer in German?", nil},
		{"use this function instead", nil},
		{"for now, answer in English", nil},
		{"the error message is in English", nil},
		{"is the config in src/config.ts?", nil},
		{"確定済みプランを PLAN.md に保存して。", nil},
		{"ログは logs/ に置いて", nil},
		{"設定ファイルは config/app.yaml に置いてある", []string{"pitfall: 設定ファイルは config/app.yaml に置いてある。"}},
	})
}

// Korean in the written register, said in chat, tells how a named thing
// is; a negation or a guess reports, and a long turn is a pasted document.
func TestKoreanToldInWrittenRegister(t *testing.T) {
	checkSaid(t, []string{"user: 차트 만들어줘", "assistant: 만들었습니다."}, "네.", []said{
		{"status는 네가지 상태만 존재한다.", []string{"procedural: status는 네가지 상태만 존재한다."}},
		{"created_at 을 사용한다. db저장형식은 TIMESTAMPTZ이다", []string{"decision: created_at 을 사용한다. db저장형식은 TIMESTAMPTZ이다."}},
		{"LineHistoryDashboard.jsx 에는 집계 되지 않는다", nil},
		{"/history api가 제대로 동작하지 않는것 같다.", nil},
		{"차트가 보인다", nil},
	})
}

// Russian and Korean, section by section of their tables: what each makes
// of a turn, and what must stay no lesson.
func TestRussianAndKorean(t *testing.T) {
	fix := []string{"user: почини", "assistant: Исправил.", "edit: /repo/a.go"}
	gochi := []string{"user: 고쳐줘", "assistant: 수정했습니다.", "edit: /repo/a.go"}
	with := func(head []string, tail ...string) []string { return append(append([]string{}, head...), tail...) }
	tests := []scripted{
		// [remember]
		{"ru remember", with(fix, "user: запомни: никогда не используй fmt.Println для логов, только slog"),
			[]string{"procedural: Никогда не используй fmt.Println для логов, только slog."}},
		{"ru remember, from now on", with(fix, "user: с этого момента пиши коммиты на английском"),
			[]string{"procedural: Пиши коммиты на английском."}},
		{"ko remember", with(gochi, "user: 기억해 둬: 테스트는 항상 docker compose로 돌려"),
			[]string{"procedural: 테스트는 항상 docker compose로 돌려."}},
		{"ko remember, spaced either way", with(gochi, "user: 이제 부터 커밋 메시지는 영어로 써줘"),
			[]string{"procedural: 커밋 메시지는 영어로 써."}},
		{"ko remember after a name", with(gochi, "user: 클로드야 앞으로 PR 설명은 한국어로 써줘"),
			[]string{"procedural: PR 설명은 한국어로 써."}},
		{"ko 앞으로 as forward is no request", with(gochi, "user: 버튼을 앞으로 옮겨줘"), nil},
		// [rule]: the object may come first in Russian, the verb comes last in Korean
		{"ru rule, object first", with(fix, "user: миграции руками не пиши, только через alembic"),
			[]string{"procedural: Миграции руками не пиши, только через alembic."}},
		{"ru rule after fillers", with(fix, "user: ну пожалуйста, не коммить сам"),
			[]string{"procedural: Не коммить сам."}},
		{"ru rule, cursing taken off", []string{"user: почисти", "assistant: Удаляю.", "bash: rm -rf build .cache", "user: блять, кеш не трогай"},
			[]string{"procedural: Кеш не трогай."}},
		{"ko rule, an ending", with(gochi, "user: 커밋 메시지에 이모지 넣지 마"),
			[]string{"procedural: 커밋 메시지에 이모지 넣지 마."}},
		{"ko rule, 하면 안 돼", with(gochi, "user: main 브랜치에 직접 푸시하면 안 돼"),
			[]string{"procedural: main 브랜치에 직접 푸시하면 안 돼."}},
		{"ko rule, polite endings taken off", with(gochi, "user: 클로드야 제발 직접 커밋하지 마 부탁해"),
			[]string{"procedural: 직접 커밋하지 마."}},
		// [always]
		{"ru always, with its reason", with(fix, "user: Пожалуйста, всегда запускай go vet перед коммитом, иначе CI падает."),
			[]string{"procedural: Всегда запускай go vet перед коммитом, иначе CI падает."}},
		{"ko always", with(gochi, "user: 운영 설정은 절대 수정하지 마세요"),
			[]string{"procedural: 운영 설정은 절대 수정하지 마세요."}},
		// [not_rule]
		{"ru never, stated", with(fix, "user: никогда не сталкивался с такой ошибкой"), nil},
		{"ru don't worry", with(fix, "user: не переживай насчёт тестов"), nil},
		{"ko absolute path", with(gochi, "user: 절대 경로가 에러 메시지에 나와"), nil},
		{"ko don't worry", with(gochi, "user: 걱정하지 마 테스트는 내가 볼게"), nil},
		// [reproach]
		{"ru reproach, the infinitive is the lesson", []string{"user: обнови версию", "assistant: Обновил версию до 1.4.0.", "edit: /repo/version.go", "user: ты забыл обновить CHANGELOG.md"},
			[]string{"pitfall: Обновить CHANGELOG.md."}},
		{"ru reproach, told before", with(fix, "user: тебе говорили не писать мне стены текста"),
			[]string{"procedural: Тебе говорили не писать мне стены текста."}},
		{"ko reproach", []string{"user: 버전 올려줘", "assistant: 버전을 1.4.0으로 올렸습니다.", "edit: /repo/version.go", "user: CHANGELOG.md 업데이트하는 거 또 까먹었잖아"},
			[]string{"pitfall: CHANGELOG.md 업데이트하는 거 또 까먹었잖아."}},
		// [contrast]
		{"ru contrast", []string{"user: поставь axios", "assistant: Ставлю.", "bash: npm install axios", "user: Используй pnpm, а не npm."},
			[]string{"decision: Используй pnpm, а не npm."}},
		{"ko contrast", []string{"user: axios 설치해줘", "assistant: 설치할게요.", "bash: npm install axios", "user: npm 말고 pnpm으로 설치해줘"},
			[]string{"decision: npm 말고 pnpm으로 설치해."}},
		{"ko contrast after a no", with(gochi, "user: 그게 아니라, 설정 파일은 yaml로 통일해"),
			[]string{"decision: 설정 파일은 yaml로 통일해."}},
		// [reject] and [intent]: a bare no refuses the agent's plan, or its action
		{"ru bare no: the plan, quoted", []string{"user: почисти", "assistant: Сейчас я удалю папку build и все кеши.", "bash: rm -rf build .cache", "user: нет"},
			[]string{"procedural: Не надо: удалю папку build и все кеши."}},
		{"ru bare no: a plan with an infinitive", []string{"user: почини", "assistant: Я собираюсь переписать весь модуль auth.", "edit: /repo/auth.go", "user: нееет"},
			[]string{"procedural: Не надо переписать весь модуль auth."}},
		{"ru no, then the lesson", []string{"user: почисти", "assistant: Удаляю.", "bash: rm -rf build .cache", "user: нет, используй make clean"},
			[]string{"procedural: Используй make clean."}},
		{"ko bare no: the plan, its stem kept", []string{"user: 정리해줘", "assistant: 오래된 테스트를 모두 삭제하겠습니다.", "bash: git rm -r tests/legacy", "user: 아니"},
			[]string{"procedural: 오래된 테스트를 모두 삭제하지 마세요."}},
		{"ko bare no: the plan, after a comma", []string{"user: 고쳐줘", "assistant: 네, 캐시 폴더를 되돌리겠습니다.", "bash: git checkout cache", "user: 아니요"},
			[]string{"procedural: 캐시 폴더를 되돌리지 마세요."}},
		{"ko bare no: a plan that says how it reads refused", []string{"user: 고쳐줘", "assistant: README를 전부 다시 작성할게요.", "edit: /repo/README.md", "user: 아니요"},
			[]string{"procedural: README를 전부 다시 작성하지 마세요."}},
		// [template]
		{"ru bare no: the edit", []string{"user: поправь", "assistant: Поправил.", "edit: /repo/config.yaml", "user: нет"},
			[]string{"pitfall: Не меняй config.yaml."}},
		{"ko bare no: the command", []string{"user: 정리해줘", "assistant: 빌드 폴더를 지울게요.", "bash: rm -rf build", "user: 아니요"},
			[]string{"procedural: `rm -rf build` 실행하지 마세요."}},
		// [answer]: no answering a question, yes, go on
		{"ru no answering a question", []string{"user: поправь", "assistant: Готово. Добавить тесты?", "edit: /repo/config.yaml", "user: нет"}, nil},
		{"ru answer", with(fix, "user: ок, давай дальше"), nil},
		{"ru yes", with(fix, "user: да"), nil},
		{"ko no answering a question", []string{"user: 고쳐줘", "assistant: 수정했습니다. 테스트도 추가할까요?", "edit: /repo/a.go", "user: 아니"}, nil},
		{"ko answer", with(gochi, "user: ㅇㅋ 진행해 주세요"), nil},
		{"ko yes", with(gochi, "user: 네"), nil},
		// [temporary]
		{"ru for now", with(fix, "user: пока не трогай тесты"), nil},
		{"ko for now", with(gochi, "user: 일단 테스트는 신경 쓰지 마"), nil},
		// [hedge] and questions
		{"ru hedged", with(fix, "user: если ты забыл запушить, запушь сейчас"), nil},
		{"ru someone else's words", with(fix, "user: он сказал никогда не деплоить в пятницу"), nil},
		{"ru question", with(fix, "user: ты запустил тесты?"), nil},
		{"ko hedged", with(gochi, "user: 혹시 푸시 까먹었으면 지금 해"), nil},
		{"ko question", with(gochi, "user: 이거 왜 안 돼?"), nil},
		// [soften] and [acknowledge]
		{"ru soft suggestion owned up to", with(fix, "user: я думаю, надо вынести это в отдельный пакет internal/retry", "assistant: Вы правы, вынесу."),
			[]string{"procedural: Вынести это в отдельный пакет internal/retry."}},
		{"ru no marker, owned up to", with(fix, "user: деньги мы храним в копейках в int64", "assistant: Вы правы, переделаю на int64."),
			[]string{"procedural: Деньги мы храним в копейках в int64."}},
		{"ko soft suggestion owned up to", with(gochi, "user: 웬만하면 재시도 로직은 internal/retry 헬퍼를 써", "assistant: 맞는 말씀입니다. 헬퍼를 쓰겠습니다."),
			[]string{"procedural: 재시도 로직은 internal/retry 헬퍼를 써."}},
		{"ko no marker, owned up to", with(gochi, "user: 이 프로젝트는 금액을 원 단위 정수로 저장해", "assistant: 죄송합니다, 제가 잘못 이해했네요. 정수로 바꾸겠습니다."),
			[]string{"procedural: 이 프로젝트는 금액을 원 단위 정수로 저장해."}},
		// [compliment]: a question the agent only approves of is a request
		{"ru approved question", with(fix, "user: А можно ещё тест на это добавить?", "assistant: Хорошее замечание, добавлю."), nil},
		{"ko approved question", with(gochi, "user: 테스트도 추가해 줄 수 있어?", "assistant: 좋은 지적이에요! 추가할게요."), nil},
		// [report]: how things stand, even with an apology
		{"ru still broken", with(fix, "user: всё ещё не работает", "assistant: Извините, посмотрю ещё раз."), nil},
		{"ru no, still broken", with(fix, "user: нет, ничего не изменилось"), nil},
		{"ru nothing changed", with(fix, "user: ничего не изменилось", "assistant: Прошу прощения, проверю кеш."), nil},
		{"ru what broke, to an agent that apologises", with(fix, "user: запускается, но списки пустые и звук пропал", "assistant: Прошу прощения, сейчас исправлю."), nil},
		{"ko what broke, to an agent that apologises", with(gochi, "user: 메뉴바가 더 작아지고 이상해졌어", "assistant: 죄송합니다. 원래대로 되돌릴게요."), nil},
		{"ko a right that confirms a question owns nothing", with(gochi, "user: 바뀐 파일은 base.html 하나뿐인 거지", "assistant: 맞아요! 변경사항을 확인해볼게요."), nil},
		{"ko still broken", with(gochi, "user: 아직도 안 돼", "assistant: 죄송합니다. 다시 확인해볼게요."), nil},
		{"ko no, still broken", with(gochi, "user: 아니, 아직도 안 돼"), nil},
		{"ko what was meant", []string{"user: 고쳐줘", "assistant: 수정했습니다.", "edit: /repo/docs/install.md", "user: 내 말은 README.md였어", "assistant: 죄송합니다, README.md를 수정할게요."}, nil},
		// [this_file]
		{"ru that file", []string{"user: почини", "assistant: Исправил.", "edit: /repo/internal/api/api.gen.go", "user: не трогай этот файл, он генерируется"},
			[]string{"pitfall: Не трогай internal/api/api.gen.go, он генерируется."}},
		{"ko that file", []string{"user: 고쳐줘", "assistant: 수정했습니다.", "edit: /repo/internal/api/api.gen.go", "user: 이 파일은 자동 생성이니까 건드리지 마"},
			[]string{"pitfall: internal/api/api.gen.go은 자동 생성이니까 건드리지 마."}},
	}
	checkLessons(t, tests)
}

// [because]: the reason a decision gives is its rationale.
func TestRussianAndKoreanRationale(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"Используй pnpm, а не npm, потому что в репозитории pnpm-lock.yaml", "в репозитории pnpm-lock.yaml"},
		{"npm 말고 pnpm 써, 왜냐하면 pnpm-lock.yaml을 쓰거든", "pnpm-lock.yaml을 쓰거든"},
	} {
		obs := Session(session("s", "user: поставь axios", "assistant: ok", "bash: npm install axios", "user: "+c.said), Options{}).Observations
		if len(obs) != 1 || obs[0].Type != Decision || !strings.HasSuffix(obs[0].Details, "rationale: "+c.want) {
			t.Errorf("%q: %+v", c.said, obs)
		}
	}
}

// A refusal is a permission, an operation not permitted or a network out
// of reach; an error of the program's own is not, nor one that only names
// a sandbox.
func TestDeniedHere(t *testing.T) {
	for line, want := range map[string]bool{
		"Running as root without --no-sandbox is not supported.":                           false,
		"fatal: Unable to create '/w/.git/index.lock': Permission denied":                  true,
		"Cannot open netlink socket: Operation not permitted":                              true,
		"Error: connect EPERM 127.0.0.1:4500":                                              true,
		"ssh: Could not resolve hostname github.com: Temporary failure in name resolution": true,
		"--- FAIL: TestA": false,
		"error: pathspec 'x' did not match any file(s) known to git": false,
	} {
		if got := deniedHere(line); got != want {
			t.Errorf("deniedHere(%q) = %v", line, got)
		}
	}
}

// A rule said for now, or for one thing, is not the standing rule said
// again.
func TestNarrows(t *testing.T) {
	for _, c := range []struct {
		turn, lesson string
		narrows      bool
	}{
		{"For now, write the commit messages in English.", "When you commit, write the commit messages in English.", true},
		{"This page must work on mobile.", "Every page must work on mobile.", true},
		{"every page must work on mobile", "Every page must work on mobile.", false},
		{"write the commit messages in English", "When you commit, write the commit messages in English.", false},
		{"run the linter before handing it back", "Always run the linter before you hand it back.", false},
	} {
		if got := Narrows(c.turn, c.lesson); got != c.narrows {
			t.Errorf("Narrows(%q, %q) = %v", c.turn, c.lesson, got)
		}
	}
}

// Taking a lesson back is not saying it again.
func TestSameStance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"uploads go through the queue named uploads-slow", "Uploads go through the queue named uploads-slow.", true},
		{"uploads no longer go through the queue named uploads-slow", "Uploads go through the queue named uploads-slow.", false},
		{"don't send uploads through uploads-slow anymore", "Send uploads through uploads-slow.", false},
		{"never push to main", "Never push to main.", true},
		{"上传不要走慢队列", "上传走慢队列", false},
		{"Schick die Uploads nicht mehr über die langsame Queue", "Schick die Uploads über die langsame Queue", false},
		// "no" is Portuguese for "in the": a denial in Spanish only.
		{"Sempre converse em pt-br.", "Sempre converse em pt-br, continue a implementar: pedidos e orçamentos vão juntos no checkout, mas exibidos separadamente no carrinho.", true},
		{"No uses npm en este proyecto.", "Usa npm en este proyecto.", false},
		// English "no" denies in English, Japanese 不可 in Japanese (kana
		// make the Chinese table's 不 another language's).
		{"No force pushes to main.", "Force pushes to main are fine.", false},
		{"本番へのデプロイは不可です。", "本番へのデプロイは可能です。", false},
	} {
		if got := SameStance(c.a, c.b); got != c.same {
			t.Errorf("SameStance(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// A fix that only swaps a path is a lesson about that path: its area is
// the path that was wrong, so it is served where that path comes up, not
// on every run of the program that read it. The lines after the error line
// say why it failed and are kept beside it.
func TestFailureFixDetails(t *testing.T) {
	for _, c := range []struct {
		name   string
		script []string
		want   []string
	}{
		{"a wrong path", []string{"user: read it", "assistant: ok",
			"fail: sed -n '1,200p' _bmad/core/tasks/bmad-help.md => sed: can't read _bmad/core/tasks/bmad-help.md: No such file or directory",
			"bash: sed -n '1,200p' _bmad/core/tasks/help.md"},
			[]string{"area: _bmad/core/tasks/bmad-help.md;"}},
		{"a path that is not there is said so", []string{"user: read it", "assistant: ok",
			"fail: python tools/gen.py => python: can't open file '/repo/tools/gen.py': [Errno 2] No such file or directory",
			"bash: python scripts/gen.py"},
			[]string{"area: tools/gen.py;", "resolution: run `python scripts/gen.py` instead"}},
		{"a changed option keeps the command as its area", []string{"user: net", "assistant: ok",
			"fail: ipconfig /all => Error: unrecognized or incomplete command line.", "bash: ipconfig"},
			[]string{"area: ipconfig;"}},
		{"what the output says after the error line", []string{"user: look", "assistant: ok",
			"fail: ssh root@10.0.0.1 \"ps aux | grep x\" => ps: unrecognized option: a\nBusyBox v1.36.1 (2025-08-19) multi-call binary.\n\nUsage: ps [-o COL1,COL2=HEADER] [-T]",
			"bash: ssh root@10.0.0.1 \"ps | grep x\""},
			[]string{"; output: BusyBox v1.36.1 (2025-08-19) multi-call binary. Usage: ps [-o COL1,COL2=HEADER] [-T]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, o := range Session(session("s", c.script...), Options{}).Observations {
				if o.Extractor == ExtractorFailureFix {
					got = append(got, o.Details)
				}
			}
			if len(got) != 1 {
				t.Fatalf("got %d failure observations: %q", len(got), got)
			}
			for _, w := range c.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("details %q\nlack %q", got[0], w)
				}
			}
		})
	}
}

func TestSameFile(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"bmad/bmm/agents/pm.md", "_bmad/bmm/agents/pm.md", true},
		{"_bmad/core/tasks/bmad-help.md", "_bmad/core/tasks/help.md", true},
		{"src/hooks/useAutoSelect.ts", "src/hooks/auto-select.ts", true},
		{"index.ts", "lib/index.ts", true},
		{"docs/api.md", "docs/api-design-guide.md", false},
		{"steps/step-01-init.md", "steps/step-01-document-discovery.md", false},
		{"src/styles/issue-ticket.css", "src/App.tsx", false},
		{"src/hooks/useAutoSelect.ts", "src/pages/IssueTicketPage.tsx", false},
		{"docs/help.md", "docs/help.txt", false},
		// A misspelling is the same file only after the agent looked for
		// it (misspelled, misreads).
		{"docs/guides/deploymnet.md", "docs/guides/deployment.md", false},
		{"src/server/routes.js", "src/server/routes.ts", true},
		{".github/workflows/release.yaml", ".github/workflows/release.yml", true},
		{"docs/guides/deploymnet.md", "notes/deployment.md", false},
		{"steps/step-01-init.md", "steps/step-02-init.md", false},
		{"tests/test_a.py", "tests/test_b.py", false},
		{"src/card.ts", "src/cart.ts", false},
		{"src/parser-old.ts", "src/parser-new.ts", false},
		{"docs/billing.md", "docs/building.md", false},
	} {
		if got := sameFile(c.a, c.b); got != c.want {
			t.Errorf("sameFile(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestMisspelled(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"docs/guides/deploymnet.md", "docs/guides/deployment.md", true},
		{"src/components/HeaderNavgation.tsx", "src/components/HeaderNavigation.tsx", true},
		{"docs/guides/deploymnet.md", "notes/deployment.md", false},
		{"steps/step-01-init.md", "steps/step-02-init.md", false},
		{"tests/test_a.py", "tests/test_b.py", false},
		{"src/card.ts", "src/cart.ts", false},
		{"docs/billing.md", "docs/building.md", false},
		// One word with letters more at an end is another word.
		{"src/orders.ts", "src/order.ts", false},
		{"src/validate.ts", "src/validator.ts", false},
		{"app/serializer.py", "app/deserializer.py", false},
		{"src/routes.js", "src/routes.ts", false},       // another extension: siblingExt
		{"docs/rveiew.md", "docs/review.md", true},      // two letters swapped: one edit
		{"docs/report2x.md", "docs/report3x.md", false}, // a number: another file
	} {
		if got := misspelled(c.a, c.b); got != c.want {
			t.Errorf("misspelled(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	long := strings.Repeat("a", 5000)
	if misspelled("d/"+long+"x.md", "d/"+long+"y.md") {
		t.Error("a name of 5000 letters compared as a word")
	}
}

func TestPathSwap(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"_bmad/core/tasks/bmad-help.md", "_bmad/core/tasks/help.md", true},
		{"src/app/(dashboard)/page.tsx", "'src/app/(dashboard)/page.tsx'", false}, // quoted: how it is written
		{"src/app/(dashboard)/page.tsx", "src/app/(admin)/page.tsx", false},       // a trigger cannot hold it whole
		{"--all", "--short", false},
		{"http://localhost:8080/health", "https://api.example.com/health", false}, // an address, not a file of the project
		{"scripts/*.sh", "scripts/start_ui.sh", false},                            // a glob names no one file
		{"scripts/start.sh", "scripts/*.sh", false},
	} {
		_, got := pathSwap([]change{{from: c.from, to: c.to, fromWords: 1, toWords: 1}})
		if got != c.want {
			t.Errorf("pathSwap(%q → %q) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

// The path the error says is missing, changed with other words of the
// command (a line range): the lesson is about the path, whatever else
// changed; two paths changed, or none missing, and it says nothing.
func TestMissingSwap(t *testing.T) {
	const err = "sed: can't read apps/api/api/utils.py: No such file or directory"
	for _, c := range []struct {
		cs       []change
		from, to string
	}{
		{[]change{{from: "'1,160p' apps/api/api/utils.py", to: "'1,200p' apps/api/api/views/utils.py", fromWords: 2, toWords: 2}}, "apps/api/api/utils.py", "apps/api/api/views/utils.py"},
		{[]change{{from: "'1,160p'", to: "'1,200p'", fromWords: 1, toWords: 1}, {from: "apps/api/api/utils.py", to: "apps/api/api/views/utils.py", fromWords: 1, toWords: 1}}, "apps/api/api/utils.py", "apps/api/api/views/utils.py"},
		{[]change{{from: "apps/web/x.py", to: "apps/web/y.py", fromWords: 1, toWords: 1}}, "", ""}, // not the missing one
		{[]change{{from: "apps/api/api/utils.py a/b.py", to: "apps/api/api/views/utils.py a/c.py", fromWords: 2, toWords: 2}}, "", ""},
	} {
		from, to, ok := missingSwap(c.cs, err)
		if from != c.from || to != c.to || ok != (c.from != "") {
			t.Errorf("missingSwap(%+v) = %q, %q, %v; want %q, %q", c.cs, from, to, ok, c.from, c.to)
		}
	}
}

// The error names the link that failed by what it quotes, when it names
// no program: a statement of a script has no program, so no step and no
// lesson about the link that ran first.
func TestErrorQuotesTheLinkThatFailed(t *testing.T) {
	for _, c := range []struct{ cmd, err, want string }{
		{"$p = @{a=1} | ConvertTo-Json -Depth 8; $client=[System.Net.Http.HttpClient]::new(); $client.PostAsync($u, $p)",
			"Unable to find type [System.Net.Http.HttpClient].", ""},
		{"npm ci && node scripts/build-icons.js", "Error: Cannot find module '/repo/scripts/build-icons.js'", "node build-icons.js"},
		{"npm ci && node scripts/build-icons.js", "npm error code EUSAGE", "npm ci"},
		{"cat 'notes.md' && wc -l notes.md", "cat: 'notes.md': No such file or directory", "cat"},
	} {
		if got := parseStep(c.cmd, c.err).key; got != c.want {
			t.Errorf("parseStep(%q, %q) = %q, want %q", c.cmd, c.err, got, c.want)
		}
	}
}

// The agent hands the person a command to run; the person hands it back.
func TestHandedBack(t *testing.T) {
	tests := []scripted{
		{"the command of the agent's block, handed back", []string{"user: read the power draw", "assistant: I need root for that. Please run this in your terminal:\n\n```bash\nsudo cat /sys/class/powercap/intel-rapl:0/energy_uj\n```\n\nand paste the output.", "user: you can run it"},
			[]string{"procedural: Run the commands yourself instead of asking the person to run them."}},
		{"an inline command, in the person's language", []string{"user: 変更をまとめて", "assistant: 変更をまとめました。\n\n`git commit -am \"update\" && git push` を実行してください。", "user: いや自分で実行して"},
			[]string{"procedural: コマンドは人に頼まず自分で実行してください。"}},
		{"a longer turn says it in its own words", []string{"user: test the plugin", "assistant: The plugin needs a new interactive session; start one and type /publish.", "user: can you test it by running `claude` yourself, with `-p /publish`?"},
			[]string{"procedural: Test it by running `claude` yourself, with `-p /publish`."}},
		{"in Russian, anywhere in the sentence", []string{"user: проверь звук", "assistant: Откройте pavucontrol и посмотрите, как называется устройство.", "user: ты сам можешь посмотреть как оно называется через wpctl status"},
			[]string{"procedural: Ты сам можешь посмотреть как оно называется через wpctl status."}},
		{"no command and too few words: nothing to keep", []string{"user: fix it", "assistant: Done, restart the app to see it.", "user: you do it"},
			nil},
		// "No, do it" in other words: the agent then ran the program it
		// had handed over, at once or once the person said yes.
		{"a no, then the agent runs it", []string{"user: 変更をまとめて", "assistant: 実行用コマンドです。\n\n```bash\ngit add \\\n  docs/a.md\ngit commit -m \"docs\"\n```\n\n必要なら次は push 用コマンドも出します。", "user: いやコミットして push までやってくれ", "bash: git add docs/a.md && git commit -m docs && git push"},
			[]string{"procedural: コマンドは人に頼まず自分で実行してください。"}},
		{"a no, then yes to the agent's asking, then it runs it", []string{"user: summarise the changes", "assistant: Run this:\n\n```bash\ngit commit -am \"docs\"\n```", "user: no, commit and push it", "assistant: I will run git commit and git push. OK? (y/n)", "user: y", "bash: git commit -am docs && git push"},
			[]string{"procedural: Run the commands yourself instead of asking the person to run them."}},
		{"a no, and the agent runs something else", []string{"user: summarise the changes", "assistant: Run this:\n\n```bash\ngit commit -am \"docs\"\n```", "user: no, rewrite the summary first", "edit: docs/summary.md"},
			nil},
	}
	checkLessons(t, tests)
}

// A lesson in devlearn's words keeps what the person wanted run and what
// they said: the commands of the block handed over, a quoted commit
// message of several lines being one of them, and their words.
func TestHandedBackKeepsWhatWasHanded(t *testing.T) {
	ch := session("s", "user: 変更をまとめて", "assistant: 実行用コマンドです。\n\n```bash\ngit add \\\n  docs/a.md\n\ngit commit -m \"docs: ids\" -m \"unify ids\nadd NFR section\nsync docs\"\n```", "user: いやコミットして push までやってくれ", "bash: git add docs/a.md && git commit -m docs && git push")
	obs := Session(ch, Options{}).Observations
	if len(obs) != 1 {
		t.Fatalf("got %d observations, want 1", len(obs))
	}
	want := "trigger: the agent asked the person to run `git add`, `git commit`; steps: コマンドは人に頼まず自分で実行してください。; source: the person corrected the agent: \"いやコミットして push までやってくれ\""
	if obs[0].Details != want {
		t.Errorf("details\n got %q\nwant %q", obs[0].Details, want)
	}
}

// A rule said of "the rest" keeps the sentence before it, which names
// what the rest is not; a question before it is not its object.
func TestRuleOfTheRestKeepsItsObject(t *testing.T) {
	checkAfterPlan(t, []said{
		{"Only translate the generated candidate text. Never change anything else on the site.",
			[]string{"procedural: Only translate the generated candidate text. Never change anything else on the site."}},
		{"言語を追加してください。この日程候補のテキストだけその言語に変えてください。それ以外のサイトの言葉は絶対に変えないでください",
			[]string{"procedural: この日程候補のテキストだけその言語に変えてください。 それ以外のサイトの言葉は絶対に変えないでください。"}},
		{"Ajoute le bouton. Ne touche à rien d'autre.",
			[]string{"procedural: Ajoute le bouton. Ne touche à rien d'autre."}},
		{"Is the header done? Never change anything else on the site.",
			[]string{"procedural: Never change anything else on the site."}},
	})
}

// A tool dropped is a choice as much as a tool taken up, in every table.
func TestToolDropped(t *testing.T) {
	checkAfterPlan(t, []said{
		{"We no longer use next.js, the app moved to vite.", []string{"decision: We no longer use next.js, the app moved to vite."}},
		{"server は docker を廃止。", []string{"decision: server は docker を廃止。"}},
		{"On n'utilise plus webpack.config.js.", []string{"decision: On n'utilise plus webpack.config.js."}},
		{"Ya no usamos docker-compose.yml en este proyecto.", []string{"decision: Ya no usamos docker-compose.yml en este proyecto."}},
		{"It no longer uses the cache-dir.", nil}, // what stopped working is a report, no choice
	})
}

// A decision announced as one ("I decided", "hemos decidido", "ことにした")
// and a way of working held wherever it can be ("whenever possible",
// "siempre que sea posible") are standing, in every table; asked, they
// are not.
func TestDecidedAndWheneverPossible(t *testing.T) {
	checkAfterPlan(t, []said{
		{"I decided I want it to shut down when the window is closed.", []string{"decision: I decided I want it to shut down when the window is closed."}},
		{"Hemos decidido usar postgres en lugar de mysql.", []string{"decision: Hemos decidido usar postgres en lugar de mysql."}},
		{"結局 pnpm を使うことにした。", []string{"decision: 結局 pnpm を使うことにした。"}},
		{"Launch parallel tasks whenever possible.", []string{"procedural: Launch parallel tasks whenever possible."}},
		{"Usa los helpers existentes siempre que sea posible.", []string{"procedural: Usa los helpers existentes siempre que sea posible."}},
		{"Can you make it faster when possible?", nil},
	})
}

// Holding the agent off until it has proposed is one way of working
// however it is put, from the first message on, "for now" or not: one
// lesson in the sentence's language, the person's words in its details.
func TestHoldOff(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"Look at the login bug but don't change anything yet, tell me what you find.", "procedural: Propose the approach before changing any code, and change nothing until the person agrees."},
		{"とりあえずまだコード書かずに解決策を調べて", "procedural: コードを書く前に方針を提案し、了承を得るまで何も変更しないでください。"},
		{"你觉得应该怎么弄好，先告诉我不要直接改", "procedural: 先告诉我方案，不要直接改代码，等我确认后再修改。"},
	} {
		ch := session("s", "user: "+c.said, "assistant: OK.")
		if got := lessonsOf(ch); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q: got %q, want %q", c.said, got, c.want)
			continue
		}
		if d := Session(ch, Options{}).Observations[0].Details; !strings.Contains(d, c.said) {
			t.Errorf("%q: the person's words are not in the details %q", c.said, d)
		}
	}
	if got := lessonsOf(session("s", "user: fix the login bug", "assistant: Done.", "user: did you change anything yet?")); len(got) != 0 {
		t.Errorf("a question: got %q", got)
	}
}

// What comes back with each piece of the work ("with each milestone",
// "after each device", "prior to running tests") is a rule for each time;
// "with each of" and what the person noticed each time are not.
func TestWithEachTime(t *testing.T) {
	checkAfterPlan(t, []said{
		{"great! with each milestone, include a demo which showcases it.", []string{"procedural: With each milestone, include a demo which showcases it."}},
		{"Update the skill to run nvm use 20 prior to running tests or linting", []string{"procedural: Update the skill to run nvm use 20 prior to running tests or linting."}},
		{"Después de cada cambio de esquema, regenera los tipos.", []string{"procedural: Después de cada cambio de esquema, regenera los tipos."}},
		{"With each file, I noticed a problem.", nil},
		{"Fix the two bugs with each of the tests passing.", nil},
	})
}

// Going on without asking is a way of working the person sets, from the
// first message on and in every table, even where "no need" alone says
// no rule; asked, or for this time only, it is not one.
func TestUnasked(t *testing.T) {
	for _, c := range []struct{ said, want string }{
		{"You don't need to ask me, just execute the tasks to the end unless something is critical.", "procedural: You don't need to ask me, just execute the tasks to the end unless something is critical."},
		{"não precisa me perguntar, apenas execute as tarefas até o fim", "procedural: Não precisa me perguntar, apenas execute as tarefas até o fim."},
		{"不用问我，直接执行到底。", "procedural: 不用问我，直接执行到底。"},
		{"いちいち確認しなくていいので最後まで実行して", "procedural: いちいち確認しなくていいので最後まで実行して。"},
	} {
		if got := lessonsOf(session("s", "user: "+c.said, "assistant: OK.")); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%q: got %q, want %q", c.said, got, c.want)
		}
	}
	checkAfterPlan(t, []said{{"Why did you not ask me?", nil}, {"No need to ask me this time.", nil}})
}

// How things are, introduced as such, is a fact to keep.
func TestTold(t *testing.T) {
	tests := []struct {
		name string
		said string
		want []string
	}{
		{"English, the rest of the sentence", "FYI, the staging database is read-only for everyone.",
			[]string{"procedural: The staging database is read-only for everyone."}},
		{"the marker alone: the next sentence", "I forgot to tell you. We already have a plugin that finds the transcript of the current session.",
			[]string{"procedural: We already have a plugin that finds the transcript of the current session."}},
		{"what it says goes on after it, up to a request", "I forgot to tell you, we already have another plugin. It has code that finds the transcript. /Users/pete/git/sessions/backup_session.py",
			[]string{"pitfall: We already have another plugin. It has code that finds the transcript. ~/git/sessions/backup_session.py."}},
		{"French", "Pour info les CR hebdo ne peuvent pas être modifiés, certaines slides peuvent être cachées.",
			[]string{"procedural: Les CR hebdo ne peuvent pas être modifiés, certaines slides peuvent être cachées."}},
		{"Japanese, then a question that is not kept", "ちなみに、今は npm run ws:proxy 経由で codex app-server にアクセスしている。それが原因となる？",
			[]string{"procedural: 今は npm run ws:proxy 経由で codex app-server にアクセスしている。"}},
		{"up to a request", "FYI the staging database is read-only. Please seed the local one instead.",
			[]string{"procedural: The staging database is read-only."}},
		{"a question is no fact", "FYI, is the staging database read-only?", nil},
		{"how things stand now is no fact", "FYI it still fails with the same error after the change.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lessonsOf(session("s", "user: set it up", "assistant: Done.", "user: "+tt.said)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// The agent taking note of what it was told makes the turn a fact to keep.
func TestNoted(t *testing.T) {
	tests := []struct {
		name, said, reply string
		want              []string
	}{
		{"French", "le label est le même pour tous les projets mais il change par numéro de lot", "Bien noté. Je propose d'ajuster la story ainsi :",
			[]string{"procedural: Le label est le même pour tous les projets mais il change par numéro de lot."}},
		{"English", "the preview server only runs on port 8020 on this machine", "Good to know — I'll point the tests at 8020.",
			[]string{"procedural: The preview server only runs on port 8020 on this machine."}},
		{"got it, in English", "the disk quota does not count the files in /data", "Got it — looking outside /data.",
			[]string{"procedural: The disk quota does not count the files in /data."}},
		// A Japanese or Korean agent answers every request so: it tells nothing.
		{"Japanese polite yes is no note", "テスト環境のポートは 8232 で、本番とは別です", "了解しました。8232 に向けます。", nil},
		{"understood, in Chinese", "测试环境在 8232 端口，不是生产环境", "明白了，我改用 8232 端口。",
			[]string{"procedural: 测试环境在 8232 端口，不是生产环境。"}},
		{"understood, in Chinese, opening the reply alone", "测试环境在 8232 端口，不是生产环境", "明白，我改用 8232 端口。",
			[]string{"procedural: 测试环境在 8232 端口，不是生产环境。"}},
		{"understood, in Spanish", "las migraciones se aplican solo con el comando generate", "Entendido, usaré generate.",
			[]string{"procedural: Las migraciones se aplican solo con el comando generate."}},
		{"Korean polite yes is no note", "이모지가 좀 잘려서 보여", "알겠습니다! 확인해 보겠습니다.", nil},
		{"an answer is no fact", "Option A", "Noted and applied.", nil},
		{"noted deep in the reply is no note", "add the column", "I added the column to the table as you asked; noted in the changelog.", nil},
		{"after an answer word it is the agent's habit, not a note", "the tester uses the tool every day at their desk", "Parfait, je note : usage quotidien.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lessonsOf(session("s", "user: draft the stories", "assistant: Here they are.", "user: "+tt.said, "assistant: "+tt.reply))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A condition that comes back in the agent's work makes a rule for each
// time, in the first message too; a report of what happens each time, or
// a question, is none.
func TestRecurring(t *testing.T) {
	checkSaid(t, nil, "Sure.", []said{
		{"run the linter before you hand it back", []string{"procedural: Run the linter before you hand it back."}},
		{"every time you add an endpoint, add a test for it", []string{"procedural: Every time you add an endpoint, add a test for it."}},
		{"機能作成前はブランチを切り、作成後はREADMEを更新してください", []string{"procedural: 機能作成前はブランチを切り、作成後はREADMEを更新してください。"}},
		{"avant chaque commit, lance les tests", []string{"procedural: Avant chaque commit, lance les tests."}},
		// The other moments that come back: a change applied, a deploy.
		{"first make a backup of main.py before applying the changes", []string{"pitfall: First make a backup of main.py before applying the changes."}},
		{"antes de fazer deploy, rode os testes", []string{"procedural: Antes de fazer deploy, rode os testes."}},
		{"デプロイする前にテストを全部実行して", []string{"procedural: デプロイする前にテストを全部実行して。"}},
		// A release and a push, in each table as in English; Japanese
		// also says it the other way round: "after X, release".
		{"ちゃんと動いてるか確認してからリリースして", []string{"procedural: ちゃんと動いてるか確認してからリリースして。"}},
		{"перед релизом проверь, что всё работает", []string{"procedural: Перед релизом проверь, что всё работает."}},
		{"릴리즈하기 전에 제대로 동작하는지 확인해", []string{"procedural: 릴리즈하기 전에 제대로 동작하는지 확인해."}},
		{"推送之前先跑一遍测试", []string{"procedural: 推送之前先跑一遍测试。"}},
		// Not inside a longer word: 前端 is the frontend, リリースノート
		// release notes.
		{"修改前端的按钮颜色", nil},
		{"先修复登录的bug，然后发布前端", nil},
		{"全部終わってからリリースノートを書いて", nil},
		{"did you run the tests before deploying?", nil},
		{"every time I run it, it crashes", nil},
		{"Все то же самое, после каждого изменения он создаёт один и тот же файл", nil},
		{"can you run the tests before you commit?", nil},
	})
}

// A preference said as such is a choice, in the first message too.
func TestPrefer(t *testing.T) {
	checkSaid(t, nil, "Sure.", []said{
		{"I'd rather we keep tabs here", []string{"decision: I'd rather we keep tabs here."}},
		{"But I still want to use the functions ending in _for_response", []string{"decision: I still want to use the functions ending in _for_response."}},
		{"instale nuqs quiero que uses en todo el proyecto", []string{"decision: Instale nuqs quiero que uses en todo el proyecto."}},
		{"テストは pytest の方がいい", []string{"decision: テストは pytest の方がいい。"}},
		// What the person does not want, or only wants, is how the work
		// should be.
		{"I don't want the RFC to be too detailed", []string{"decision: I don't want the RFC to be too detailed."}},
		{"I just want simple weather, location and current temp", []string{"decision: I just want simple weather, location and current temp."}},
		{"ich will keine Emojis in den Commit-Nachrichten", []string{"decision: Ich will keine Emojis in den Commit-Nachrichten."}},
		{"мне не нравится простой дом, я хочу именно ангуляр", []string{"decision: Мне не нравится простой дом, я хочу именно ангуляр."}},
		{"I specifically want the table sorted by date", []string{"decision: I specifically want the table sorted by date."}},
	})
}

// Words that look like the new markers and are not: encouragement, a
// time the person leaves to the agent.
func TestNotHandedBackNorRecurring(t *testing.T) {
	for _, said := range []string{
		"you can do it with one regex",
		"whenever you're ready, start the server",
		"du selbst hast gesagt, dass es geht",
	} {
		if got := lessonsOf(session("s", "user: check it", "assistant: Run `npm test` to check it.", "user: "+said, "assistant: Ok.")); got != nil {
			t.Errorf("%q: got %q", said, got)
		}
	}
}

// In a log of the person's messages alone (Gemini CLI's logs.json) no
// message has the agent's words before it; only the first describes the
// task.
func TestOnlyTheFirstMessageDescribesTheTask(t *testing.T) {
	got := lessonsOf(session("s", "user: translate the menu, don't touch the other files", "user: don't ask me, just decide and I'll review later"))
	if want := []string{"procedural: Don't ask me, just decide and I'll review later."}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A project path read and not found in one session is nothing; not found
// again in another session, it is a reference gone stale.
func TestStalePaths(t *testing.T) {
	s1 := session("s1", "user: read the docs", "assistant: ok",
		"fail: ls code/md_for_claude/ => ls: cannot access 'code/md_for_claude/': No such file or directory",
		"bash: ls code/docs/",
		"fail: cat /tmp/e1.txt => cat: /tmp/e1.txt: No such file or directory")
	s2 := session("s2", "user: what does the plan say", "assistant: ok",
		"fail: ls code/md_for_claude => ls: cannot access 'code/md_for_claude': No such file or directory",
		"fail: cat /tmp/e1.txt => cat: /tmp/e1.txt: No such file or directory",
		"fail: cat notes.md => cat: notes.md: No such file or directory")
	// Words that are no project path, and paths whose folder is not known.
	for _, ch := range []*transcript.Channels{
		session("n1", "user: look", "assistant: ok", "fail: tail -n 20 logs/app-20.log => tail: cannot open 'logs/app-20.log' for reading: No such file or directory"),
		session("n2", "user: look", "assistant: ok", "fail: git show HEAD:docs/x.md => fatal: path 'docs/x.md' does not exist in 'HEAD'"),
		session("n3", "user: look", "assistant: ok", "fail: cd web && cat src/package.json => cat: src/package.json: No such file or directory"),
		session("n4", "user: look", "assistant: ok", "fail: ls docs => ls: cannot access 'docs': No such file or directory"),
	} {
		for _, m := range Session(ch, Options{}).Missing {
			if m.Path != "logs/app-20.log" {
				t.Errorf("%s: missing %q", ch.UserSignals[0].SessionID, m.Path)
			}
		}
	}
	// The read tool's misses count as a command's.
	r1 := Session(session("r1", "user: look", "assistant: ok", "failread: /repo/code/old/plan.md => <tool_use_error>File does not exist.</tool_use_error>"), Options{})
	r2 := Session(session("r2", "user: look again", "assistant: ok", "failread: /repo/code/old/plan.md => File does not exist."), Options{})
	if got := Across([]Result{r1, r2}, Options{}); len(got) != 2 || !strings.HasPrefix(got[0].Pattern, "`code/old/plan.md` does not exist") || strings.Contains(got[0].Details, "tool_use_error") {
		t.Errorf("read tool's misses: %+v", got)
	}
	s3 := session("s3", "user: write the notes", "assistant: ok",
		"fail: cat notes.md => cat: notes.md: No such file or directory",
		"edit: /repo/notes.md", "bash: cat notes.md")
	var results []Result
	for _, ch := range []*transcript.Channels{s1, s2, s3} {
		results = append(results, Session(ch, Options{}))
	}
	if got := results[2].Missing; len(got) != 0 {
		t.Errorf("a path the session then wrote is not missing: %+v", got)
	}
	obs := Across(results, Options{})
	if len(obs) != 2 {
		t.Fatalf("want one pitfall per session for code/md_for_claude, none for a temporary file, a path missing once or one made later: %+v", obs)
	}
	for i, o := range obs {
		if o.Type != Pitfall || o.SessionID != fmt.Sprint("s", i+1) || o.Extractor != ExtractorStalePath || o.ID != obs[0].ID ||
			o.Pattern != "`code/md_for_claude/` does not exist: earlier sessions looked for it there too; look elsewhere, or mend what names it." {
			t.Errorf("%+v", o)
		}
	}
	if !strings.HasPrefix(obs[0].Details, "area: code/md_for_claude/; issue: `ls code/md_for_claude/` fails with") || !strings.HasSuffix(obs[0].Details, "sessions: 2") {
		t.Errorf("details %q", obs[0].Details)
	}
}

// An error the person ran into and pasted, that the agent's edits made go
// away, is a lesson when the error states a rule; the error's own words
// and what the agent said of the fix are kept.
func TestReportedFailures(t *testing.T) {
	const nextErr = "Error: Route \"/items\" used `searchParams.page`. `searchParams` is a Promise and must be unwrapped with `await` before accessing its properties.\n    at ItemsPage (src/app/items/page.tsx:12:3)"
	tests := []struct {
		name   string
		script []string
		want   []string
	}{
		{"pasted, fixed by an edit", []string{"user: add paging", "edit: /repo/src/app/items/page.tsx", "user: it fails now:\n\n" + nextErr, "edit: /repo/src/app/items/page.tsx", "assistant: Fixed `searchParams` to be awaited in `src/app/items/page.tsx`.", "user: thanks, looks good"},
			[]string{"pitfall: \"Error: Route \"/items\" used `searchParams.page`. `searchParams` is a Promise and must be unwrapped with…\" (the person's run): fixed by changing `src/app/items/page.tsx`."}},
		{"a compiler's warning states the rule", []string{"user: build the docs", "user: /repo/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).", "edit: /repo/docfx.json", "assistant: Die Warnung entsteht, weil DocFX `LICENSE` nicht im Docset kennt."},
			[]string{"pitfall: \"<worktree>/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).\" (the person's run): fixed by changing `docfx.json`."}},
		{"the same error pasted again: not fixed", []string{"user: add paging", "user: " + nextErr, "edit: /repo/src/app/items/page.tsx", "assistant: Fixed.", "user: still: " + nextErr},
			nil},
		{"words about an error name none", []string{"user: add paging", "user: I get an error that says the page must reload when I save, fix it", "edit: /repo/src/app/items/page.tsx", "assistant: Fixed."},
			nil},
		{"the code being written is not done: the work", []string{"user: add the settings window", "user: Traceback (most recent call last):\n  File \"app/settings.py\", line 3, in <module>\nAttributeError: 'MainWindow' object has no attribute 'on_row_selected'", "edit: /repo/app/settings.py", "assistant: Added the handler."},
			nil},
		{"explained, nothing changed", []string{"user: add paging", "user: " + nextErr, "assistant: That error means the page reads searchParams synchronously."},
			nil},
		// The runtime a traceback's frames name is the lesson's half: the
		// same code runs on another version.
		{"the Python its frames ran on", []string{"user: start the server", "user: Traceback (most recent call last):\n  File \"C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python38\\lib\\threading.py\", line 932, in _bootstrap_inner\n  File \"app/fees.py\", line 3, in <module>\nTypeError: unsupported operand type(s) for |: 'type' and 'NoneType'", "edit: /repo/app/fees.py", "assistant: Fixed."},
			[]string{"pitfall: \"TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'\" (the person's run, Python 3.8): fixed by changing `app/fees.py`."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lessonsOf(session("s", tt.script...)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
	obs := Session(session("s", "user: build the docs", "user: /repo/README.md(46,1): warning InvalidFileLink: Invalid file link:(~/LICENSE).", "edit: /repo/docfx.json", "assistant: Die Warnung entsteht, weil DocFX `LICENSE` nicht im Docset kennt."), Options{}).Observations
	if len(obs) != 1 || !strings.Contains(obs[0].Details, "fix: Die Warnung entsteht, weil DocFX") || obs[0].Class != ClassFailureFix {
		t.Errorf("the agent's word for why is not kept: %+v", obs)
	}
}

// A call the harness refused, with what to do instead, is a rule of the
// harness; its other complaints about how a tool was used are not.
func TestHarnessRefusals(t *testing.T) {
	const sleepBlocked = "<tool_use_error>Blocked: sleep 30 followed by: tail -40 /tmp/job.output. To wait for a condition, use Monitor with an until-loop (e.g. `until <check>; do sleep 2; done`). To wait for a command you started, use run_in_background: true.</tool_use_error>"
	tests := []scripted{
		{"refused, with what to do instead", []string{"user: wait for the job", "fail: sleep 30 && tail -40 /tmp/job.output => " + sleepBlocked},
			[]string{"pitfall: Claude Code blocks this `sleep` call: To wait for a condition, use Monitor with an until-loop (e.g. `until <check>; do sleep 2; done`). To wait for a command you started, use run_in_background: true."}},
		{"refused, nothing said of what instead", []string{"user: clean", "fail: rm -rf / => <tool_use_error>Blocked: rm -rf /</tool_use_error>"},
			nil},
		{"how a tool was used is no rule", []string{"user: fix it", "fail: echo x > a.go => <tool_use_error>String to replace not found in file.</tool_use_error>"},
			nil},
		// Writing a file the session has not read is one lesson, whatever
		// the file; a shell command's words that say so are not the edit
		// tool's refusal.
		{"an edit of a file not read", []string{"user: fix it", "failedit: /repo/devlog.md => <tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", "read: /repo/devlog.md"},
			[]string{"pitfall: Claude Code refuses to write or edit a file the session has not read (\"File has not been read yet\"): Read the file first, then change it."}},
		{"said by a command, not the edit tool", []string{"user: fix it", "fail: echo x > a.go => File has not been read yet"},
			nil},
		{"a folder outside the session's", []string{"user: how long are the clips", "fail: cd ~/.dvr/extracts && ls -1t *.mp4 => ERROR: cd to '/home/dev/dvr/~/.dvr/extracts' was blocked. For security, Claude Code may only change directories to child directories of the original working directory (/home/dev/dvr) for this session."},
			[]string{"pitfall: Claude Code blocks `cd` into a folder outside the session's working folders: run it from the session's folder with absolute paths, without cd."}},
		// Gemini CLI's file tools refuse a path outside the workspace: one
		// lesson whatever the path, in either wording.
		{"a file tool refused a path outside the workspace", []string{"user: read the bot's log", "failread: /tmp/pi_bot.log => Path not in workspace: Attempted path \"/tmp/pi_bot.log\" resolves outside the allowed workspace directories: /home/dev or the project temp directory: /home/dev/.gemini/tmp/dev"},
			[]string{"pitfall: Gemini CLI's file tools refuse a path outside the workspace: keep what the work needs inside the workspace (copy it in), or read a file outside it with a shell command (`cat`, `tail`)."}},
		{"a search refused a folder outside the tool's root", []string{"user: find the texts", "failread: /mnt/ssd2/export => Error: Invalid parameters provided. Reason: Search path (\"/mnt/ssd2/export\") resolves outside the tool's root directory (\"/mnt/ssd2/two\")."},
			[]string{"pitfall: Gemini CLI's file tools refuse a path outside the workspace: keep what the work needs inside the workspace (copy it in), or read a file outside it with a shell command (`cat`, `tail`)."}},
	}
	checkLessons(t, tests)
}

// The person's answer to the agent's questions about the work, told at
// length, is how things are here; a short choice, or a question back, is
// not.
func TestAnswered(t *testing.T) {
	const asked = "assistant: Before I draft the plan: which platforms must it run on? And where does the data come from?"
	tests := []scripted{
		{"answered at length", []string{"user: plan the importer", asked, "user: It runs on Windows first and Linux later, and the data comes from the Jira export the project lead sends every Monday."},
			[]string{"procedural: It runs on Windows first and Linux later, and the data comes from the Jira export the project lead sends every Monday."}},
		{"a short choice", []string{"user: plan the importer", asked, "user: Windows, and the Jira export."},
			nil},
		{"a question back", []string{"user: plan the importer", asked, "user: It runs on Windows first and Linux later, but what would you suggest for the data source then?"},
			nil},
		{"one question is no interview", []string{"user: plan the importer", "assistant: Shall I start with the parser?", "user: It runs on Windows first and Linux later, and the data comes from the Jira export the project lead sends every Monday."},
			nil},
		{"a rule word in a long answer", []string{"user: plan the importer", asked, "user: It runs on Windows first and Linux later. Never touch the production export. The data comes from the Jira export the project lead sends every Monday, and it is kept on the shared drive."},
			[]string{"procedural: Never touch the production export.", "procedural: It runs on Windows first and Linux later. Never touch the production export. The data comes from the Jira export the project lead sends every Monday, and it is kept on the shared drive."}},
		{"point by point, to one question", []string{"user: audit the laptop", "assistant: 1. Defender is off. 2. Passwords are weak. Anything to add?",
			"user: 1. we use Bitdefender, not Defender (is there a cli for it?) 2. I sign in with a FIDO2 key, so there is no password to weaken"},
			[]string{"procedural: 1. we use Bitdefender, not Defender (is there a cli for it?) 2. I sign in with a FIDO2 key, so there is no password to weaken."}},
	}
	checkLessons(t, tests)
}

// A lesson told at length keeps a headline for its pattern and the whole
// of it in its details: the tools of a job, cut at the pattern's length,
// would lose the ones named last.
func TestLongLessonKeptWhole(t *testing.T) {
	const asked = "assistant: Before I draft the plan: which tools do you use every day? And where do the reports go?"
	answer := "I design and run the tests in Squash, the campaigns and the requirements too, and Jira holds every ticket for the evolutions, the anomalies and the fixes with their comments. " +
		"The team talks in Teams, the daily reports go out by Outlook to the pilot, the workloads are in Excel and SharePoint keeps the documentation and the evidence."
	obs := Session(session("s", "user: plan the tool", asked, "user: "+answer), Options{}).Observations
	if len(obs) != 1 {
		t.Fatalf("observations %+v", obs)
	}
	o := obs[0]
	if !strings.HasSuffix(o.Pattern, "…") || len([]rune(o.Pattern)) > maxPattern {
		t.Errorf("the pattern is not the headline: %q", o.Pattern)
	}
	if !strings.Contains(o.Details, "SharePoint keeps the documentation and the evidence.") {
		t.Errorf("the details lost the lesson's end: %q", o.Details)
	}
}

// A script the project does not define is the moment of that script only,
// not of every run of its package manager.
func TestNoSuchScriptArea(t *testing.T) {
	obs := Session(session("s", "user: test it", "assistant: ok", "fail: yarn test:web --grep x => Usage Error: Couldn't find a script named \"test:web\".", "bash: ls"), Options{}).Observations
	if len(obs) != 1 || !strings.Contains(obs[0].Details, "area: yarn test:web;") {
		t.Fatalf("observations %+v", obs)
	}
}

// scripted is a session written as a script, and the lessons it gives.
type scripted struct {
	name   string
	script []string
	want   []string
}

// checkLessons plays each script as a session and compares its lessons.
func checkLessons(t *testing.T, tests []scripted) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lessonsOf(session("s", tt.script...)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A lesson said in the second of two sentences keeps what the first says
// it is about; a question before it, or a longer turn, adds nothing.
func TestLessonKeepsItsObject(t *testing.T) {
	checkLessons(t, []scripted{
		{"object before", []string{"user: add the schemas", "assistant: I created roles.ts and users.ts.",
			"user: Better-auth already gives you the users and roles tables. Don't create separate schemas for them.", "assistant: Removing them."},
			[]string{"procedural: Better-auth already gives you the users and roles tables. Don't create separate schemas for them."}},
		{"a question before", []string{"user: add the schemas", "assistant: I created roles.ts and users.ts.",
			"user: Why did you make two files? Don't create separate schemas for them.", "assistant: Removing them."},
			[]string{"procedural: Don't create separate schemas for them."}},
	})
}

// What carries a command elsewhere can fail itself ("ssh: Could not
// resolve hostname"), after the agent's own shell had to retry a fork: the
// lesson is the carrier's. A pause before a command is not the command.
func TestCarrierAndShellNoise(t *testing.T) {
	const forked = "Exit code 255\n      0 [main] bash (33480) child_copy: cygheap read copy failed, 0x0..0x800021730, done 0, windows pid 33480, Win32 error 299\n      0 [main] bash 738 dofork: child -1 - forked process 33480 died unexpectedly, retry 0\n/usr/bin/bash: fork: retry: Resource temporarily unavailable\n"
	const lock = "Exit code 255\nCollected errors:\n * opkg_conf_load: Could not lock /var/lock/opkg.lock: Resource temporarily unavailable."
	checkLessons(t, []scripted{
		{"the carrier failed", []string{"user: check the router",
			"fail: ssh root@10.0.0.1:2222 \"free -m\" => " + forked + "ssh: Could not resolve hostname 10.0.0.1:2222: Name or service not known",
			"bash: ssh root@10.0.0.1 \"free -m\""},
			[]string{"pitfall: `ssh` fails with \"ssh: Could not resolve hostname 10.0.0.1:2222: Name or service not known\": use `root@10.0.0.1` instead of `root@10.0.0.1:2222`."}},
		{"only the shell's own trouble", []string{"user: check the router",
			"fail: ssh root@10.0.0.1:2222 \"free -m\" => " + forked,
			"bash: ssh root@10.0.0.1 \"free -m\""},
			nil},
		{"a pause, then another error", []string{"user: remove the vpn",
			"fail: ssh root@10.0.0.1 \"opkg remove kmod-ovpn\" => " + lock,
			"fail: ssh root@10.0.0.1 \"sleep 3 && opkg remove kmod-ovpn\" => Exit code 255\nCollected errors:\n * print_dependents_warning: Package kmod-ovpn is depended upon by packages:\n * print_dependents_warning: \topenvpn-openssl",
			"bash: ssh root@10.0.0.1 \"opkg remove openvpn-openssl kmod-ovpn\""},
			[]string{
				"pitfall: `ssh opkg remove` fails with \"Collected errors: * opkg_conf_load: Could not lock /var/lock/opkg.lock: Resource temporarily…\" while another run holds it: wait a moment and run it again.",
				"pitfall: `ssh opkg remove` fails with \"Collected errors: * print_dependents_warning: Package kmod-ovpn is depended upon by packages:\": add `openvpn-openssl`.",
			}},
	})
}

// A write through the shell that failed, made at once with the edit tool:
// the lesson is to use the tool for that file. A failing test then edited
// is the work. PowerShell's "where in the line" is not the error, in any
// of its languages.
func TestEditedInstead(t *testing.T) {
	const patch = "fail: powershell.exe -NoProfile -Command ApplyPatch << 'PATCH'\n*** Begin Patch\n*** Update File: backend/src/config/settings.py\n@@\n-x\n+y\n*** End Patch\nPATCH => In Zeile:1 Zeichen:13\n+ ApplyPatch << 'PATCH'\n+             ~\nDateispezifikation nach dem Umleitungsoperator fehlt."
	checkLessons(t, []scripted{
		{"a patch through the shell", []string{"user: add the app", patch, "edit: backend/src/config/settings.py"},
			[]string{"pitfall: `applypatch` fails with \"Dateispezifikation nach dem Umleitungsoperator fehlt.\" here: change `backend/src/config/settings.py` with the edit tool, not through the shell."}},
		{"a failing test, then the code", []string{"user: fix it", "fail: pytest tests/test_total.py => FAILED tests/test_total.py::test_sum - assert 3 == 4", "edit: tests/test_total.py"},
			nil},
	})
}

// The same command that failed passes once another shell runs it, or
// once it runs bare: what ran it is the lesson. The same command passing
// through the same shell again is no lesson.
func TestThroughAnotherShell(t *testing.T) {
	checkLessons(t, []scripted{
		{"through powershell", []string{"user: open the guide",
			`fail: code "C:\Users\m\guide.md" => Exit code 127` + "\n/c/Program Files/Microsoft VS Code/bin/code: line 61: ./Code.exe: No such file or directory",
			`bash: powershell 'code C:\Users\m\guide.md'`},
			[]string{"pitfall: `code` fails with \"/c/Program Files/Microsoft VS Code/bin/code: line <n>: ./Code.exe: No such file or directory\": run it through `powershell`."}},
		{"directly", []string{"user: list the adapters",
			`fail: cmd /c "netsh interface show interface" => Exit code 1` + "\nThe syntax of the command is incorrect.",
			"bash: netsh interface show interface"},
			[]string{"pitfall: `netsh` fails with \"The syntax of the command is incorrect.\" through `cmd`: run it directly."}},
		{"the same shell again", []string{"user: open the guide",
			`fail: powershell "code C:\Users\m\guide.md" => Exit code 1` + "\ncode: The term 'code' is not recognized",
			`bash: powershell 'code C:\Users\m\guide.md'`},
			nil},
	})
}

// sudo with no terminal to ask for the password on: one lesson however
// many commands it stopped, in any language sudo speaks, served before
// the next sudo. A sudo that fails for another reason is not it.
func TestSudoWithoutTerminal(t *testing.T) {
	const en = "Exit code 1\nsudo: a terminal is required to read the password; either use the -S option to read from standard input or configure an askpass helper"
	const ru = "sudo: для ввода пароля требуется терминал; добавьте параметр -S, чтобы прочитать пароль из стандартного ввода, либо используйте вспомогательную программу"
	checkLessons(t, []scripted{
		{"two commands, one lesson", []string{"user: make the fan faster",
			"fail: sudo legion_cli maximumfanspeed-enable => " + en,
			"fail: sudo cat /sys/class/power/energy => " + en},
			[]string{"pitfall: `sudo` cannot ask for a password in the agent's shell, which has no terminal: ask the person to run what needs it (it fails with \"sudo: a terminal is required to read the password; either…\")."}},
		{"in Russian", []string{"user: поставь pip", "fail: sudo pacman -S --noconfirm python-pip => " + ru},
			[]string{"pitfall: `sudo` cannot ask for a password in the agent's shell, which has no terminal: ask the person to run what needs it (it fails with \"sudo: для ввода пароля требуется терминал; добавьте…\")."}},
		{"after a fingerprint reader's prompt", []string{"user: add the bridge",
			"fail: sudo ip link add br0 type bridge && sudo ip link set br0 up => Exit code 1\nPlace your right index finger on the fingerprint reader\nVerification timed out\nsudo: a terminal is required to read the password; either use the -S option"},
			[]string{"pitfall: `sudo` cannot ask for a password in the agent's shell, which has no terminal: ask the person to run what needs it (it fails with \"sudo: a terminal is required to read the password; either…\")."}},
		{"another failure", []string{"user: install it", "fail: sudo pacman -S nothere => error: target not found: nothere"},
			nil},
	})
}

// git that would have asked for a username or password fails in the
// agent's shell whatever the remote: one lesson, named by the link that
// reached the remote, a push chained after a commit included. Refused for
// another reason, it is no such lesson.
func TestCredentialPrompt(t *testing.T) {
	const lesson = "pitfall: `git push` cannot ask for a username or password in the agent's shell, which has no terminal: give it a token or a credential helper (`gh auth setup-git` for GitHub), or ask the person to run it."
	checkLessons(t, []scripted{
		{"push", []string{"user: push it", "fail: git push origin main => fatal: could not read Username for 'https://github.com': No such device or address"},
			[]string{lesson}},
		{"chained after a commit", []string{"user: commit and push", "fail: git add -A && git commit -m \"$(cat <<'EOF'\nFix the toast\nEOF\n)\" && git push => fatal: could not read Username for 'https://gogs.example.org': No such device or address"},
			[]string{lesson}},
		{"prompts turned off", []string{"user: push it", "fail: git push => fatal: could not read Password for 'https://me@github.com': terminal prompts disabled"},
			[]string{lesson}},
		{"rejected", []string{"user: push it", "fail: git push => ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'https://github.com/me/x.git'"},
			nil},
	})
}

// A server started in the foreground holds the shell until the tool's
// time limit: the lesson is to start it in the background, whatever came
// next. Told by what it printed or by its name; a build that ran out of
// time is no server; of a chain, the step that held it is the last.
func TestHeldShell(t *testing.T) {
	checkLessons(t, []scripted{
		{"printed that it serves", []string{"user: show me the app",
			"fail: http-server ./app -p 8080 => Command timed out after 2m 0.0s\nStarting up http-server, serving ./app\nAvailable on:\n  http://127.0.0.1:8080"},
			[]string{"pitfall: `http-server` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)."}},
		{"named a server", []string{"user: show me the page", "fail: python3 -m http.server 8000 => Command timed out after 5s"},
			[]string{"pitfall: `python -m http.server` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)."}},
		{"a build", []string{"user: deploy it", "fail: ./deploy.sh v2 => Command timed out after 5m 0.0s\n#0 building with \"default\" instance using docker driver"},
			nil},
		// What ran before it in the chain returned: the server is the
		// last step, not the first.
		{"chained after chmod", []string{"user: start everything", "fail: chmod +x start-claude.sh && ./start-claude.sh => Command timed out after 2m 0.0s\nServer running on http://localhost:3000"},
			[]string{"pitfall: `start-claude.sh` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)."}},
	})
}

// "You must" in the tables' languages is a rule, as it is in English,
// after the agent did something; said of oneself or asked, it is none.
func TestYouMust(t *testing.T) {
	checkSaid(t, []string{"user: fix the build", "bash: make", "assistant: Done."}, "Sure.", []said{
		{"飞天你应该参考这个文件的写法", []string{"procedural: 飞天你应该参考这个文件的写法。"}},
		{"du musst die Tests vor dem Commit laufen lassen", []string{"procedural: Du musst die Tests vor dem Commit laufen lassen."}},
		{"tu dois lancer les tests avant de committer", []string{"procedural: Tu dois lancer les tests avant de committer."}},
		{"ты должен сначала читать документацию", []string{"procedural: Ты должен сначала читать документацию."}},
		{"você deve rodar os testes antes do commit", []string{"procedural: Você deve rodar os testes antes do commit."}},
		{"est-ce que tu dois relancer le serveur ?", nil},
	})
}

// A short answer naming a path, to the agent asking where something is,
// is where that thing is: the lesson quotes the question it answers (the
// one asking where, of those closing the message). A file's name alone,
// a word with a slash, a question back and a long answer are not it.
func TestAnsweredWhere(t *testing.T) {
	const asked = "assistant: The current directory is not a git repository. 1. Which repository do you want to sync? (the path or its name) 2. Pull, push, or both?"
	checkLessons(t, []scripted{
		{"a path", []string{"user: sync the notes", asked, "user: 1. /Users/m/Documents/notes 2. both ways"},
			[]string{"pitfall: Asked \"Which repository do you want to sync?\", the person answered: 1. ~/Documents/notes 2. both ways."}},
		{"in French", []string{"user: valide le PRD", "assistant: J'ai trouvé deux fichiers. Quel PRD veux-tu valider ?", "user: _bmad-output/planning-artifacts/prd.md"},
			[]string{"pitfall: Asked \"Quel PRD veux-tu valider?\", the person answered: _bmad-output/planning-artifacts/prd.md."}},
		{"an address", []string{"user: log in to the router", "assistant: The hostname slate did not resolve. Could you give me the IP address of your GL.iNet Slate router?", "user: try 192.168.8.1"},
			[]string{"procedural: Asked \"Could you give me the IP address of your GL.iNet Slate router?\", the person answered: try 192.168.8.1."}},
		{"a version", []string{"user: pin it", "assistant: Which release should I pin?", "user: 2.1.0.4"}, nil},
		{"a file's name", []string{"user: fix the style", "assistant: Which file holds the theme?", "user: theme.css"}, nil},
		{"a slash in a word", []string{"user: pick a plan", "assistant: Which would you prefer?", "user: 4 w/ model, context"}, nil},
		{"a question back", []string{"user: sync the notes", asked, "user: is it /Users/m/Documents/notes?"}, nil},
		// A question mark inside code asks nothing: the answer is a request.
		{"a question mark in code", []string{"user: add the filters", "assistant: Done. Reload the status views (with `?status=open` and `?page=2`) to check.",
			"user: apps/web/src/components/DataTable.jsx 의 모든 컬럼을 필터 가능하게 바꿔줘"}, nil},
		{"code in the question", []string{"user: load the settings", "assistant: I could not find it. Where is `config.yaml`?", "user: deploy/conf/app/config.yaml"},
			[]string{"pitfall: Asked \"Where is `config.yaml`?\", the person answered: deploy/conf/app/config.yaml."}},
	})
}

// A PowerShell script in double quotes whose variables the calling shell
// expanded first: one lesson, whatever the script. The same error with
// the variable still in it, or a script in single quotes, is not it.
func TestExpandedByCaller(t *testing.T) {
	const lesson = "pitfall: `$` inside a double-quoted `powershell -Command \"…\"` is expanded by the shell running it before PowerShell reads it: put the PowerShell command in single quotes."
	checkLessons(t, []scripted{
		{"expanded", []string{"user: which services run?",
			`fail: powershell.exe -Command "Get-Service | Where-Object {$_.Status -eq 'Running'}" => Exit code 1` + "\nWhere-Object : The term 'extglob.Status' is not recognized as the name of a cmdlet, function, script file, or operable program."},
			[]string{lesson}},
		{"the variable reached PowerShell", []string{"user: which services run?",
			`fail: powershell.exe -Command "Get-Service | Where-Object {$_.Sttus -eq 'Running'}" => Exit code 1` + "\nThe property 'Sttus' cannot be found on this object: $_.Sttus"},
			nil},
		{"single quotes", []string{"user: which services run?",
			`fail: powershell.exe -Command 'Get-Service | Where-Object {$_.Status -eq "Running"}' => Exit code 1` + "\nWhere-Object : The term 'x.Status' is not recognized as the name of a cmdlet."},
			nil},
	})
}

// In a long turn the agent owned up to, what it admitted names the point:
// the sentences it speaks of are the lesson, the rest of the brief is not.
// A reply that only acknowledges, or names nothing of the turn, keeps
// nothing.
func TestLongTurnPointedByAdmission(t *testing.T) {
	brief := "Before the release we need to tidy the client. The retry settings are defined in config.go and again in client.go, so they drift apart. " +
		"Keep them in one place and read them from there. The README also needs a section on proxies. Then run the whole test suite."
	admitted := lessonsOf(session("s", "user: go", "assistant: Here is the plan.", "user: "+brief,
		"assistant: You're right — the retry settings were defined twice, in config.go and in client.go. I'll keep them in config.go."))
	if len(admitted) != 1 || !strings.Contains(admitted[0], "The retry settings are defined in config.go and again in client.go") || strings.Contains(admitted[0], "README") {
		t.Errorf("owned up to one point of a long brief: %q", admitted)
	}
	for _, reply := range []string{
		"Good point. Let me look at the client first.",
		"You're right, sorry about that. I'll get on with it.",
	} {
		if got := lessonsOf(session("s", "user: go", "assistant: Here is the plan.", "user: "+brief, "assistant: "+reply)); len(got) != 0 {
			t.Errorf("reply %q: got %q, want nothing", reply, got)
		}
	}
	ru := "Сначала посмотри на сборку. Логи сервера пишутся в /var/log/app. Потом проверь тесты. Ещё обнови README. Потом сделай коммит."
	got := lessonsOf(session("s", "user: go", "assistant: Вот план.", "user: "+ru,
		"assistant: Вы правы, я искал логи сервера в папке проекта, а они пишутся в /var/log/app."))
	if len(got) != 1 || !strings.Contains(got[0], "/var/log/app") || strings.Contains(got[0], "README") {
		t.Errorf("ru: %q", got)
	}
}

// A file read again at once with an encoding named was garbled the first
// time: the lesson is the setting, for every later read by that program.
func TestRereadWithEncoding(t *testing.T) {
	tests := []struct {
		name   string
		script []string
		want   []string
	}{
		{"read again with -Encoding", []string{"user: look", "assistant: ok",
			"bash: Get-Content -Path 'Script\\Lin\\MonsSpawMgr.lua' -TotalCount 120",
			"bash: Get-Content -Path 'Script\\Lin\\MonsSpawMgr.lua' -Encoding UTF8 -TotalCount 80"},
			[]string{"pitfall: `Get-Content` here does not read files as UTF-8 unless told: add `-Encoding UTF8`."}},
		{"through a shell, the setting in the step's own words", []string{"user: look", "assistant: ok",
			"bash: powershell.exe -NoProfile -Command Get-Content .specify/memory/constitution.md",
			"bash: powershell.exe -NoProfile -Command Get-Content .specify/memory/constitution.md -Encoding utf8"},
			[]string{"pitfall: `Get-Content` here does not read files as UTF-8 unless told: add `-Encoding utf8`."}},
		{"a setting of another link is not the read's", []string{"user: look", "assistant: ok",
			"bash: rg -l X api/a.json", "bash: rg -l X api/a.json; Set-Content -Encoding UTF8 out/b.txt x"}, nil},
		{"not a read: nothing was printed", []string{"user: build", "assistant: ok",
			"bash: Add-Type -AssemblyName System.Net.Http", "bash: Add-Type -AssemblyName System.Net.Http; Out-File -Encoding UTF8 log.txt"}, nil},
		{"another file read with the setting", []string{"user: look", "assistant: ok",
			"bash: Get-Content a/one.md", "bash: Get-Content -Encoding UTF8 a/two.md"}, nil},
		{"the person spoke between", []string{"user: look", "assistant: ok",
			"bash: Get-Content a/one.md", "user: it is garbled", "assistant: ok", "bash: Get-Content -Encoding UTF8 a/one.md"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lessonsOf(session("s", tt.script...)); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// The runtime an error ran on, from what its output names.
func TestRuntimeIn(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`File "C:Program FilesWindowsAppsPythonSoftwareFoundation.Python.3.8_3.8.2800.0_x64libthreading.py", line 932`, "Python 3.8"},
		{`File "/usr/lib/python3.11/site-packages/x.py", line 3`, "Python 3.11"},
		{`File "C:\Users\a\AppData\Local\Programs\Python\Python310\lib\x.py"`, "Python 3.10"},
		{"TypeError: x is not a function\n\nNode.js v18.17.0", "Node.js 18"},
		{"python 3 is great", ""},
		{"TypeError: unsupported operand type(s)", ""},
	} {
		if got := runtimeIn(c.in); got != c.want {
			t.Errorf("runtimeIn(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Portuguese "no" is "in the": a sentence that opens with it names where
// the rule holds, and no Spanish or English refusal.
func TestPortugueseNoIsInThe(t *testing.T) {
	checkAfterPlan(t, []said{
		{"No checkout, os pedidos e orçamentos devem ser enviados juntos.", []string{"procedural: No checkout, os pedidos e orçamentos devem ser enviados juntos."}},
		{"No login, os botões devem ser azuis.", []string{"procedural: No login, os botões devem ser azuis."}},
		// The refusals read as before.
		{"No, los botones deben ser azules.", nil},
		{"Não, os botões devem ser azuis.", nil},
	})
}

func TestOtherFolder(t *testing.T) {
	for _, c := range []struct {
		name, failed, passed, cwd, err string
		want                           bool
	}{
		{"on a server", "ssh prod 'cd shop-api && npm run logs'", "ssh prod 'cd apps/shop-api && npm run logs'", "/repo",
			"bash: line 1: cd: shop-api: No such file or directory", true},
		{"from the root, elsewhere", "cd /home/ana/shop && git status", "cd /home/ana/work/shop && git status", "/repo",
			"bash: cd: /home/ana/shop: No such file or directory", true},
		// Git Bash writes C:\Users\ana\proj as /c/Users/ana/proj: inside
		// the current folder all the same.
		{"a Git Bash path inside the current folder", "cd /c/Users/ana/proj/shop && git status", "cd /c/Users/ana/proj && git status --short", `C:\Users\ana\proj`,
			"bash: cd: /c/Users/ana/proj/shop: No such file or directory", false},
		{"then a relative folder", "cd /home/ana/shop && git status", "cd shop && git status", "/repo",
			"bash: cd: /home/ana/shop: No such file or directory", false},
		// Two servers: not the same place.
		{"on two servers", "ssh prod 'cd shop-api && npm run logs'", "ssh staging 'cd apps/shop-api && npm run logs'", "/repo",
			"bash: line 1: cd: shop-api: No such file or directory", false},
		{"on one server, its options before", "ssh -p 2222 prod 'cd shop-api && npm run logs'", "ssh prod 'cd apps/shop-api && npm run logs'", "/repo",
			"bash: line 1: cd: shop-api: No such file or directory", true},
		// A folder on a server, then one on this machine: not the same place.
		{"on a server, then here", "ssh prod 'cd /srv/shop && npm run logs'", "cd /srv/app/shop && npm run logs", "/repo",
			"bash: line 1: cd: /srv/shop: No such file or directory", false},
		{"PowerShell's Set-Location", "Set-Location C:/work/shop; git status", "Set-Location C:/clients/shop; git status", "/repo",
			"Set-Location : Cannot find path 'C:\\work\\shop' because it does not exist.", true},
		{"another error than a missing folder", "cd /home/ana/shop && git status", "cd /home/ana/work/shop && git status", "/repo",
			"fatal: not a git repository (or any of the parent directories): .git", false},
	} {
		if _, _, got := otherFolder(c.failed, c.passed, c.cwd, c.err); got != c.want {
			t.Errorf("%s: otherFolder = %v, want %v", c.name, got, c.want)
		}
	}
}
