package genuine

import (
	"strings"
	"testing"
)

// A served learned draft is looked up among the readers' verdicts by the
// observation its key names; anything else names none.
func TestObservationOf(t *testing.T) {
	for title, want := range map[string]string{
		"obs-d05884eb019b [MEDIUM warning, draft]: `sed` fails":      "obs_d05884eb019b",
		"## obs-3f9a1c2b7d4e [MEDIUM note, draft]: x":                "obs_3f9a1c2b7d4e",
		"PF-001: `python` is not available here":                     "",
		"version-bump-checklist [CRITICAL checklist]: Bumping a ...": "",
	} {
		if got := observationOf(title); got != want {
			t.Errorf("observationOf(%q) = %q, want %q", title, got, want)
		}
	}
}

// A moment the index listed at session start and a call served again
// counts by relevance too; judged-useful items stay in distraction.
func TestSummarizeLoop(t *testing.T) {
	r := &LoopResult{Split: Dev, Served: 4,
		Unrelated:    []string{"a", "b"},
		JudgedUseful: []string{"b"},
		Moments: []Moment{
			{Known: true, Found: true, Served: true, Start: true, Relevant: true},
			{Known: true, Found: true, Served: true, Start: true},
			{Found: true},
		}}
	s := SummarizeLoop([]*LoopResult{r}, Dev)
	if s.Moments != 3 || s.Served != 2 || s.Relevant != 1 || s.Known != 2 || s.KnownServed != 2 || s.KnownRelevant != 1 {
		t.Errorf("moments: %+v", s)
	}
	if s.Items != 4 || s.Unrelated != 2 || s.JudgedUseful != 1 {
		t.Errorf("items: %+v", s)
	}
}

// A loop in which calls failed says so beside its figures, without -v:
// a run that learned nothing would otherwise read as a capture problem.
func TestWriteLoopReportsFailedCalls(t *testing.T) {
	results := []*LoopResult{{Project: "shop", Split: Dev, Moments: []Moment{{}},
		Problems: []string{"s1: ingest: signal: killed: ", "s2: render-ready: signal: killed: "}}}
	rep := &Report{Loop: map[string]LoopSummary{Dev: SummarizeLoop(results, Dev), "all": SummarizeLoop(results, "")}}
	var b strings.Builder
	WriteLoop(&b, rep, nil)
	if want := "2 calls failed during the loop"; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "shop: s1: ingest: signal: killed") {
		t.Errorf("the report says nothing of the failed calls:\n%s", b.String())
	}
}
