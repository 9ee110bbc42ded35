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
// description the lesson in one line), Gemini CLI a saved fact, and every
// agent its instruction file (CLAUDE.md, AGENTS.md, GEMINI.md). Three
// limits keep it to lessons. A write to an instruction file counts only
// when the person's last turn before it taught or asked to keep
// something: agents also write those files unasked, a whole project
// overview at /init. A memory of the work in progress (type project) is
// no lesson. And of any other text only the first few paragraphs or items
// that say a rule in the words of the tables are read, outside code,
// tables and headings: an instruction file holds an overview too, and a
// memory kept as a notebook its progress.

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
		file, memory := "its memory", true // Gemini CLI's save_memory names no file
		if k := slices.IndexFunc(t.Paths, transcript.InstructionFile); k >= 0 {
			file, memory = path.Base(strings.ReplaceAll(t.Paths[k], `\`, "/")), transcript.MemoryFile(t.Paths[k])
		}
		how := "the agent kept it in its memory"
		if !memory {
			said, ok := lastSaid(ch, t.Line)
			if !ok || !lang.MayBeCorrection(said) && !transcript.NamesInstructionFile(said) {
				continue
			}
			how = "the agent wrote it into " + file + " when the person asked"
		}
		for _, item := range writtenItems(t.Wrote) {
			out = append(out, Observation{
				Type:       Procedural,
				Pattern:    clip(item, maxPattern),
				Details:    "trigger: the task at hand; steps: " + field(item) + "; source: " + how,
				Evidence:   []string{quote("tool", t.Name+" "+file+" → "+item)},
				QualityOK:  true,
				SessionID:  t.SessionID,
				RecordUUID: recordOf(t),
				Timestamp:  t.Timestamp,
				Extractor:  ExtractorWritten,
				Class:      ClassWritten,
			})
		}
	}
	return out
}

// lastSaid is the person's own words in their last turn before line: what
// the agent was answering when it wrote.
func lastSaid(ch *transcript.Channels, line int) (string, bool) {
	for k := len(ch.UserSignals) - 1; k >= 0; k-- {
		if u := ch.UserSignals[k]; u.Line < line && !u.Rejection {
			return u.Own, true
		}
	}
	return "", false
}

// writtenItems are the sentences of what was written that can be lessons,
// at most maxWrittenItems. A memory file written whole with its front
// matter gives its description, the lesson in one line, unless its type
// says it records the work in progress ("project": status, not a
// lesson); its body says the same at length. Any other text gives its
// paragraphs and list items, without their marks, outside code fences,
// tables, headings, diagrams and an index's links to other memory files,
// that say a rule or a standing choice in the words of the tables
// (lang.MayBeCorrection): an instruction file holds a project's overview
// too, and a memory kept as a notebook its progress.
func writtenItems(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if front, ok := frontMatter(lines); ok {
		if d := front["description"]; front["type"] != "project" && lessonLike(d) {
			return []string{d}
		}
		return nil
	}
	var out []string
	for _, p := range paragraphs(lines) {
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
// diagram or a status mark's line (├─, ✅) is left out, and so are the
// keys of a front matter an edit changed.
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
		if fenced || l == "" || !proseStart(l) || strings.Contains(l, ".md)") || frontKey(l) {
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

// frontKey is a line of a memory's front matter ("type: feedback").
func frontKey(l string) bool {
	k, _, ok := strings.Cut(l, ":")
	switch k {
	case "name", "description", "type", "originSessionId", "metadata":
		return ok
	}
	return false
}

// frontMatter reads the front matter a memory file opens with: its keys
// and values, false when it has none.
func frontMatter(lines []string) (map[string]string, bool) {
	k := 0
	for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
		k++
	}
	if k == len(lines) || strings.TrimSpace(lines[k]) != "---" {
		return nil, false
	}
	front := map[string]string{}
	for _, l := range lines[k+1:] {
		l = strings.TrimSpace(l)
		if l == "---" {
			return front, true
		}
		if key, v, ok := strings.Cut(l, ":"); ok {
			front[strings.TrimSpace(key)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return nil, false
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
