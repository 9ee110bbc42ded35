package hook

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/devlearn/devlearn/internal/directives"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/skills"
	"github.com/devlearn/devlearn/internal/transcript"
)

// The directive system (docs/directives.md): after each tool call that
// names a file, post-tool-use walks up from its folder, records what the
// session touched, and gives the agent the directives it has not seen yet
// in this session; pre-tool-use notes directive files about to be created
// and, when configured, asks before edits in folders whose directives the
// agent was never shown; stop holds the checklist gate (checklist.go).

// postToolUse records the folders the call touched and serves the
// directives found above them that the session has not seen.
func (r *run) postToolUse() (*Output, error) {
	if transcript.EditTool(r.in.ToolName) {
		r.entryEdited()
	}
	if !r.cfg.Directives.Enabled {
		return nil, errQuiet
	}
	paths := r.toolFiles()
	if len(paths) == 0 {
		return nil, errQuiet
	}
	var text string
	declared := r.declaredLater()
	err := r.directiveSession().Update(r.ctx, r.now, func(st *directives.State) ([]directives.Record, error) {
		res, err := r.discover(st, paths)
		if err != nil {
			return nil, err
		}
		recs := r.noteWalk(st, res, transcript.EditTool(r.in.ToolName))
		if !r.serving() {
			return recs, nil
		}
		t, shown := r.directivesText(st, res, declared, r.cfg.Directives.BudgetChars, func(s string) int { return size(r.output(s, "", "")) })
		text = t
		return append(recs, shown...), nil
	})
	if err != nil {
		return nil, fmt.Errorf("directives: %w", err)
	}
	if text == "" {
		return nil, errQuiet
	}
	return r.output(text, "", ""), nil
}

// entryEdited checks the knowledge cache in full after the call edited an
// entry file. An agent's Write or Edit, like most editors, rewrites a file
// in place, which leaves its folder's stamp as it was: the quick check of
// the tool calls that follow would go on serving from what the entry said
// before (what is served is read again, but an entry that now applies
// would not be found) until the next session start.
func (r *run) entryEdited() {
	src := r.sources()
	for _, p := range r.callPaths() {
		if src.HoldsEntry(p) {
			r.load(knowledge.Full)
			return
		}
	}
}

// afterCall is post-tool-use: the directives, and first, when the
// installed agent drops pre-tool-use's context (Claude Code before 2.1.9,
// Codex before 0.129), the knowledge for the call that pre-tool-use could
// not give, served now, after the call, as it is for the agents that take
// no context before one (Gemini CLI, Copilot CLI). A question cannot be
// asked after the call: it is given as context. Either part failing
// leaves the other's answer standing.
func (r *run) afterCall() (*Output, error) {
	if !r.drops(PreToolUse) {
		return r.postToolUse()
	}
	k, err := r.preToolUse()
	switch {
	case errors.Is(err, errQuiet):
		k = nil
	case err != nil:
		r.log.Printf("%v", err)
		k = nil
	}
	d, err := r.postToolUse()
	switch {
	case errors.Is(err, errQuiet):
		d = nil
	case err != nil:
		r.log.Printf("%v", err)
		d = nil
	}
	var text []string
	for _, o := range []*Output{k, d} {
		if o == nil {
			continue
		}
		s := o.HookSpecificOutput
		for _, t := range []string{s.AdditionalContext, s.PermissionDecisionReason} {
			if t != "" {
				text = append(text, t)
			}
		}
	}
	if len(text) == 0 {
		return nil, errQuiet
	}
	// Each part passed through output already: joined as it is.
	return &Output{HookSpecificOutput: Specific{HookEventName: eventNames[r.event], AdditionalContext: strings.Join(text, "\n\n")}}, nil
}

