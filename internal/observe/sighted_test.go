package observe

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

func TestSightedAndCounted(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 5, d, 9, 0, 0, 0, time.UTC) }
	s := Sighting{Type: Pitfall, Pattern: "go test needs the race detector", Record: "u1", Extractor: "correction"}
	if err := s.Clean(nil, nil); err != nil {
		t.Fatal(err)
	}
	l := NewLog()
	if l.Sighted(s.ID, "s1", day(2)) {
		t.Fatal("sighted in an empty log")
	}
	use := NewEvent(OpCount, s.ID, day(2), "s1", func(e *Event) { e.Counter = "used" })
	use.EID = StableID("used s1 " + s.ID)
	if err := l.Apply(ObserveEvent(s, "s1", day(2)), use); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		src  string
		at   time.Time
		want bool
	}{
		{"s1", day(2), true},  // the same sighting again
		{"s1", day(1), true},  // an earlier one of a session already counted
		{"s1", day(3), false}, // the session, later: moves its last sighting
		{"s2", day(2), false}, // another session
	} {
		if got := l.Sighted(s.ID, c.src, c.at); got != c.want {
			t.Errorf("Sighted(%s, %s) = %v, want %v", c.src, c.at, got, c.want)
		}
	}
	if !l.Counted(s.ID, "used", use.EID) || l.Counted(s.ID, "used", "e_other") || l.Counted(s.ID, "helpful", use.EID) || l.Counted("obs_none", "used", use.EID) {
		t.Fatal("Counted")
	}

	// Compaction folds the events into a snapshot: still sighted, still counted.
	var b bytes.Buffer
	if _, err := l.WriteCompacted(&b, day(4), config.Default()); err != nil {
		t.Fatal(err)
	}
	c := FoldBytes(b.Bytes())
	if !c.Sighted(s.ID, "s1", day(2)) || !c.Counted(s.ID, "used", use.EID) {
		t.Fatalf("lost by compaction:\n%s", b.String())
	}
	// A tombstone forgets: a sighting from before it changes nothing.
	if err := c.Apply(&Event{Op: OpTombstone, EID: "e_t", ID: s.ID, At: FormatTime(day(5)), Src: "compact"}); err != nil {
		t.Fatal(err)
	}
	if !c.Sighted(s.ID, "s9", day(4)) || c.Sighted(s.ID, "s9", day(6)) {
		t.Fatal("tombstone")
	}
}

// Evidence cut at MaxEvidenceRunes never ends in half a placeholder.
func TestCutKeepsPlaceholdersWhole(t *testing.T) {
	long := strings.Repeat("word ", (MaxEvidenceRunes-8)/5) + "KEY=[REDACTED:generic-api-key] and more words"
	s := Sighting{Type: Pitfall, Pattern: "keys in evidence", Evidence: []string{long}}
	if err := s.Clean(nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Evidence[0]; !strings.HasSuffix(got, "KEY=…") {
		t.Fatalf("evidence ends %q", got[len(got)-30:])
	}
}

// An extractor names its sighting by the pattern it wrote; cleaning may
// drop characters from that pattern (a terminal's escape codes), and the id
// must follow the cleaned pattern rather than the sighting be refused.
func TestCleanRecomputesAnIDTakenFromTheRawPattern(t *testing.T) {
	l := NewLog()
	raw := "`git commit` fails with \"\x1b[33mWRN\x1b[0m bad entry\": add the fingerprint."
	s := Sighting{Type: Pitfall, Pattern: raw, ID: ID(Pitfall, raw)}
	if err := s.Clean(l, nil); err != nil {
		t.Fatalf("a sighting whose id is its raw pattern's was refused: %v", err)
	}
	if s.ID != ID(s.Type, s.Pattern) {
		t.Errorf("id %s is not the cleaned pattern's %s", s.ID, ID(s.Type, s.Pattern))
	}
	if strings.ContainsRune(s.Pattern, '\x1b') {
		t.Errorf("pattern kept an escape: %q", s.Pattern)
	}
}
