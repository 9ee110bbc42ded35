package knowledge

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/words"
)

// Weights of the components of a score.
type Weights struct {
	Tool, File, Action, Context float64
	// Command: a command trigger matches one of the call's commands (a
	// Bash call's, or one a request names). Unlike the others it is never
	// half: most calls run no command, and an item without a command
	// trigger loses nothing by it.
	Command float64
	// FileMiss is taken off when an item's file triggers all miss the
	// file a Write or Edit acts on: a version-bump checklist says nothing
	// about an edit of README.md. It is a weight among the others, not a
	// veto: a lesson about Y fires on Y because the files it names are
	// among its file triggers (derive.go), wherever it was learned.
	FileMiss float64
}

// DefaultWeights are the design's 0.4 / 0.4 / 0.1 / 0.1, with a command
// worth a file, and a missed file taking back what a matched one gives.
var DefaultWeights = Weights{Tool: 0.4, File: 0.4, Action: 0.1, Context: 0.1, Command: 0.4, FileMiss: 0.4}

// Call is what a tool call (or a prompt) offers to match against.
type Call struct {
	Tool string
	// Paths are the files the call touches, relative to the project root
	// with forward slashes (absolute when outside it); for a prompt, the
	// files it names.
	Paths []string
	// FileScoped: the tool acts on the file named in its input (Write,
	// Edit, ...), so an item whose file trigger misses it loses
	// Weights.FileMiss.
	FileScoped bool
	// Commands are the simple commands of a Bash call ("cd web && npm
	// install" is cd and npm install), or the commands a prompt names.
	Commands []Segment
	// Words are the recent prompts of the session and the tool's input.
	Words *words.Haystack
	// Prompt: the call is a prompt, before any tool is chosen. The tool
	// is unknown, so its component is half, and only an item that the
	// prompt names (a file, a command, a keyword or a topic of it) is
	// served.
	Prompt bool
	// Line is the Bash call's command, or the request, as written: a
	// learned failure's arguments are looked for in it (lowerLine).
	Line string

	folded []string // Paths as matched (see FoldedPaths)
	// written are a request's Paths as the person wrote them (folded),
	// before the session's folder was put in front: a name is matched on
	// the folders they named (Glob.MatchNamed).
	written []string
	lower   *string // Line as matched (see lowerLine)
}

// FoldedPaths are the call's paths in the form globs match (slashed,
// lower case), computed once.
func (c *Call) FoldedPaths() []string {
	if c.folded == nil && len(c.Paths) > 0 {
		c.folded = make([]string, len(c.Paths))
		for i, p := range c.Paths {
			c.folded[i] = repopath.Fold(p)
		}
	}
	return c.folded
}

// writtenAt is the i-th of a request's paths as written, or p.
func (c *Call) writtenAt(i int, p string) string {
	if i < len(c.written) {
		return c.written[i]
	}
	return p
}

// Breakdown is a score and how it was reached, for `knowledge why`.
type Breakdown struct {
	Tool    float64 `json:"tool"`
	File    float64 `json:"file"`
	Command float64 `json:"command"`
	Action  float64 `json:"action"`
	Context float64 `json:"context"`
	// Miss is what a missed file took off (Weights.FileMiss), as a
	// positive number.
	Miss       float64 `json:"file_miss"`
	Base       float64 `json:"base"`
	Multiplier float64 `json:"multiplier"`
	Score      float64 `json:"score"`
	// Always: a CRITICAL item whose file or command trigger matches, with
	// its evidence and its tool, is served whatever else matches (100%
	// recall for what must not be missed).
	Always bool `json:"always,omitempty"`
	// Hurting: the item hurt more than it helped, and the counters may
	// weigh on ranking (counters.rank): its score was multiplied by
	// hurtingFactor.
	Hurting bool `json:"hurting,omitempty"`
	// Why lists what matched and what did not (only when explaining).
	Why []string `json:"why,omitempty"`
	// Keyword: the keywords say the item applies: each keyword trigger it
	// sets (actions, context) found one of its words. Within a trigger
	// the keywords are alternatives; across the two they add up, so
	// "actions: [deploy], context: [production]" means a deploy to
	// production, not any deploy.
	Keyword bool `json:"-"`
	// Named: a prompt names one of the item's files, commands or topics.
	Named bool `json:"-"`
	// Evidence: a trigger more specific than the tool matched (a file, a
	// command, keywords, or for a prompt a topic), or the item sets none.
	// The tool alone is no evidence for an item that says more about when
	// it applies: without this, every CRITICAL entry for Bash would score
	// (0.4 + 0.2) × 2 = 1.2 on every shell command. A broad glob
	// ("internal/**/*.go") is evidence alone only when the item sets no
	// keywords: with keywords, the glob says where and the keywords say
	// what, and both must match.
	Evidence bool `json:"evidence"`
}