// preToolUseAndDirectives is pre-tool-use: the knowledge it serves, then
// what the directive system adds for an edit. Either part failing leaves
// the other's answer standing.
func (r *run) preToolUseAndDirectives() (*Output, error) {
	forCall := r.preToolUse
	if r.env.Codec == nil && r.drops(r.event) {
		forCall = r.askOnly // Claude Code before 2.1.9
	}
	o, err := forCall()
	switch {
	case errors.Is(err, errQuiet):
		o = nil
	case err != nil:
		r.log.Printf("%v", err)
		o = nil
	}
	text, reason := r.beforeEdit(o)
	if text == "" && reason == "" {
		if o == nil {
			return nil, errQuiet
		}
		return o, nil
	}
	if o == nil {
		o = r.output("", "", "")
	}
	s := &o.HookSpecificOutput
	if text != "" {
		s.AdditionalContext = strings.TrimLeft(s.AdditionalContext+"\n\n"+text, "\n")
	}
	if reason != "" {
		s.PermissionDecision = "ask"
		s.PermissionDecisionReason = strings.TrimLeft(s.PermissionDecisionReason+"\n"+reason, "\n")
	}
	return o, nil
}

// beforeEdit notes directive files an edit is about to create (new in
// this session, for the session-end mention in AGENTS.md), and, after
// directives.ask_after_edits edits in folders whose directives the agent
// was not shown, asks the person, giving the agent those directives.
func (r *run) beforeEdit(knowledge *Output) (text, reason string) {
	d := r.cfg.Directives
	if !d.Enabled || !transcript.EditTool(r.in.ToolName) {
		return "", ""
	}
	paths := r.toolFiles()
	var created []string
	for _, p := range paths {
		rel, err := r.proj.Rel(p)
		if err != nil {
			continue
		}
		if _, _, ok := directives.Split(rel); ok {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				created = append(created, rel)
			}
		}
	}
	if len(paths) == 0 || (len(created) == 0 && d.AskAfterEdits == 0) {
		return "", ""
	}
	used := 0
	if knowledge != nil {
		used = size(knowledge)
	}
	budget := min(d.BudgetChars, r.cfg.Serve.BudgetChars-used)
	err := r.directiveSession().Update(r.ctx, r.now, func(st *directives.State) ([]directives.Record, error) {
		var recs []directives.Record
		for _, f := range created {
			recs = append(recs, directives.Record{Op: directives.OpNew, File: f})
		}
		if d.AskAfterEdits == 0 {
			return recs, nil
		}
		res, err := r.discover(st, paths)
		if err != nil {
			return nil, err
		}
		var unseen []string
		for _, f := range res.Files {
			if st.Shown[f.Real] == "" {
				unseen = append(unseen, f.Path)
			}
		}
		if len(unseen) == 0 {
			return recs, nil
		}
		recs = append(recs, directives.Record{Op: directives.OpUnshownHit, Dir: res.Starts[0]})
		if st.Unshown+1 < d.AskAfterEdits {
			return recs, nil
		}
		reason = fmt.Sprintf("devlearn: this %s is in %s, whose directives the agent has not been shown (%s); it made %d such edits in this session (directives.ask_after_edits: %d). They are given to it now.",
			r.in.ToolName, res.Starts[0], nameList(unseen, maxNames), st.Unshown+1, d.AskAfterEdits)
		recs = append(recs, directives.Record{Op: directives.OpAsked, Dir: res.Starts[0]})
		if r.serving() && budget > leftOutReserve {
			t, shown := r.directivesText(st, res, r.declaredLater(), budget, func(s string) int { return size(r.output(s, "ask", reason)) })
			text = t
			recs = append(recs, shown...)
		}
		return recs, nil
	})
	if err != nil {
		r.log.Printf("directives before an edit: %v", err)
		return "", ""
	}
	return text, reason
}

