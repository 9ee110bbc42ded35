// Package prompt assembles what an agent at a stage is given (docs/gates.md,
// "The knowledge index and the prompt"): the knowledge index, the stage skill's core, and the
// Two-Strike Protocol when the stage's last two rejections were similar,
// each part measured in tokens and the whole kept under a budget.
package prompt

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/skills"
)

// The parts of a prompt, in the order they are given.
const (
	PartIndex     = "knowledge index"
	PartSkill     = "skill core"
	PartTwoStrike = "two-strike addendum"
)

// MinIndexTokens is the smallest index worth giving: its counts, its
// left-out lines and the fetch line.
const MinIndexTokens = 100

const sep = "\n\n"

// Input is what a prompt is made of.
type Input struct {
	Stage string
	// Set is the knowledge (project and global); IndexBudget the
	// index's own budget (knowledge.index_budget_tokens).
	Set         *knowledge.Set
	IndexBudget int
	// SkillName is the stage's skill; Skill is nil when it could not be
	// read (SkillProblem says why).
	SkillName    string
	Skill        *skills.Skill
	SkillProblem string
	// TwoStrike is the addendum, when it applies.
	TwoStrike string
	// Budget bounds the whole prompt, in tokens.
	Budget int
}

// Part is one part of the prompt.
type Part struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// Cut: shortened to keep the whole under its budget.
	Cut  bool   `json:"cut,omitempty"`
	Text string `json:"text"`
}

// Prompt is the assembled prompt.
type Prompt struct {
	Stage  string `json:"stage"`
	Skill  string `json:"skill"`
	Parts  []Part `json:"parts"`
	Tokens int    `json:"tokens"`
	Budget int    `json:"budget_tokens"`
	Text   string `json:"text"`
}

// Assemble builds the prompt. The addendum is never cut (it is the point
// of a retry); the index gives way first, down to its smallest useful
// size, then the skill's core is cut, with a line saying how to read the
// rest.
func Assemble(in Input) *Prompt {
	p := &Prompt{Stage: in.Stage, Skill: in.SkillName, Budget: in.Budget}
	var addendum *Part
	if in.TwoStrike != "" {
		addendum = &Part{Name: PartTwoStrike, Text: strings.TrimRight(in.TwoStrike, "\n")}
	}
	skill := &Part{Name: PartSkill, Text: skillText(in)}
	fixed := tokens(skill.Text) + tokens(sep)
	if addendum != nil {
		fixed += tokens(addendum.Text) + tokens(sep)
	}
	indexBudget := in.IndexBudget
	if in.Budget > 0 {
		indexBudget = min(indexBudget, max(in.Budget-fixed, MinIndexTokens))
	}
	ix := knowledge.BuildIndex(in.Set, knowledge.IndexOptions{BudgetTokens: indexBudget})
	index := &Part{Name: PartIndex, Text: strings.TrimRight(ix.Text, "\n"), Cut: ix.LeftOut > 0}
	if in.Budget > 0 {
		room := in.Budget - tokens(index.Text) - tokens(sep)
		if addendum != nil {
			room -= tokens(addendum.Text) + tokens(sep)
		}
		if tokens(skill.Text) > room {
			skill.Text, skill.Cut = cutSkill(in, skill.Text, room), true
		}
	}
	for _, part := range []*Part{index, skill, addendum} {
		if part == nil || part.Text == "" {
			continue
		}
		part.Tokens = tokens(part.Text)
		p.Parts = append(p.Parts, *part)
	}
	texts := make([]string, len(p.Parts))
	for i, part := range p.Parts {
		texts[i] = part.Text
	}
	p.Text = strings.Join(texts, sep) + "\n"
	p.Tokens = tokens(p.Text)
	return p
}

// skillText is the skill part as ClawFlow's skills system injects it.
func skillText(in Input) string {
	if in.Skill == nil {
		if in.SkillName == "" {
			return ""
		}
		return fmt.Sprintf("## Skill: %s\n\n(Its core could not be read: %s.)", in.SkillName, in.SkillProblem)
	}
	return fmt.Sprintf("## Skill: %s (Core Instructions)\n\n%s\n%s", in.Skill.Name, strings.TrimRight(in.Skill.Core, "\n"), fetchLine(in.Skill.Name))
}

func fetchLine(name string) string {
	return fmt.Sprintf("\nUse fetch_skill_detail(%q) for the extended guidance (or `devlearn skill show %s --extended`).", name, name)
}

// cutSkill shortens the skill part to room tokens, at a line, ending with
// how to read all of it.
func cutSkill(in Input, text string, room int) string {
	note := fmt.Sprintf("\n[… cut to keep the prompt within %d tokens]%s", in.Budget, fetchLine(in.SkillName))
	keep := room - tokens(note)
	if keep <= 0 {
		return strings.TrimLeft(note, "\n")
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if tokens(b.String()+line) > keep {
			break
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n") + "\n" + note
}

func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