// Score computes an item's relevance to a call:
//
//	(tool + file + command + action + context - file miss) × priority
//
// Each of tool, file, action and context is its weight when the trigger
// matches, nothing when it is set and misses, and half its weight when
// the item does not set it; command is its weight when it matches, else
// nothing.
func Score(it *Item, c *Call, w Weights) Breakdown { return score(it, c, w, false) }

// Explain is Score with the reasons spelled out.
func Explain(it *Item, c *Call, w Weights) Breakdown { return score(it, c, w, true) }

// score computes a breakdown. It runs for every candidate item on every
// tool call, so it allocates nothing unless asked to explain.
func score(it *Item, c *Call, w Weights, explain bool) Breakdown {
	var b Breakdown
	m := &it.Match
	why := func(format string, args ...any) {
		b.Why = append(b.Why, fmt.Sprintf(format, args...))
	}
	toolHit, fileHit, broadOnly, cmdHit, topicHit := false, false, false, false, false

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

	paths := c.FoldedPaths()
	var hit *Glob
	hitPath := ""
	// The files the text of a tools-only entry names can only add: its
	// author asked for every call of its tools.
	// The files a failure names count at a request only (AtRequest):
	// elsewhere they are no trigger, neither matched nor missed.
	usable := len(m.Files)
	if !c.Prompt {
		for _, g := range m.Files {
			if g.AtRequest {
				usable--
			}
		}
	}
	filesSet := usable > 0 && !toolsOnly(m)
	if usable > 0 {
		broadOnly = true
	paths:
		for i, p := range paths {
			for j := range m.Files {
				g := &m.Files[j]
				if g.AtRequest && !c.Prompt {
					continue
				}
				if g.Match(p) || c.Prompt && g.MatchNamed(c.writtenAt(i, p)) {
					if hit == nil {
						hit, hitPath = g, c.Paths[i]
					}
					if !g.Broad() {
						hit, hitPath, broadOnly = g, c.Paths[i], false
						break paths
					}
				}
			}
		}
		fileHit = hit != nil
		broadOnly = broadOnly && fileHit
	}
	switch {
	case fileHit:
		b.File = w.File
		if explain {
			why("file: %s matches %s%s", shown(hit), hitPath, derivedNote(hit.Derived))
		}
	case c.Prompt:
		b.File = w.File / 2
		if explain {
			why("file: none named by the request matches (half: not known before a tool is chosen)")
		}
	case !filesSet:
		b.File = w.File / 2
		if explain && usable < len(m.Files) {
			why("file: %s, named by the failure, count at a request only (half)", patterns(m.Files))
		} else if explain {
			why("file: no trigger (half)")
		}
	case c.FileScoped:
		b.Miss = w.FileMiss
		if explain {
			why("file: %s match none of %s (file miss: -%.2f)", patterns(m.Files), strings.Join(c.Paths, ", "), w.FileMiss)
		}
	case explain:
		why("file: no file of this call matches %s", patterns(m.Files))
	}

	var hitCmd Command
	var hitSeg Segment
	var argsMissed *Command
cmds:
	for i, cm := range m.Commands {
		for _, sg := range c.Commands {
			if cm.Match(sg) {
				if len(cm.Args) > 0 && !passesArgs(c.lowerLine(), cm.Args) || cm.Outside && !sg.Outside {
					argsMissed = &m.Commands[i]
					continue
				}
				cmdHit, hitCmd, hitSeg = true, cm, sg
				break cmds
			}
		}
	}
	if cmdHit {
		b.Command = w.Command
		if explain {
			named := " (named in the lesson)"
			if hitCmd.Written {
				named = ""
			}
			why("command: %s%s matches %s", hitCmd, named, strings.TrimSpace(hitSeg.Verb+" "+strings.Join(hitSeg.Words, " ")))
		}
	} else if explain && argsMissed != nil && argsMissed.Outside && len(argsMissed.Args) == 0 {
		why("command: %s is run, but on no path outside the project, which the call that failed named", argsMissed)
	} else if explain && argsMissed != nil {
		why("command: %s is run, but with none of what the call that failed passed (%s)", argsMissed, strings.Join(argsMissed.Args, ", "))
	} else if explain && len(m.Commands) > 0 {
		why("command: none of %s is run%s", commandList(m.Commands), map[bool]string{true: " or named"}[c.Prompt])
	}

	var hitA, hitC bool
	b.Action, hitA = keywordScore(m.Actions, c.Words, w.Action)
	b.Context, hitC = keywordScore(m.Context, c.Words, w.Context)
	b.Keyword = (len(m.Actions) > 0 || len(m.Context) > 0) && (len(m.Actions) == 0 || hitA) && (len(m.Context) == 0 || hitC)
	topic := ""
	if c.Prompt {
		for _, t := range m.Topics {
			if c.Words.Has(t) {
				topicHit, topic = true, t
				break
			}
		}
		if topicHit && !hitA {
			b.Action = w.Action
		}
		b.Named = b.Keyword || topicHit || fileHit || cmdHit
	}
	fileEvidence := fileHit && (!broadOnly || b.Keyword || len(m.Actions) == 0 && len(m.Context) == 0)
	b.Evidence = fileEvidence || cmdHit || b.Keyword || topicHit || toolsOnly(m)
	if it.Learned() && !fileEvidence && !cmdHit {
		// What devlearn learned and no person reviewed is served by
		// relevance only where it names the very file or command: a word
		// it shares with a request is not enough. Session start lists it.
		b.Evidence = false
	}
	if explain {
		explainKeywords("action", m.Actions, c.Words, why)
		explainKeywords("context", m.Context, c.Words, why)
		if topicHit {
			why("topic: the request names %q (counts as the action)", topic)
		}
		switch {
		case fileHit && !fileEvidence:
			why("the file matched only a broad pattern and the item's keywords did not: not served")
		case !b.Evidence && it.Learned():
			why("learned, not reviewed: served only where its file or command comes up")
		case !b.Evidence:
			why("no file, command, action or context trigger matched: the tool alone does not serve it")
		}
	}

	b.Base = round(b.Tool + b.File + b.Command + b.Action + b.Context - b.Miss)
	b.Multiplier = multiplier(it.Priority)
	b.Score = round(b.Base * b.Multiplier)
	b.Always = it.Priority == "CRITICAL" && b.Evidence && (fileHit || cmdHit) && (toolHit || len(m.Tools) == 0 || c.Prompt)
	return b
}