// declared is what the skill of the session's task's stage declares: the
// filtered directive types given in full, like the core ones. A session
// without a task, or whose task has no stage, reads nothing more than the
// task log that is not there, and declares nothing: those types are named.
// A declaration that cannot be read is logged, never fatal: the types are
// named, as without one.
func (r *run) declared() []string {
	name, _, st, err := r.sessionTask("hook " + r.event)
	if err != nil {
		r.log.Printf("directives: task %s: %v (filtered directives named only)", name, err)
		return nil
	}
	if st.Stage == "" {
		return nil
	}
	d, err := skills.Declared(r.env.Home, &r.cfg.Skills.Stages, st.Stage)
	if err != nil {
		r.log.Printf("directives: task %s at %s: %v (filtered directives named only)", name, st.Stage, err)
		return nil
	}
	for _, p := range d.Problems {
		r.log.Printf("directives: task %s at %s: %s", name, st.Stage, p)
	}
	return d.Directives
}

// declaredLater is declared, read on first use: most calls meet no
// filtered file the session has not seen, and then read no task log.
func (r *run) declaredLater() func() []string {
	var d []string
	read := false
	return func() []string {
		if !read {
			d, read = r.declared(), true
		}
		return d
	}
}

// directiveSession is this session's directive state.
func (r *run) directiveSession() directives.Session {
	return directives.SessionAt(r.proj.Root, SafeName(r.in.SessionID))
}

