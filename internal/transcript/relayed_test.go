package transcript

import (
	"strings"
	"testing"
)

// answerProse is prose of an answer, long enough to be one.
var answerProse = strings.Repeat("The keystore is cut short, so always decode it again and compare its size. ", 4)

func TestWithoutRelayed(t *testing.T) {
	laid := "still broken, see below\n\n---\n\n✅ Always pass the store type.\n❌ Never write the password into the workflow.\n\n---\n\n" + answerProse + answerProse
	for _, c := range []struct{ name, in, want string }{
		{"a short message", "Never push to main.", "Never push to main."},
		{"announced, English", "Don't touch the workflow. Here's what ChatGPT said: " + answerProse, "Don't touch the workflow."},
		{"announced, Japanese", "ワークフローは触らないで。以下のアドバイスをもらった。参考にして。" + answerProse, "ワークフローは触らないで。"},
		{"announced, Spanish", "Esto me dijo otra IA: " + answerProse, "Esto me dijo"},
		{"announced, with little after it", "ChatGPT said to use pnpm, so use pnpm here.", "ChatGPT said to use pnpm, so use pnpm here."},
		{"laid out: its lead", laid, "still broken, see below"},
		{"laid out, handed over to keep", "Remember this:\n" + laid, "Remember this:\n" + laid},
		{"laid out, for the instruction file", "Put the following in AGENTS.md\n" + laid, "Put the following in AGENTS.md\n" + laid},
		{"one kind of layout only (a log's columns)", "it fails:\n" + strings.Repeat("main.go   12   error   undefined: x\n", 5) + answerProse, "it fails:\n" + strings.Repeat("main.go   12   error   undefined: x\n", 5) + answerProse},
		{"the person's own list", "Requirements:\n- Docker Swarm, one replica\n- Traefik labels\n- no volumes\n" + answerProse, "Requirements:\n- Docker Swarm, one replica\n- Traefik labels\n- no volumes\n" + answerProse},
	} {
		if got := withoutRelayed(c.in); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLayoutOf(t *testing.T) {
	for in, want := range map[string]layout{
		"---":                       laidRule,
		"───────":                   laidRule,
		"## Context":                laidHeading,
		"#hashtag":                  laidPlain,
		"✅ done":                    laidMark,
		"① first":                   laidMark,
		"→ next":                    laidMark,
		"name    size    date":      laidColumns,
		"a\tb\tc":                   laidColumns,
		"- a bullet of the person":  laidPlain,
		"1. a numbered step of his": laidPlain,
		"plain words, one space":    laidPlain,
	} {
		if got := layoutOf(in); got != want {
			t.Errorf("layoutOf(%q) = %v, want %v", in, got, want)
		}
	}
}
