package extract

import (
	"strings"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/repopath"
)

// lessons reads every turn of the person and makes an observation of each
// lesson found. A turn that only asks to keep what came before ("save
// this in your memory") marks the previous turn's lessons explicit.
func (c *conversation) lessons() []Observation {
	var out []Observation
	var prev []int // out's indices of the previous turn's observations
	for i := range c.turns {
		t := &c.turns[i]
		found, back := read(t)
		t.corrects = back || len(found) > 0
		if back {
			for _, j := range prev {
				out[j].Explicit = true
				out[j].Evidence = MergeEvidence(out[j].Evidence, []string{quote("user", t.sig.Own)})
			}
			continue
		}
		prev = prev[:0]
		for _, f := range found {
			out = append(out, observation(t, f))
			prev = append(prev, len(out)-1)
		}
	}
	return out
}

// observation states a finding as an observation: its type, the details
// each type's artifact reads (devflow's "key: value; ..." fields), and the
// evidence: the person's words, what the agent had done, and its
// acknowledgement.
func observation(t *turn, f finding) Observation {
	o := Observation{
		Pattern:    clip(f.lesson, maxPattern),
		SessionID:  t.sig.SessionID,
		RecordUUID: t.sig.UUID,
		Timestamp:  t.sig.Timestamp,
		Extractor:  ExtractorCorrection,
		Class:      f.class,
		Explicit:   f.explicit,
		QualityOK:  words(f.lesson) >= 3 || f.area != "" || f.class == ClassPreference,
		Evidence:   []string{quote("user", f.said)},
	}
	switch {
	case f.action != "":
		o.Evidence = append(o.Evidence, quote("assistant", f.action))
	case lastSentence(t.before) != "":
		o.Evidence = append(o.Evidence, quote("assistant", lastSentence(t.before)))
	}
	if lang.Acknowledges(t.after) {
		o.Evidence = append(o.Evidence, quote("assistant", firstSentence(t.after)))
	}
	how := map[string]string{
		ClassRule:         "the person corrected the agent",
		ClassContrast:     "the person chose one way over another",
		ClassRemember:     "the person asked for it to be remembered",
		ClassRejection:    "the person rejected what the agent did",
		ClassAcknowledged: "the agent acknowledged the person's correction",
		ClassPreference:   "the person stated a standing choice",
		ClassFact:         "the person told the agent how things are",
	}[f.class]
	stated := field(f.lesson)
	if f.worded {
		how += ": \"" + field(clip(f.said, maxOwned)) + "\""
	}
	if lang.OwnsUp(t.after) && !strings.Contains(f.lesson, identity.AgentOwnedUp) {
		// What the agent owned up to says in its words what it should
		// have done ("You're right — returning nil on a mid-loop failure
		// drops the contracts already expired"): the person's words say
		// it about this task.
		if a := admission(t.after); words(a) >= minAdmissionWords {
			how += ": \"" + field(clip(a, maxOwned)) + "\""
		}
	}
	switch {
	case f.choice:
		o.Type = Decision
		o.Details = "context: " + how + "; decision: " + stated + "; rationale: " + field(because(f.said))
	case f.area != "":
		o.Type = Pitfall
		area := f.area
		issue := "the person had to point it out"
		if f.action != "" {
			issue = "the agent " + field(f.action)
		}
		if workFolder(t.folders, area) {
			// "run it from '/Users/me/proj/app'": the session's own
			// folder says where the lesson was said, and as a file
			// trigger would give it at every file there. What the agent
			// had done stays in the evidence.
			issue = lesson.WorkFolderIssue
		}
		if strings.Contains(area, `\`) || repopath.IsAbs(area) {
			area = repopath.Stored(t.root, t.sig.Cwd, area) // a path the person named
		}
		o.Details = "area: " + field(area) + "; issue: " + issue + "; impact: " + how + "; resolution: " + stated
	default:
		o.Type = Procedural
		trigger := toolsBefore(t.acted)
		if f.action != "" {
			// What the agent did that the person answered is when the
			// lesson applies, more than the calls before it.
			trigger = "the agent " + field(f.action)
		}
		if trigger == "" {
			trigger = "the task at hand"
		}
		o.Details = "trigger: " + field(trigger) + "; steps: " + stated + "; source: " + how
	}
	return o
}

// maxOwned bounds the agent's words a lesson's details quote.
const maxOwned = 160

// field keeps a value from breaking the "key: value; key: value" details.
func field(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), ";", ",")
}

// because is the reason the person gave, or "none given".
func because(s string) string {
	x := lang.Fold(s)
	for _, tb := range lang.Tables() {
		if ms := tb.Find(x, lang.Because, 0, len(x.Low())); len(ms) > 0 {
			if r := strings.TrimSpace(s[x.Offset(ms[0].End):]); r != "" {
				return strings.TrimRight(r, ".。!！")
			}
		}
	}
	return "none given"
}

// lastSentence and firstSentence are the agent's words closest to the
// person's turn.
func lastSentence(text string) string {
	x := lang.Fold(text)
	ss := sentences(x.Low())
	if len(ss) == 0 {
		return ""
	}
	s := ss[len(ss)-1]
	return strings.TrimSpace(text[x.Offset(s.start):x.Offset(s.end)])
}

func firstSentence(text string) string {
	x := lang.Fold(text)
	ss := sentences(x.Low())
	if len(ss) == 0 {
		return ""
	}
	s := ss[0]
	return strings.TrimSpace(text[x.Offset(s.start):x.Offset(s.end)])
}

// workFolder reports an absolute path that names one of the session's
// working folders itself, not a file or a folder in it.
func workFolder(folders []string, p string) bool {
	if !strings.Contains(p, `\`) && !repopath.IsAbs(p) {
		return false
	}
	for _, f := range folders {
		if rel, ok := repopath.Under(f, p); ok && rel == "." {
			return true
		}
	}
	return false
}
