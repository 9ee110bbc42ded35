package transcript

import (
	"path"
	"strings"
)

// What an agent writes into the files it reads at the start of every
// session, its instructions (CLAUDE.md, AGENTS.md, GEMINI.md, Cursor's
// rules, Copilot's instructions) and its memory (Claude Code's auto
// memory, Gemini CLI's saved memories), is what it means to know next
// time: a lesson in its own words, in whatever language the person
// spoke. The readers keep that text, and only for those files
// (ToolCall.Wrote), so that the extractors can tell what the agent kept.

// MaxWrote bounds what one call wrote that is kept. Twice as much is
// redacted, then cut: what is kept is redacted whole, and a file written
// whole costs no more than the part that is kept.
const MaxWrote = 4096

// InstructionFile reports a file an agent reads as its instructions, or
// keeps as its memory (MemoryFile). Every path of every call is asked, so
// a name that is neither allocates nothing.
func InstructionFile(p string) bool {
	name := p[strings.LastIndexAny(p, `/\`)+1:]
	for _, n := range instructionNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	if !hasSuffixFold(name, ".md") && !hasSuffixFold(name, ".mdc") {
		return false
	}
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	return strings.Contains(p, "/.cursor/rules/") || MemoryFile(p)
}

// instructionNames are the files agents read as their instructions.
var instructionNames = []string{"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENT.md", "GEMINI.md", ".cursorrules", ".windsurfrules", "copilot-instructions.md"}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// MemoryFile reports a file of Claude Code's auto memory: a markdown file
// in a memory folder of its configuration (~/.claude/projects/<project>/
// memory/feedback_x.md, MEMORY.md its index).
func MemoryFile(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	return strings.HasSuffix(p, ".md") && path.Base(path.Dir(p)) == "memory" && strings.Contains(p, "/.claude/")
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
// it names: the added lines of their sections, every line of a file it
// adds.
func PatchAdded(patch string) string {
	var b strings.Builder
	in := false
	for l := range strings.Lines(patch) {
		l = strings.TrimRight(l, "\r\n")
		if rest, ok := strings.CutPrefix(l, "*** "); ok {
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
