package knowfile

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse reads a decisions file of 250 sections, as reconcile does
// on each full check.
func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<!-- TL;DR: 250 decisions. -->\n# Architectural Decisions\n\n")
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&sb, "## ADR-%03d: Lesson number %d about the build scripts\n\n- **Date**: 2026-04-10\n- **Status**: Accepted\n"+
			"- **Context**: area: scripts/hooks/%d\n- **Decision**: one job per script\n- **Consequences**: testable\n- **Source**: self-learning:obs_%08x\n\n", i, i, i, i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if d := Parse(Decisions, data); len(d.Sections) != 250 {
			b.Fatal(len(d.Sections))
		}
	}
}
