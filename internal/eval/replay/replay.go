// Package replay measures whether devlearn serves a lesson at the moment it
// matters. A replay is a scripted Claude Code session (a JSONL transcript)
// in which a mistake corrected in an earlier session is about to recur,
// labelled with the lessons about that mistake and the tool call that
// repeats it. The harness makes a fresh clone holding a realistic
// knowledge base, derives from the transcript the hook calls Claude Code
// would make (SessionStart, then UserPromptSubmit for each prompt and
// PreToolUse for each tool call, in order), runs each through the real
// hook code, and reads what was served.
//
// For each replay it reports whether a lesson about the mistake was served
// before the repeat (at the repeat's own PreToolUse at the latest), at
// which event, its rank there, and the tokens spent; over all replays, how
// often what was served had nothing to do with the session (distraction).
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Replay is one scripted session and its labels (replay.json).
type Replay struct {
	Name string `json:"-"`
	// Set is the folder the replay is in: "tune" (written to build
	// against) or "heldout" (written before any tuning, reported apart).
	Set string `json:"-"`
	Dir string `json:"-"`
	// Class is the kind of lesson it exercises ("command a decision
	// forbids", "another clone", ...).
	Class string `json:"class"`
	// Lessons are the items about the mistake that recurs: serving any of
	// them before the repeat is a success.
	Lessons []string `json:"lessons"`
	// Acceptable are other items a careful reader would accept being
	// served somewhere in this session; whatever else is served is a
	// distraction.
	Acceptable []string `json:"acceptable"`
	// Repeat is the tool_use id of the call that repeats the mistake.
	Repeat string `json:"repeat"`
	Note   string `json:"note"`
}