// callPaths are the absolute, clean paths the call names, relative ones
// read from the call's folder (else the project's root), wherever they are
// (a global entry file is outside the project).
func (r *run) callPaths() []string {
	var out []string
	for _, p := range []string{r.in.Tool.FilePath, r.in.Tool.NotebookPath} {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			base := r.in.Cwd
			if base == "" {
				base = r.proj.Root
			}
			p = filepath.Join(base, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// toolFiles are the absolute paths inside the project that the call
// names.
func (r *run) toolFiles() []string {
	var out []string
	for _, p := range r.callPaths() {
		if rel, err := filepath.Rel(r.proj.Root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// discover walks up from paths with the session's memo.
func (r *run) discover(st *directives.State, paths []string) (*directives.Result, error) {
	global := ""
	if r.env.Home != "" {
		global = filepath.Join(r.env.Home, directives.GlobalDirName)
	}
	return directives.Discover(paths, directives.Options{
		Root:      r.proj.Root,
		GlobalDir: global,
		Ignore:    r.cfg.Directives.Ignore,
		Memo:      &st.Memo,
	})
}

// noteWalk records what a walk tells about the session: the folders it
// touched (and changed, for an edit), the directive files that appeared
// in folders walked before, and the checklists found.
func (r *run) noteWalk(st *directives.State, res *directives.Result, edit bool) []directives.Record {
	var recs []directives.Record
	for _, d := range res.Starts {
		if !contains(st.Touched, d) {
			recs = append(recs, directives.Record{Op: directives.OpTouched, Dir: d})
		}
		if edit && !contains(st.Edited, d) {
			recs = append(recs, directives.Record{Op: directives.OpEdited, Dir: d})
		}
	}
	for _, f := range st.Memo.New {
		if !contains(st.New, f) {
			recs = append(recs, directives.Record{Op: directives.OpNew, File: f})
		}
	}
	st.Memo.New = nil
	for _, f := range res.Files {
		if f.Type != directives.ChecklistFile {
			continue
		}
		known := false
		for _, c := range st.Checklists {
			known = known || c.Real == f.Real
		}
		if !known {
			recs = append(recs, directives.Record{Op: directives.OpChecklist, File: f.Path, Abs: f.Abs, Real: f.Real, Level: f.Level})
		}
		if edit && !st.Armed[f.Real] {
			recs = append(recs, directives.Record{Op: directives.OpArmed, Real: f.Real})
		}
	}
	return recs
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// directivesText is what the agent is given of the directives of a walk
// it has not seen in this session: the core types, and the filtered ones
// the stage's skill declares, in full while the output stays within
// budget (as measured by size), the others by name, those that did not
// fit by name too; each is then recorded as shown, so that it is given
// once per session.
func (r *run) directivesText(st *directives.State, res *directives.Result, declared func() []string, budget int, size func(string) int) (string, []directives.Record) {
	var full, named, leftOut, held []directives.File
	var bodies []string
	for _, f := range res.Files {
		if st.Shown[f.Real] != "" {
			continue
		}
		if !f.Core && !directives.Loaded(f, declared()) {
			named = append(named, f)
			continue
		}
		body, err := readHead(f.Abs, budget)
		if err != nil {
			r.log.Printf("directive %s: %v (named only)", f.Path, err)
			leftOut = append(leftOut, f)
			continue
		}
		if why, accept := knowledge.FileHeld(body); why != "" {
			r.log.Printf("directive %s is held for a person's review and not served: it %s; a person who accepts it adds the line %q to it", f.Path, why, accept)
			held = append(held, f)
			continue
		}
		full = append(full, f)
		bodies = append(bodies, body)
		if size(composeDirectives(res.Starts[0], full, bodies, named, leftOut, r.in.SessionID, held...)) > budget-leftOutReserve {
			full, bodies = full[:len(full)-1], bodies[:len(bodies)-1]
			leftOut = append(leftOut, f)
		}
	}
	if len(full)+len(named)+len(leftOut)+len(held) == 0 {
		return "", nil
	}
	var recs []directives.Record
	for _, f := range full {
		recs = append(recs, directives.Record{Op: directives.OpShown, File: f.Path, Real: f.Real, How: directives.HowFull})
	}
	for _, f := range append(append(named, leftOut...), held...) {
		recs = append(recs, directives.Record{Op: directives.OpShown, File: f.Path, Real: f.Real, How: directives.HowNamed})
	}
	return composeDirectives(res.Starts[0], full, bodies, named, leftOut, r.in.SessionID, held...), recs
}

// composeDirectives is the text of directivesText.
func composeDirectives(start string, full []directives.File, bodies []string, named, leftOut []directives.File, session string, held ...directives.File) string {
	var b strings.Builder
	where := start
	if where == "." {
		where = "the repository root"
	}
	// Quoted under their paths, as the team wrote them: rules of the
	// repository, which what the person asks still comes before.
	fmt.Fprintf(&b, "devlearn: directives for %s, quoted from the repository's files (%s), not yet seen in this session. They add up: a deeper folder's extend the ones above it, none replaces another.\n", where, knowledge.DataNote)
	var checklists []string
	for i, f := range full {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", f.Path, strings.TrimRight(bodies[i], "\n"))
		if f.Type == directives.ChecklistFile {
			checklists = append(checklists, f.Abs)
		}
	}
	if len(named) > 0 {
		var items []string
		for _, f := range named {
			t, _ := directives.TypeOf(f.Type)
			items = append(items, fmt.Sprintf("%s (%s)", f.Path, t.About))
			if f.Type == directives.ChecklistFile {
				checklists = append(checklists, f.Abs)
			}
		}
		fmt.Fprintf(&b, "\nAlso in force here; read each when your task calls for it: %s.\n", strings.Join(items, "; "))
	}
	if len(leftOut) > 0 {
		var paths []string
		for _, f := range leftOut {
			paths = append(paths, f.Path)
		}
		fmt.Fprintf(&b, "\nLeft out for length; read them before changing anything here: %s.\n", nameList(paths, maxNames))
	}
	if len(held) > 0 {
		var paths []string
		for _, f := range held {
			paths = append(paths, f.Path)
		}
		fmt.Fprintf(&b, "\nHeld for a person's review, not shown (they read as an order to run fetched code or to ignore other instructions): %s.\n", nameList(paths, maxNames))
	}
	for _, c := range checklists {
		fmt.Fprintf(&b, "\n%s is a checklist: before you stop after changing files here, go through it and submit it with every box ticked that is true: `devlearn directives check --session %s`, with {%q: \"<its whole markdown, [ ] made [x]>\"} as JSON on stdin.\n", c, SafeName(session), c)
	}
	return strings.TrimRight(b.String(), "\n")
}

// readHead reads at most n bytes of a file: a directive longer than a
// hook output may hold is named, not read whole on every call.
func readHead(path string, n int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(n)+1))
	if err != nil {
		return "", err
	}
	if len(data) > n {
		return "", fmt.Errorf("longer than %d bytes", n)
	}
	return string(data), nil
}
