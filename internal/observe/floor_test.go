package observe

import (
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/config"
)

// Nothing reaches ready from one session's evidence, whatever the
// thresholds a project set: not a lesson sighted many times in one session,
// not a type whose rule asks for a single sighting. A second session does.
func TestOneSessionIsNeverReady(t *testing.T) {
	cfg := config.Default()
	cfg.Thresholds.Decision = config.Threshold{Required: 1, SpreadDays: 0, Promote: 0.5}
	l := NewLog()
	var id string
	for i := 0; i < 5; i++ {
		id = sight(t, l, Decision, "use uv, not pip", "only-session", day(float64(i)), true)
	}
	o, _ := l.Observation(id, day(5), cfg)
	if o.Status != Observing || o.Count != 1 || !strings.Contains(strings.Join(o.Why, "; "), "seen in 1 session; ready needs at least 2") {
		t.Fatalf("one session, five sightings, required 1: %s count %d %q", o.Status, o.Count, o.Why)
	}
	sight(t, l, Decision, "use uv, not pip", "another-session", day(6), true)
	if o, _ := l.Observation(id, day(6), cfg); o.Status != Ready || len(o.Why) != 0 {
		t.Fatalf("a second session: %s %q", o.Status, o.Why)
	}
}
