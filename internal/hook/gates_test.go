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
