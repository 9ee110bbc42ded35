package extract

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/transcript"
)

type labelled struct {
	Set     string   `yaml:"set"` // "holdout": not used to tune the rules
	Text    string   `yaml:"text"`
	Speaker string   `yaml:"speaker"`
	After   []string `yaml:"after"`
	Expect  []string `yaml:"expect"`
}

func loadLabelled(t *testing.T) []labelled {
	t.Helper()
	data, err := os.ReadFile("../../testdata/extract/labelled.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []labelled
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// channelsFor builds the session a labelled message sits in.
func channelsFor(c labelled) *transcript.Channels {
	meta := func(uuid string, line int) transcript.Meta {
		return transcript.Meta{UUID: uuid, SessionID: "s1", Timestamp: "2026-01-01T00:00:00Z", Line: line}
	}
	ch := &transcript.Channels{SessionID: "s1"}
	if c.Speaker == "assistant" {
		ch.DialogPairs = []transcript.DialogPair{{Assistant: c.Text, AssistantUUID: "a1", SessionID: "s1", FromLine: 1}}
		return ch
	}
	sig := transcript.UserSignal{Meta: meta("u1", 3), Text: c.Text, Cwd: "/repo"}
	ch.UserSignals = []transcript.UserSignal{sig}
	ch.DialogPairs = []transcript.DialogPair{{Assistant: "I made the change.", AssistantUUID: "a1", SessionID: "s1", FromLine: 2, Reply: &sig}}
	for i, p := range c.After {
		ch.Tools = append(ch.Tools, transcript.ToolCall{Meta: meta(fmt.Sprint("t", i), 4+i), Name: "Edit", Paths: []string{p}, Cwd: "/repo", HasResult: true})
	}
	return ch
}

// matches reports whether an observation is what a label asks for.
func matches(label string, o Observation) bool {
	ext, typ, _ := strings.Cut(label, "/")
	return o.Extractor == ext && (typ == "" || o.Type == typ)
}

// TestLabelledPrecision measures the correction and lesson rules on the
// labelled set and fails below 0.9 precision. Recall is reported, not
// enforced: the rules are narrow on purpose.
func TestLabelledPrecision(t *testing.T) {
	cases := loadLabelled(t)
	if len(cases) < 100 {
		t.Fatalf("only %d labelled cases", len(cases))
	}
	type score struct{ tp, fp, fn int }
	scores := map[string]*score{ExtractorCorrection: {}, ExtractorLesson: {}}
	var holdout score
	for _, c := range cases {
		res := Session(channelsFor(c), Options{})
		var got []Observation
		for _, o := range res.Observations {
			if scores[o.Extractor] != nil {
				got = append(got, o)
			}
		}
		used := make([]bool, len(got))
		for _, label := range c.Expect {
			ext, _, _ := strings.Cut(label, "/")
			i := slices.IndexFunc(got, func(o Observation) bool { return matches(label, o) })
			if i >= 0 && !used[i] {
				used[i] = true
				scores[ext].tp++
				if c.Set == "holdout" {
					holdout.tp++
				}
				continue
			}
			scores[ext].fn++
			if c.Set == "holdout" {
				holdout.fn++
			}
			t.Logf("missed   %-22s %q", label, c.Text)
		}
		for i, o := range got {
			if !used[i] {
				scores[o.Extractor].fp++
				if c.Set == "holdout" {
					holdout.fp++
				}
				t.Logf("spurious %-22s %q -> %q (%s)", o.Extractor+"/"+o.Type, c.Text, o.Pattern, o.Details)
			}
		}
	}
	var all score
	for _, name := range []string{ExtractorCorrection, ExtractorLesson} {
		s := scores[name]
		all.tp, all.fp, all.fn = all.tp+s.tp, all.fp+s.fp, all.fn+s.fn
		p, r := ratio(s.tp, s.tp+s.fp), ratio(s.tp, s.tp+s.fn)
		t.Logf("%-10s precision %.3f recall %.3f (tp %d, fp %d, fn %d)", name, p, r, s.tp, s.fp, s.fn)
		if p < 0.9 {
			t.Errorf("%s precision %.3f < 0.9", name, p)
		}
	}
	t.Logf("held out   precision %.3f recall %.3f (tp %d, fp %d, fn %d)", ratio(holdout.tp, holdout.tp+holdout.fp), ratio(holdout.tp, holdout.tp+holdout.fn), holdout.tp, holdout.fp, holdout.fn)
	p, r := ratio(all.tp, all.tp+all.fp), ratio(all.tp, all.tp+all.fn)
	t.Logf("overall    precision %.3f recall %.3f over %d cases", p, r, len(cases))
	if p < 0.9 {
		t.Errorf("overall precision %.3f < 0.9", p)
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}
