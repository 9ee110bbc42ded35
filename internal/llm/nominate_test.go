package llm_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/eval/capture"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/transcript"
)

func str(s string) *string { return &s }

// The offline stage nominates the person's corrections, requests to
// remember and turns the agent owns up to, with what the agent had just
// done and answered, and failures the agent then fixed; the person's other
// turns as said, without the agent's turn before them; not answers, nor
// Claude Code's own tool errors.
func TestNominate(t *testing.T) {
	c := &capture.Case{Name: "nominate", Lang: "en", Sessions: []capture.Session{{ID: "s1", Turns: []capture.Turn{
		{User: str("add a --json flag to the list command")},
		{Agent: str("Adding it with npm."), Tools: []capture.Tool{{Bash: "npm install yargs", Output: "added 1 package"}}},
		{User: str("no, we use pnpm here, not npm")},
		{Agent: str("You're right, sorry. Switching to pnpm."), Tools: []capture.Tool{
			{Edit: "src/list.ts", Fail: "<tool_use_error>String to replace not found in file.</tool_use_error>"},
			{Bash: "git push", Fail: "fatal: The current branch feat/json has no upstream branch."},
			{Bash: "git push --set-upstream origin feat/json", Output: "branch 'feat/json' set up to track"},
		}},
		{User: str("yes")},
		{Agent: str("Done.")},
		{User: str("the output should list hidden files too")},
		{Agent: str("You're right, I missed those. Adding them.")},
	}}}}
	ch, err := transcript.Read(bytes.NewReader(capture.Transcript(c, 0)), "s1", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := llm.Nominate(ch)
	var summary []string
	for _, c := range got {
		summary = append(summary, strings.Join(c.Why, "+")+": "+c.Person+c.Failed)
	}
	want := []string{
		"said: add a --json flag to the list command",
		"correction+acknowledged: no, we use pnpm here, not npm",
		"failure: git push",
		// "should" is an obligation word the correction detector reads.
		"correction+acknowledged: the output should list hidden files too",
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Fatalf("candidates:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	if got[0].Before != "" || got[0].Tools != nil || got[0].After != "Adding it with npm." {
		t.Fatalf("a turn said: %+v", got[0])
	}
	corr := got[1]
	if corr.Before != "Adding it with npm." || len(corr.Tools) != 1 || corr.Tools[0] != "Bash: npm install yargs" || !strings.HasPrefix(corr.After, "You're right, sorry.") {
		t.Fatalf("the correction's context: %+v", corr)
	}
	fail := got[2]
	if !strings.Contains(fail.Error, "no upstream branch") || len(fail.Then) != 1 || fail.Then[0] != "Bash: git push --set-upstream origin feat/json" {
		t.Fatalf("the failure and its fix: %+v", fail)
	}
}

// Turns no rule flagged fill only the places the flagged ones leave: a
// session of many requests still sends its one correction.
func TestNominateSaidFillsTheRoomLeft(t *testing.T) {
	var turns []capture.Turn
	turns = append(turns, capture.Turn{User: str("no, we use pnpm here, not npm")}, capture.Turn{Agent: str("You're right, switching to pnpm.")})
	for i := range llm.MaxCandidates + 5 {
		turns = append(turns, capture.Turn{User: str(fmt.Sprintf("now add feature number %d", i))}, capture.Turn{Agent: str("Added.")})
	}
	c := &capture.Case{Name: "said", Lang: "en", Sessions: []capture.Session{{ID: "s1", Turns: turns}}}
	ch, err := transcript.Read(bytes.NewReader(capture.Transcript(c, 0)), "s1", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := llm.Nominate(ch)
	if len(got) != llm.MaxCandidates {
		t.Fatalf("%d candidates, want %d", len(got), llm.MaxCandidates)
	}
	if !got[0].Flagged() || got[0].Person != "no, we use pnpm here, not npm" {
		t.Fatalf("the correction, first in time, was dropped for requests: %+v", got[0])
	}
	if last := got[len(got)-1]; last.Flagged() || last.Person != fmt.Sprintf("now add feature number %d", llm.MaxCandidates+4) {
		t.Fatalf("the latest requests fill the room: %+v", last)
	}
}
