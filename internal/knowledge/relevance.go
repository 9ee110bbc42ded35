package knowledge

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Weights of the four trigger components of a score.
type Weights struct {
	Tool, File, Action, Context float64
}

// DefaultWeights are the design's 0.4 / 0.4 / 0.1 / 0.1.
var DefaultWeights = Weights{Tool: 0.4, File: 0.4, Action: 0.1, Context: 0.1}

// Call is what a tool call (or a prompt) offers to match against.
type Call struct {
	Tool string
	// Paths are the files the call touches, relative to the project root
	// with forward slashes (absolute when outside it).
	Paths []string
	// FileScoped: the tool acts on the file named in its input (Write,
	// Edit, ...). An entry whose file trigger misses such a call is not
	// served at all: a version-bump checklist has nothing to say about an
	// edit of README.md, however well its tool matches.
	FileScoped bool
	// Words are the recent prompts of the session and the tool's input.
	Words *Haystack
	// Prompt: the call is a prompt, before any tool is chosen. Tool and
	// file are unknown, so their components are neutral, and only an item
	// whose action or context keywords match is served.
	Prompt bool
}

// Breakdown is a score and how it was reached, for `knowledge why`.
type Breakdown struct {
	Tool       float64 `json:"tool"`
	File       float64 `json:"file"`
	Action     float64 `json:"action"`
	Context    float64 `json:"context"`
	Base       float64 `json:"base"`
	Multiplier float64 `json:"multiplier"`
	Score      float64 `json:"score"`
	// Veto names the trigger that rules the item out whatever its score.
	Veto string `json:"veto,omitempty"`
	// Always: a CRITICAL item whose tool and file triggers both match is
	// served whatever else matches (100% recall for what must not be
	// missed).
	Always bool `json:"always,omitempty"`
	// Hurting: the item hurt more than it helped, and the counters may
	// weigh on ranking (counters.rank): its score was multiplied by
	// HurtingFactor.
	Hurting bool `json:"hurting,omitempty"`
	// Why lists what matched and what did not (only when explaining).
	Why []string `json:"why,omitempty"`
	// Keyword: the keywords say the item applies: each keyword trigger it
	// sets (actions, context) found one of its words. Within a trigger
	// the keywords are alternatives; across the two they add up, so
	// "actions: [deploy], context: [production]" means a deploy to
	// production, not any deploy.
	Keyword bool `json:"-"`
	// Evidence: a trigger more specific than the tool (a file, an action
	// or a context keyword) matched, or the item sets none. The tool
	// alone is no evidence for an item that says more about when it
	// applies: without this, every CRITICAL entry for Bash would score
	// (0.4 + 0.2) × 2 = 1.2 on every shell command.
	Evidence bool `json:"evidence"`
}

// Score computes an item's relevance to a call. Each component is its
// weight when the trigger matches, nothing when it is set and misses, and
// half its weight when the item does not set it; the sum is multiplied by
// the priority's weight.
func Score(it *Item, c *Call, w Weights) Breakdown { return score(it, c, w, false) }

// Explain is Score with the reasons spelled out.
func Explain(it *Item, c *Call, w Weights) Breakdown { return score(it, c, w, true) }

// score computes a breakdown. It runs for every item on every tool call,
// so it allocates nothing unless asked to explain.
func score(it *Item, c *Call, w Weights, explain bool) Breakdown {
	var b Breakdown
	m := &it.Match
	why := func(format string, args ...any) {
		b.Why = append(b.Why, fmt.Sprintf(format, args...))
	}
	toolHit, fileHit := false, false

	switch {
	case c.Prompt:
		b.Tool = w.Tool / 2
		if explain {
			why("tool: not known before a tool is chosen (half)")
		}
	case len(m.Tools) == 0:
		b.Tool = w.Tool / 2
		if explain {
			why("tool: no trigger (half)")
		}
	default:
		for _, t := range m.Tools {
			if c.Tool != "" && strings.EqualFold(t, c.Tool) {
				toolHit = true
				break
			}
		}
		if toolHit {
			b.Tool = w.Tool
		}
		if explain && toolHit {
			why("tool: %s matches", c.Tool)
		} else if explain {
			why("tool: %s is not one of %s", orNone(c.Tool), strings.Join(m.Tools, ", "))
		}
	}

	switch {
	case c.Prompt:
		b.File = w.File / 2
		if explain {
			why("file: not known before a tool is chosen (half)")
		}
	case len(m.Files) == 0:
		b.File = w.File / 2
		if explain {
			why("file: no trigger (half)")
		}
	default:
		hitPath, hitGlob := "", ""
	paths:
		for _, p := range c.Paths {
			for _, g := range m.Files {
				if g.Match(p) {
					hitPath, hitGlob = p, g.Pattern
					break paths
				}
			}
		}
		switch {
		case hitGlob != "":
			fileHit = true
			b.File = w.File
			if explain {
				why("file: %s matches %s", hitGlob, hitPath)
			}
		case c.FileScoped:
			b.Veto = VetoFile
			if explain {
				why("file: %s match none of %s (vetoed)", patterns(m.Files), strings.Join(c.Paths, ", "))
			}
		case explain:
			why("file: no file of this call matches %s", patterns(m.Files))
		}
	}

	var hitA, hitC bool
	b.Action, hitA = keywordScore(m.Actions, c.Words, w.Action)
	b.Context, hitC = keywordScore(m.Context, c.Words, w.Context)
	b.Keyword = (len(m.Actions) > 0 || len(m.Context) > 0) && (len(m.Actions) == 0 || hitA) && (len(m.Context) == 0 || hitC)
	b.Evidence = fileHit || b.Keyword || (len(m.Files) == 0 && len(m.Actions) == 0 && len(m.Context) == 0)
	if explain && !b.Evidence {
		why("no file, action or context trigger matched: the tool alone does not serve it")
	}
	if explain {
		explainKeywords("action", m.Actions, c.Words, why)
		explainKeywords("context", m.Context, c.Words, why)
	}

	b.Base = round(b.Tool + b.File + b.Action + b.Context)
	b.Multiplier = Multiplier(it.Priority)
	b.Score = round(b.Base * b.Multiplier)
	b.Always = it.Priority == "CRITICAL" && toolHit && fileHit
	return b
}

