package extract

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/transcript"
)

// What the agent writes into its own instructions or memory is a lesson
// it stated itself, in its own words, whatever language the person spoke:
// the agent is the reader every rule here only approximates. Claude Code
// keeps an auto memory (a topic file per memory, its front matter's
// description the lesson in one line), and every agent its instruction
// file (CLAUDE.md, AGENTS.md, GEMINI.md). A memory the agent writes is
// recorded as one found on disk is (MemoryKind). A write to an
// instruction file counts only when the person's last turn before it
// taught or asked to keep something (agents also write those files
// unasked, a whole overview at /init), and of it only the first few
// paragraphs or items that say a rule in the words of the tables, outside
// code, tables and headings: such a file holds an overview too.

// ClassWritten is what the agent wrote into its instructions or memory.
const ClassWritten = "written"

// ExtractorWritten names the extractor of what the agent wrote there.
const ExtractorWritten = "written"

// maxWrittenItems bounds the lessons one write gives: the first ones,
// which an agent writes first because they matter most.
const maxWrittenItems = 3

// writtenLessons are the lessons the agent wrote into its instructions
// at the person's request, or into its memory. ch is as read: a memory
// file is outside the project.
func writtenLessons(ch *transcript.Channels) []Observation {
	var out []Observation
	for i := range ch.Tools {
		t := &ch.Tools[i]
		if t.Wrote == "" || t.IsError || !t.HasResult || t.Sidechain {
			continue // refused, failed or never answered: nothing was written
		}
		k := slices.IndexFunc(t.Paths, transcript.InstructionFile)
		if k < 0 {
			continue
		}
		file := path.Base(strings.ReplaceAll(t.Paths[k], `\`, "/"))
		if transcript.MemoryFile(t.Paths[k]) {
			if o, ok := writtenMemory(t, file); ok {
				out = append(out, o)
			}
			continue
		}
		said, ok := lastSaid(ch, t.Line)
		if !ok || !lang.MayBeCorrection(said) && !transcript.NamesInstructionFile(said) {
			continue
		}
		for _, item := range ruleItems(t.Wrote) {
			out = append(out, written(t, file, Procedural, item,
				"trigger: the task at hand; steps: "+field(item)+"; source: the agent wrote it into "+file+" when the person asked"))
		}
	}
	return out
}

// writtenMemory is a memory topic file the agent wrote whole, recorded as
// one found on disk is (MemoryKind: a feedback memory a pitfall, a
// project one a decision, a user or a reference one not at all): its
// description. An edit of one, or of the index, is not a memory whole.
func writtenMemory(t *transcript.ToolCall, file string) (Observation, bool) {
	m, err := ParseMemory([]byte(t.Wrote))
	if err != nil {
		return Observation{}, false
	}
	typ, err := MemoryKind(m.Type)
	if d := strings.TrimSpace(m.Description); err == nil && lessonLike(d) {
		details := "source: the agent kept it in its memory (" + m.Type + ")"
		if m.Body != "" {
			details = field(clip(m.Body, maxOwned)) + "; " + details
		}
		return written(t, file, typ, d, details), true
	}
	return Observation{}, false
}

// written is a lesson the agent wrote into file with call t.
func written(t *transcript.ToolCall, file, typ, lesson, details string) Observation {
	return Observation{
		Type:       typ,
		Pattern:    clip(lesson, maxPattern),
		Details:    details,
		Evidence:   []string{quote("tool", t.Name+" "+file+" → "+lesson)},
		QualityOK:  true,
		SessionID:  t.SessionID,
		RecordUUID: recordOf(t),
		Timestamp:  t.Timestamp,
		Extractor:  ExtractorWritten,
		Class:      ClassWritten,
	}
}

// lastSaid is the person's own words in their last turn before line: what
// the agent was answering when it wrote. A turn that only approves ("y",
// "ok", "はい") answers the agent's plan for the turn before it, which is
// what the agent then carries out: that turn is the one asked. A refusal
// ("no", "nope"), an answer too, is no approval: it corrects, and the
// agent writing next answers it, as before.
func lastSaid(ch *transcript.Channels, line int) (string, bool) {
	approved := 0
	for k := len(ch.UserSignals) - 1; k >= 0; k-- {
		u := ch.UserSignals[k]
		if u.Line >= line || u.Rejection {
			continue
		}
		if x := lang.Fold(u.Own); approved < maxApprovals && strings.TrimSpace(u.Own) != "" && madeOf(x, 0, len(x.Low()), lang.Answer, lang.Approve, lang.Filler) &&
			!hasKind(x, lang.Reject, 0, len(x.Low())) {
			approved++
			continue
		}
		return u.Own, true
	}
	return "", false
}

// maxApprovals bounds the approvals lastSaid looks past: more, and the
// agent has moved on from what was asked.
const maxApprovals = 2

// ruleItems are the sentences of what was written into an instruction
// file that can be lessons, at most maxWrittenItems: its paragraphs and
// list items, without their marks, outside code fences, tables,
// headings, diagrams and an index's links to other files, that say a rule
// or a standing choice in the words of the tables (lang.MayBeCorrection):
// such a file holds a project's overview too.
func ruleItems(text string) []string {
	var out []string
	for _, p := range paragraphs(strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")) {
		if lessonLike(p) && lang.MayBeCorrection(p) {
			out = append(out, p)
			if len(out) == maxWrittenItems {
				break
			}
		}
	}
	return out
}

// paragraphs are the list items and paragraphs of markdown lines, each on
// one line, without their marks; what is code, a table, a heading, a
// diagram or a status mark's line (├─, ✅) is left out.
func paragraphs(lines []string) []string {
	var out []string
	var cur strings.Builder
	end := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			out = append(out, p)
		}
		cur.Reset()
	}
	fenced := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			fenced = !fenced
			end()
			continue
		}
		if fenced || l == "" || !proseStart(l) || strings.Contains(l, ".md)") {
			// An index's line links the memory that says it.
			end()
			continue
		}
		if listMark.MatchString(l) {
			end()
			l = listMark.ReplaceAllString(l, "")
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(item(l))
	}
	end()
	return out
}

// proseStart reports a line that opens with words, a list mark or a name
// in code: not a heading, a table row, markup, a quote or a rule, a
// diagram's lines or a status mark.
func proseStart(l string) bool {
	r, _ := utf8.DecodeRuneInString(l)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("`\"'「(*-+•", r)
}

var (
	listMark = regexp.MustCompile(`^(?:[-*+•]|\d+[.)])\s+(?:\[[ xX]\]\s+)?`)
	mdLink   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// item is a line without its emphasis and link targets.
func item(l string) string {
	l = mdLink.ReplaceAllString(l, "$1")
	l = strings.NewReplacer("**", "", "__", "").Replace(l)
	return strings.TrimSpace(l)
}

// lessonLike: a sentence, not a label or a name: five words or more
// (a CJK text counts three characters a word), not only a label ending
// in a colon.
func lessonLike(s string) bool {
	return words(s) >= 5 && !strings.HasSuffix(s, ":") && !strings.HasSuffix(s, "：")
}
