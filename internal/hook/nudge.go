package hook

import (
	"strings"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/textcut"
	"github.com/devlearn/devlearn/internal/transcript"
)

// The agent as extractor: the agent in the session understands every
// language the person writes, so when a prompt may be a correction devlearn
// asks it to end its reply with a [PROCESS_KNOWLEDGE] block stating the
// lesson, which the Stop hook keeps as a draft. The detector is cheap and
// favours recall; a flagged prompt that teaches nothing costs the note
// below and nothing else.

// NudgeNote is what a prompt that may be a correction adds to the agent's
// context.
const NudgeNote = "devlearn: this prompt may correct you or teach you something about this project. If it holds a lesson for later sessions, end your reply with a [PROCESS_KNOWLEDGE] block stating it (type, label: the lesson as one sentence, trigger_conditions, and its checklist, pattern, warning or requirement); if it does not, ignore this note."

// OpeningNote is what a session's first request adds to the agent's
// context: people set the task and their terms in it.
const OpeningNote = "devlearn: a session's first request often says how the person wants this project handled. If this one holds a lesson for later sessions (how things are done here, a tool or a rule to keep to), end your reply with a [PROCESS_KNOWLEDGE] block stating it (type, label: the lesson as one sentence, trigger_conditions, and its checklist, pattern, warning or requirement); if it does not, ignore this note."

// minOpening is how many runes of the person's own words make a first
// request worth asking about: "hi", "continue", "/resume" are not.
const minOpening = 16

// mayBeCorrection is the detector the nudge uses: capture's per-language
// tables (negation, contrast, rejection, "remember").
var mayBeCorrection = lang.MayBeCorrection

// MayTeach reports a prompt the hook reads for a lesson, and asks the
// agent about: the person's own words (not the editor's context, a command
// template or a log pasted in) may correct the agent or teach it something.
func MayTeach(prompt string) bool { return MayTeachAt(prompt, false) }

// MayTeachAt is MayTeach knowing whether the prompt is its session's
// first: a first request of some length is asked about whatever its
// words. On the genuine dev sessions a quarter of such first requests,
// unflagged by the words, teach a lesson: as many as of the prompts the
// words flag.
func MayTeachAt(prompt string, first bool) bool {
	own := ownWords(prompt)
	return mayBeCorrection(own) || first && opening(own)
}

// ownWords is what the detectors read of a prompt: its start, cut where
// it is recorded, and of it only the person's own words (not the
// editor's context, a command template, a log or another assistant's
// answer pasted in: transcript.OwnWords, as capture reads them).
func ownWords(prompt string) string {
	return transcript.OwnWords(textcut.Bytes(prompt, MaxPromptRunes*utf8.UTFMax))
}

// opening reports a first request long enough to hold a lesson.
func opening(own string) bool {
	return utf8.RuneCountInString(strings.TrimSpace(own)) >= minOpening
}

// promptSubmit is UserPromptSubmit: the prompt recorded and the entries
// its keywords call for served (userPromptSubmit), then what the prompt
// teaches: a lesson the person asks to keep saved as an active entry, an
// entry it corrects again escalated, and, when it may be a correction, the
// agent asked for a block.
func (r *run) promptSubmit() (*Output, error) {
	// What the prompt teaches is stored first, so that what is served for
	// it reads as the prompt left it (an entry escalated to CRITICAL is
	// served as CRITICAL).
	// The prompt is recorded first: whether it is the session's first
	// decides what the agent is asked.
	sess := SessionOf(r.proj, r.in.SessionID)
	first := false
	if strings.TrimSpace(r.in.Prompt) != "" {
		// What the session works on, for the tool calls: another
		// session's request is, the harness's note after it is not.
		if err := sess.AddPrompt(r.now, transcript.WithoutPeerNote(r.redactedPrompt())); err != nil {
			r.log.Printf("recording the prompt: %v", err)
		}
		first = len(sess.Prompts(2)) == 1
	}
	notes := r.learnFromPrompt(first)
	out, err := r.userPromptSubmit(sess)
	if err != nil && err != errQuiet {
		return out, err
	}
	if len(notes) == 0 || !r.serving() {
		return out, err
	}
	text := strings.Join(notes, "\n\n")
	if out == nil {
		return r.output(text, "", ""), nil
	}
	// The notes come first.
	merged := *out
	merged.HookSpecificOutput.AdditionalContext = text + "\n\n" + out.HookSpecificOutput.AdditionalContext
	if size(&merged) > r.cfg.Serve.BudgetChars {
		// What was served is recorded as served: it stays, the notes go.
		r.log.Printf("devlearn's notes left out: with the knowledge served they exceed %d characters", r.cfg.Serve.BudgetChars)
		return out, nil
	}
	return &merged, nil
}

// learnFromPrompt reads the prompt for lessons, and returns the notes for
// the agent; first: the prompt is its session's first.
func (r *run) learnFromPrompt(first bool) []string {
	// The detectors and everything kept read one text, read once: the
	// own words (as MayTeachAt reads them) of the redacted prompt, the
	// one that is recorded (redactedPrompt; a secret that crosses the
	// cut is redacted whole).
	prompt := ownWords(r.redactedPrompt())
	if !mayBeCorrection(prompt) {
		// MayTeachAt's other half: a session's first request.
		if first && opening(prompt) && r.cfg.Extractor.Agent {
			return []string{OpeningNote}
		}
		return nil
	}
	reqs := keep.Find(prompt)
	var notes []string
	if len(reqs) > 0 {
		notes = r.keepRequests(reqs, prompt)
	} else {
		notes = r.escalateCorrection(prompt)
		if r.cfg.Extractor.Agent {
			notes = append(notes, NudgeNote)
		}
	}
	r.debugKeep("prompt", map[string]any{"prompt": prompt}, map[string]any{"requests": reqs, "notes": notes})
	return notes
}
