package extract

import (
	"strings"

	"github.com/devlearn/devlearn/internal/transcript"
)

// An explicit lesson is stated as one. Labelled lessons ("Lesson learned:",
// "Note for future:") count from the person and from the agent, which
// writes them in its summaries; "from now on" and "going forward" only from
// the person, since in the agent's mouth they are promises, not lessons.
var (
	labelledLesson = lazy(`(?:^|[\s*_(\[-])(?:lessons? learned|note for (?:the )?future|for future reference|note to self|key takeaway)[*_]*\s*[:–—-]\s*(?P<x>.+)`)
	fromNowOn      = lazy(`\bfrom now on\b`)
	// "going forward" is also a plain verb ("going forward with the
	// plan"): only the sentence-opening "Going forward," and the closing
	// "... going forward." mark a lesson.
	goingForwardStart = lazy(`^[\s\-*+•_]*going forward,\s*(?P<x>.+)`)
	goingForwardEnd   = lazy(`^(?P<x>.+?),?\s+going forward[.!]?$`)

	lessonHedge = lazy(`\b(?:if|unless|whether|what|should we|do we|can we|could we|maybe|perhaps|not sure|wonder)\b`)

	// choice marks a lesson that is a decision (one way chosen over
	// another) rather than a procedure.
	choice  = lazy(`\b(?:use|uses|using|prefer|prefers|instead of|rather than|switch to|switched to|stick (?:to|with)|go with|we(?:` + apos + `ll| will)? use|avoid|never use|don` + apos + `?t use|do not use|chose|choose|adopt)\b`)
	because = lazy(`\s(?:because|since|as it|as they|so that|given that)\s`)
)

// Lessons finds explicit lessons in what the person wrote and in the
// agent's labelled lessons, as decision or procedural observations.
func Lessons(ch *transcript.Channels, opt Options) []Observation {
	return lessons(prepare(ch, opt), opt)
}

func lessons(ch *transcript.Channels, opt Options) []Observation {
	var out []Observation
	for _, s := range ch.UserSignals {
		for _, l := range findLessons(s.Text, true) {
			out = append(out, lessonObservation(l, "user", s.SessionID, s.UUID, s.Timestamp, opt))
		}
	}
	for _, p := range ch.DialogPairs {
		for _, l := range findLessons(p.Assistant, false) {
			out = append(out, lessonObservation(l, "assistant", p.SessionID, p.AssistantUUID, p.Timestamp, opt))
		}
	}
	return dedupe(out)
}

type foundLesson struct{ sentence, x string }

// findLessons returns the lessons in text; person allows the unlabelled
// markers.
func findLessons(text string, person bool) []foundLesson {
	var out []foundLesson
	m := mask(text)
	for _, sp := range sentences(m) {
		sentence, low := text[sp.start:sp.end], lowerASCII(m[sp.start:sp.end])
		if x, ok := matchLesson(sentence, low, person); ok {
			out = append(out, foundLesson{sentence, x})
		}
	}
	return out
}

func matchLesson(sentence, low string, person bool) (string, bool) {
	if loc := labelledLesson.FindStringSubmatchIndex(low); loc != nil {
		xi := labelledLesson.SubexpIndex("x")
		return cleanLesson(sentence[loc[2*xi]:loc[2*xi+1]])
	}
	if !person || strings.HasSuffix(strings.TrimSpace(low), "?") {
		return "", false
	}
	if loc := fromNowOn.FindStringIndex(low); loc != nil {
		if lessonHedge.MatchString(low[:loc[0]]) {
			return "", false
		}
		return cleanLesson(sentence[:loc[0]] + " " + sentence[loc[1]:])
	}
	for _, re := range []*lazyRegexp{goingForwardStart, goingForwardEnd} {
		if loc := re.FindStringSubmatchIndex(low); loc != nil {
			xi := re.SubexpIndex("x")
			if lessonHedge.MatchString(low[:loc[2*xi]]) {
				return "", false
			}
			return cleanLesson(sentence[loc[2*xi]:loc[2*xi+1]])
		}
	}
	return "", false
}

// leadIn is what people put before an instruction and a lesson does not
// need.
var leadIn = lazy(`(?i)^(?:(?:ok|okay|so|and|also|but|please|then|alright|right|now)\b[,\s]*)+`)

// notLasting marks a clause that is not a rule for the future: a
// concession ("sure, but for now...") or a one-off.
var notLasting = lazy(`(?i)^(?:sure|yes|yeah|no|nope|maybe|perhaps|fine)\b|\bfor now\b|\bthis once\b|\bfor the moment\b|\bfor the time being\b`)

func cleanLesson(x string) (string, bool) {
	x = strings.Join(strings.Fields(x), " ")
	x = strings.Trim(x, " *_:;,-–—")
	x = leadIn.ReplaceAllString(x, "")
	x = strings.Trim(x, " *_.!:;,")
	if len(strings.Fields(x)) < 2 || notLasting.MatchString(x) {
		return "", false
	}
	return x, true
}

func lessonObservation(l foundLesson, speaker, session, uuid, ts string, opt Options) Observation {
	x := l.x
	rationale := "none given"
	if loc := because.FindStringIndex(x); loc != nil {
		rationale = strings.TrimSpace(x[loc[0]:])
		x = strings.TrimSpace(x[:loc[0]])
	}
	o := Observation{
		Pattern:    clip(opt.redact(capitalize(x)), maxPattern),
		Evidence:   []string{opt.quote(speaker, l.sentence)},
		QualityOK:  len(strings.Fields(x)) >= 3,
		SessionID:  session,
		RecordUUID: uuid,
		Timestamp:  ts,
		Extractor:  ExtractorLesson,
	}
	if choice.MatchString(strings.ToLower(x)) {
		o.Type = Decision
		o.Details = opt.redact("context: stated by the " + speaker + " as a rule for this project; decision: " + x + "; rationale: " + rationale)
	} else {
		o.Type = Procedural
		o.Details = opt.redact("trigger: every future session; steps: " + x + "; source: an explicit lesson by the " + speaker)
	}
	return o
}
