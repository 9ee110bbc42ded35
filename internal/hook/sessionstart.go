package hook

import (
	"fmt"
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// sessionStart reconciles, then gives the agent the index of what is
// known, the first CRITICAL items in full (the rest by name), and the
// number of candidate entries waiting for a person's review.
func (r *run) sessionStart() (*Output, error) {
	if r.env.Reconcile != nil {
		if err := r.env.Reconcile(r.ctx, r.proj, r.cfg, r.now); err != nil {
			r.log.Printf("reconcile: %v (serving what is on disk)", err)
		}
	}
	// Full: every entry file is checked, so an entry edited in place since
	// the last session is served as it is now for the whole session.
	set := r.load(knowledge.Full)
	if !r.serving() {
		return nil, errQuiet
	}
	candidates := set.Count(knowledge.StatusCandidate)
	active := 0
	for _, it := range set.Items {
		if it.Active {
			active++
		}
	}
	teaching := r.teaching(set)
	if active == 0 && candidates == 0 {
		if teaching == "" {
			return nil, errQuiet
		}
		return r.output(teaching, "", ""), nil
	}
	text := SessionContext(r.sources(), set, r.cfg.Knowledge.IndexBudgetTokens, r.cfg.Serve.BudgetChars-len([]rune(teaching))-2, func(s string) int {
		return size(r.output(s, "", ""))
	})
	return r.output(withTeaching(text, teaching), "", ""), nil
}

// CriticalHeading opens the CRITICAL items session start gives in full.
const CriticalHeading = "CRITICAL project knowledge, quoted (" + knowledge.DataNote + "):"

// CriticalInFull is how many CRITICAL items session start gives in full,
// most important first (the triads design's "top 5"); the others are
// named, and each is served in full by relevance when it applies.
const CriticalInFull = 5

// SessionContext is the text given at session start: the index within
// its token budget, the first CriticalInFull CRITICAL items in full while
// the output stays within budgetChars (as measured by size), the ones
// left out by name, and the review queue.
func SessionContext(src knowledge.Sources, set *knowledge.Set, indexTokens, budgetChars int, size func(string) int) string {
	var tails []string
	if n := set.Count(knowledge.StatusCandidate); n > 0 {
		tails = append(tails, fmt.Sprintf("%s %s for a person's review: `devlearn knowledge list --status candidate` lists them; `devlearn knowledge promote KEY` accepts one, `devlearn knowledge archive KEY` drops it.",
			knowledge.Plural(n, "candidate entry", "candidate entries"), agree(n, "waits", "wait")))
	}
	var base string
	var beyond []string // CRITICAL items past the first CriticalInFull
	join := func(critical, leftOut []string, names int, tail bool) string {
		parts := []string{base}
		if len(critical) > 0 {
			parts = append(parts, CriticalHeading+"\n\n"+strings.Join(critical, "\n\n"))
		}
		// Past the first few, and what did not fit: one line, since
		// either is served in full by relevance when it applies.
		switch others := append(leftOut[:len(leftOut):len(leftOut)], beyond...); {
		case len(leftOut) > 0:
			parts = append(parts, fmt.Sprintf("Also CRITICAL, left out for length: %s. Read each with `%s`.", nameList(others, names), knowledge.ShowCommand))
		case len(beyond) > 0:
			parts = append(parts, fmt.Sprintf("Also CRITICAL, served in full when they apply: %s. Read each with `%s`.", nameList(others, names), knowledge.ShowCommand))
		}
		if tail {
			parts = append(parts, tails...)
		}
		return strings.Join(parts, "\n\n")
	}
	// The index keeps to its token budget; should that budget be set
	// beyond what one hook output may hold, it shrinks until it fits.
	for tokens := indexTokens; ; tokens = tokens * 4 / 5 {
		base = strings.TrimRight(knowledge.BuildIndex(set, knowledge.IndexOptions{BudgetTokens: tokens}).Text, "\n")
		if size(join(nil, nil, 0, true)) <= budgetChars-leftOutReserve || tokens < 50 {
			break
		}
	}
	var critical, leftOut []string
	for _, it := range knowledge.Ordered(set.Items) {
		if !it.Active || it.Priority != "CRITICAL" {
			continue
		}
		fresh, e, err := src.Shown(it)
		if err != nil || !fresh.Active || fresh.Priority != "CRITICAL" || fresh.Held != "" {
			continue
		}
		if len(critical)+len(leftOut) >= CriticalInFull {
			beyond = append(beyond, fresh.ID)
			continue
		}
		text := render(fresh, e)
		if size(join(append(critical[:len(critical):len(critical)], text), nil, 0, true)) > budgetChars-leftOutReserve {
			leftOut = append(leftOut, fresh.ID)
			continue
		}
		critical = append(critical, text)
	}
	// What is least needed goes first when a small budget is reached: the
	// review queue, then the names of what was left out (its count stays).
	for _, names := range []int{maxNames, maxNames / 2, 0} {
		for _, tail := range []bool{true, false} {
			if text := join(critical, leftOut, names, tail); size(text) <= budgetChars {
				return text
			}
		}
	}
	return base
}
