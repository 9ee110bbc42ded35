package extract

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// FuzzParseKnowledgeBlocks: any text, no panic; every block returned is
// one the text holds, tags included, with a non-empty mapping.
func FuzzParseKnowledgeBlocks(f *testing.F) {
	for _, s := range []string{
		"[PROCESS_KNOWLEDGE]\nkey: a\n[/PROCESS_KNOWLEDGE]",
		"x\n  [PROCESS_KNOWLEDGE]\n```yaml\nkey: b\ntriggers: {tools: [Edit]}\n```\n[/PROCESS_KNOWLEDGE]",
		"[PROCESS_KNOWLEDGE]\n&a [*a]\n[/PROCESS_KNOWLEDGE]",
		"[PROCESS_KNOWLEDGE][/PROCESS_KNOWLEDGE]",
		"[PROCESS_KNOWLEDGE]\nkey: c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		blocks, errs := ParseKnowledgeBlocks(text, Options{})
		if len(blocks)+len(errs) > maxBlocks {
			t.Fatalf("%d blocks and %d errors", len(blocks), len(errs))
		}
		for _, b := range blocks {
			if !strings.Contains(text, b.Raw) || !strings.HasPrefix(b.Raw, openTag) || !strings.HasSuffix(b.Raw, closeTag) || len(b.Entry) == 0 {
				t.Fatalf("block %+v", b)
			}
		}
	})
}

// FuzzExtractText: any message, from the person or the agent, goes
// through every per-session extractor without a panic, and what comes out
// is well formed.
func FuzzExtractText(f *testing.F) {
	for _, s := range []string{
		"You forgot to update CHANGELOG.md.", "from now on, use pnpm", "```\nremember to x\n```", "nooo", "不对", "违う、そうじゃない",
		"Usa yarn en lugar de npm", "save this in your memory", "I think we should lint every push",
		"\"you missed it\" — `don't forget` “going forward,”", "Lesson learned: x y z", "you didn't run tests?",
		"> you broke it\n    // remember to\nwhy didn't you add `a/b.go`",
		"いやコミットして push までやってくれ", "status는 네가지 상태만 존재한다.", "I'm on Ubuntu 22.04. I'm not headless.",
		"Traceback:\n  File \"/usr/lib/python3.8/x.py\"\nTypeError: unsupported operand type(s) for |",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sig := transcript.UserSignal{Meta: transcript.Meta{UUID: "u", SessionID: "s", Line: 2}, Text: text, Own: transcript.OwnWords(text), Cwd: "/repo"}
		ch := &transcript.Channels{
			UserSignals: []transcript.UserSignal{sig},
			DialogPairs: []transcript.DialogPair{{Assistant: text, AssistantUUID: "a", SessionID: "s", FromLine: 1, Reply: &sig}},
			Tools: []transcript.ToolCall{
				{Meta: transcript.Meta{UUID: "t", SessionID: "s", Line: 3}, Name: "Edit", Paths: []string{"/repo/" + text}, Cwd: "/repo", IsError: true, HasResult: true, Error: text},
				{Meta: transcript.Meta{UUID: "b", SessionID: "s", Line: 4}, Name: "Bash", Command: text, Cwd: "/repo", IsError: true, HasResult: true, Error: text},
				{Meta: transcript.Meta{UUID: "c", SessionID: "s", Line: 5}, Name: "Bash", Command: "make x", Cwd: "/repo", HasResult: true},
				{Meta: transcript.Meta{UUID: "d", SessionID: "s", Line: 6}, Name: "Bash", Command: text + " --fix", Cwd: "/repo", HasResult: true},
			},
		}
		r := Session(ch, Options{})
		for _, o := range r.Observations {
			checkObservation(t, o)
		}
		Across([]Result{r, r}, Options{MinSessions: 1})
	})
}
