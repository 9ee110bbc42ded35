package prompt

import "testing"

// A prompt over 1,000 entries, within its budget.
func BenchmarkAssemble(b *testing.B) {
	s := set(1000)
	for b.Loop() {
		Assemble(Input{Stage: "implement", Set: s, IndexBudget: 1500, SkillName: tdd.Name, Skill: tdd, TwoStrike: "## Two-Strike Protocol\n\nx", Budget: 6000})
	}
}
