package hook

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/textcut"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/words"
)

// preToolUse serves the entries relevant to the tool call about to run.
func (r *run) preToolUse() (*Output, error) {
	if !r.serving() {
		return nil, errQuiet
	}
	sess, call, ranked, pathKey := r.forCall()
	if len(ranked) == 0 {
		return nil, errQuiet
	}
	what := "this " + r.in.ToolName + " call"
	if pathKey != "" {
		what = "this " + r.in.ToolName + " of " + knowledge.Cut(pathKey, 120)
	}
	return r.inject(sess, call, ranked, pathKey, what)
}

// forCall ranks the entries for the tool call (none for a read-only
// tool), with the path they are served once per session for.
func (r *run) forCall() (Session, *knowledge.Call, []knowledge.Scored, string) {
	sess := SessionOf(r.proj, r.in.SessionID)
	if r.in.ToolName == "" || slices.Contains(r.cfg.Serve.ReadOnlyTools, r.in.ToolName) {
		return sess, nil, nil, ""
	}
	call := ToolCall(r.proj.Root, r.env.UserHome, r.in, sess.Prompts(RecentPrompts))
	ranked := knowledge.Rank(r.candidates(call).Items, call, r.options())
	pathKey := ""
	if call.FileScoped && len(call.Paths) > 0 {
		pathKey = call.Paths[0]
	}
	return sess, call, ranked, pathKey
}

// askOnly is what Claude Code still honours at a PreToolUse whose context
// its version drops: the question an entry asks the person before the
// call (permission decisions are older than PreToolUse context). Nothing
// is claimed: the entry itself is served after the call (afterCall).
func (r *run) askOnly() (*Output, error) {
	if !r.cfg.Serve.Enabled || r.env.NoInjection {
		return nil, errQuiet
	}
	sess, call, ranked, pathKey := r.forCall()
	src, opts := r.sources(), r.options()
	var asks []chosenItem
	for _, s := range ranked {
		if !s.Item.Ask || sess.Claimed(s.Item.Ref(), claimPath(s.Item, pathKey)) {
			continue
		}
		fresh, _, err := src.Shown(s.Item)
		if err != nil || !fresh.Active || !fresh.Ask || !fresh.ServedIn(r.cloneID()) {
			continue
		}
		b := knowledge.Score(fresh, call, opts.Weights)
		opts.Demote(fresh, &b)
		if b.Serve(call, opts.Threshold) {
			asks = append(asks, chosenItem{item: fresh})
		}
	}
	d, reason := decision(asks, r.in.ToolName)
	if d == "" {
		return nil, errQuiet
	}
	return r.output("", d, reason), nil
}

// userPromptSubmit serves, in the session sess the prompt was recorded in
// (promptSubmit), what the request names: the items whose files or commands it names, or
// whose keywords or topics it mentions, within the prompt's own limits
// (serve.prompt_max_items, serve.prompt_budget_chars).
func (r *run) userPromptSubmit(sess Session) (*Output, error) {
	if strings.TrimSpace(r.in.Prompt) == "" {
		return nil, errQuiet
	}
	if !r.serving() {
		return nil, errQuiet
	}
	call := RequestCall(r.proj.Root, r.in.Cwd, r.in.Prompt)
	ranked := knowledge.Rank(r.candidates(call).Items, call, r.options())
	ranked = slices.DeleteFunc(ranked, func(s knowledge.Scored) bool { return r.keptNow[s.Item.ID] })
	if len(ranked) == 0 {
		return nil, errQuiet
	}
	return r.inject(sess, call, ranked, "", "this request")
}

// RequestCall is what a person's request names, read as the prompt hook
// reads it (and 'knowledge why --request' explains it). What an editor or
// a command template wrapped around the request (open tabs, a template's
// instructions) is not what the person asks for, nor is a running
// program's log pasted into it (a server's line for each request, its
// times and levels): the files they list would serve what bears on none
// of it. A stack frame, a command, code or a document the person pasted
// stays: it names what the request is about.
func RequestCall(root, cwd, prompt string) *knowledge.Call {
	return knowledge.RequestCall(root, cwd, transcript.WithoutLogLines(transcript.Unwrap(textcut.Bytes(prompt, promptMatchBytes))))
}

