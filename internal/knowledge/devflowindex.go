package knowledge

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/project"
)

// devflow's orchestrators read each decision and pitfall of the index as
// "  ADR-001  <title>  [<status>]  —  <area>": the title cut at 60
// characters, the area at 80, each cut marked "…" (docs/serve.md, The
// index). devlearn shows every status as written, where devflow printed
// "[unknown]" for one it did not know (its defect 4).
const (
	devflowTitleWidth = 60
	devflowAreaWidth  = 80
)

// statusTag is a section's status as the devflow index line carries it,
// and its area after a dash when it has one. Entries have none.
func statusTag(it *Item) string {
	if it.Type == TypeEntry {
		return ""
	}
	st := it.Status
	if st == "" {
		st = "no status"
	}
	tag := "[" + st + "]"
	if it.Area != "" {
		tag += "  —  " + devflowCut(it.Area, devflowAreaWidth)
	}
	return tag
}

// devflowCut keeps the first n characters of s and marks a cut with "…",
// as devflow's index does (Cut, for devlearn's own lists, cuts one
// character earlier to stay within n).
func devflowCut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// DevflowIndex is devflow's compact index of a project's decisions and
// pitfalls, line for line, for the orchestrators that read it: a block of
// "Decisions (N):" and one of "Pitfalls (N):", each item on its line in
// file order, then where the files are and how to read a section; "(none)"
// when there is no section. Only the central files' sections are in it,
// as in devflow, and the footer names them under root, the project's.
func DevflowIndex(items []*Item, root string) string {
	var decisions, pitfalls []*Item
	for _, it := range items {
		switch {
		case it.Scope != ScopeProject:
		case it.Type == typeDecision && it.Path == project.DecisionsFile:
			decisions = append(decisions, it)
		case it.Type == typePitfall && it.Path == project.PitfallsFile:
			pitfalls = append(pitfalls, it)
		}
	}
	if len(decisions) == 0 && len(pitfalls) == 0 {
		return "(none)\n"
	}
	var blocks []string
	block := func(name string, its []*Item) {
		if len(its) == 0 {
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s (%d):", name, len(its))
		for _, it := range its {
			fmt.Fprintf(&b, "\n  %s  %s  %s", it.ID, devflowCut(it.Title, devflowTitleWidth), statusTag(it))
		}
		blocks = append(blocks, b.String())
	}
	block("Decisions", decisions)
	block("Pitfalls", pitfalls)
	var foot []string
	if len(decisions) > 0 {
		foot = append(foot, "ADR-NNN entries live in "+filepath.Join(root, project.DecisionsFile))
	}
	if len(pitfalls) > 0 {
		foot = append(foot, "PF-NNN  entries live in "+filepath.Join(root, project.PitfallsFile))
	}
	foot = append(foot, "Read the relevant file and locate the matching `## ADR-NNN:` or `## PF-NNN:` heading for the full body.")
	blocks = append(blocks, strings.Join(foot, "\n"))
	return strings.Join(blocks, "\n\n") + "\n"
}
