package knowledge

import (
	"cmp"
	"fmt"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/redact"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleWidth is where titles are cut in lists (search results).
const TitleWidth = 60

// ShowCommand is how the agent reads a full item; every list devlearn
// shows ends with it.
const ShowCommand = "devlearn knowledge show ID"

// IndexOptions shape the index.
type IndexOptions struct {
	// BudgetTokens bounds the whole index; 0 means no bound.
	BudgetTokens int
	// All also lists what is not in force: deprecated and superseded
	// sections, archived and candidate entries.
	All bool
}

// Index is the compact list of what is known, most important first.
type Index struct {
	Text     string  `json:"-"`
	Lines    []Line  `json:"items"`
	LeftOut  int     `json:"left_out"` // in force but over the budget
	Inactive int     `json:"inactive"` // not in force, not listed (without All)
	Tokens   int     `json:"tokens"`
	Budget   int     `json:"budget_tokens"`
	Items    []*Item `json:"-"`
}

// Line is one item of the index.
type Line struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Label  string `json:"label"`
	Title  string `json:"title"`
	Area   string `json:"area,omitempty"`
	Scope  string `json:"scope"`
	Tokens int    `json:"tokens"` // estimated size of the full item
}

// Tokens estimates the tokens of a text: one per four characters, the
// usual rule of thumb for English prose and code.
func Tokens(s string) int { return tokensOf(utf8.RuneCountInString(s)) }

func tokensOf(runes int) int { return (runes + 3) / 4 }

