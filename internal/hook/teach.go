package hook

import (
	"fmt"
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// TeachText is what session start teaches the agent: how to state a
// lesson it learns as a [PROCESS_KNOWLEDGE] block, in the triads design's
// keys. A few lines, once per session (their cost is in docs/capture.md).
const TeachText = `devlearn keeps what you learn in this project. When the person corrects you, tells you how this project works or asks you to remember something, or a failure teaches you a fix, end that reply with one block per lesson (none when nothing was learned):
[PROCESS_KNOWLEDGE]
type: pattern            # checklist | pattern | warning | requirement
priority: HIGH           # CRITICAL | HIGH | MEDIUM | LOW
label: <the lesson, one sentence a future agent can act on>
trigger_conditions: {tool_names: [Bash], file_patterns: ["**/package.json"], action_keywords: [npm install]}
pattern: {situation: <when>, action: <what to do>, rationale: <why>}
[/PROCESS_KNOWLEDGE]
A checklist is checklist: {title, items: [...]}; a warning warning: {risk, severity, mitigation}; a requirement requirement: {constraint, validation}. It is kept as a draft and shown before matching tool calls.`

// teaching is what session start adds for the agent as extractor: the
// block format (extractor.agent), and the drafts waiting for a person.
// It takes at most half of a hook's output: a budget set smaller than
// that keeps it for the knowledge.
func (r *run) teaching(set *knowledge.Set) string {
	var parts []string
	if r.cfg.Extractor.Agent && 2*len([]rune(TeachText)) <= r.cfg.Serve.BudgetChars {
		parts = append(parts, TeachText)
	}
	// The agent's drafts are entries a person accepts or drops; what
	// devlearn learned is an observation, decided on as one.
	wrote, learned := 0, 0
	for _, it := range set.Items {
		switch {
		case it.Type != knowledge.TypeEntry || it.Status != knowledge.StatusDraft:
		case it.Learned():
			learned++
		default:
			wrote++
		}
	}
	if wrote > 0 {
		parts = append(parts, fmt.Sprintf("%s the agent wrote %s for a person's review (served meanwhile, marked as drafts): `devlearn knowledge list --status draft`; `devlearn knowledge promote KEY` accepts one, `devlearn knowledge archive KEY` drops it.",
			knowledge.Plural(wrote, "draft", "drafts"), agree(wrote, "waits", "wait")))
	}
	if learned > 0 {
		parts = append(parts, fmt.Sprintf("%s from earlier sessions, not yet ready, %s served where its file or command comes up (marked as learned): `devlearn learn --list --status observing` lists them; `devlearn learn --review --deprecate ID` turns one down.",
			knowledge.Plural(learned, "lesson learned", "lessons learned"), agree(learned, "is", "are")))
	}
	if out := strings.Join(parts, "\n\n"); 2*len([]rune(out)) <= r.cfg.Serve.BudgetChars {
		return out
	}
	return ""
}

// agree is the form of a verb whose subject is a count of n: one for 1,
// many otherwise.
func agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// withTeaching adds the teaching to session start's text.
func withTeaching(text, teaching string) string {
	switch {
	case teaching == "":
		return text
	case text == "":
		return teaching
	}
	return text + "\n\n" + teaching
}
