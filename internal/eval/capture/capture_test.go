package capture

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/transcript"
)

func load(t *testing.T) []*Case {
	t.Helper()
	cases, err := Load("../../../testdata/eval")
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestFloors holds the offline extractors to the figures they reached, on
// the dev and the holdout sets apart (make eval prints them in full).
func TestFloors(t *testing.T) {
	results := Score(load(t), "../../..", transcript.Options{}, Offline)
	for _, r := range results {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	rep := Summarize(results)
	for set, f := range Floors {
		b := rep.Sets[set]
		if b == nil || b.Cases == 0 {
			t.Fatalf("no %s cases", set)
		}
		t.Logf("%-8s recall %.3f (%d/%d), noise %.3f (%d/%d)", set, b.All.Recall(), b.All.Found, b.All.Lessons, b.All.NoiseRate(), b.All.Noise, b.All.Kept)
		if b.All.Recall() < f.Recall {
			t.Errorf("%s recall %.3f is below its floor %.2f", set, b.All.Recall(), f.Recall)
		}
		if b.All.NoiseRate() > f.Noise {
			t.Errorf("%s noise %.3f is above its ceiling %.2f", set, b.All.NoiseRate(), f.Noise)
		}
	}
	if t.Failed() {
		var w strings.Builder
		WriteDetails(&w, results)
		t.Log("\n" + w.String())
	}
}

// The set covers every class in every language the issue names (the
// holdout, written first and smaller, every class and four in each
// language), and a third of the hand-written cases are held out. Russian
// and Korean came later, with their tables: dev covers them, the holdout
// (never written after the rules) does not.
func TestCoverage(t *testing.T) {
	cases := load(t)
	langs := []string{"en", "zh", "ja", "es", "de", "fr", "pt", "ru", "ko", "el"}
	devOnly := map[string]bool{"ru": true, "ko": true, "el": true}
	perLang := []string{Imperative, Contrast, Rejection, Remember, Acknowledged}
	have := map[string]bool{}
	hand, held := 0, 0
	for _, c := range cases {
		if len(c.Sessions) > 0 {
			hand++
			if c.Set == Holdout {
				held++
			}
		}
		for _, l := range c.Lessons {
			have[c.Set+"/"+c.Lang+"/"+l.Class] = true
			have[c.Set+"/"+l.Class] = true
		}
		for _, l := range c.Noise {
			have[c.Set+"/"+l.Class] = true
		}
	}
	for _, set := range []string{Dev, Holdout} {
		for _, lg := range langs {
			if set == Holdout && devOnly[lg] {
				continue
			}
			n := 0
			for _, cl := range perLang {
				if have[set+"/"+lg+"/"+cl] {
					n++
				} else if set == Dev {
					t.Errorf("%s: no %s lesson in %s", set, cl, lg)
				}
			}
			if n < 4 {
				t.Errorf("%s: %d of the person's classes in %s", set, n, lg)
			}
		}
		for _, cl := range append(append([]string{}, LessonClasses...), NoiseClasses...) {
			if !have[set+"/"+cl] {
				t.Errorf("%s: no %s label", set, cl)
			}
		}
	}
	// The holdout cannot grow once its writer has seen the rules, while dev
	// grows with every check on new sentences (dev/probe*.yaml): at least a
	// quarter, so its figures still mean something.
	if ratio := float64(held) / float64(hand); ratio < 0.25 || ratio > 0.4 {
		t.Errorf("%d of %d hand-written cases held out (%.2f): want a quarter to two fifths", held, hand, ratio)
	}
}

func TestMatches(t *testing.T) {
	c := &Case{Name: "c", Sessions: []Session{{ID: "a"}, {ID: "b"}}}
	sid := SessionID(c, &c.Sessions[1])
	for _, tc := range []struct {
		label Label
		obs   extract.Observation
		want  bool
	}{
		{Label{Match: []string{"pnpm", "npm"}}, extract.Observation{Pattern: "Use pnpm, not npm."}, true},
		{Label{Match: []string{"pnpm", "npm"}}, extract.Observation{Pattern: "Use pnpm."}, false}, // "npm" does not begin a word of "pnpm"
		{Label{Match: []string{"push|pushes", "all|every"}}, extract.Observation{Pattern: "Lint every push."}, true},
		{Label{Match: []string{"push"}}, extract.Observation{Pattern: "Run it on all pushes."}, true}, // a term begins a word
		{Label{Match: []string{"CLAUDE.md"}}, extract.Observation{Pattern: "add it to claude.md"}, true},
		{Label{Match: []string{"vendor", "不要"}}, extract.Observation{Pattern: "不要改vendor目录"}, true},
		{Label{Match: []string{"x"}, Type: StringList{"decision"}}, extract.Observation{Type: "pitfall", Pattern: "x"}, false},
		{Label{Match: []string{"x"}, Session: "b"}, extract.Observation{Pattern: "x", SessionID: sid}, true},
		{Label{Match: []string{"x"}, Session: "a"}, extract.Observation{Pattern: "x", SessionID: sid}, false},
	} {
		if got := Matches(c, &tc.label, &tc.obs); got != tc.want {
			t.Errorf("Matches(%v, %q) = %v, want %v", tc.label.Match, tc.obs.Pattern, got, tc.want)
		}
	}
}

// A hand-written session goes through the real reader as Claude Code
// writes it: the person, the agent, tool calls and results, a refusal.
func TestTranscriptIsRead(t *testing.T) {
	reason := "use pnpm"
	text := "install zod"
	agent := "Installing."
	c := &Case{Name: "t", Lang: "en", Sessions: []Session{{Turns: []Turn{
		{User: &text},
		{Agent: &agent, Tools: []Tool{{Bash: "npm install zod", Reject: &reason}, {Bash: "go test", Fail: "FAIL x"}}},
	}}}}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	chs, err := Channels(c, ".", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch := chs[0]
	if len(ch.UserSignals) != 2 || ch.UserSignals[1].Text != reason || !ch.UserSignals[1].Rejection {
		t.Errorf("signals %+v", ch.UserSignals)
	}
	if len(ch.Tools) != 2 || !ch.Tools[0].Rejected || !ch.Tools[1].Failed() || ch.SessionID != SessionID(c, &c.Sessions[0]) {
		t.Errorf("tools %+v", ch.Tools)
	}
}
