package observe

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/config"
)

func day(n float64) time.Time { return t0.Add(time.Duration(n * 24 * float64(time.Hour))) }

func sight(t *testing.T, l *Log, typ, pattern, src string, at time.Time, quality bool) string {
	t.Helper()
	s := Sighting{Type: typ, Pattern: pattern, QualityOK: &quality}
	if err := s.Clean(l, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(ObserveEvent(s, src, at)); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func view(t *testing.T, l *Log, id string, now time.Time) Observation {
	t.Helper()
	o, ok := l.Observation(id, now, config.Default())
	if !ok {
		t.Fatalf("%s not in the log", id)
	}
	return o
}

// The promotion table of devflow, row by row.
func TestThresholdsFollowTheDevflowTable(t *testing.T) {
	for _, tc := range []struct {
		typ     string
		days    []float64 // one sighting per day listed, each from its own session
		quality bool
		status  string
		conf    float64
		why     string
	}{
		{Workflow, []float64{0}, true, Observing, 0.33, "count 1 of 2 needed (required 3 × promote 0.60); spread 0 of 3 days"},
		{Workflow, []float64{0, 1}, true, Observing, 0.66, "spread 1 of 3 days"},
		{Workflow, []float64{0, 3}, true, Ready, 0.66, ""},
		{Procedural, []float64{0, 1, 2}, true, Observing, 0.75, "spread 2 of 5 days"},
		{Procedural, []float64{0, 5}, true, Observing, 0.5, "count 2 of 3 needed (required 4 × promote 0.70)"},
		{Procedural, []float64{0, 2, 5}, true, Ready, 0.75, ""},
		{Decision, []float64{0}, true, Observing, 0.5, "count 1 of 2 needed"},
		{Decision, []float64{0, 0}, true, Ready, 0.95, ""},
		{Pitfall, []float64{0, 0.5}, false, Observing, 0.95, "quality not confirmed"},
		{Pitfall, []float64{0, 0, 0, 0, 0, 0}, true, Ready, 0.95, ""},
	} {
		l := NewLog()
		var id string
		for i, d := range tc.days {
			id = sight(t, l, tc.typ, "a lesson", fmt.Sprintf("s%d", i), day(d), tc.quality)
		}
		o := view(t, l, id, day(6))
		if o.Status != tc.status || o.Confidence != tc.conf || strings.Join(o.Why, "; ") != tc.why {
			t.Errorf("%s seen on days %v: got %s %.2f %q, want %s %.2f %q", tc.typ, tc.days, o.Status, o.Confidence, strings.Join(o.Why, "; "), tc.status, tc.conf, tc.why)
		}
	}
}

// Devflow defect 1: a deleted artifact's observation came back at the next
// sighting. Here it stays deprecated, whatever the count, until a restore.
func TestDeletionSticksUntilRestore(t *testing.T) {
	l := NewLog()
	id := sight(t, l, Pitfall, "hooks grow", "s1", day(0), true)
	sight(t, l, Pitfall, "hooks grow", "s2", day(1), true)
	if o := view(t, l, id, day(1)); o.Status != Ready {
		t.Fatalf("two sightings: %s, want ready", o.Status)
	}
	must(t, l.Apply(
		NewEvent(OpCreated, id, day(1), "render", func(e *Event) { e.Path = ".memory/knowledge/pitfalls.md"; e.Anchor = "PF-001" }),
		NewEvent(OpPenalize, id, day(2), "reconcile", func(e *Event) { e.Factor = 0.3; e.Reason = "deleted" }),
		NewEvent(OpDeprecate, id, day(2), "reconcile", func(e *Event) { e.Reason = "deleted" }),
	))
	for i := 3; i < 10; i++ {
		sight(t, l, Pitfall, "hooks grow", fmt.Sprintf("s%d", i), day(float64(i)), true)
	}
	o := view(t, l, id, day(10))
	if o.Status != Deprecated || o.DeprecatedReason != "deleted" || o.Confidence != 0.285 {
		t.Fatalf("after 7 more sightings: %s (%s) %.3f, want deprecated (deleted) 0.285", o.Status, o.DeprecatedReason, o.Confidence)
	}
	must(t, l.Apply(NewEvent(OpRestore, id, day(11), "user", nil)))
	o = view(t, l, id, day(11))
	if o.Status != Ready || o.Confidence != 0.95 || o.Penalty != 1 {
		t.Fatalf("after restore: %s %.3f penalty %v, want ready 0.95 with no penalty", o.Status, o.Confidence, o.Penalty)
	}
}

// Devflow defect 6: decay was applied again on every run. Here it is a pure
// function of the time since the last sighting, while the project went on
// (another lesson sighted since).
func TestDecayIsComputedNotCompounded(t *testing.T) {
	cfg := config.Default() // fades after 30 days, halves every 90
	l := NewLog()
	id := sight(t, l, Decision, "use jsonl", "s1", day(0), true)
	sight(t, l, Decision, "use jsonl", "s2", day(0), true)
	sight(t, l, Pitfall, "the CI cache hides a stale go.sum", "s3", day(30+90), true)
	now := day(30 + 90)
	want := 0.475 // 0.95 × 0.5
	for run := 0; run < 5; run++ {
		var buf bytes.Buffer
		if _, err := l.WriteCompacted(&buf, now, cfg); err != nil {
			t.Fatal(err)
		}
		var err error
		if l, err = Fold(&buf); err != nil {
			t.Fatal(err)
		}
		if o := view(t, l, id, now); math.Abs(o.Confidence-want) > 1e-9 {
			t.Fatalf("run %d: confidence %v, want %v", run, o.Confidence, want)
		}
	}
	if o := view(t, l, id, day(29)); o.Confidence != 0.95 || o.Decay != 1 {
		t.Fatalf("before after_days: %v decay %v, want 0.95 and none", o.Confidence, o.Decay)
	}
}

// Decay counts the days the project went on without the lesson, not the
// days nobody worked on it: a log whose latest sighting is a year old has
// forgotten nothing of what it held then, and a backlog ingested long
// after its sessions reaches ready as it would have at the time.
func TestDecayStopsWhenTheProjectDoes(t *testing.T) {
	l := NewLog()
	id := sight(t, l, Decision, "use jsonl", "s1", day(0), true)
	sight(t, l, Decision, "use jsonl", "s2", day(1), true)
	sight(t, l, Pitfall, "the CI cache hides a stale go.sum", "s3", day(10), true)
	if o := view(t, l, id, day(400)); o.Status != Ready || o.Decay != 1 || o.Confidence != 0.95 {
		t.Fatalf("a year on, nothing sighted since: %s %v decay %v, want ready 0.95 and no decay", o.Status, o.Confidence, o.Decay)
	}
	sight(t, l, Pitfall, "the CI cache hides a stale go.sum", "s4", day(1+30+90), true)
	if o := view(t, l, id, day(400)); math.Abs(o.Confidence-0.475) > 1e-9 {
		t.Fatalf("the project went on for 120 days without it: %v, want 0.475", o.Confidence)
	}
}

// Devflow defect 5: capping the log dropped created observations. The cap
// here only ever forgets observing ones, weakest first.
func TestCapForgetsOnlyTheWeakestObserving(t *testing.T) {
	cfg := config.Default()
	cfg.Log.MaxObserving = 10
	l := NewLog()
	now := day(20)
	var created, ready, deprecated []string
	for i := 0; i < 30; i++ {
		// Counts 1 or 2 of 4 needed: observing, some stronger than others.
		id := sight(t, l, Procedural, fmt.Sprintf("weak lesson %d", i), "s0", day(1), true)
		if i%3 == 0 {
			sight(t, l, Procedural, fmt.Sprintf("weak lesson %d", i), "s1", day(2), true)
		}
		_ = id
	}
	for i := 0; i < 5; i++ {
		id := sight(t, l, Decision, fmt.Sprintf("made lesson %d", i), "s0", day(1), false)
		must(t, l.Apply(NewEvent(OpCreated, id, day(1), "render", func(e *Event) { e.Path = "x" })))
		created = append(created, id)
	}
	for i := 0; i < 3; i++ {
		ready = append(ready, sight(t, l, Decision, fmt.Sprintf("ready lesson %d", i), "s0", day(1), true))
		sight(t, l, Decision, fmt.Sprintf("ready lesson %d", i), "s1", day(1), true)
	}
	for i := 0; i < 2; i++ {
		id := sight(t, l, Pitfall, fmt.Sprintf("refused lesson %d", i), "s0", day(1), true)
		must(t, l.Apply(NewEvent(OpDeprecate, id, day(2), "reconcile", nil)))
		deprecated = append(deprecated, id)
	}
	var buf bytes.Buffer
	stats, err := l.WriteCompacted(&buf, now, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Forgotten) != 20 {
		t.Fatalf("forgot %d, want the 20 weakest beyond the cap of 10", len(stats.Forgotten))
	}
	after, err := Fold(&buf)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	strong := 0
	for _, o := range after.Observations(now, cfg) {
		counts[o.Status]++
		if o.Status == Observing && o.Count == 2 {
			strong++
		}
	}
	if counts[Observing] != 10 || strong != 10 {
		t.Fatalf("observing kept %d (%d with two sightings), want the 10 strongest", counts[Observing], strong)
	}
	for _, ids := range [][]string{created, ready, deprecated} {
		for _, id := range ids {
			if _, ok := after.Observation(id, now, cfg); !ok {
				t.Fatalf("%s was dropped by the cap", id)
			}
		}
	}
	// A forgotten observation seen again starts afresh.
	id := ID(Procedural, "weak lesson 1")
	if _, ok := after.Observation(id, now, cfg); ok {
		t.Fatalf("%s should be forgotten", id)
	}
	sight(t, after, Procedural, "weak lesson 1", "s9", day(21), true)
	if o := view(t, after, id, day(21)); o.Count != 1 {
		t.Fatalf("re-sighted after forgetting: count %d, want 1", o.Count)
	}
}

// devflow's lines are read as they are: count, status, times and the
// confidence devflow stored.
func TestDevflowLinesReadAsTheyAre(t *testing.T) {
	in := `{"id":"obs_a1b2c3","type":"pitfall","pattern":"Hook scripts grow into god scripts","confidence":0.95,"observations":2,"first_seen":"2026-04-19T00:00:00Z","last_seen":"2026-04-25T00:00:00Z","status":"ready","evidence":["user: split this hook","user: again, too big"],"details":"area: scripts/hooks/; issue: one script does everything","quality_ok":true}
{"id":"obs_d4e5f6","type":"decision","pattern":"Use JSONL","confidence":0.285,"observations":3,"first_seen":"2026-04-01T00:00:00Z","last_seen":"2026-04-10T00:00:00Z","status":"deprecated","deprecated_at":"2026-04-12T00:00:00Z","quality_ok":true}
{"id":"obs_g7h8i9","type":"workflow","pattern":"Release","confidence":0.66,"observations":2,"first_seen":"2026-04-01T00:00:00Z","last_seen":"2026-04-05T00:00:00Z","status":"created","artifact_path":".claude/commands/self-learning/release.md","quality_ok":true,"mayBeStale":true,"staleReason":"scripts/release.sh is gone"}`
	l, err := Fold(strings.NewReader(in))
	if err != nil || len(l.Problems) > 0 {
		t.Fatal(err, l.Problems)
	}
	now := time.Date(2026, 4, 26, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		id, status string
		count      int
		conf       float64
	}{
		{"obs_a1b2c3", Ready, 2, 0.95},
		{"obs_d4e5f6", Deprecated, 3, 0.285},
		{"obs_g7h8i9", Created, 2, 0.66},
	} {
		o := view(t, l, tc.id, now)
		if o.Status != tc.status || o.Count != tc.count || o.Confidence != tc.conf {
			t.Errorf("%s: %s count %d conf %v, want %s %d %v", tc.id, o.Status, o.Count, o.Confidence, tc.status, tc.count, tc.conf)
		}
	}
	if o := view(t, l, "obs_g7h8i9", now); o.Artifact != ".claude/commands/self-learning/release.md" || o.Stale != "scripts/release.sh is gone" || !o.NeedsReview {
		t.Errorf("created devflow line: %+v", o)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseTimeFastPathAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{"2026-04-19T00:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T12:00:00Z", "2026-04-31T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-04-19T24:00:00Z", "2026-04-19T00:00:00+02:00", "2026-04-19 00:00:00Z", "x"} {
		got, err := parseTime(s)
		want, werr := time.Parse(time.RFC3339, s)
		if (err != nil) != (werr != nil) || (err == nil && got != want.Unix()) {
			t.Errorf("%q: %v %v, want %v %v", s, got, err, want.Unix(), werr)
		}
	}
}

// Two devflow lines for one observation (a merge kept both) read as the
// latest one, not as two penalties.
func TestTwoDevflowLinesPenaliseOnce(t *testing.T) {
	in := `{"id":"obs_d4e5f6","type":"decision","pattern":"Use JSONL","confidence":0.285,"observations":3,"first_seen":"2026-04-01T00:00:00Z","last_seen":"2026-04-10T00:00:00Z","status":"observing","quality_ok":true}
{"id":"obs_d4e5f6","type":"decision","pattern":"Use JSONL","confidence":0.285,"observations":3,"first_seen":"2026-04-01T00:00:00Z","last_seen":"2026-04-11T00:00:00Z","status":"observing","quality_ok":true}`
	l, err := Fold(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if o := view(t, l, "obs_d4e5f6", time.Date(2026, 4, 12, 0, 0, 0, 0, time.UTC)); o.Confidence != 0.285 {
		t.Fatalf("confidence %v, want devflow's 0.285", o.Confidence)
	}
}
