package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// recapSession is a session whose records are recaps of the texts.
func recapSession(texts ...string) *transcript.Channels {
	ch := &transcript.Channels{SessionID: "s"}
	for i, t := range texts {
		ch.Recaps = append(ch.Recaps, transcript.Recap{
			Meta: transcript.Meta{UUID: "r" + string(rune('1'+i)), SessionID: "s", Timestamp: "2026-01-01T00:00:01Z", Line: i + 1}, Text: t})
	}
	return ch
}

func recapPatterns(texts ...string) []string {
	var got []string
	for _, o := range recapLessons(recapSession(texts...)) {
		got = append(got, o.Pattern)
	}
	return got
}

// A recap as Claude Code has the agent write it: the errors section's
// items that say the person corrected or turned something down are
// lessons, the other sections and items are not.
func TestRecapLessons(t *testing.T) {
	recap := `This session is being continued from a previous conversation that ran out of context.

Summary:
1. Primary Request and Intent:
   The user asked to add the handset stock flag. The user corrected the field name once.

3. Files and Code Sections:
   - handset.proto
     1. Add the field
     2. Regenerate

4. Errors and fixes:
   - **Manual edit to ` + "`handset.pb.go`" + `**: User was angry — "never make manual changes to generated files". Reverted with ` + "`git checkout`" + `.
   - **Lint error**: error strings must not be capitalized. I tried a //nolint directive; **user rejected this** and asked for lower case. Switched to lower case.
     - Fixed: "hiss, the module root path contains invalid characters".
   - **太字の問題**: ユーザーから指摘「ボールドはこのセッションでは使わないでください」。表示を直した。
   - **SSL connection error**: fixed by setting ssl false, no user correction needed.
   - **TypeError in Dashboard.tsx**: fixed with Number() around the value. User correction: none.
   - **Build**: The build did not start. User corrected the path to use the build directory. Rebuilt from there.

5. Problem-solving:
   The user corrected the plan twice.

6. All user messages:
   - "never commit to main"
`
	want := []string{
		"Never make manual changes to generated files.",
		"Lint error: user rejected this and asked for lower case. Switched to lower case.",
		"ボールドはこのセッションでは使わないでください。",
		"Build: User corrected the path to use the build directory. Rebuilt from there.",
	}
	if got := recapPatterns(recap); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// What a [refused] phrase quotes is what the person turned down: the
// lesson is the item's saying, never the quotation.
func TestRecapRefusedIsNoRule(t *testing.T) {
	for _, it := range []string{
		`- **Git**: I pushed to main; user asked me not to "push straight to main" and to open a PR.`,
		`- **Push**: User rejected "git push --force" and asked for a new branch.`,
	} {
		got := recapPatterns("4. Errors and fixes:\n" + it + "\n")
		if len(got) != 1 || strings.HasPrefix(got[0], "Push straight") || strings.HasPrefix(got[0], "Git push --force") {
			t.Errorf("%s\n  gave %q: want the item's saying", it, got)
		}
	}
}

// The section and its items, however the recap lays them out: headings
// of another name or none, numbered or in bold, items at any indent, a
// bold title on a line of its own, numbered items.
func TestRecapLayouts(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"the section ends at the next heading of its shape, whatever its name",
			"4. Errors and fixes:\n   - User was angry: \"never edit the lock file by hand\".\n\n5. Problemlösung:\n   - The user corrected the plan: \"always plan before coding\".\n",
			[]string{"Never edit the lock file by hand."}},
		{"an unnumbered heading",
			"## Errors and Fixes\n- User insisted: \"run the linter before every commit\".\n## Pending Tasks\n- The user corrected nothing here but \"write more tests please now\".\n",
			[]string{"Run the linter before every commit."}},
		{"a heading numbered with a parenthesis, in bold",
			"4) **Errors and fixes**\n- User was angry: \"stop making changes without asking first\".\n5) **Current Work**\n- x\n",
			[]string{"Stop making changes without asking first."}},
		{"items indented four spaces",
			"4. Errors and fixes:\n    - User was angry: \"never push to main directly\".\n",
			[]string{"Never push to main directly."}},
		{"sub-items stay with their item",
			"4. Errors and fixes:\n- **Deploy**: it failed twice.\n  - The user pointed out the staging cluster uses the other kubeconfig context.\n",
			[]string{"Deploy: The user pointed out the staging cluster uses the other kubeconfig context."}},
		{"a bold title on a line of its own is an item, not the end of the one before",
			"4. Errors and fixes:\n**Error 1: Spinner**\n- Fix: changed position absolute to fixed in the overlay class\n**Error 2: User rejected the ViewModel approach for state**\n- Reverted\n",
			[]string{"Error 2: User rejected the ViewModel approach for state"}},
		{"numbered items",
			"4. Errors and fixes:\n1. **Manual edit**: User was angry — \"never hand-edit the generated client\".\n2. Kill all panels\n",
			[]string{"Never hand-edit the generated client."}},
		{"German quotation marks",
			"4. Errors and fixes:\n- Benutzer korrigierte: „Generierte Dateien nie von Hand ändern“.\n",
			[]string{"Generierte Dateien nie von Hand ändern."}},
		{"a word shaped like a password keeps the item out",
			"4. Errors and fixes:\n- user pointed out the login is admin / Tr0ub4dor&3x, not the one in .env.\n",
			nil},
		{"two recaps saying one correction in other words: one lesson",
			"4. Errors and fixes:\n- **Bold**: User complained twice about bold text being invisible in the terminal.\n",
			[]string{"Bold: User complained twice about bold text being invisible in the terminal."}},
	}
	for _, c := range tests {
		texts := []string{c.text}
		if strings.HasPrefix(c.name, "two recaps") {
			texts = append(texts, "4. Errors and fixes:\n- **Bold text**: User complained twice that the bold text is invisible in the terminal.\n")
		}
		if got := recapPatterns(texts...); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}
}