// redactedPrompt is the start of the prompt that is stored, redacted: once
// per run, for the prompt recorded and for the lessons read from it. A
// pasted log can make a prompt megabytes long, and redacting costs
// microseconds a byte on text dense with key words. Only the start is
// stored, so only the start is redacted, with a margin wide enough for a
// secret (a private key block) that crosses where it is cut.
func (r *run) redactedPrompt() string {
	if !r.redacted {
		r.prompt = textcut.Bytes(r.in.Prompt, MaxPromptRunes*utf8.UTFMax+promptRedactMargin)
		if r.env.Redact != nil {
			r.prompt = r.env.Redact(r.prompt)
			// A password typed in answer to the agent has no name before
			// it: what the agent asked last says what it is. The
			// transcript is read only for a prompt holding a word shaped
			// like one.
			if r.in.TranscriptPath != "" && redact.HoldsPasswordShaped(r.prompt) {
				if asked, err := LastAssistantText(r.in.TranscriptPath); err == nil {
					r.prompt = redact.Answer(asked, r.prompt)
				}
			}
		}
		r.redacted = true
	}
	return r.prompt
}

// inject picks from ranked what fits the output budget and has not been
// served in this session for this path, records it, and renders it. An
// item is served when its score, read again from what its file holds now,
// reaches the threshold.
func (r *run) inject(sess Session, call *knowledge.Call, ranked []knowledge.Scored, pathKey, what string) (*Output, error) {
	opts := r.options()
	claim := func(it *knowledge.Item) string { return claimPath(it, pathKey) }
	return r.injectAdmitted(sess, call, ranked, what, claim, func(fresh *knowledge.Item, _ knowledge.Shown) (knowledge.Breakdown, bool) {
		b := knowledge.Score(fresh, call, opts.Weights)
		opts.Demote(fresh, &b)
		return b, b.Serve(call, opts.Threshold)
	})
}

// injectAdmitted is inject with its own rules: which items, as their
// files hold them now, are served (admit), and what each is served once
// per session for (claim: a path, or "" for the whole session).
func (r *run) injectAdmitted(sess Session, call *knowledge.Call, ranked []knowledge.Scored, what string, claim func(*knowledge.Item) string, admit func(*knowledge.Item, knowledge.Shown) (knowledge.Breakdown, bool)) (*Output, error) {
	src := r.sources()
	opts := r.options()
	budget := r.cfg.Serve.BudgetChars
	if call.Prompt {
		opts.MaxItems, budget = r.cfg.Serve.PromptMaxItems, r.cfg.Serve.PromptBudgetChars
	}
	var (
		chosen  []chosenItem
		leftOut []string
	)
	for _, s := range ranked {
		if len(chosen) >= opts.MaxItems && !s.Always {
			break
		}
		if sess.Claimed(s.Item.Ref(), claim(s.Item)) {
			continue
		}
		fresh, shown, err := src.Shown(s.Item)
		if err != nil {
			r.log.Printf("%s changed since it was indexed: %v (not served)", s.Item.ID, err)
			continue
		}
		if !fresh.Active || !fresh.ServedIn(r.cloneID()) {
			continue
		}
		b, admitted := admit(fresh, shown)
		if !admitted {
			continue
		}
		c := chosenItem{item: fresh, b: b, text: render(fresh, shown)}
		with := append(chosen[:len(chosen):len(chosen)], c)
		d, reason := decision(with, r.asksBefore())
		if size(r.output(compose(what, with, nil), d, reason)) > budget-leftOutReserve {
			leftOut = append(leftOut, fresh.ID)
			continue
		}
		ok, err := sess.Claim(Served{
			At: r.now.UTC().Format(time.RFC3339), Event: eventNames[r.event], Tool: r.in.ToolName, ToolUseID: r.in.ToolUseID,
			ID: fresh.ID, Ref: fresh.Ref(), Path: claim(fresh), Score: b.Score, Ask: fresh.Ask,
		})
		switch {
		case err != nil && !ok:
			r.log.Printf("recording %s as served: %v (not served, so that it is never served twice)", fresh.ID, err)
			continue
		case err != nil:
			r.log.Printf("recording %s as served: %v (served; its record may be incomplete)", fresh.ID, err)
		case !ok:
			continue // already served in this session for this path
		}
		chosen = append(chosen, c)
	}
	if len(chosen) == 0 && len(leftOut) == 0 {
		return nil, errQuiet
	}
	d, reason := decision(chosen, r.asksBefore())
	return r.output(compose(what, chosen, leftOut), d, reason), nil
}

