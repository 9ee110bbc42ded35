package redact

import (
	"strings"
	"testing"
	"time"
)

// TestDenseKeywordsStayLinear feeds 32 KB made of one keyword (and a bit of
// syntax) repeated: every position is a hit. Trying each rule at each hit
// once took 3 minutes for 64 KB of "eyey..." and 40 s for 32 KB (the JWT
// rule read to the end of the run from every hit); findCore's cap, its
// skipping of hits inside a match and its fall back to a linear scan keep
// each case well under a second.
// The bound is loose (10 s) so that a loaded machine or -race cannot fail
// it; it is there to catch the quadratic case, not to time the linear one.
func TestDenseKeywordsStayLinear(t *testing.T) {
	if raceEnabled {
		t.Skip("a timing test; -race slows regexp fiftyfold")
	}
	for _, unit := range []string{
		"ey", "s.", "key=", "-----BEGIN PRIVATE KEY-----", "eaam", "Bearer ",
		"password=", "pass", "://a:b@", "token ", "Authorization: ", "ghp_", "xoxb-1",
	} {
		s := strings.Repeat(unit, (32<<10)/len(unit))
		start := time.Now()
		Text(s)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%d KB of %q took %v", len(s)>>10, unit, d)
		} else {
			t.Logf("%d KB of %q: %v", len(s)>>10, unit, d)
		}
	}
}
