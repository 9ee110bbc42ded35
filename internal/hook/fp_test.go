package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// labelledCall is one tool call of the false-positive test set, with the
// items a careful reader would want served for it.
type labelledCall struct {
	Name     string   `json:"name"`
	Tool     string   `json:"tool"`
	File     string   `json:"file"`
	Command  string   `json:"command"`
	Prompts  []string `json:"prompts"`
	Relevant []string `json:"relevant"`
}

type rates struct {
	served, falsePos, relevant, found int
	fps, misses                       []string
}

func (r rates) fpRate() float64 { return float64(r.falsePos) / float64(max(r.served, 1)) }
func (r rates) recall() float64 { return float64(r.found) / float64(max(r.relevant, 1)) }

// TestFalsePositiveRate serves a labelled set of tool calls from a store of
// realistic entries (testdata/knowledge/fp) and measures what was served
// that nobody would want, with the file veto and without it (the design
// this follows). The veto must cut false positives without losing a
// relevant item, and CRITICAL items whose tool and file match are always
// served.
func TestFalsePositiveRate(t *testing.T) {
	root, err := filepath.Abs("../../testdata/knowledge/fp")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []labelledCall
	if err := json.Unmarshal(data, &calls); err != nil {
		t.Fatal(err)
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: root})
	if len(set.Problems) > 0 || len(set.Items) != 16 {
		t.Fatalf("store: %d items, problems %v", len(set.Items), set.Problems)
	}
	opts := knowledge.Options{Weights: knowledge.DefaultWeights, Threshold: 0.7, MaxItems: 3}

	// original is the design this follows: no file veto, and the tool
	// alone may carry an item over the threshold.
	original := func(c *knowledge.Call) []knowledge.Scored {
		var out []knowledge.Scored
		for _, it := range set.Items {
			if !it.Active || it.Match.Empty() {
				continue
			}
			b := knowledge.Score(it, c, opts.Weights)
			if b.Always || b.Score >= opts.Threshold {
				out = append(out, knowledge.Scored{Item: it, Breakdown: b})
			}
		}
		knowledge.SortScored(out)
		return out
	}
	measure := func(improved bool) rates {
		var r rates
		for _, lc := range calls {
			input := map[string]string{}
			if lc.File != "" {
				input["file_path"] = filepath.Join(root, lc.File)
			}
			if lc.Command != "" {
				input["command"] = lc.Command
			}
			call := ToolCall(root, "", Input{ToolName: lc.Tool, Tool: ToolArgsOf(input), Cwd: root}, lc.Prompts)
			ranked := knowledge.Rank(set.Items, call, opts)
			if !improved {
				call.FileScoped = false
				ranked = original(call)
			}
			var served []string
			for _, s := range ranked {
				if len(served) >= opts.MaxItems && !s.Always {
					break
				}
				served = append(served, s.Item.ID)
			}
			r.relevant += len(lc.Relevant)
			for _, id := range lc.Relevant {
				if !slices.Contains(served, id) {
					r.misses = append(r.misses, lc.Name+": "+id)
				}
			}
			for _, id := range served {
				r.served++
				if slices.Contains(lc.Relevant, id) {
					r.found++
				} else {
					r.falsePos++
					r.fps = append(r.fps, lc.Name+": "+id)
				}
			}
		}
		return r
	}
	with, without := measure(true), measure(false)
	t.Logf("%d labelled calls, %d relevant items", len(calls), with.relevant)
	t.Logf("devlearn:                     %d served, %d false positives (%.0f%%), recall %.0f%%", with.served, with.falsePos, 100*with.fpRate(), 100*with.recall())
	t.Logf("the design it follows:        %d served, %d false positives (%.0f%%), recall %.0f%%", without.served, without.falsePos, 100*without.fpRate(), 100*without.recall())
	t.Logf("false positives left: %s", strings.Join(with.fps, "; "))
	t.Logf("relevant, not served: %s", strings.Join(with.misses, "; "))

	// The floor: what is left are keywords that really are ambiguous
	// ("error" in a CSS task, a migration talked about while other code is
	// written); the design it follows serves four wrong items in five.
	if with.fpRate() > 0.15 {
		t.Errorf("false-positive rate %.2f over the 0.15 floor: %s", with.fpRate(), strings.Join(with.fps, "; "))
	}
	if with.fpRate() >= without.fpRate() || with.recall() < without.recall() {
		t.Errorf("no better than the design it follows: false positives %.2f vs %.2f, recall %.2f vs %.2f", with.fpRate(), without.fpRate(), with.recall(), without.recall())
	}
	// Every relevant item that can reach the threshold is served. A LOW
	// item cannot (its best score is 1.0 × 0.5): by the design's weights
	// LOW entries live in the index only.
	for _, m := range with.misses {
		id := m[strings.LastIndex(m, ": ")+2:]
		if it := set.Find(id, ""); it == nil || it.Priority != "LOW" {
			t.Errorf("relevant and not served: %s", m)
		}
	}
	for _, fp := range without.fps {
		if strings.HasPrefix(fp, "README typo: version-bump-checklist") {
			return // the original's failure this design fixes, measured
		}
	}
	t.Errorf("the set no longer shows the original's README false positive: %v", without.fps)
}
