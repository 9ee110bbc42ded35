package ingest

import (
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// Only a lasting rule the person asked to keep, with its lesson stated,
// is kept: not a question, a one-off, an acknowledgement, a request that
// only points back, nor a refusal's reason (the hook never sees one), nor
// a rule in a command template the person ran.
func TestKeepRequests(t *testing.T) {
	say := func(text string) transcript.UserSignal {
		return transcript.UserSignal{Meta: transcript.Meta{SessionID: "s1"}, Text: text, Own: transcript.OwnWords(text)}
	}
	ch := &transcript.Channels{UserSignals: []transcript.UserSignal{
		say("Remember: never run git push yourself. I push after review."),
		say("Do you remember which flag we added?"),
		say("For now, skip the slow tests."),
		say("yes, continue"),
		say("Please remember this."),
		say("记住：提交前先运行 `make lint`"),
		{Meta: transcript.Meta{SessionID: "s1"}, Text: "Never touch the vendor folder.", Own: "Never touch the vendor folder.", Rejection: true},
		say("---\ndescription: Plan the feature.\n---\n\nYou **MUST** read it.\n\nRemember: never skip the plan.\n"),
	}}
	got := keepRequests("s0", ch)
	var lessons []string
	for _, r := range got {
		lessons = append(lessons, r.q.Lesson)
		if r.session != "s1" {
			t.Errorf("%q: session %q, want the turn's", r.q.Lesson, r.session)
		}
	}
	want := []string{"Never run git push yourself.", "提交前先运行 `make lint`。"}
	if len(lessons) != len(want) {
		t.Fatalf("kept %q, want %q", lessons, want)
	}
	for i := range want {
		if lessons[i] != want[i] {
			t.Errorf("kept %q, want %q", lessons[i], want[i])
		}
	}
}
