package render

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/devlearn/devlearn/internal/contenthash"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/textsim"
)

// A ready decision that says what a decision in force already says (its
// words overlap the section's title by curator.similarity or more, as the
// curator judges two bullets) is merged into that section instead of
// becoming a second ADR: the section gains an Also line with the lesson's
// id, the day and its words, and the lesson is recorded as rendered there.
// Every id on the section finds it (knowfile.Section.Sources), so
// reconcile counts both lessons in it and a person's deletion of the ADR
// is a "no" to both.

// nearDecisions finds sections by their title words, per knowledge file,
// built on first use and kept up as the run appends sections.
type nearDecisions struct {
	words  map[*knowfile.Section][]string
	byWord map[string][]*knowfile.Section
}

func (n *nearDecisions) add(s *knowfile.Section) {
	if s.Anchor == "" {
		return
	}
	w := textsim.Words(s.Title)
	n.words[s] = w
	for _, x := range w {
		n.byWord[x] = append(n.byWord[x], s)
	}
}

// nearDecision is the decision in force of doc most like o, and how alike
// they are; nil when none reaches the threshold.
func (p *plan) nearDecision(file string, doc *knowfile.Doc, o observe.Observation) (*knowfile.Section, float64) {
	threshold := p.r.Opts.Config.Curator.Similarity
	if threshold <= 0 {
		return nil, 0
	}
	n := p.near[file]
	if n == nil {
		n = &nearDecisions{words: map[*knowfile.Section][]string{}, byWord: map[string][]*knowfile.Section{}}
		for _, s := range doc.Sections {
			n.add(s)
		}
		p.near[file] = n
	}
	words := textsim.Words(o.Pattern)
	// A section alike by threshold t shares at least t·len(words) of
	// these words (the union is never smaller than the lesson's own
	// words), so it shares one of any len(words) − ⌈t·len(words)⌉ + 1 of
	// them: looking only under the rarest that many keeps a run over
	// lessons that all say "build scripts" from comparing each with all.
	probe := slices.Clone(words)
	sort.SliceStable(probe, func(i, j int) bool { return len(n.byWord[probe[i]]) < len(n.byWord[probe[j]]) })
	if k := len(probe) - int(math.Ceil(threshold*float64(len(probe))-1e-9)) + 1; k >= 1 && k < len(probe) {
		probe = probe[:k]
	}
	var best *knowfile.Section
	bestSim := 0.0
	seen := map[*knowfile.Section]bool{}
	for _, w := range probe {
		for _, s := range n.byWord[w] {
			if seen[s] {
				continue
			}
			seen[s] = true
			if !s.Active() {
				continue
			}
			if sim := textsim.Of(words, n.words[s]); sim >= threshold && (sim > bestSim || (sim == bestSim && s.Number < best.Number)) {
				best, bestSim = s, sim
			}
		}
	}
	return best, bestSim
}

// merge plans o into the section dup of file: the Also line, the
// manifest entries of the section's lessons following its new text when
// they had its old one (an edit a person made is still theirs to report),
// and o recorded as rendered there.
func (p *plan) merge(o observe.Observation, file string, dup *knowfile.Section, sim float64) {
	old, oldBody := dup.Hash(), dup.Body
	doc := p.docs[file]
	doc.AddLine(dup, fmt.Sprintf("- **%s**: %s%s (%s): %s", knowfile.AlsoField, knowfile.SourcePrefix, o.ID, p.r.Opts.Now.UTC().Format("2006-01-02"), oneLine(o.Pattern)))
	hash := dup.Hash()
	for i := range p.entries {
		if e := &p.entries[i]; e.Path == file && e.AnchorID == dup.Anchor && e.ContentHash == old {
			e.ContentHash = hash
		}
	}
	for _, id := range dup.Sources() {
		if e := p.man.Get(id); e != nil && e.Path == file && contenthash.Matches(e.ContentHash, []byte(oldBody)) {
			moved := *e
			moved.ContentHash = hash
			p.rehashed = append(p.rehashed, moved)
		}
	}
	p.changed[file] = true
	p.record(o, file, dup.Anchor, hash, false)
	r := &p.res.Rendered[len(p.res.Rendered)-1]
	r.MergedInto, r.Similarity = dup.Anchor, sim
}
