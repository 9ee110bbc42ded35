package genuine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent/sessions"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// The closed loop: a project's sessions in the order they started,
// learned from as the worker does (ingest, then render-ready, the clock
// set to when the next session starts), and each later session played
// through the hooks as its agent would call them: session start, then
// each of the person's prompts and each tool call, in order. For every
// labelled moment a lesson comes back (the person says it again, or the
// agent is about to make the mistake again), the question is whether the
// lesson was in what the hooks gave the agent by then.

// Moment is one recurrence of a lesson, replayed.
type Moment struct {
	Lesson  string `json:"lesson"`
	Session string `json:"session"`
	At      string `json:"at"`
	How     string `json:"how"` // prompt | tool
	// Known: an observation of the lesson was in the log when the session
	// started (capture had caught it earlier).
	Known bool `json:"known"`
	// Found: the moment is a hook call of the replayed session.
	Found bool `json:"found"`
	// Served: the lesson was given at the moment or before it in the
	// session. Start: session start gave it (its index lists it, or a
	// CRITICAL item in full). Relevant: a prompt or a tool call gave it
	// by then, whether or not session start had listed it: an index line
	// at the start of a long session is not the lesson at its moment.
	Served   bool `json:"served"`
	Start    bool `json:"start"`
	Relevant bool `json:"relevant"`
	// AtFailure: the moment's call failed, and the hooks gave the lesson
	// with its error (post-tool-use-failure): after the mistake, not
	// before it, so apart from Served.
	AtFailure bool   `json:"at_failure,omitempty"`
	Where     string `json:"where,omitempty"`
	// Call is what the moment's hook call held (the tool and its command
	// or file, or the prompt's start), for reading why it was not served.
	Call string `json:"call,omitempty"`
}

// LoopResult is one project's closed loop.
type LoopResult struct {
	Project string
	Split   string
	Moments []Moment
	// Served counts the items the hooks gave by relevance (prompts and
	// tool calls) in the replayed sessions; Unrelated those that hold no
	// labelled lesson of the project. JudgedUseful are the unrelated ones
	// whose observation a reader judged useful (judged.json): a lesson
	// the labels do not hold, counted apart, never taken out of Unrelated.
	Served       int
	Unrelated    []string
	JudgedUseful []string
	// Given is every item the hooks gave by relevance, in the order given,
	// for readers to judge at its call (judged.json's "given").
	Given    []Given `json:",omitempty"`
	Problems []string
	// Learned is the repository after every session, listed at the end,
	// when Options.Whole asked for it: the project's capture result.
	Learned *Repo `json:"-"`
}

// Given is an item a prompt or a tool call of a replayed session gave.
type Given struct {
	// Key names the item at its call for a reader's verdict: it holds
	// neither's text (GivenKey).
	Key     string `json:"key"`
	Session string `json:"session"`
	// Call is the prompt or the tool and its command or file; Before,
	// for a tool call, the person's last prompt before it.
	Call   string `json:"call"`
	Before string `json:"before,omitempty"`
	Item   string `json:"item"`
	// Related: the item holds a labelled lesson of the project.
	Related bool `json:"related"`
	// AtFailure: given with the call's error, after it failed.
	AtFailure bool `json:"at_failure,omitempty"`
	// Verdict is the reader's, if judged: "relevant" or "not relevant".
	Verdict string `json:"verdict,omitempty"`
}

// GivenKey names an item given at a call of a session: the call by its
// record uuid or tool call id, the item by its observation or entry.
func GivenKey(session, call, item string) string {
	h := sha256.Sum256([]byte(session + "\x00" + call + "\x00" + item))
	return "given_" + hex.EncodeToString(h[:8])
}

// call is one hook call derived from a session.
type call struct {
	event  string
	line   int
	ids    []string // the record uuid or tool call id, and L<line>
	input  map[string]any
	prompt bool
}

// failedKey marks a tool call's failure apart from the call: an item
// given with the error is judged with it.
const failedKey = "!failed"

