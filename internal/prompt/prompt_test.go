package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/skills"
)

func set(n int) *knowledge.Set {
	s := &knowledge.Set{}
	for i := range n {
		e := &knowledge.Entry{Key: fmt.Sprintf("lesson-%03d", i), Summary: fmt.Sprintf("Lesson number %d about something that went wrong before", i), Priority: "MEDIUM", Status: "active", Kind: "note"}
		s.Items = append(s.Items, knowledge.FromEntry(e, knowledge.ScopeProject, "x.md"))
	}
	return s
}

var tdd = &skills.Skill{Name: "test-driven-development", Core: strings.Repeat("- Write the failing test first, then the code.\n", 20)}

func TestPartsInOrderWithTheirTokens(t *testing.T) {
	p := Assemble(Input{Stage: "implement", Set: set(3), IndexBudget: 1500, SkillName: tdd.Name, Skill: tdd, TwoStrike: "## Two-Strike Protocol\n\nx", Budget: 6000})
	if len(p.Parts) != 3 || p.Parts[0].Name != PartIndex || p.Parts[1].Name != PartSkill || p.Parts[2].Name != PartTwoStrike {
		t.Fatalf("%+v", p.Parts)
	}
	if !strings.HasPrefix(p.Text, "## Domain Knowledge Index\nProject-specific: 3 entries") ||
		!strings.Contains(p.Text, "## Skill: test-driven-development (Core Instructions)\n\n- Write") ||
		!strings.Contains(p.Text, `Use fetch_skill_detail("test-driven-development")`) ||
		!strings.HasSuffix(p.Text, "## Two-Strike Protocol\n\nx\n") {
		t.Fatal(p.Text)
	}
	sum := 0
	for _, part := range p.Parts {
		if part.Tokens != tokens(part.Text) || part.Cut {
			t.Fatalf("%+v", part)
		}
		sum += part.Tokens
	}
	if p.Tokens < sum || p.Tokens > sum+5 {
		t.Fatalf("total %d, parts %d", p.Tokens, sum)
	}
}

// Whatever the knowledge, the whole keeps to its budget: the index gives
// way first, then the skill's core, never the addendum.
func TestKeepsToItsBudget(t *testing.T) {
	addendum := strings.Repeat("You MUST explain. ", 20)
	for _, budget := range []int{300, 500, 1000, 3000} {
		p := Assemble(Input{Stage: "implement", Set: set(500), IndexBudget: 1500, SkillName: tdd.Name, Skill: tdd, TwoStrike: addendum, Budget: budget})
		if p.Tokens > budget {
			t.Errorf("budget %d: %d tokens", budget, p.Tokens)
		}
		if !strings.Contains(p.Text, strings.TrimSpace(addendum)) {
			t.Errorf("budget %d: the addendum was cut", budget)
		}
		if !p.Parts[0].Cut || !strings.Contains(p.Text, "more over the") {
			t.Errorf("budget %d: the index says nothing of what it left out", budget)
		}
	}
	small := Assemble(Input{Stage: "implement", Set: set(500), IndexBudget: 1500, SkillName: tdd.Name, Skill: tdd, TwoStrike: addendum, Budget: 300})
	if !small.Parts[1].Cut || !strings.Contains(small.Parts[1].Text, "cut to keep the prompt within 300 tokens") {
		t.Fatalf("%+v", small.Parts[1])
	}
	// A skill that could not be read is named, not silently missing.
	p := Assemble(Input{Stage: "plan", Set: set(0), IndexBudget: 1500, SkillName: "writing-plans", SkillProblem: "no skill", Budget: 6000})
	if !strings.Contains(p.Text, "## Skill: writing-plans\n\n(Its core could not be read: no skill.)") {
		t.Fatal(p.Text)
	}
}
