package knowledge

import (
	"cmp"
	"fmt"
	"github.com/devlearn/devlearn/internal/redact"
	"slices"
	"strings"
	"unicode/utf8"
)

// TitleWidth is where index titles are cut.
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
// decisions (the more specific first), then by id.
func Ordered(items []*Item) []*Item {
	out := slices.Clone(items)
	typeRank := map[string]int{TypeEntry: 0, TypePitfall: 1, TypeDecision: 2}
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
		if c := cmp.Compare(PriorityRank(a.Priority), PriorityRank(b.Priority)); c != 0 {
			return c
		}
		if a.Scope != b.Scope {
			return cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope))
		}
		if c := cmp.Compare(typeRank[a.Type], typeRank[b.Type]); c != 0 {
			return c
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

// BuildIndex renders the index of a set within its budget. Whatever does
// not fit is counted and named with the command that lists it.
func BuildIndex(set *Set, o IndexOptions) *Index {
	ix := &Index{Lines: []Line{}, Budget: o.BudgetTokens}
	var listed []*Item
	for _, it := range Ordered(set.Items) {
		if it.Active || o.All {
			listed = append(listed, it)
		} else {
			ix.Inactive++
		}
	}
	counts := map[string]int{}
	for _, it := range listed {
		counts[it.Type]++
	}
	header := fmt.Sprintf("Project knowledge, %s, most important first; `%s` reads one.\n",
		countPhrase(len(listed), counts), ShowCommand)
	if len(listed) == 0 {
		header = "Project knowledge: nothing recorded yet.\n"
	}

	var b strings.Builder
	b.WriteString(header)
	runes := utf8.RuneCountInString(header)
	for i, it := range listed {
		line := newIndexLine(it)
		text := line.text()
		footer := ix.footer(len(listed)-i-1, o)
		if o.BudgetTokens > 0 && tokensOf(runes+utf8.RuneCountInString(text)+utf8.RuneCountInString(footer)) > o.BudgetTokens {
			ix.LeftOut = len(listed) - i
			break
		}
		b.WriteString(text)
		runes += utf8.RuneCountInString(text)
		ix.Lines = append(ix.Lines, line.Line)
		ix.Items = append(ix.Items, it)
	}
	footer := ix.footer(ix.LeftOut, o)
	b.WriteString(strings.TrimSuffix(footer, sizeLine(0)))
	runes += utf8.RuneCountInString(footer)
	ix.Tokens = tokensOf(runes)
	b.WriteString(sizeLine(ix.Tokens))
	ix.Text = b.String()
	return ix
}

// sizeLine ends the index with its own size. The budget is checked with
// the widest number, so that filling in the real one never overruns it.
func sizeLine(tokens int) string {
	if tokens == 0 {
		return "(~99999 tokens)\n"
	}
	return fmt.Sprintf("(~%d tokens)\n", tokens)
}

// footer says what was left out and how to read it, and ends with the
// index's own size.
func (ix *Index) footer(leftOut int, o IndexOptions) string {
	var b strings.Builder
	if leftOut > 0 {
		fmt.Fprintf(&b, "+%d more over the %d-token budget: `devlearn knowledge index --budget 0`.\n", leftOut, o.BudgetTokens)
	}
	if ix.Inactive > 0 {
		fmt.Fprintf(&b, "+%d not in force: `devlearn knowledge index --all`.\n", ix.Inactive)
	}
	b.WriteString(sizeLine(0))
	return b.String()
}

type indexLine struct{ Line }

func newIndexLine(it *Item) indexLine {
	return indexLine{Line{
		ID: it.ID, Type: it.Type, Label: it.Label(), Title: Cut(it.Title, TitleWidth),
		Area: it.Area, Scope: it.Scope, Tokens: tokensOf(it.TextRunes),
	}}
}

func (l indexLine) text() string {
	area := ""
	if l.Area != "" {
		area = " (area: " + Cut(l.Area, 40) + ")"
	}
	return fmt.Sprintf("- %s [%s] %s%s ~%d tok\n", l.ID, l.Label, l.Title, area, l.Tokens)
}

func countPhrase(n int, counts map[string]int) string {
	var parts []string
	for _, t := range []struct{ typ, one, many string }{
		{TypeDecision, "decision", "decisions"},
		{TypePitfall, "pitfall", "pitfalls"},
		{TypeEntry, "entry", "entries"},
	} {
		if c := counts[t.typ]; c > 0 {
			parts = append(parts, Plural(c, t.one, t.many))
		}
	}
	return fmt.Sprintf("%s (%s)", Plural(n, "item", "items"), strings.Join(parts, ", "))
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
