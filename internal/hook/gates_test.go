package hook

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/task"
)

func TestSessionTask(t *testing.T) {
	for _, tc := range []struct{ named, session, want string }{
		{"", "7c2d9e41-55aa-4b0e-8f13-6d2b9c0e4f71", "session-7c2d9e41"},
		{"cart-rounding", "7c2d9e41-55aa", "cart-rounding"},
		{"../evil", "abc", "session-abc"}, // a bad name is not a file name: the session stands in
		{"", "", "session-no-sessi"},
		{"", "../../x", "session-h-"},
	} {
		got := SessionTask(tc.named, tc.session)
		if !strings.HasPrefix(got, tc.want) || task.ValidName(got) != nil {
			t.Errorf("%q %q: %q", tc.named, tc.session, got)
		}
	}
}

// The reason keeps to its bound whatever the gate printed, and never
// cuts the addendum.
func TestBlockReasonIsBounded(t *testing.T) {
	fb := "Gate \"tests\" failed (exit 1): boom.\n\n" + strings.Repeat("line of output\n", 5000) + "the last line\n"
	o := &task.Outcome{Strike: 2, TwoStrike: task.Addendum("a", "b")}
	r := blockReason(fb, o)
	if n := utf8.RuneCountInString(r); n > maxReason {
		t.Fatalf("%d characters", n)
	}
	if !strings.Contains(r, "Gate \"tests\" failed (exit 1): boom.") || !strings.Contains(r, "the last line") || !strings.HasSuffix(r, "4. Only then proceed with implementation") || !strings.Contains(r, "characters left out") {
		t.Fatal(r[:200], r[len(r)-400:])
	}
	if short := blockReason("x", &task.Outcome{Strike: 1}); !strings.HasSuffix(short, "\n\nx") {
		t.Fatal(short)
	}
}

// A checklist's block added to a stop gate's keeps the two within
// maxReason, each one's end (what the agent is told to do) whole.
func TestBlockReasonsTogetherStayWithinBounds(t *testing.T) {
	gate := blockReason(strings.Repeat("E", 20000), &task.Outcome{Strike: 1, TwoStrike: "TWO-STRIKE: stop and ask."})
	list := "devlearn: before you stop, " + strings.Repeat("/srv/app/very/long/path/CHECKLIST.md (1 box to tick)\n", 120) + "  devlearn directives check --session s1 < submission.json"
	o := withBlock(&Output{Decision: "block", Reason: gate}, list)
	if n := utf8.RuneCountInString(o.Reason); n > maxReason {
		t.Fatalf("reason is %d characters, over %d", n, maxReason)
	}
	if !strings.HasSuffix(o.Reason, "devlearn directives check --session s1 < submission.json") || !strings.Contains(o.Reason, "TWO-STRIKE: stop and ask.\n\ndevlearn: before you stop") {
		t.Fatalf("an end was cut:\n%s", o.Reason)
	}
	if o := withBlock(nil, "short"); o.Reason != "short" || o.Decision != "block" {
		t.Fatalf("alone: %+v", o)
	}
}

// The reason is bounded as printed: tabs and colour codes print as escapes
// of several characters, and the output stays within the hooks' budget.
func TestBlockOutputFitsAsPrinted(t *testing.T) {
	out := strings.Repeat("FAIL\t\x1b[31m<a&b>\x1b[0m\n", 3000)
	o := &Output{Decision: "block", Reason: blockReason(out, &task.Outcome{Strike: 1})}
	if size(o) <= 9000 {
		t.Fatalf("the case does not test anything: %d", size(o))
	}
	fitReason(o, 9000)
	if n := size(o); n > 9000 || n < 8000 {
		t.Fatalf("printed %d characters", n)
	}
	if !strings.HasPrefix(o.Reason, "devlearn: a required stop gate failed") {
		t.Fatalf("%.80q", o.Reason)
	}
}