// Loop replays the projects of the set that have labelled recurrences.
func Loop(ctx context.Context, set *Set, r *Runner, o Options) ([]*LoopResult, error) {
	if err := os.MkdirAll(r.Work, 0o755); err != nil {
		return nil, err
	}
	files := o.files(r)
	byProject := map[string][]*Lesson{}
	for _, l := range set.Lessons {
		if len(l.Recurs) > 0 {
			p := set.Session(l.Transcript).Project
			byProject[p] = append(byProject[p], l)
		}
	}
	var names []string
	for p := range byProject {
		names = append(names, p)
	}
	sort.Strings(names)
	var todo []string
	for _, name := range names {
		if list := set.Projects()[name]; o.takes(name, list[0].Split) {
			todo = append(todo, name)
		}
	}
	out := make([]*LoopResult, len(todo))
	var mu sync.Mutex
	done := 0
	err := o.each(ctx, len(todo), func(ctx context.Context, i int) error {
		name := todo[i]
		list := set.Projects()[name]
		paths := map[string]string{}
		for _, s := range list {
			p, err := set.Materialize(s, o.Fetched, files)
			if err != nil {
				return err
			}
			paths[s.ID] = p
		}
		res, err := loopProject(ctx, set, r, name, list, paths, byProject[name], o.Whole)
		if err != nil {
			return err
		}
		out[i] = res
		mu.Lock()
		defer mu.Unlock()
		done++
		if o.Progress != nil {
			o.Progress(done, len(todo), name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loopProject replays a project. whole goes on learning after the last
// session a lesson recurs in, to the end, and lists the repository then:
// the same ingests, in the same order at the same times, as the capture
// pass's project repository (rendering and the hooks change none of its
// figures), made once instead of twice.
func loopProject(ctx context.Context, set *Set, r *Runner, name string, list []*Session, paths map[string]string, lessons []*Lesson, whole bool) (*LoopResult, error) {
	res := &LoopResult{Project: name, Split: list[0].Split}
	repo, err := r.Init(ctx, "loop-"+slug(name))
	if err != nil {
		return nil, err
	}
	var projectLessons []*Lesson
	for _, l := range set.Lessons {
		if set.Session(l.Transcript).Project == name {
			projectLessons = append(projectLessons, l)
		}
	}
	// What is learned after the last session a lesson recurs in is never
	// played: unless whole, the loop stops there.
	last := len(list) - 1
	if !whole {
		last = -1
		for i, s := range list {
			for _, l := range lessons {
				if slices.ContainsFunc(l.Recurs, func(rc Recurrence) bool { return rc.Transcript == s.ID }) {
					last = i
				}
			}
		}
	}
	end := ""
	for i, s := range list[:last+1] {
		start := rfc3339(s.Started, 0)
		var moments []*Moment
		for _, l := range lessons {
			for _, rc := range l.Recurs {
				if rc.Transcript == s.ID {
					moments = append(moments, &Moment{Lesson: l.ID, Session: s.ID, At: rc.At, How: rc.How})
				}
			}
		}
		if len(moments) > 0 && paths[s.ID] != "" {
			for _, m := range moments {
				l := lessonByID(set, m.Lesson)
				for _, o := range repo.seen {
					if l.Matches(o.Text()) {
						m.Known = true
						break
					}
				}
			}
			if err := repo.replay(ctx, s.ID, paths[s.ID], start, projectLessons, set, moments, res); err != nil {
				res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", s.ID, err))
			}
			for _, m := range moments {
				res.Moments = append(res.Moments, *m)
			}
		}
		if paths[s.ID] == "" || !whole && i == last {
			continue
		}
		// Learn from it as the worker does, at the time the next session
		// starts.
		end = after(list, i)
		if err := repo.learn(ctx, paths[s.ID], end); err != nil {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: %v", s.ID, err))
			repo.learned.Problems = append(repo.learned.Problems, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if whole && end != "" {
		if out, errOut, err := r.run(ctx, repo.dir, repo.at(end), "learn", "--list", "--json"); err != nil {
			repo.learned.Problems = append(repo.learned.Problems, fmt.Sprintf("%s: devlearn learn: %v: %s", name, err, firstLine(errOut)))
		} else {
			repo.learned.listed(name, out)
		}
		repo.learned.readLog(name, repo.dir)
		res.Learned = repo.learned
	}
	return res, nil
}

func lessonByID(set *Set, id string) *Lesson {
	for _, l := range set.Lessons {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// loopRepo is a repository the loop learns in and replays against.
type loopRepo struct {
	r         *Runner
	name      string
	dir, home string
	env       []string
	// seen is every observation the ingests so far printed, with its
	// latest text: what the log holds, without a process to list it.
	seen []Observation
	// learned gathers what the ingests said, as Learn does.
	learned *Repo
	// artifacts are the observations rendered so far, by the anchor the
	// hooks serve them under (PF-001): a rendered lesson is judged as the
	// observation it came from.
	artifacts map[string]string
}

// Init makes a repository set up with devlearn, for the closed loop.
func (r *Runner) Init(ctx context.Context, name string) (*loopRepo, error) {
	dir, home, env, err := r.initRepo(ctx, name)
	if err != nil {
		return nil, err
	}
	return &loopRepo{r: r, name: name, dir: dir, home: home, env: env, learned: newRepo(), artifacts: map[string]string{}}, nil
}

func (lr *loopRepo) at(now string) []string {
	if now == "" {
		return lr.env
	}
	return append(lr.env, "DEVLEARN_NOW="+now)
}

// learn ingests a session and renders what became ready, at now.
func (lr *loopRepo) learn(ctx context.Context, file, now string) error {
	out, errOut, err := lr.r.run(ctx, lr.dir, lr.at(now), "ingest", "--json", file)
	if err != nil {
		return fmt.Errorf("ingest: %v: %s", err, firstLine(errOut))
	}
	seen, ok := lr.learned.ingested(lr.name, out)
	if !ok {
		return fmt.Errorf("ingest printed no JSON")
	}
	lr.seen = latestText(append(lr.seen, seen...))
	out, errOut, err = lr.r.run(ctx, lr.dir, lr.at(now), "render-ready", "--json")
	if err != nil {
		return fmt.Errorf("render-ready: %v: %s", err, firstLine(errOut))
	}
	var rendered struct {
		Rendered []struct {
			ID, Anchor string
		}
	}
	if err := json.Unmarshal(out, &rendered); err != nil {
		return fmt.Errorf("render-ready printed no JSON: %v", err)
	}
	for _, r := range rendered.Rendered {
		if r.Anchor != "" {
			lr.artifacts[r.Anchor] = r.ID
		}
	}
	return nil
}

var heading = regexp.MustCompile(`(?m)^## `)

// replay plays a session through the hooks, in process, and marks each
// moment served when a lesson was given by then.
func (lr *loopRepo) replay(ctx context.Context, session, file, start string, lessons []*Lesson, set *Set, moments []*Moment, res *LoopResult) error {
	calls, err := hookCalls(file, lr.dir)
	if err != nil {
		return err
	}
	now, err := time.Parse(time.RFC3339, start)
	if err != nil {
		now = time.Now()
	}
	env := hook.Env{Dir: lr.dir, Home: filepath.Join(lr.home, ".devlearn"), UserHome: lr.home, Redact: redact.Text, Now: func() time.Time { return now }}
	givenByStart := map[string]bool{}  // lessons session start gave
	givenByCall := map[string]string{} // lesson -> the prompt or tool call that first gave it
	lastPrompt := ""
	for i, c := range calls {
		if c.prompt {
			lastPrompt, _ = c.input["prompt"].(string)
		}
		atCall := map[string]bool{} // lessons this call gave
		input, _ := json.Marshal(c.input)
		var out bytes.Buffer
		hook.Run(ctx, c.event, env, bytes.NewReader(input), &out)
		text := contextOf(out.Bytes())
		if text != "" {
			parts := heading.Split(text, -1)
			for _, item := range parts[1:] {
				related := false
				for _, l := range lessons {
					if slices.ContainsFunc(indexLines(item), l.Matches) {
						related = true
						atCall[l.ID] = true
						switch _, ok := givenByCall[l.ID]; {
						case c.event == hook.PostToolUseFailure:
							// After the call: it says nothing of what
							// the agent had before it.
						case c.event == hook.SessionStart:
							givenByStart[l.ID] = true
						case !ok:
							givenByCall[l.ID] = label(c, i)
						}
					}
				}
				if c.event != hook.SessionStart {
					res.Served++
					title, _, _ := strings.Cut(item, "\n")
					at := c.ids[0]
					if c.event == hook.PostToolUseFailure {
						at += failedKey
					}
					g := Given{Key: GivenKey(session, at, lr.itemOf(title)), Session: session, Call: c.full(), Item: strings.TrimSpace(item), Related: related, AtFailure: c.event == hook.PostToolUseFailure}
					if !c.prompt {
						g.Before = cut(strings.Join(strings.Fields(lastPrompt), " "), 600)
					}
					if v, ok := set.Given[g.Key]; ok {
						g.Verdict = "not relevant"
						if v.Relevant {
							g.Verdict = "relevant"
						}
					}
					res.Given = append(res.Given, g)
					if !related {
						// Where it was given says why it was: what the
						// call held that the entry matched.
						shown := cut(title, 100) + " [" + c.shown() + "]"
						res.Unrelated = append(res.Unrelated, shown)
						if v, ok := set.Judged[lr.observationOf(title)]; ok && v.Useful() {
							res.JudgedUseful = append(res.JudgedUseful, shown)
						}
					}
				}
			}
		}
		for _, m := range moments {
			if c.event == hook.PostToolUseFailure {
				if m.Found && c.is(m.At) && atCall[m.Lesson] {
					m.AtFailure = true
				}
				continue
			}
			if m.Found || !c.is(m.At) {
				continue
			}
			m.Found = true
			m.Call = c.shown()
			m.Start = givenByStart[m.Lesson]
			where, byCall := givenByCall[m.Lesson]
			m.Relevant = byCall
			m.Served = m.Start || byCall
			switch {
			case byCall:
				m.Where = where
			case m.Start:
				m.Where = "session start"
			}
		}
	}
	return nil
}

// indexLines are the lines of session start's index, each one lesson, or
// the item itself when it is not the index: a lesson is given by the
// index when one line holds it, not when words of two lines do.
func indexLines(item string) []string {
	if !strings.HasPrefix(item, "Domain Knowledge Index") {
		return []string{item}
	}
	return strings.Split(item, "\n- [")[1:]
}

// observationOf is the observation id of a served item's heading: a
// learned draft's key (obs-3f9a...) names it, a rendered section's anchor
// (PF-001) was rendered from it; "" for anything else.
func (lr *loopRepo) observationOf(title string) string {
	key := strings.TrimPrefix(title, "## ")
	key, _, _ = strings.Cut(key, " ")
	if !strings.HasPrefix(key, "obs-") {
		return lr.artifacts[strings.TrimSuffix(key, ":")]
	}
	return "obs_" + strings.TrimPrefix(key, "obs-")
}

// itemOf names a served item for its verdict: the observation it holds
// or was rendered from, else the entry's name its heading starts with.
func (lr *loopRepo) itemOf(title string) string {
	if id := lr.observationOf(title); id != "" {
		return id
	}
	key := strings.TrimPrefix(title, "## ")
	key, _, _ = strings.Cut(key, " ")
	return strings.TrimSuffix(key, ":")
}

// full is a call as a reader judges what it was given at: the tool and
// its command or file, or the prompt, cut long.
func (c call) full() string {
	if c.prompt {
		p, _ := c.input["prompt"].(string)
		return "prompt: " + cut(strings.TrimSpace(p), 1500)
	}
	in, _ := c.input["tool_input"].(map[string]any)
	for _, k := range []string{"command", "file_path"} {
		if v, ok := in[k].(string); ok {
			s := fmt.Sprint(c.input["tool_name"]) + ": " + cut(strings.TrimSpace(v), 800)
			if c.event == hook.PostToolUseFailure {
				e, _ := c.input["error"].(string)
				s += "\n(it failed, printing: " + cut(strings.TrimSpace(e), 600) + ")"
			}
			return s
		}
	}
	return c.event
}

// shown is a call as the details show it: the tool and its command or
// file, or the start of the prompt.
func (c call) shown() string {
	if c.prompt {
		p, _ := c.input["prompt"].(string)
		return "prompt: " + cut(strings.Join(strings.Fields(p), " "), 100)
	}
	in, _ := c.input["tool_input"].(map[string]any)
	for _, k := range []string{"command", "file_path"} {
		if v, ok := in[k].(string); ok {
			return fmt.Sprint(c.input["tool_name"]) + ": " + cut(strings.Join(strings.Fields(v), " "), 100)
		}
	}
	return c.event
}

func label(c call, i int) string {
	switch c.event {
	case hook.SessionStart:
		return "session start"
	case hook.UserPromptSubmit:
		return fmt.Sprintf("prompt at line %d", c.line)
	}
	return fmt.Sprintf("#%d %s", i, c.input["tool_name"])
}

// is reports whether the call is the one a label names: its record uuid
// or tool call id, or its line (L12).
func (c call) is(at string) bool {
	for _, id := range c.ids {
		if id != "" && id == at {
			return true
		}
	}
	return false
}

// contextOf is the additionalContext of a hook's output ("" for none).
func contextOf(out []byte) string {
	var o hook.Output
	if len(bytes.TrimSpace(out)) == 0 || json.Unmarshal(out, &o) != nil {
		return ""
	}
	return o.HookSpecificOutput.AdditionalContext
}

// hookCalls derives the calls an agent makes for a session, from the
// channels devlearn reads any agent's session into: session start, then,
// in the order they were written, each of the person's prompts and each
// tool call, in Claude Code's shape, with the folder the session ran in
// moved to the repository.
func hookCalls(file, root string) ([]call, error) {
	ch, err := readChannels(file)
	if err != nil {
		return nil, err
	}
	sid := ch.SessionID
	if sid == "" {
		sid = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	origin := ""
	for _, u := range ch.UserSignals {
		if u.Cwd != "" {
			origin = u.Cwd
			break
		}
	}
	base := func(name string) map[string]any {
		return map[string]any{"session_id": sid, "transcript_path": file, "cwd": root, "hook_event_name": name}
	}
	out := []call{{event: hook.SessionStart, input: withField(base("SessionStart"), "source", "startup")}}
	var calls []call
	for _, u := range ch.UserSignals {
		if u.Rejection || strings.TrimSpace(u.Text) == "" {
			continue
		}
		in := base("UserPromptSubmit")
		in["prompt"] = moveFolder(u.Text, origin, root)
		calls = append(calls, call{event: hook.UserPromptSubmit, line: u.Line, ids: []string{u.UUID, "L" + strconv.Itoa(u.Line), "M" + strconv.Itoa(u.Line-1)}, input: in, prompt: true})
	}
	for _, t := range ch.Tools {
		if t.Sidechain {
			continue
		}
		input := map[string]any{}
		switch {
		case t.Command != "":
			input["command"] = moveFolder(t.Command, origin, root)
		case len(t.Paths) > 0:
			input["file_path"] = moveFolder(t.Paths[0], origin, root)
		default:
			continue
		}
		in := base("PreToolUse")
		in["tool_name"], in["tool_input"], in["tool_use_id"] = t.Name, input, t.ID
		ids := []string{t.ID, "L" + strconv.Itoa(t.Line)}
		calls = append(calls, call{event: hook.PreToolUse, line: t.Line, ids: ids, input: in})
		if t.Failed() && t.HasResult && t.Command != "" {
			// Claude Code's PostToolUseFailure, with the error the call
			// printed: what the agent read next.
			f := base("PostToolUseFailure")
			f["tool_name"], f["tool_input"], f["tool_use_id"], f["error"] = t.Name, input, t.ID, moveFolder(t.Error, origin, root)
			calls = append(calls, call{event: hook.PostToolUseFailure, line: t.Line, ids: ids, input: f})
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].line < calls[j].line })
	return append(out, calls...), nil
}

func withField(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

// moveFolder replaces the folder a session ran in with root wherever a
// path names it whole (identity.ReplaceFolder, as capture generalizes
// it); a drive alone ("C:\") is no folder to move.
func moveFolder(s, from, to string) string {
	from = strings.TrimRight(from, `/\`)
	if len(from) < 2 || len(from) == 2 && from[1] == ':' {
		return s
	}
	return identity.ReplaceFolder(s, from, to)
}

// LoopSummary is the closed loop's figures for a split.
type LoopSummary struct {
	Moments, Found, Served, Relevant, Known, KnownServed, KnownRelevant int
	Items, Unrelated                                                    int
	// JudgedUseful: of the unrelated, those a reader judged useful.
	JudgedUseful int `json:",omitempty"`
	// Of the items, those a reader judged at their call (GivenJudged),
	// and of those the ones that bear on nothing there (NotRelevant).
	GivenJudged int `json:",omitempty"`
	NotRelevant int `json:",omitempty"`
	// AtFailure: moments whose lesson came with the error of their call
	// (Moment.AtFailure); Missed of those, the ones not served before.
	AtFailure       int `json:",omitempty"`
	AtFailureMissed int `json:",omitempty"`
	// FailureItems: of the items, those given with a failed call's
	// error; FailureNotRelevant: of those a reader judged, the ones that
	// bear on nothing there.
	FailureItems       int `json:",omitempty"`
	FailureNotRelevant int `json:",omitempty"`
	// Problems are the calls that failed on the way (an ingest, a render,
	// a listing): what they would have learned is missing from the
	// figures. FirstProblem names one.
	Problems     int    `json:",omitempty"`
	FirstProblem string `json:",omitempty"`
}

// SummarizeLoop adds up the projects of a split ("" for all).
func SummarizeLoop(results []*LoopResult, split string) LoopSummary {
	var s LoopSummary
	for _, r := range results {
		if split != "" && r.Split != split {
			continue
		}
		s.Items += r.Served
		s.Unrelated += len(r.Unrelated)
		if s.Problems == 0 && len(r.Problems) > 0 {
			s.FirstProblem = r.Project + ": " + r.Problems[0]
		}
		s.Problems += len(r.Problems)
		s.JudgedUseful += len(r.JudgedUseful)
		for _, g := range r.Given {
			if g.Verdict != "" {
				s.GivenJudged++
			}
			if g.Verdict == "not relevant" {
				s.NotRelevant++
			}
			if g.AtFailure {
				s.FailureItems++
				if g.Verdict == "not relevant" {
					s.FailureNotRelevant++
				}
			}
		}
		for _, m := range r.Moments {
			s.Moments++
			if m.Found {
				s.Found++
			}
			if m.Served {
				s.Served++
			}
			if m.Relevant {
				s.Relevant++
			}
			if m.AtFailure {
				s.AtFailure++
				if !m.Served {
					s.AtFailureMissed++
				}
			}
			if m.Known {
				s.Known++
				if m.Served {
					s.KnownServed++
				}
				if m.Relevant {
					s.KnownRelevant++
				}
			}
		}
	}
	return s
}

// readChannels reads one session's file, whichever agent wrote it, as
// ingest reads it.
func readChannels(file string) (*transcript.Channels, error) {
	logs, ok := sessions.Open(file)
	if !ok {
		return transcript.ReadFiles([]string{file}, transcript.Options{})
	}
	// A file may hold several sessions (Gemini CLI's logs.json): the
	// corpus names the file, so its sessions are played as one, in the
	// file's order.
	all := &transcript.Channels{}
	for _, l := range logs {
		ch, err := l.Read(file, transcript.Options{})
		if err != nil {
			return nil, err
		}
		if all.SessionID == "" {
			all.SessionID = ch.SessionID
		}
		all.UserSignals = append(all.UserSignals, ch.UserSignals...)
		all.Tools = append(all.Tools, ch.Tools...)
		all.DialogPairs = append(all.DialogPairs, ch.DialogPairs...)
	}
	return all, nil
}