// toolsOnly: the item's author set no trigger beyond its tools, so it
// applies to every call of them; what its text names does not narrow it.
func toolsOnly(m *Match) bool {
	if len(m.Tools) == 0 || len(m.Actions) > 0 || len(m.Context) > 0 {
		return false
	}
	for _, g := range m.Files {
		if !g.Derived {
			return false
		}
	}
	for _, c := range m.Commands {
		if c.Written {
			return false
		}
	}
	return true
}

func shown(g *Glob) string {
	if g.Shown != "" {
		return g.Shown
	}
	return g.Pattern
}

func derivedNote(d bool) string {
	if d {
		return " (named in the lesson)"
	}
	return ""
}

func commandList(cs []Command) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

func keywordScore(phrases []string, h *words.Haystack, weight float64) (float64, bool) {
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

func explainKeywords(name string, phrases []string, h *words.Haystack, why func(string, ...any)) {
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
	for i := range gs {
		s = append(s, shown(&gs[i]))
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
	b.Score = round(b.Score * hurtingFactor)
	if b.Why != nil {
		b.Why = append(b.Why, fmt.Sprintf("hurt more than it helped (knowledge stats), counters.rank on: score × %g", hurtingFactor))
	}
}

// Serve reports whether a score is worth serving for the call.
func (b *Breakdown) Serve(c *Call, threshold float64) bool {
	switch {
	case c.Prompt && !b.Named:
		return false
	case b.Always:
		return true
	}
	return b.Evidence && b.Score >= threshold
}

// SortScored orders candidates: active items before drafts, then
// always-served first, then by score, then by priority, then by id so
// that equal scores come out the same way every time.
func SortScored(s []Scored) {
	slices.SortStableFunc(s, func(a, b Scored) int {
		if c := cmp.Compare(draftRank(a.Item), draftRank(b.Item)); c != 0 {
			return c
		}
		if a.Always != b.Always {
			if a.Always {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(priorityRank(a.Item.Priority), priorityRank(b.Item.Priority)); c != 0 {
			return c
		}
		return strings.Compare(a.Item.ID, b.Item.ID)
	})
}
