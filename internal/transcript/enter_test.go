package transcript

import (
	"encoding/json"
	"strings"
	"testing"
)

// A secret in any channel is redacted where the text enters: every text a
// walk hands out, before anything downstream reads it.
func TestRedactedWhereTextEnters(t *testing.T) {
	const secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	ch := read(t,
		user("u1", "use this token "+secret+" for the API"),
		assistant("a1", text("I'll export GITHUB_TOKEN="+secret+" first."),
			toolUse("t1", "Bash", map[string]any{"command": "curl -H 'Authorization: token " + secret + "' https://api.github.com"}),
			toolUse("t2", "Edit", map[string]any{"file_path": "/repo/" + secret + "/x.go"}),
			toolUse("t3", "Bash", map[string]any{"command": "git push"})),
		user("u2", toolResult("t1", "curl: (22) 401 for token "+secret, true)),
		user("u3", toolResult("t2", "ok", false)),
		user("u4", toolResult("t3", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  never push "+secret, true)),
		line("type", "summary", "summary", "Session about "+secret, "leafUuid", "a1"),
	)
	data, err := json.Marshal(ch)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || strings.Contains(string(data), secret[:20]) {
		t.Fatalf("the secret reached the channels: %s", data)
	}
	if n := strings.Count(string(data), "[REDACTED:"); n < 7 {
		t.Errorf("%d placeholders, want one in each of the 7 texts: %s", n, data)
	}
	// Verbatim keeps the text, for a caller that redacts what it keeps.
	raw, err := Read(strings.NewReader(user("u1", "token "+secret)), "t", Options{Redact: Verbatim})
	if err != nil || !strings.Contains(raw.UserSignals[0].Text, secret) {
		t.Errorf("Verbatim changed the text: %+v %v", raw, err)
	}
}

// A password the person types in answer to the agent's asking for one has
// no name before it; what was asked says what it is.
func TestPasswordAnswerRedacted(t *testing.T) {
	const pw = "West11berg1!"
	ch := read(t,
		user("u1", "set up my user"),
		assistant("a1", text("A few questions: 1. Hostname? 2. What password should the user have?")),
		user("u2", "1. eiros 2. "+pw+" 3. 12 hour clock"),
		assistant("a2", text("Done.")),
		user("u3", "my old one was "+pw+" too"), // not asked for: a word like any other
	)
	if got := ch.UserSignals[1].Text; strings.Contains(got, pw) || !strings.Contains(got, "1. eiros 2. [REDACTED:password-answer] 3. 12 hour clock") {
		t.Errorf("the answer: %q", got)
	}
	if got := ch.UserSignals[2].Text; !strings.Contains(got, pw) {
		t.Errorf("a reply to no such question: %q", got)
	}
	raw, err := Read(strings.NewReader(strings.Join([]string{user("u1", "x"), assistant("a1", text("Which password?")), user("u2", pw)}, "\n")), "t", Options{Redact: Verbatim})
	if err != nil || raw.UserSignals[1].Text != pw {
		t.Errorf("Verbatim changed the answer: %+v %v", raw.UserSignals, err)
	}
}

func TestOwnWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"never use npm here", "never use npm here"},
		{"Why does this fail?\n```go\n// Never call Close twice\nfunc f() {}\n```\nuse sync.Once", "Why does this fail?\n\nuse sync.Once"},
		{"Now this one:\n    --- FAIL: TestFlush (0.00s)\n        writer_test.go:40: don't use a nil buffer\n    FAIL", "Now this one:"},
		{"> Always check the error from Flush.\nthat's from the docs btw", "that's from the docs btw"},
		{"logs:\n[ERROR] never retry\n2026-03-01 10:00:00 WARN stop\nplease look", "logs:\n\nplease look"},
		{"- don't touch vendor/\n- always run make fmt", "- don't touch vendor/\n- always run make fmt"},
		{"部署失败了：\n```\n[ERROR] 不要在生产环境使用 debug 模式\n```\n帮我看看", "部署失败了：\n\n帮我看看"},
		// A document's elements, a table and a chat assistant's answer
		// pasted in are theirs, not the person's.
		{"read the docs:\n<ParamField type=\"string\">\n  Sender email address.\n\n  To include a friendly name, use the format `Name <a@b>`.\n</ParamField>\nuse resend", "read the docs:\n\nuse resend"},
		{"see:\n| value | result |\n| --- | --- |\n| `/?name=2` | Always returns a string |\nok?", "see:\n\nok?"},
		{"GPT says:\n2️⃣ 점수 대신 상태 중심 문구로 바꾸기\n✅ 3️⃣ 반드시 수정해야 할 것\n🔟 Always add tests\nwhat do you think", "GPT says:\n\nwhat do you think"},
		{"✅ done\n🔥 keep the cache warm", "✅ done\n🔥 keep the cache warm"},
		// A line wrapped by an agent's input box, copied out of it.
		{"after it is built, open a pull                 │\n│   request and review it. Then go on", "after it is built, open a pull request and review it. Then go on"},
		{"a │\n│ b │\n│ c\nd", "a b c\nd"},
		{"Shell run │\n│          │\n│ (python:2689): Adwaita-WARNING **: 01:58:13.938: Using │\n│ X is unsupported. │\nfix it", "Shell run │\n│          │\n\nfix it"},
		{"keep <b>bold</b> here\nuse <br> for breaks", "keep <b>bold</b> here\nuse <br> for breaks"},
	} {
		if got := OwnWords(c.in); got != c.want {
			t.Errorf("OwnWords(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestProtocolErrors(t *testing.T) {
	for _, e := range []string{
		"<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>",
		"<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
		"Claude requested permissions to use Bash, but you haven't granted it yet.",
		"Permission to use Bash with command rm -rf x has been denied.",
		"PreToolUse:Edit hook error: [/usr/local/bin/guard.sh]: No such file or directory",
		"[Request interrupted by user for tool use]",
		"Exit plan mode? The user chose to stay in plan mode.",
		"File content (31245 tokens) exceeds maximum allowed tokens (25000).",
		"Found 5 matches of the string to replace, but expected 1. The number of actual matches must equal the expected replacements.",
	} {
		if !ProtocolError(e) {
			t.Errorf("ProtocolError(%q) = false", e)
		}
	}
	for _, e := range []string{
		"fatal: The current branch x has no upstream branch.",
		"--- FAIL: TestTotal (0.00s)",
		"npm error code EUSAGE",
	} {
		if ProtocolError(e) {
			t.Errorf("ProtocolError(%q) = true", e)
		}
	}
}

// Text Claude Code writes in the person's place is not a signal.
func TestNotThePersonsWords(t *testing.T) {
	ch := read(t,
		user("u1", "This session is being continued from a previous conversation that ran out of context. The user said never use npm."),
		user("u2", "Stop hook feedback:\nalways run go vet"),
		user("u3", "fix the build"),
	)
	if got := texts(ch.UserSignals); len(got) != 1 || got[0] != "fix the build" {
		t.Errorf("signals %q", got)
	}
}

// A pasted terminal is the program speaking, in any language, whatever
// its words ("please use X instead" is its advice, not the person's).
func TestOwnWordsLeaveTerminalsOut(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"it runs but\n\ue0b6 python /home/me/audio.py\n\n(python:31759): Adwaita-WARNING **: 17:31:03.874: Using X is unsupported. Please use AdwStyleManager:color-scheme instead.\n\nAttributeError: 'ListBox' object has no attribute 'foreach'\nwhat now", "it runs but\n\nwhat now"},
		{"info: ghostty version=1.1.3\nwarning(gtk): setting GDK_DEBUG=gl-no-fractional\n--- DEBUG: Raw output ---\nDEBUG: No match in line\nalways read the log first", "always read the log first"},
		{"/home/me/a.py: строка 5: синтаксическая ошибка\nbash: line 3: foo: command not found\nпочини", "почини"},
		{"device.name = \"alsa_card.pci-0000_03_00.1\"\n5u^CTraceback (most recent call last):\nok", "ok"},
		{"me@box:~/src$ npm run build\n❯ make\nnever run make here", "never run make here"},
		{"(base) ➜  tlm_workspace sudo ctr -n k8s.io images ls\nnode ➜ /workspaces/app (main) $ npm run dev\nthe dev server must run on 5173", "the dev server must run on 5173"},
		// bash's default prompt on Fedora, and one that gives the command
		// a line of its own; a Go panic's stack, which is not indented.
		{"[me@box api]$ make test\n[me@box ~/src/api main !2]\n[1]$ go run ./cmd/api\npanic: no config\n\ngoroutine 1 [running]:\nmain.run(0x2009, {0x1, 0x2})\n\t/src/api/main.go:9 +0x1c\npanic({0x1039?, 0x2009?})\nmain.main()\nthe config must come from env", "the config must come from env"},
		{"src/main.goを直して(テストも)\n請修改src/config.json的端口(用8080)\nREADME.mdを更新して(英語で)", "src/main.goを直して(テストも)\n請修改src/config.json的端口(用8080)\nREADME.mdを更新して(英語で)"},
		{"[me@example.com] wrote it\n[Alice@Acme standup] ask about tabs\nuse fmt.Println(x) here\ncall it as run(ctx)", "[me@example.com] wrote it\n[Alice@Acme standup] ask about tabs\nuse fmt.Println(x) here\ncall it as run(ctx)"},
		{"two steps:\nAlice ➜ she always reviews the migrations\nBob ➜ he deploys", "two steps:\nAlice ➜ she always reviews the migrations\nBob ➜ he deploys"},
		{"│ the panel must always show 5 │\nok", "│ the panel must always show 5 │\nok"},
		{"Warning: never deploy on Fridays\n# House rules\nAt 10:00 we sync.", "Warning: never deploy on Fridays\n# House rules\nAt 10:00 we sync."},
		// Claude Code's own screen, pasted: the agent's words and its
		// tool calls; a git server's reply.
		{"⏺ Ran 1 stop hook", ""},
		{"⏺ Bash(npm test)\n  ⎿  Error: never run it twice\nwhy did it stop?", "why did it stop?"},
		{"error: failed to push some refs\nremote: No anonymous write access.\nfix the push", "fix the push"},
		// A browser's console and a compiler open a message with where
		// it was; a person pointing at a line says something of their own.
		{"index-CsW7B3MJ.js:88 Uncaught TypeError: S.price.toFixed is not a function\nfix the price", "fix the price"},
		{"main.go:12:5: error: undefined: foo\nok", "ok"},
		{"ERROR:  42P07: relation \"users\" already exists\nHINT:  Use DROP ... first.\nwhy", "why"},
		{"src/pages/Edit.tsx:12:5 - error TS6133: 'hasRows' is declared but its value is never read.\nsrc/pages/Edit.tsx(1,31): error TS6133: 'useRef' is declared\nclean these up", "clean these up"},
		{"main.go:45 never close the body here", "main.go:45 never close the body here"},
		{"main.go:45 error handling is wrong here", "main.go:45 error handling is wrong here"},
		// A listing's marked line, a build tool's numbered one.
		{"    device.icon-name = \"audio-card\"\n  * device.name = \"alsa_card.pci-0000_03_00.1\"\nwhich one is mine", "which one is mine"},
		{"  10 | FROM alpine\n  11 | # install binaries, these will rarely change\nwhy does this fail", "why does this fail"},
		{"- keep the names short\n- use snake_case", "- keep the names short\n- use snake_case"},
		// A game's strings pasted to be translated: entries keyed by a
		// path, newlines escaped. One key set in a sentence is prose.
		{`\n\nIt's dangerous down there. Advice mostly...[i2t]Levels/Museum/Advisor_Title=Cutting Dredge[i2t]Levels/Museum/Advisor_Text=Great job!\n\nYou'll always remember your first catch.` + "\nпереведи это", "переведи это"},
		{"=== ui/title=Home ui/subtitle=Welcome\nok", "ok"},
		// A server's log of the requests it answered; an endpoint a
		// person names.
		{"the list breaks\n GET /items?page=1 200 in 329ms (compile: 9ms, proxy.ts: 20ms, render: 300ms)\n\"POST /api/login HTTP/1.1\" 401 17\nfix it", "the list breaks\n\nfix it"},
		{"GET /items returns 500 when the page is empty\nGET /items 500 on an empty page, fix src/app/items/page.tsx", "GET /items returns 500 when the page is empty\nGET /items 500 on an empty page, fix src/app/items/page.tsx"},
		{"always set log.level=debug before you run the tests", "always set log.level=debug before you run the tests"},
		{"the key is config/app=prod, never change it", "the key is config/app=prod, never change it"},
	} {
		if got := OwnWords(c.in); got != c.want {
			t.Errorf("OwnWords(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