// Load reads every replay under dir/<set>/<name>/replay.json, sorted by
// set then name.
func Load(dir string) ([]*Replay, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*", "replay.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Replay
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		r := &Replay{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(r); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		r.Dir = filepath.Dir(p)
		r.Name = filepath.Base(r.Dir)
		r.Set = filepath.Base(filepath.Dir(r.Dir))
		if len(r.Lessons) == 0 || r.Repeat == "" {
			return nil, fmt.Errorf("%s: a replay names its lessons and the tool_use id of its repeat", p)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no replay under %s (expected <set>/<name>/replay.json)", dir)
	}
	return out, nil
}

// Event is one hook call of a replay and what it served.
type Event struct {
	Index  int    `json:"index"` // 0 is SessionStart
	Name   string `json:"event"` // SessionStart, UserPromptSubmit, PreToolUse
	Tool   string `json:"tool,omitempty"`
	Target string `json:"target,omitempty"` // the file or command, shortened
	// ToolUseID: the tool call's id, for PreToolUse.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Served are the items given in full, in the order given.
	Served []string `json:"served,omitempty"`
	Tokens int      `json:"tokens"`
	// Repeat: the tool call that repeats the mistake.
	Repeat bool `json:"repeat,omitempty"`
}

// Label names an event the way the report prints it.
func (e Event) Label() string {
	switch e.Name {
	case "SessionStart":
		return "SessionStart"
	case "UserPromptSubmit":
		return fmt.Sprintf("#%d prompt", e.Index)
	}
	return fmt.Sprintf("#%d %s %s", e.Index, e.Tool, e.Target)
}

// Result is what one replay measured.
type Result struct {
	Name    string `json:"name"`
	Set     string `json:"set"`
	Class   string `json:"class"`
	Lessons []string
	// Critical: one of its lessons is CRITICAL.
	Critical bool `json:"critical"`
	// Served: a lesson was served at or before the repeat's PreToolUse.
	Served bool `json:"served"`
	// JustInTime: it was served by relevance (at a prompt or a tool
	// call), not only in session start's list of CRITICAL items.
	JustInTime bool `json:"just_in_time"`
	// At is the first event that served a lesson, Rank its position
	// there (1 is first); Lesson is which lesson.
	At     string `json:"at,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Lesson string `json:"lesson,omitempty"`
	// RelevantAt and RelevantRank are the same for the first event that
	// served a lesson by relevance (a prompt or a tool call), if any.
	RelevantAt   string `json:"relevant_at,omitempty"`
	RelevantRank int    `json:"relevant_rank,omitempty"`
	// Top3: a lesson was served before the repeat within the first three
	// items of its event.
	Top3 bool `json:"top3"`
	// TokensBefore: tokens of everything served up to the repeat;
	// Tokens: over the whole replay; SessionStartTokens: of session start
	// alone (the index and the CRITICAL items).
	TokensBefore       int `json:"tokens_before"`
	Tokens             int `json:"tokens"`
	SessionStartTokens int `json:"session_start_tokens"`
	// ServedItems counts the items served by relevance (prompts and
	// tool calls), Unrelated those neither about the mistake nor
	// acceptable.
	ServedItems int      `json:"served_items"`
	Unrelated   []string `json:"unrelated,omitempty"`
	Events      []Event  `json:"events"`
}

// Options of a run.
type Options struct {
	// KB is the folder whose files every replay's clone starts with (a
	// realistic project's .memory/ knowledge).
	KB string
	// Work is where the clones are made; "" makes a temporary folder and
	// removes it.
	Work string
}

// Run replays r through the hooks and measures it.
func Run(ctx context.Context, r *Replay, o Options) (*Result, error) {
	work := o.Work
	if work == "" {
		tmp, err := os.MkdirTemp("", "devlearn-replay-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	root := filepath.Join(work, r.Set+"-"+r.Name, "clone")
	home := filepath.Join(work, r.Set+"-"+r.Name, "home")
	for _, d := range []string{filepath.Join(root, ".git"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if o.KB != "" {
		if err := copyTree(o.KB, root); err != nil {
			return nil, err
		}
	}
	for _, sub := range []struct{ from, to string }{{"project", root}, {"home", home}} {
		if err := copyTree(filepath.Join(r.Dir, sub.from), sub.to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	set := knowledge.ReadAll(knowledge.Sources{Root: root, GlobalDir: knowledge.GlobalEntriesDir(home)})
	if len(set.Problems) > 0 {
		return nil, fmt.Errorf("%s: the knowledge base does not parse: %v", r.Name, set.Problems[0])
	}
	ids := map[string]*knowledge.Item{}
	for _, it := range set.Items {
		ids[it.ID] = it
	}
	res := &Result{Name: r.Name, Set: r.Set, Class: r.Class, Lessons: r.Lessons}
	for _, l := range r.Lessons {
		it := ids[l]
		if it == nil {
			return nil, fmt.Errorf("%s: lesson %s is not in the knowledge base", r.Name, l)
		}
		res.Critical = res.Critical || it.Priority == "CRITICAL"
	}
	for _, a := range r.Acceptable {
		if ids[a] == nil {
			return nil, fmt.Errorf("%s: acceptable item %s is not in the knowledge base", r.Name, a)
		}
	}

	calls, err := hookCalls(filepath.Join(r.Dir, "session.jsonl"), root)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", r.Name, err)
	}
	if !slices.ContainsFunc(calls, func(c call) bool { return c.toolUseID == r.Repeat }) {
		return nil, fmt.Errorf("%s: the repeat %s is not a tool call of session.jsonl", r.Name, r.Repeat)
	}
	clock := time.Date(2026, 5, 12, 9, 0, 0, 0, time.UTC)
	env := hook.Env{Dir: root, Home: home, UserHome: home, Redact: redact.Text}
	repeated := false
	for i, c := range calls {
		now := clock.Add(time.Duration(i) * time.Second)
		env.Now = func() time.Time { return now }
		var out bytes.Buffer
		hook.Run(ctx, c.event, env, bytes.NewReader(c.input), &out)
		text, err := contextOf(out.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s: event %d (%s): %v", r.Name, i, c.event, err)
		}
		ev := Event{Index: i, Name: c.name, Tool: c.tool, Target: c.target, ToolUseID: c.toolUseID, Tokens: knowledge.Tokens(text), Repeat: c.toolUseID == r.Repeat}
		if c.event == hook.SessionStart {
			res.SessionStartTokens = ev.Tokens
			// Only what is given in full counts as served; the index
			// lists every item by name.
			if i := strings.Index(text, hook.CriticalHeading); i >= 0 {
				ev.Served = servedIn(text[i:], ids)
			}
		} else {
			ev.Served = servedIn(text, ids)
			res.ServedItems += len(ev.Served)
			for _, id := range ev.Served {
				if !slices.Contains(r.Lessons, id) && !slices.Contains(r.Acceptable, id) {
					res.Unrelated = append(res.Unrelated, id)
				}
			}
		}
		res.Tokens += ev.Tokens
		if !repeated {
			res.TokensBefore += ev.Tokens
			for rank, id := range ev.Served {
				if !slices.Contains(r.Lessons, id) {
					continue
				}
				if !res.Served {
					res.Served, res.At, res.Rank, res.Lesson = true, ev.Label(), rank+1, id
				}
				res.Top3 = res.Top3 || rank < 3
				if c.event != hook.SessionStart && !res.JustInTime {
					res.JustInTime, res.RelevantAt, res.RelevantRank = true, ev.Label(), rank+1
				}
			}
		}
		res.Events = append(res.Events, ev)
		repeated = repeated || c.toolUseID == r.Repeat
	}
	return res, nil
}

// heading finds the items served in full: each starts with a "## ID"
// heading (an entry's "## key [LABEL]: ...", a section's "## PF-001: ...").
var heading = regexp.MustCompile(`(?m)^## ([^\s:\[]+)`)

func servedIn(text string, ids map[string]*knowledge.Item) []string {
	var out []string
	for _, m := range heading.FindAllStringSubmatch(text, -1) {
		if ids[m[1]] != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// contextOf is the additionalContext of a hook's output ("" for none).
func contextOf(out []byte) (string, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		return "", nil
	}
	var o hook.Output
	if err := json.Unmarshal(out, &o); err != nil {
		return "", fmt.Errorf("the hook printed something that is not its output: %q", out)
	}
	return o.HookSpecificOutput.AdditionalContext, nil
}

// call is one hook call derived from the transcript.
type call struct {
	event, name  string
	tool, target string
	toolUseID    string
	input        []byte
}

// hookCalls derives the hook calls Claude Code makes for a session: a
// SessionStart, then in transcript order a UserPromptSubmit for each of
// the person's prompts and a PreToolUse for each tool call. The folder the
// session ran in is mapped to root (the replay's clone), whatever its
// separators or case, so a session recorded on Windows replays here with
// its paths as Windows wrote them beyond that folder.
func hookCalls(path, root string) ([]call, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		out     []call
		sid     string
		origin  string
		failure error
	)
	add := func(event, name string, fields map[string]any, c call) {
		fields["session_id"] = sid
		fields["transcript_path"] = path
		fields["cwd"] = root
		fields["hook_event_name"] = name
		c.event, c.name = event, name
		c.input, _ = json.Marshal(fields)
		out = append(out, c)
	}
	problems, err := transcript.Records(f, func(rec *transcript.Record) error {
		if sid == "" && rec.SessionID.String() != "" {
			sid, origin = rec.SessionID.String(), rec.Cwd.String()
			add(hook.SessionStart, "SessionStart", map[string]any{"source": "startup"}, call{})
		}
		switch {
		case rec.IsType("user") && !rec.HasToolUseResult && !rec.IsMeta && !rec.IsSidechain:
			var text []string
			transcript.ParseBlocks(rec.Content, func(b *transcript.Block) error {
				if b.Type.Is("text") {
					text = append(text, b.Text.String())
				}
				return nil
			})
			if p := strings.Join(text, "\n"); strings.TrimSpace(p) != "" {
				add(hook.UserPromptSubmit, "UserPromptSubmit", map[string]any{"prompt": p}, call{})
			}
		case rec.IsType("assistant"):
			transcript.ParseBlocks(rec.Content, func(b *transcript.Block) error {
				if !b.Type.Is("tool_use") {
					return nil
				}
				var input map[string]any
				if err := json.Unmarshal(b.Input, &input); err != nil {
					failure = fmt.Errorf("line %d: tool_use input: %v", rec.Line, err)
					return nil
				}
				c := call{tool: b.Name.String(), toolUseID: b.ID.String()}
				for k, v := range input {
					if s, ok := v.(string); ok {
						input[k] = mapFolder(s, origin, root)
					}
				}
				c.target = targetOf(input, root)
				add(hook.PreToolUse, "PreToolUse", map[string]any{"tool_name": c.tool, "tool_input": input, "tool_use_id": c.toolUseID}, c)
				return nil
			})
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(problems) > 0:
		return nil, fmt.Errorf("%s: %v", path, problems[0])
	case failure != nil:
		return nil, failure
	case len(out) == 0:
		return nil, fmt.Errorf("%s: no session in it", path)
	}
	return out, nil
}

// targetOf is what a tool call acts on, relative to the clone and
// shortened, for the report.
func targetOf(input map[string]any, root string) string {
	for _, k := range []string{"file_path", "notebook_path", "command", "pattern"} {
		if s, ok := input[k].(string); ok && s != "" {
			if rest, ok := strings.CutPrefix(s, root); ok && rest != "" && (rest[0] == '/' || rest[0] == '\\') {
				s = rest[1:]
			}
			return knowledge.Cut(s, 48)
		}
	}
	return ""
}

// mapFolder replaces, in s, the folder the session was recorded in with
// root: compared without regard to case or to the kind of slash, and only
// where a whole folder name ends.
func mapFolder(s, from, to string) string {
	if from == "" {
		return s
	}
	norm := func(x string) string { return strings.ToLower(strings.ReplaceAll(x, `\`, "/")) }
	ns, nf := norm(s), strings.TrimRight(norm(from), "/")
	var b strings.Builder
	last := 0
	for i := 0; i+len(nf) <= len(ns); {
		j := strings.Index(ns[i:], nf)
		if j < 0 {
			break
		}
		j += i
		end := j + len(nf)
		if end == len(ns) || strings.ContainsRune("/ '\"`;&|)", rune(ns[end])) {
			b.WriteString(s[last:j])
			b.WriteString(to)
			last = end
		}
		i = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// copyTree copies the files under from into to.
func copyTree(from, to string) error {
	if _, err := os.Stat(from); err != nil {
		return err
	}
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
