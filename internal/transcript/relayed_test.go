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
		{"a bot's reply pasted, Chinese", "debug\n算八字\n好的，我来帮你算八字～请告诉我你的出生信息：出生日期、出生时间、出生地点。健康注意：木被金克，注意肝胆、筋骨。人际关系：比肩年既要合作也要防范竞争。财运：偏财透出，适合技术发展与财务合作。保存到档案，我会为您建立个人档案，方便以后直接使用，使用时就不需要重复提供了。", "debug\n算八字"},
		{"a bot's reply pasted, French", "le bot répond ça quand je demande mes films :\nPour mieux vous aider, pourriez-vous préciser ce que vous entendez par mes films ? N'hésitez pas à partager vos goûts ou vos préférences cinématographiques.", "le bot répond ça quand je demande mes films :"},
		{"another AI's prompt, its citation marks", "applique ça :\nRôle : Expert Python. [cite: 2025-12-05] Diagnostic : l'IA échoue à extraire le titre. Tu DOIS extraire le titre, la saison et l'épisode, et ne supprime jamais les fichiers. Assure-toi que le code Python convertit bien les sorties de l'IA en entier avant de les envoyer à l'API.", "applique ça :"},
		{"another AI's answer announced by its app", "quand je tape /status rien ne se passe\nGemini a dit\n" + answerProse, "quand je tape /status rien ne se passe"},
		{"an assistant's phrase quoted, little after it", "the bot keeps saying \"I'd be happy to help\" and nothing else, fix it", "the bot keeps saying \"I'd be happy to help\" and nothing else, fix it"},
		{"an assistant's answer headed by pictographs", "The progress is looking solid.\n\n### 📊 The Status Report\n\n" + answerProse + "\n\n---\n\n### 🚀 Preparing for the run\n\n" + answerProse, "The progress is looking solid."},
		{"the person's own headings", "The progress is looking solid.\n\n### Status\n\n" + answerProse + "\n\n### Next\n\n" + answerProse, "The progress is looking solid.\n\n### Status\n\n" + answerProse + "\n\n### Next\n\n" + answerProse},
		{"the person's own words only", "Never push to main, and feel free to open a pull request instead whenever the tests pass on the branch you are working on.", "Never push to main, and feel free to open a pull request instead whenever the tests pass on the branch you are working on."},
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
