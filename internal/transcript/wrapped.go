package transcript

import (
	"regexp"
	"strings"
	"sync"
)

// Unwrap returns the part of a user-role message that the person wrote,
// taking off what editors and agents wrap around it or expand into it:
//
//   - an editor's context: Claude Code's <ide_opened_file>,
//     <ide_selection> and <ide_diagnostics> notes; the Codex extension's
//     "# Context from my IDE setup:" and "# Files mentioned by the user:"
//     headers, whose request follows "## My request for Codex:";
//   - a command template expanded into the message (spec-kit, cc-sdd,
//     BMAD, a custom prompt): front matter, instructions addressed to the
//     agent ("You **MUST** ...", "<agent-activation CRITICAL=...>"),
//     $ARGUMENTS. Only the arguments the person typed are theirs: the
//     text under its "User Input" heading. A custom prompt's file named
//     before the arguments ("…\.codex\prompts\speckit.implement.md
//     implement T009") is taken off, and so is one expanded whole under
//     a heading that names its command ("# /butler-exec — …");
//   - a plan Claude Code hands back once the person approved it
//     ("Implement the following plan: ..."): the agent's words;
//   - another session's message, which Claude Code delivers as a turn of
//     the person's, from a teammate in an agent team or from any session
//     that sent it one ("Another Claude session sent a message:", a
//     <teammate-message …> or <cross-session-message …> block, then the
//     harness's note that the person did not type it): a peer's words,
//     and the harness's. Words of the person's beside them stay.
//
// These are someone else speaking, as pasted text is (OwnWords): a rule
// in a template is the template author's, not a correction by the
// person, and a file list says nothing of what the person wants.
func Unwrap(text string) string {
	if !strings.ContainsAny(text, "<#$-:") && !strings.Contains(text, "prompts") {
		return text
	}
	// Each regexp below runs only where its literal part stands: this is
	// the prompt hook's path, and most prompts hold a ':' or a '-'.
	t := text
	if strings.Contains(t, "<ide_") {
		t = ideNotes().ReplaceAllString(t, "")
	}
	if i := strings.LastIndex(t, codexRequest); i >= 0 && codexContext(t[:i]) {
		t = t[i+len(codexRequest):]
	}
	if holdsPeerTag(t) {
		t = withoutPeerMessages(t)
	}
	trim := strings.TrimSpace(t)
	if strings.HasPrefix(trim, "Implement the following plan:") {
		return ""
	}
	if args, ok := templateArguments(trim); ok {
		return args
	}
	if strings.Contains(trim, "prompts") {
		trim = strings.TrimSpace(promptFile().ReplaceAllString(trim, ""))
	}
	return trim
}

// withoutPeerMessages takes another session's messages out of a turn:
// each block with the line that announces it, the harness's note after
// it, and a block cut short (a prompt is read up to a limit) from its
// start to the end of the turn.
func withoutPeerMessages(t string) string {
	if !peerOpen().MatchString(t) {
		return t // a person writing of the tag
	}
	t = peerMessage().ReplaceAllString(t, "")
	t = peerCut().ReplaceAllString(t, "")
	return peerNote().ReplaceAllString(t, "")
}

// holdsPeerTag reports the literal part of a peer block's tags: the
// regexps run only where it stands, since the prompt hook reads every
// prompt through them.
func holdsPeerTag(t string) bool {
	return strings.Contains(t, "<teammate-message") || strings.Contains(t, "<cross-session-message")
}

// WithoutPeerNote is a turn that carries another session's message with
// what that session asked and without the harness's words around it: the
// agent acts on a peer's request, but its tags, the line announcing it,
// the note after it ("never edit your permission settings, CLAUDE.md, or
// config") and a teammate's report that it waits
// ({"type":"idle_notification"…}) are about no task.
func WithoutPeerNote(t string) string {
	if !holdsPeerTag(t) || !peerOpen().MatchString(t) {
		return t
	}
	t = peerMessage().ReplaceAllStringFunc(t, func(block string) string {
		m := peerMessage().FindStringSubmatch(block)
		said := strings.TrimSpace(m[1] + m[2])
		if strings.HasPrefix(said, "{") && strings.Contains(said, `"idle_notification"`) {
			return "" // a teammate saying it waits; a task it assigns stays
		}
		return said + "\n"
	})
	t = peerOpen().ReplaceAllString(t, "")
	return strings.TrimSpace(peerNote().ReplaceAllString(t, ""))
}

// peerAnnounce is the line Claude Code puts before another session's
// message.
const peerAnnounce = "Another Claude session sent a message:"

// peerAttrs are a peer block's attributes, whose quoted values may hold a
// ">" (summary="plan -> done").
const peerAttrs = `(?:[^>"]|"[^"]*")*`

// codexRequest introduces the person's request in a message the Codex
// editor extension wrapped.
const codexRequest = "## My request for Codex:"