// Ordered returns the items in index order: in force first, then by
// priority, project before global, entries before pitfalls before
// decisions (the more specific first), learned drafts seen last first,
// then by id.
func Ordered(items []*Item) []*Item {
	out := slices.Clone(items)
	typeRank := map[string]int{TypeEntry: 0}
	for _, t := range lesson.Sections() {
		typeRank[t.Name] = t.Rank
	}
	slices.SortStableFunc(out, func(a, b *Item) int {
		if a.Active != b.Active {
			if a.Active {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(draftRank(a), draftRank(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(priorityRank(a.Priority), priorityRank(b.Priority)); c != 0 {
			return c
		}
		if a.Scope != b.Scope {
			return cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope))
		}
		if c := cmp.Compare(typeRank[a.Type], typeRank[b.Type]); c != 0 {
			return c
		}
		if a.Learned() && b.Learned() {
			// Learned drafts alike in all else: the one seen last first,
			// the lesson of the work going on.
			if c := strings.Compare(b.Updated, a.Updated); c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

func scopeRank(s string) int {
	if s == ScopeProject {
		return 0
	}
	return 1
}

// The lines of ClawFlow's summary index (docs/serve.md) that frame the items.
const (
	indexTitle   = "## Domain Knowledge Index"
	projectTitle = "### Project Knowledge"
	globalTitle  = "### Global Knowledge"
	// fetchLine says how to read an item in full: the agent tool when the
	// MCP server is there, the command otherwise.
	fetchLine = "Use fetch_knowledge(key_or_id) to read full details on any entry (or `" + ShowCommand + "`)."
)

// lineWidth is where an index line's summary is cut when the budget is
// tight: ClawFlow's summaries are 10 to 20 words. When every item fits
// even so, a line may run to wideLine: a lesson cut at a hundred
// characters often loses its condition or its object ("each task is two
// commits, `test(T-0XX)` with the test, then…"), and ClawFlow gives an
// entry 50 to 100 tokens of the index.
const (
	lineWidth = 100
	wideLine  = 240
)

// widths are the line widths tried, widest first, when every item fits.
var widths = []int{wideLine, 200, 160, 130}

// BuildIndex renders the index of a set within its budget, in ClawFlow's
// layout (docs/serve.md, The index): the counts of project and global entries in force, then
// one "- [key] summary" line per item under its scope's heading, most
// important first, then what was left out and the line saying how to
// read an entry in full. Decisions and pitfalls are entries of this index
// too, by their anchors. Whatever does not fit is counted and named with
// the command that lists it.
func BuildIndex(set *Set, o IndexOptions) *Index {
	ix := &Index{Lines: []Line{}, Budget: o.BudgetTokens}
	var listed []*Item
	inForce := map[string]int{}
	for _, it := range Ordered(set.Items) {
		if it.Active {
			inForce[it.Scope]++
		}
		if it.Active || o.All {
			listed = append(listed, it)
		} else {
			ix.Inactive++
		}
	}
	head := fmt.Sprintf("%s\nProject-specific: %s | Global: %s\n", indexTitle,
		Plural(inForce[ScopeProject], "entry", "entries"), Plural(inForce[ScopeGlobal], "entry", "entries"))
	width := ix.width(listed, head, o)
	// What fits is chosen most important first, whatever its scope; it is
	// then shown under its scope's heading.
	runes := utf8.RuneCountInString(head)
	titled := map[string]bool{}
	var chosen []*Item
	for i, it := range listed {
		n := utf8.RuneCountInString(newIndexLine(it, o.All, width).text())
		if !titled[it.Scope] {
			n += utf8.RuneCountInString(globalTitle) + 2 // a heading and its blank line
		}
		footer := ix.footer(len(listed)-i-1, o)
		if o.BudgetTokens > 0 && tokensOf(runes+n+utf8.RuneCountInString(footer)) > o.BudgetTokens {
			ix.LeftOut = len(listed) - i
			break
		}
		runes += n
		titled[it.Scope] = true
		chosen = append(chosen, it)
	}
	var b strings.Builder
	b.WriteString(head)
	if len(listed) == 0 {
		b.WriteString("\nNothing recorded yet.\n")
	}
	for _, scope := range []string{ScopeProject, ScopeGlobal} {
		title := projectTitle
		if scope == ScopeGlobal {
			title = globalTitle
		}
		first := true
		for _, it := range chosen {
			if it.Scope != scope {
				continue
			}
			if first {
				b.WriteString("\n" + title + "\n")
				first = false
			}
			line := newIndexLine(it, o.All, width)
			b.WriteString(line.text())
			ix.Lines = append(ix.Lines, line.Line)
			ix.Items = append(ix.Items, it)
		}
	}
	b.WriteString(ix.footer(ix.LeftOut, o))
	ix.Text = b.String()
	ix.Tokens = Tokens(ix.Text)
	return ix
}

// width is where the lines' summaries are cut: the widest of widths at
// which every item fits the budget, else lineWidth.
func (ix *Index) width(listed []*Item, head string, o IndexOptions) int {
	if o.BudgetTokens <= 0 {
		return wideLine
	}
	// Each line's length is its frame's and its title's, cut at w: added
	// up for each width, not written out, and only as far as the budget
	// lasts (a thousand entries overflow it in fifty lines).
	var frames, titles []int
	fixed := utf8.RuneCountInString(head) + utf8.RuneCountInString(ix.footer(0, o)) + 2*(utf8.RuneCountInString(globalTitle)+2)
	fits := func(w int) bool {
		runes := fixed
		for i, it := range listed {
			if i == len(frames) {
				frames, titles = append(frames, frameRunes(it, o.All)), append(titles, foldedRunes(it.Title))
			}
			runes += frames[i] + min(titles[i], w)
			if tokensOf(runes) > o.BudgetTokens {
				return false
			}
		}
		return true
	}
	if !fits(lineWidth) {
		return lineWidth
	}
	for _, w := range widths {
		if fits(w) {
			return w
		}
	}
	return lineWidth
}

// footer says what was left out and how to read it, and how to read an
// entry in full.
func (ix *Index) footer(leftOut int, o IndexOptions) string {
	var b strings.Builder
	b.WriteString("\n")
	if leftOut > 0 {
		fmt.Fprintf(&b, "+%d more over the %d-token budget: `devlearn knowledge index --budget 0`.\n", leftOut, o.BudgetTokens)
	}
	if ix.Inactive > 0 {
		fmt.Fprintf(&b, "+%d not in force: `devlearn knowledge index --all`.\n", ix.Inactive)
	}
	b.WriteString(fetchLine + "\n")
	return b.String()
}

type indexLine struct {
	Line
	labelled bool
	tag      string
}

func newIndexLine(it *Item, labelled bool, width int) indexLine {
	return indexLine{Line: Line{
		ID: it.ID, Type: it.Type, Label: it.Label(), Title: Cut(it.Title, width),
		Area: it.Area, Scope: it.Scope, Tokens: tokensOf(it.TextRunes),
	}, labelled: labelled, tag: statusTag(it)}
}

// text is ClawFlow's "- [key] summary". A decision or a pitfall carries
// devflow's status tag and area after it (statusTag), which devflow's
// orchestrators read; the full listing (--all) adds an entry's status
// and priority, since it mixes what is in force with what is not.
func (l indexLine) text() string {
	switch {
	case l.tag != "":
		return fmt.Sprintf("- [%s] %s  %s\n", l.ID, l.Title, l.tag)
	case l.labelled:
		return fmt.Sprintf("- [%s] %s (%s)\n", l.ID, l.Title, l.Label)
	}
	return fmt.Sprintf("- [%s] %s\n", l.ID, l.Title)
}

// frameRunes is the length of an item's index line without its title
// (text: "- [ID] title", then its tag or its label).
func frameRunes(it *Item, labelled bool) int {
	n := utf8.RuneCountInString("- [] \n") + utf8.RuneCountInString(it.ID)
	if tag := statusTag(it); tag != "" {
		return n + 2 + utf8.RuneCountInString(tag)
	}
	if labelled {
		return n + 3 + utf8.RuneCountInString(it.Label())
	}
	return n
}

// foldedRunes is the length of s as Cut leaves it uncut: its words with
// one space between them.
func foldedRunes(s string) int {
	n, gap := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			gap = n > 0
			continue
		}
		if gap {
			n++
			gap = false
		}
		n++
	}
	return n
}

// Plural returns "1 item" or "3 items".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Cut shortens s to at most n characters, marking the cut with "…".
func Cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(redact.WholePlaceholders(string(r[:n-1])), " ") + "…"
}
