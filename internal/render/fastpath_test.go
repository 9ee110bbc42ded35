package render

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/observe"
)

var textPieces = []string{"a", "Lesson", " ", "  ", "\t", "\n", "\r", "\v", "\f", "@", "＠", "!", "`", "```", "!`", "`!", "(", ":",
	"é", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200b", "\u202e", "\u200d", "\u00ad", "\ufeff", "\xff", "x y", "run `make`"}

func randomPieces(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(8); n > 0; n-- {
		b.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	return b.String()
}

// The shortcuts of oneLine and defuse (return the text as it is) give what
// the full transformations give, on text built from every kind of space,
// break, invisible character and the characters defuse rewrites.
func TestTextShortcutsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 100000 {
		s := randomPieces(r)
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
		if got, want := defuse(s), defuseAll(s); got != want {
			t.Fatalf("defuse(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkRenderCommand renders one slash command of the bulk render's
// kind: what a 500-workflow render does 500 times.
func BenchmarkRenderCommand(b *testing.B) {
	o := obs(observe.Workflow, "Lesson number 9980 about the build scripts",
		"area: scripts/hooks/9980; issue: issue 9980; impact: untestable; resolution: one job per script",
		"user: you forgot the hook again")
	now := time.Date(2026, 4, 10, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for range b.N {
		renderCommand(o, now)
	}
}