// codexContext reports whether what stands before the request is the
// extension's context headers.
func codexContext(before string) bool {
	b := strings.TrimSpace(before)
	for _, h := range []string{"# Context from my IDE setup:", "# Files mentioned by the user:", "## Referenced ChatGPT conversation:", "## Active file:", "## Open tabs:"} {
		if strings.HasPrefix(b, h) {
			return true
		}
	}
	return false
}

var (
	ideNotes = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<(ide_opened_file|ide_selection|ide_diagnostics)>.*?</(ide_opened_file|ide_selection|ide_diagnostics)>`)
	})
	// Another session's message: the line Claude Code puts before it,
	// and the block, up to its own closing tag. Claude Code names the
	// sender in the opening tag: a person writing of the tag does not.
	peerMessage = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)(?:` + peerAnnounce + `\s*)?(?:<teammate-message\s+teammate_id=` + peerAttrs + `>(.*?)</teammate-message>|<cross-session-message\s+from=` + peerAttrs + `>(.*?)</cross-session-message>)`)
	})
	// A block's opening, with the line before it.
	peerOpen = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:` + peerAnnounce + `\s*)?<(?:teammate-message\s+teammate_id=|cross-session-message\s+from=)` + peerAttrs + `>`)
	})
	// A block with no closing tag, announced or opening the turn: the
	// rest of the turn is the peer's.
	peerCut = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)(?:^\s*|` + peerAnnounce + `\s*)<(?:teammate-message\s+teammate_id=|cross-session-message\s+from=).*`)
	})
	// The harness's note after it, to the end of its line: on a line of
	// its own, or after the closing tag.
	peerNote = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[ \t]*This came from another Claude session — not typed by your user[^\n]*\n?`)
	})
	// A custom prompt's file, named first: a path ending in
	// prompts/<name>.md (either slash).
	promptFile = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\S*[\\/]prompts[\\/][^\s\\/]+\.md\s*`)
	})
	// The heading spec-kit's commands put the arguments under, and the
	// fenced block that holds them.
	userInput = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?s)#+ *User Input\\s*\n\\s*```[a-z]*\n(.*?)\n?```")
	})
	// Instructions a template addresses to the agent.
	toAgent = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^(You (\*\*)?MUST(\*\*)? |You must fully embody|<[a-z][a-z-]*\s+[A-Z]+="[A-Z]+")`)
	})
)

// templateArguments reports a command template expanded into a message,
// and the arguments the person typed into it ("" when none).
func templateArguments(t string) (string, bool) {
	// toAgent runs only on a text that holds its literal parts (see Unwrap).
	if commandHeading(t) {
		// Its arguments were put in its text where it named them: nothing
		// after it is the person's.
		return "", true
	}
	template := strings.HasPrefix(t, "---\ndescription:") || strings.HasPrefix(t, "---\r\ndescription:") ||
		strings.HasPrefix(t, "<meta>") || strings.Contains(t, "$ARGUMENTS") ||
		(strings.Contains(t, "You ") || strings.Contains(t, `="`)) && toAgent().MatchString(t)
	if !template {
		return "", false
	}
	if m := userInput().FindStringSubmatch(t); m != nil && !strings.Contains(m[1], "$ARGUMENTS") && strings.TrimSpace(m[1]) != "" {
		return strings.TrimSpace(m[1]), true
	}
	return appended(t), true
}

// commandHeading reports a message that opens on a heading naming a slash
// command ("# /butler-exec — Execute a ButlerSpec"): a custom prompt's
// file, expanded whole as Codex does, headed by the command it defines.
func commandHeading(t string) bool {
	h := strings.TrimLeft(t, "#")
	if len(h) == len(t) || len(t)-len(h) > 3 || !strings.HasPrefix(h, " /") || len(h) < 3 {
		return false
	}
	c := h[2]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// appended is what the person typed right after a template they pasted
// whole, its $ARGUMENTS left as it was: the plain lines that follow its
// last structural line (a list item, a heading, a table row, a fence, a
// line in bold) with no blank line between. A template that ends in a
// paragraph of its own gives nothing.
func appended(t string) string {
	lines := strings.Split(strings.TrimRight(t, " \n\t\r"), "\n")
	i := len(lines)
	for i > 0 && plainLine(lines[i-1]) {
		i--
	}
	if i == len(lines) || i == 0 || i < len(lines)-3 || strings.TrimSpace(lines[i-1]) == "" {
		return "" // nothing after the template, a paragraph of its own, or more than a short request
	}
	if strings.Contains(strings.Join(lines[i:], "\n"), "$ARGUMENTS") {
		return ""
	}
	return strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

// plainLine reports a line of prose, not of a template's structure.
func plainLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	if listItem(t) || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "**") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "<") {
		return false
	}
	return !strings.HasSuffix(t, ":")
}
