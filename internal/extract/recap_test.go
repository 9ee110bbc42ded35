package extract

import (
	"slices"
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// recapSession is a session whose only record is a recap of text.
func recapSession(text string) *transcript.Channels {
	return &transcript.Channels{SessionID: "s", Recaps: []transcript.Recap{{
		Meta: transcript.Meta{UUID: "r1", SessionID: "s", Timestamp: "2026-01-01T00:00:01Z", Line: 1}, Text: text}}}
}

func TestRecapLessons(t *testing.T) {
	recap := `This session is being continued from a previous conversation that ran out of context.

Summary:
1. Primary Request and Intent:
   The user asked to add the handset stock flag. The user rejected nothing here.

4. Errors and fixes:
   - **Manual edit to ` + "`handset.pb.go`" + `**: User was angry — "never make manual changes to generated files". Reverted with ` + "`git checkout`" + `.
   - **Lint error**: error strings must not be capitalized. I tried a //nolint directive: **user rejected this** and asked for lower case.
     - Fixed: "hiss! module root path contains invalid characters".
   - **Pointer slices on model types**: Initially used ` + "`[]*Phone`" + `. User questioned it. Corrected to value slices since elements never need to be nil.
   - **太字の問題**: ユーザーから指摘「ボールドはこのセッションでは使わないでください」。表示を直した。
   - **SSL connection error**: fixed by setting ssl false, no user correction needed.
   - **TypeError in Dashboard.tsx**: fixed with Number(). The user confirmed it works.

5. Problem Solving:
   The user corrected the plan twice.

6. All user messages:
   - "never commit to main"
`
	var got []string
	for _, o := range recapLessons(recapSession(recap)) {
		got = append(got, o.Pattern)
	}
	want := []string{
		"Never make manual changes to generated files.",
		"Lint error: error strings must not be capitalized. I tried a //nolint directive: user rejected this and asked for lower case. Fixed: \"hiss! module root path contains invalid characters\".",
		"Pointer slices on model types: Initially used `[]*Phone`. User questioned it. Corrected to value slices since elements never need to be nil.",
		"ボールドはこのセッションでは使わないでください。",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