// claimPath is the path an item is served once per session for: the
// file of the call for a lesson a person accepted, which may bear on each
// file anew; none for a draft, said once in a session wherever it first
// applies. A draft is a note no person has confirmed: repeated at every
// file of a folder, one wrong note would fill the session (a draft seen
// once was given eleven times in one replayed session).
func claimPath(it *knowledge.Item, pathKey string) string {
	if it.Draft() {
		return ""
	}
	return pathKey
}

// leftOutReserve keeps room in the budget for the closing line that
// names what did not fit: nameList keeps the names within maxNames
// characters, and the rest of the line is under a hundred.
const (
	leftOutReserve = 400
	maxNames       = 250
)

// nameList joins ids ("a, b and 3 more") within max characters; with max
// 0 it only counts them.
func nameList(ids []string, max int) string {
	if max == 0 {
		return knowledge.Plural(len(ids), "item", "items")
	}
	var b strings.Builder
	for i, id := range ids {
		if i > 0 && b.Len()+len(id)+len(", and 9999 more") > max {
			fmt.Fprintf(&b, " and %d more", len(ids)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(knowledge.Cut(id, max-len(" and 9999 more")))
	}
	return b.String()
}

type chosenItem struct {
	item *knowledge.Item
	b    knowledge.Breakdown
	text string
}

// render is an item in full, as injected: where it is quoted from, an
// entry's type-specific content (a checklist's items, a pattern's when and
// do, a warning's risk, a requirement's constraint) before its body, and a
// draft said to be one.
func render(it *knowledge.Item, e knowledge.Shown) string {
	from := "(" + knowledge.Provenance(it) + ")"
	if it.Type != knowledge.TypeEntry {
		text := strings.TrimRight(it.Text, "\n")
		if head, rest, ok := strings.Cut(text, "\n"); ok && strings.HasPrefix(head, "#") {
			return head + "\n" + from + "\n" + rest
		}
		return from + "\n" + text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s [%s]: %s\n%s", it.ID, it.Label(), e.Summary, from)
	switch {
	case it.Learned():
		b.WriteString("\n\n" + knowledge.LearnedNote)
	case it.Draft():
		b.WriteString("\n\n" + knowledge.DraftNote)
	}
	if text := e.Process; text != "" {
		b.WriteString("\n\n")
		b.WriteString(text)
	}
	if body := strings.TrimRight(e.Body, "\n"); body != "" {
		b.WriteString("\n\n")
		b.WriteString(body)
	}
	return b.String()
}

// compose is the injected text: what it is for, the items, and what was
// left out with how to read it (the hook output rule, docs/architecture.md).
func compose(what string, chosen []chosenItem, leftOut []string) string {
	var b strings.Builder
	if len(chosen) > 0 {
		fmt.Fprintf(&b, "devlearn: project knowledge quoted for %s (%s).\n", what, knowledge.DataNote)
		for _, c := range chosen {
			b.WriteString("\n")
			b.WriteString(c.text)
			b.WriteString("\n")
		}
	}
	if len(leftOut) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Also relevant, left out for length: %s. Read one with `%s`.\n", nameList(leftOut, maxNames), knowledge.ShowCommand)
	}
	return strings.TrimRight(b.String(), "\n")
}

// asksBefore is the tool a permission decision may be given for: the
// one about to run. After a call (a failure) there is none to ask about,
// and Claude Code takes no decision there.
func (r *run) asksBefore() string {
	if r.event == PostToolUseFailure {
		return ""
	}
	return r.in.ToolName
}

// decision asks the person before the tool runs when an injected entry
// says so. devlearn never denies: a block must come from a person's gate.
func decision(chosen []chosenItem, tool string) (string, string) {
	for _, c := range chosen {
		if c.item.Ask {
			if tool == "" {
				return "", ""
			}
			return "ask", fmt.Sprintf("devlearn: %s asks for a check before this %s runs: %s", c.item.ID, tool, c.item.Title)
		}
	}
	return "", ""
}

// inputText lists the fields of a tool's input whose words count as
// keywords. File contents (content, new_string, old_string) are left out:
// code mentions "release" or "deploy" far too often to mean anything.
var inputText = [...]string{"command", "description", "prompt", "query", "url", "skill", "subagent_type"}

// ToolArgs are the fields of a tool's input that ToolCall reads.
type ToolArgs struct {
	FilePath, NotebookPath string
	Text                   [len(inputText)]string // in inputText's order
}

// ToolArgsOf is the arguments ToolCall reads, from a tool's input given as
// fields (file_path, command, ...) rather than JSON; other fields are
// ignored, as the hook ignores them.
func ToolArgsOf(fields map[string]string) ToolArgs {
	var a ToolArgs
	for k, v := range fields {
		if p := a.field(k); p != nil {
			*p = v
		}
	}
	return a
}

func (a *ToolArgs) field(k string) *string {
	switch k {
	case "file_path":
		return &a.FilePath
	case "notebook_path":
		return &a.NotebookPath
	}
	if i := slices.Index(inputText[:], k); i >= 0 {
		return &a.Text[i]
	}
	return nil
}

// UnmarshalJSONFrom keeps the string fields ToolCall reads and skips the
// rest unread. A tool's input that is not an object, or a field that is
// not a string (an MCP tool's "command" may be a list), is ignored rather
// than failing the hook: the call is still served on what is known.
func (a *ToolArgs) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != jsontext.KindBeginObject {
		return dec.SkipValue()
	}
	return eachMember(dec, func(n string) error {
		dst := a.field(n)
		if dst == nil || dec.PeekKind() != jsontext.KindString {
			return dec.SkipValue()
		}
		v, err := dec.ReadToken()
		if err == nil {
			*dst = v.String()
		}
		return err
	})
}

// ToolCall turns a PreToolUse input into a call to score: the tool, the
// files it touches (relative to root, whatever the slashes and case they
// are written with), the commands of a Bash call, and the words of the
// recent prompts and of its input.
func ToolCall(root, home string, in Input, prompts []string) *knowledge.Call {
	c := &knowledge.Call{Tool: in.ToolName}
	args := in.Tool
	for _, p := range []string{args.FilePath, args.NotebookPath} {
		if p != "" {
			c.Paths = append(c.Paths, projectPath(root, in.Cwd, p))
			c.FileScoped = true
		}
	}
	texts := append([]string(nil), prompts...)
	// What a tool's input holds is read as far as a prompt is: a command
	// of megabytes (a file pasted into a heredoc) names nothing further
	// on that a lesson could be served for, and reading it all would take
	// the hook past its budget.
	for _, s := range args.Text {
		if s != "" {
			texts = append(texts, textcut.Bytes(s, promptMatchBytes))
		}
	}
	if cmd := *args.field("command"); cmd != "" && !c.FileScoped {
		c.Paths = append(c.Paths, commandPaths(root, in.Cwd, textcut.Bytes(cmd, promptMatchBytes))...)
		line := textcut.Bytes(cmd, maxCommandBytes)
		c.Commands = knowledge.Segments(line)
		c.Line = line
	}
	c.Words = words.NewHaystack(texts...)
	for i := range c.Commands {
		c.Commands[i].Outside = c.Commands[i].GoesOutside(root, in.Cwd, home)
	}
	return c
}

// projectPath makes a tool's path relative to the project root, with
// forward slashes, as file triggers are written, whichever system wrote
// it; a path outside the project stays absolute.
func projectPath(root, cwd, p string) string { return repopath.Rel(root, cwd, p) }

// commandPaths picks the words of a shell command that look like paths
// ("sed -i s/a/b/ plugin.json"), so that a file trigger can match a file
// edited through the shell. At most 50 are kept.
func commandPaths(root, cwd, cmd string) []string {
	var out []string
	for _, w := range strings.Fields(cmd) {
		w = strings.Trim(w, `'";|&()<>`)
		if w == "" || strings.HasPrefix(w, "-") || strings.Contains(w, "://") || !strings.ContainsAny(w, `./\`) {
			continue
		}
		if strings.LastIndexByte(w, '/') == 0 && !strings.Contains(w, ".") {
			continue // "/changelog" in a commit message: a slash command, or outside the project anyway
		}
		out = append(out, projectPath(root, cwd, w))
		if len(out) == 50 {
			break
		}
	}
	return out
}

const (
	// promptRedactMargin is how far past what is stored a prompt is
	// redacted.
	promptRedactMargin = 16 << 10
	// promptMatchBytes is how much of a prompt is searched for keywords:
	// what a person types is far shorter; a pasted log is not a request.
	promptMatchBytes = 64 << 10
	// maxCommandBytes is how much of a Bash command is read for the
	// programs it runs: a heredoc of a whole file is not a command.
	maxCommandBytes = 16 << 10
)
