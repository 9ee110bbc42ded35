package transcript

import (
	"path"
	"strings"

	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/textcut"
)

// What an agent writes into the files it reads at the start of every
// session, its instructions (CLAUDE.md, AGENTS.md, GEMINI.md, Cursor's
// rules, Copilot's instructions) and its memory (Claude Code's auto
// memory), is what it means to know next
// time: a lesson in its own words, in whatever language the person
// spoke. The readers keep that text, and only for those files
// (ToolCall.Wrote), so that the extractors can tell what the agent kept.

// MaxWrote bounds what one call wrote that is kept.
const MaxWrote = 4096

// InstructionFile reports a file an agent reads as its instructions, or
// keeps as its memory (MemoryFile). Every path of every call is asked: a
// name that is not markdown allocates nothing.
func InstructionFile(p string) bool {
	name := p[strings.LastIndexAny(p, `/\`)+1:]
	if instructionName(name) {
		return true
	}
	if !hasSuffixFold(name, ".md") && !hasSuffixFold(name, ".mdc") {
		return false
	}
	p = slashed(p)
	return strings.Contains(p, "/.cursor/rules/") || memory(p)
}

// MemoryFile reports a file of Claude Code's auto memory: a markdown file
// in a memory folder of its configuration (~/.claude/projects/<project>/
// memory/feedback_x.md, MEMORY.md its index).
func MemoryFile(p string) bool { return memory(slashed(p)) }

func memory(p string) bool {
	return strings.HasSuffix(p, ".md") && path.Base(path.Dir(p)) == "memory" && strings.Contains(p, "/.claude/")
}

// slashed is p in lower case with forward slashes, rooted so that a
// relative path's first folder is one too (".cursor/rules/go.mdc").
func slashed(p string) string {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// instructionNames are the files agents read as their instructions.
var instructionNames = []string{"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", ".cursorrules", ".windsurfrules", "copilot-instructions.md"}

func instructionName(name string) bool {
	for _, n := range instructionNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// NamesInstructionFile reports text that names an agent's instruction
// file ("put it in CLAUDE.md").
func NamesInstructionFile(text string) bool {
	low := strings.ToLower(text)
	for _, n := range instructionNames {
		if strings.Contains(low, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// Write is what a call wrote into an agent's instructions or memory, as
// its input gives it: a file's text, an edit's old and new text, or a
// patch (Codex's apply_patch) that may touch such a file.
type Write struct{ Content, Old, New, Patch string }

// Kept is the write as a call keeps it (ToolCall.Wrote): every text
// redacted whole before anything else (a key's header on a line the edit
// keeps still marks its body), then what it adds, cut at MaxWrote at a
// line's end, so that neither a secret nor a placeholder is cut in two.
func (w Write) Kept(redactText func(string) string) string {
	var s string
	switch {
	case w.Patch != "":
		if PatchAdded(w.Patch) == "" {
			return "" // no instruction file in it: nothing to redact
		}
		s = PatchAdded(redactText(w.Patch))
	case w.Content != "":
		s = redactText(w.Content)
	case w.New != "":
		s = Added(redactText(w.Old), redactText(w.New))
	}
	if len(s) <= MaxWrote {
		return s
	}
	s = textcut.Bytes(s, MaxWrote)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return redact.WholePlaceholders(s)
}

// Added is what new adds to old: the lines of new that old does not
// hold, in their order (an edit's new string against the old one).
func Added(old, new string) string {
	had := map[string]int{}
	for l := range strings.Lines(old) {
		had[strings.TrimRight(l, "\r\n")]++
	}
	var b strings.Builder
	for l := range strings.Lines(new) {
		l = strings.TrimRight(l, "\r\n")
		if had[l] > 0 {
			had[l]--
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// PatchAdded is what an apply_patch patch adds to the instruction files
// it names (or moves a file to): the added lines of their sections,
// every line of a file it adds.
func PatchAdded(patch string) string {
	var b strings.Builder
	in := false
	for l := range strings.Lines(patch) {
		l = strings.TrimRight(l, "\r\n")
		if rest, ok := strings.CutPrefix(l, "*** "); ok {
			if to, moved := strings.CutPrefix(rest, "Move to: "); moved {
				in = in || InstructionFile(strings.TrimSpace(to))
				continue
			}
			f, named := strings.CutPrefix(rest, "Add File: ")
			if !named {
				f, named = strings.CutPrefix(rest, "Update File: ")
			}
			in = named && InstructionFile(strings.TrimSpace(f))
			continue
		}
		if added, ok := strings.CutPrefix(l, "+"); ok && in {
			b.WriteString(added)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