// VetoFile is the veto of an item whose file trigger misses a
// file-scoped call.
const VetoFile = "its file trigger does not match the file of this call"

func keywordScore(phrases []string, h *Haystack, weight float64) (float64, bool) {
	if len(phrases) == 0 {
		return weight / 2, false
	}
	for _, p := range phrases {
		if h.Has(p) {
			return weight, true
		}
	}
	return 0, false
}

func explainKeywords(name string, phrases []string, h *Haystack, why func(string, ...any)) {
	if len(phrases) == 0 {
		why("%s: no trigger (half)", name)
		return
	}
	for _, p := range phrases {
		if h.Has(p) {
			why("%s: %q found", name, p)
			return
		}
	}
	why("%s: none of %q found", name, phrases)
}

func patterns(gs []Glob) string {
	var s []string
	for _, g := range gs {
		s = append(s, g.Pattern)
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(no tool)"
	}
	return s
}

// round keeps scores free of float noise (0.4+0.4+0.1+0.05 is 0.95, not
// 0.9500000000000001), so that a score equal to the threshold passes it.
func round(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// Scored is an item with its score for one call.
type Scored struct {
	Item *Item
	Breakdown
}

// Options of a selection.
type Options struct {
	Weights   Weights
	Threshold float64
	MaxItems  int
	// Hurting holds the Refs of the items that hurt more than they
	// helped, when counters.rank is on (nil otherwise).
	Hurting map[string]bool
}

// Rank scores every active item that has triggers and returns those worth
// serving, best first: the always-served ones, then those at or above the
// threshold by score. Items without triggers only appear in the index.
// The caller takes from the front, skipping what it cannot serve (already
// served in this session, changed on disk) and stopping at MaxItems once
// the always-served ones are in.
func Rank(items []*Item, c *Call, o Options) []Scored {
	var out []Scored
	for _, it := range items {
		if !it.Active || it.Match.Empty() {
			continue
		}
		b := Score(it, c, o.Weights)
		o.Demote(it, &b)
		if !b.Serve(c, o.Threshold) {
			continue
		}
		out = append(out, Scored{Item: it, Breakdown: b})
	}
	SortScored(out)
	return out
}

// Demote lowers the score of an item that hurt more than it helped, for
// whatever scores an item outside Rank and must agree with it. An
// always-served item stays always served: what must not be missed is not
// left to the counters.
func (o Options) Demote(it *Item, b *Breakdown) {
	if !o.Hurting[it.Ref()] {
		return
	}
	b.Hurting = true
	b.Score = round(b.Score * HurtingFactor)
	if b.Why != nil {
		b.Why = append(b.Why, fmt.Sprintf("hurt more than it helped (knowledge stats), counters.rank on: score × %g", HurtingFactor))
	}
}

// Serve reports whether a score is worth serving for the call.
func (b *Breakdown) Serve(c *Call, threshold float64) bool {
	switch {
	case b.Veto != "":
		return false
	case c.Prompt && !b.Keyword:
		return false
	case b.Always:
		return true
	}
	return b.Evidence && b.Score >= threshold
}

// SortScored orders candidates: always-served first, then by score, then
// by priority, then by id so that equal scores come out the same way every
// time.
func SortScored(s []Scored) {
	slices.SortStableFunc(s, func(a, b Scored) int {
		if a.Always != b.Always {
			if a.Always {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(PriorityRank(a.Item.Priority), PriorityRank(b.Item.Priority)); c != 0 {
			return c
		}
		return strings.Compare(a.Item.ID, b.Item.ID)
	})
}
