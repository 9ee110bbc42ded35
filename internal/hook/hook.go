// Package hook adapts Claude Code hook events to devlearn: JSON in on
// stdin, JSON out in the one shape Claude Code honours, or nothing. A hook
// never breaks the agent: whatever goes wrong (bad input, missing or
// broken files, a panic) is written to the worker log and the hook prints
// nothing and succeeds (the exit codes rule, docs/architecture.md).
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/inject"
	"github.com/devlearn/devlearn/internal/jsonstr"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
)

// The events served here, as named on devlearn's command line.
const (
	PreToolUse  = "pre-tool-use"
	PostToolUse = "post-tool-use"
	// PostToolUseFailure: a tool call failed (Claude Code's event of
	// that name).
	PostToolUseFailure = "post-tool-use-failure"
	SessionStart       = "session-start"
	UserPromptSubmit   = "user-prompt-submit"
	SessionEnd         = "session-end"
	Stop               = "stop"
)

// eventNames are Claude Code's names, for hookEventName.
var eventNames = map[string]string{
	PreToolUse:         "PreToolUse",
	PostToolUse:        "PostToolUse",
	PostToolUseFailure: "PostToolUseFailure",
	SessionStart:       "SessionStart",
	UserPromptSubmit:   "UserPromptSubmit",
	SessionEnd:         "SessionEnd",
	Stop:               "Stop",
}

// Events lists the events Run serves.
func Events() []string {
	return []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SessionEnd}
}

// MaxInput bounds what is read from stdin: a Write of a huge file is
// still a tool call worth serving, a stream without end is not.
const MaxInput = 32 << 20

// Env is what a hook takes from the world around it.
type Env struct {
	// Dir is the process's folder, used when the input names no cwd.
	Dir string
	// Home is the global devlearn folder ($DEVLEARN_HOME).
	Home string
	// UserHome is the person's home folder ($HOME), where `~` points: a
	// command that goes there has left the project.
	UserHome string
	// Now is the clock.
	Now func() time.Time
	// Silenced: DEVLEARN_INTERNAL=1 or DEVLEARN_DISABLE=1 (the switches rule, docs/architecture.md).
	Silenced bool
	// NoInjection: DISABLE_EXPERIENCE_INJECTION=1, the triads design's
	// switch: nothing is injected, as with "serve": {"enabled": false};
	// prompts are still recorded and lessons still captured.
	NoInjection bool
	// Stderr receives the warning of a slow hook call; nil writes none.
	Stderr io.Writer
	// SlowAfter is how long a hook call may take before it warns, in the
	// hooks log and on Stderr (0: SlowHook).
	SlowAfter time.Duration
	// Clock measures the call's duration; nil is the system's. Now is
	// the clock of what is recorded, which tests freeze.
	Clock func() time.Time
	// Redact scrubs secrets from a prompt before it is stored; nil keeps
	// it as it is.
	Redact func(string) string
	// Reconcile brings the observation log in line with the artifacts on
	// disk before session start serves anything (deletions, edits,
	// healing). It must return at once when nothing changed. It is given
	// the config and clock the hook has already read, so that session
	// start reads them once. nil skips it.
	Reconcile func(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time) error
	// StartWorker starts the SessionEnd worker for p's clone, fully
	// detached, and returns at once. nil starts none (the spool waits).
	StartWorker func(p *project.Project) error
	// Task is the task this session works on (DEVLEARN_TASK); "" makes
	// the session its own task for the Stop gates.
	Task string
	// Environ is the environment the Stop gates start from.
	Environ []string
	// Codec speaks another agent's hook protocol (internal/agent/...);
	// nil is Claude Code's.
	Codec Codec
	// Drops reports whether the agent, at the version recorded in the
	// clone's state folder stateDir, drops the context given at event
	// (devlearn's name): nothing is then given there and nothing recorded
	// as served, so that it is served at the next event that takes it.
	// It must be cheap (a file read, never the agent's binary). nil: every
	// event takes context.
	Drops func(stateDir, event string) bool
}

// Input is the hook JSON Claude Code writes on stdin. Unknown fields are
// ignored; every field may be missing.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"`
	Prompt         string `json:"prompt"`
	ToolName       string `json:"tool_name"`
	// Tool is all of tool_input that is read: a Write's content is
	// skipped as it is decoded, never copied.
	Tool      ToolArgs `json:"tool_input"`
	ToolUseID string   `json:"tool_use_id"`
	// PostToolUseFailure: what the call printed as its error, and
	// whether the person interrupted it.
	Error       string `json:"error"`
	IsInterrupt bool   `json:"is_interrupt"`
	// SessionEnd.
	Reason string `json:"reason"`
	// Stop.
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// UnmarshalJSONFrom reads an input object as encoding it by reflection
// would, but without working out, on every call, how Input is laid out:
// that cost more than the rest of reading it. Unknown names are skipped, a
// null leaves a field empty, any other type than the field's is an error.
func (in *Input) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch k := dec.PeekKind(); k {
	case jsontext.KindBeginObject:
	case jsontext.KindInvalid, jsontext.KindNull:
		*in = Input{}
		_, err := dec.ReadToken()
		return err
	default:
		return fmt.Errorf("want an object, got %s", kindName(k))
	}
	return eachMember(dec, func(n string) error {
		switch n {
		case "tool_input":
			return in.Tool.UnmarshalJSONFrom(dec)
		case "stop_hook_active":
			return readScalar(dec, n, "true or false", func(v jsontext.Token) { in.StopHookActive = v.Kind() == jsontext.KindTrue })
		case "is_interrupt":
			return readScalar(dec, n, "true or false", func(v jsontext.Token) { in.IsInterrupt = v.Kind() == jsontext.KindTrue })
		}
		if dst := in.field(n); dst != nil {
			return readScalar(dec, n, "a string", func(v jsontext.Token) {
				*dst = ""
				if v.Kind() == jsontext.KindString {
					*dst = v.String()
				}
			})
		}
		return dec.SkipValue()
	})
}

// eachMember reads the members of the object dec is at, handing each
// name to read, which reads or skips its value.
func eachMember(dec *jsontext.Decoder, read func(name string) error) error {
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != jsontext.KindEndObject {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := read(name.String()); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// field is the string field named n in the input's JSON.
func (in *Input) field(n string) *string {
	switch n {
	case "session_id":
		return &in.SessionID
	case "transcript_path":
		return &in.TranscriptPath
	case "cwd":
		return &in.Cwd
	case "hook_event_name":
		return &in.HookEventName
	case "source":
		return &in.Source
	case "prompt":
		return &in.Prompt
	case "tool_name":
		return &in.ToolName
	case "tool_use_id":
		return &in.ToolUseID
	case "reason":
		return &in.Reason
	case "last_assistant_message":
		return &in.LastAssistantMessage
	case "error":
		return &in.Error
	}
	return nil
}

// readScalar reads member name's value, a null or one of the kind want
// names, and hands it to set; a value of another kind is an error, as
// decoding by reflection made it.
func readScalar(dec *jsontext.Decoder, name, want string, set func(jsontext.Token)) error {
	k := dec.PeekKind()
	if k != jsontext.KindInvalid && k != jsontext.KindNull && kindName(k) != want {
		return fmt.Errorf("%q is %s, want %s", name, kindName(k), want)
	}
	v, err := dec.ReadToken()
	if err != nil {
		return err
	}
	set(v)
	return nil
}

// kindName says what a JSON value of kind k is, for an error.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "true or false"
	}
	return k.String()
}

// Output is what a hook prints: hookSpecificOutput is the only shape that
// adds context for these events; a Stop hook blocks with decision and
// reason instead, and systemMessage shows a line to the person.
type Output struct {
	HookSpecificOutput Specific `json:"hookSpecificOutput,omitzero"`
	Decision           string   `json:"decision,omitempty"`
	Reason             string   `json:"reason,omitempty"`
	SystemMessage      string   `json:"systemMessage,omitempty"`
}

// Specific is the event-specific part of Output.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// Encode writes an output as Claude Code reads it: one JSON object, no
// HTML escaping (it would only lengthen the text), one newline. It is
// written by hand as JSONLine would write it (TestOutputEncodesAsJSONLine):
// working out by reflection how to encode an Output, on every call, cost
// as much as the rest of serving.
func (o *Output) Encode() []byte {
	b := make([]byte, 0, 96+len(o.HookSpecificOutput.AdditionalContext)+len(o.HookSpecificOutput.PermissionDecisionReason)+len(o.Reason)+len(o.SystemMessage))
	b = append(b, '{')
	n := 0
	member := func(name, v string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = jsonstr.AppendText(b, name)
		b = append(b, ':')
		b = jsonstr.AppendText(b, v)
	}
	if h := o.HookSpecificOutput; h != (Specific{}) {
		b = append(b, `"hookSpecificOutput":{`...)
		member("hookEventName", h.HookEventName)
		for _, f := range [...]struct{ name, v string }{
			{"permissionDecision", h.PermissionDecision},
			{"permissionDecisionReason", h.PermissionDecisionReason},
			{"additionalContext", h.AdditionalContext},
		} {
			if f.v != "" {
				member(f.name, f.v)
			}
		}
		b = append(b, '}')
	}
	for _, f := range [...]struct{ name, v string }{
		{"decision", o.Decision},
		{"reason", o.Reason},
		{"systemMessage", o.SystemMessage},
	} {
		if f.v != "" {
			member(f.name, f.v)
		}
	}
	return append(b, '}', '\n')
}

// run is one hook invocation.
type run struct {
	ctx   context.Context
	event string
	env   Env
	in    Input
	proj  *project.Project
	cfg   *config.Config
	log   *Log
	now   time.Time
	// keptNow are the entries this prompt asked to keep: its note says
	// so, and serving them for the same prompt would say it twice.
	keptNow map[string]bool
	// opts are the ranking options, read once per run (options).
	opts *knowledge.Options
	// prompt is the prompt redacted, once per run (redactedPrompt).
	prompt   string
	redacted bool
	// One per run, made at first use: the writer of the project's
	// entries (entryStore), the entries a lesson may restate (entries),
	// and the keeper that counts lessons on them (keeper).
	store   *entrystore.Store
	inForce *keep.Entries
	keep    *keep.Keeper
	// clone is this clone's id (cloneID), read at first use.
	clone  string
	cloned bool
	// dropped is what Drops said per event, asked at first use.
	dropped map[string]bool
}

// Run serves one hook event: it reads the input, does its work and writes
// the output, if any, to out. It returns nothing: errors and panics go to
// the worker log, never to the agent.
func Run(ctx context.Context, event string, env Env, stdin io.Reader, out io.Writer) {
	if env.Silenced {
		return
	}
	r := &run{ctx: ctx, event: event, env: env}
	r.log = &Log{Root: env.Home, Path: fallbackLog(env.Home), FallbackRoot: env.Home, Fallback: fallbackLog(env.Home), Event: event, Redact: env.Redact}
	defer func() {
		if p := recover(); p != nil {
			r.log.Printf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	if r.env.Now == nil {
		r.env.Now = time.Now
	}
	r.log.Now = r.env.Now
	r.now = r.env.Now()
	clock := r.env.Clock
	if clock == nil {
		clock = time.Now
	}
	start := clock()
	defer r.warnIfSlow(clock, start)
	o, err := r.serve(stdin)
	if err != nil {
		if r.proj == nil {
			// Failed before the input named its project: log where the
			// person will look, the project around the process's folder.
			if p, perr := project.Find(r.env.Dir); perr == nil && p.HasMemory() {
				r.log.Root, r.log.Path = p.CommonDir, LogPath(p)
			}
		}
		r.log.Printf("%v", err)
		return
	}
	if o != nil && r.drops(event) {
		o = withoutContext(o, env.Codec == nil)
	}
	if o != nil {
		data := o.Encode()
		if env.Codec != nil {
			data = env.Codec.Encode(event, o)
		}
		if _, err := out.Write(data); err != nil {
			r.log.Printf("writing the output: %v", err)
		}
	}
}

// withoutContext is o with no text for the model: what an agent that
// drops the event's context would not show (and what Codex before 0.129
// would fail the hook for at PreToolUse). Claude Code's question before a
// call stays: it goes to the person, not the model; the other agents turn
// a question into context, so theirs goes. nil when nothing is left.
func withoutContext(o *Output, claude bool) *Output {
	c := *o
	c.HookSpecificOutput.AdditionalContext = ""
	if !claude {
		c.HookSpecificOutput.PermissionDecision, c.HookSpecificOutput.PermissionDecisionReason = "", ""
	}
	if c.HookSpecificOutput.AdditionalContext == "" && c.HookSpecificOutput.PermissionDecision == "" && c.Decision == "" && c.SystemMessage == "" {
		return nil
	}
	return &c
}

// SlowHook is how long a hook call may take before it warns: the triads
// design's budget for its query (devlearn's own work is a millisecond).
const SlowHook = 100 * time.Millisecond

// warnIfSlow says, in the hooks log and on stderr, that the call took
// longer than its budget. stderr of a hook that exits 0 reaches only the
// person (Claude Code's transcript view), never the agent.
func (r *run) warnIfSlow(clock func() time.Time, start time.Time) {
	limit := r.env.SlowAfter
	if limit <= 0 {
		limit = SlowHook
	}
	took := clock().Sub(start)
	if took <= limit {
		return
	}
	msg := fmt.Sprintf("slow hook: %s took %d ms (over %d ms)", r.event, took.Milliseconds(), limit.Milliseconds())
	r.log.Printf("%s", msg)
	if r.env.Stderr != nil {
		where := ""
		if r.log.Path != "" {
			where = "; see " + r.log.Path
		}
		fmt.Fprintf(r.env.Stderr, "devlearn: %s%s\n", msg, where)
	}
}

// serving reports whether anything may be injected: serving is on, and
// the agent as installed takes context at this event. Where it does not,
// the hook gives nothing and records nothing as served or shown (what the
// model never saw must stay due), exactly as with serving off.
func (r *run) serving() bool {
	return r.cfg.Serve.Enabled && !r.env.NoInjection && !r.drops(r.event)
}

// drops reports whether the installed agent drops the context of event
// (Env.Drops), asked once per event and run.
func (r *run) drops(event string) bool {
	if r.env.Drops == nil || r.proj == nil {
		return false
	}
	d, ok := r.dropped[event]
	if !ok {
		d = r.env.Drops(r.proj.StateDir(), event)
		if r.dropped == nil {
			r.dropped = map[string]bool{}
		}
		r.dropped[event] = d
	}
	return d
}

func fallbackLog(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, "logs", "hooks.log")
}

// errQuiet ends a hook that has nothing to do; it is not logged.
var errQuiet = errors.New("nothing to do")

// InputOptions read a hook's input as the agents write it: a string with
// bytes that are not UTF-8, or half of a UTF-16 surrogate pair where an
// agent cut a long tool output or error inside an emoji, is read with
// U+FFFD in their place. Rejected, the whole event would be lost: the
// session never spooled, Stop's gates never run, nothing served.
var InputOptions = jsontext.AllowInvalidUTF8(true)

func (r *run) serve(stdin io.Reader) (*Output, error) {
	handler, ok := map[string]func() (*Output, error){
		PreToolUse:         r.preToolUseAndDirectives,
		PostToolUse:        r.afterCall,
		PostToolUseFailure: r.failed,
		SessionStart:       r.sessionStart,
		UserPromptSubmit:   r.promptSubmit,
		SessionEnd:         r.sessionEndAndDirectives,
		Stop:               r.stopAndChecklists,
	}[r.event]
	if !ok {
		return nil, fmt.Errorf("unknown hook event %q (known: %v)", r.event, Events())
	}
	// One JSON value is read, not everything up to the end of the input: a
	// writer that leaves stdin open after the object does not hold the
	// hook past its budget. It is decoded as it is read, in one pass, so
	// that a large Write costs one scan of its content.
	lr := &io.LimitedReader{R: stdin, N: MaxInput + 1}
	var err error
	if r.env.Codec != nil {
		err = r.env.Codec.Decode(r.event, jsontext.NewDecoder(lr, InputOptions), &r.in)
	} else {
		err = r.in.UnmarshalJSONFrom(jsontext.NewDecoder(lr, InputOptions))
	}
	switch {
	case lr.N <= 0:
		return nil, fmt.Errorf("hook input over %d bytes: ignored", MaxInput)
	case errors.Is(err, io.EOF):
		return nil, fmt.Errorf("empty hook input (the agent sends a JSON object on stdin)")
	case err != nil:
		return nil, fmt.Errorf("hook input is not the expected JSON object: %v", err)
	}
	dir := r.in.Cwd
	if dir == "" {
		dir = r.env.Dir
	}
	p, err := project.Find(dir)
	if err != nil {
		return nil, nil // not in a repository: nothing to serve (the roots rule, docs/architecture.md)
	}
	if !p.HasMemory() {
		return nil, nil // devlearn is not set up here
	}
	r.proj = p
	r.log.Root, r.log.Path = p.CommonDir, LogPath(p)
	if r.in.SessionID != "" {
		r.log.Event = r.event + " " + SafeName(r.in.SessionID)
	}
	l, err := config.LoadProject(r.env.Home, p.Root)
	if err != nil {
		if r.event != SessionStart {
			return nil, err
		}
		// Every hook is off until the file is fixed: session start says
		// so once, where the person sees it.
		r.log.Printf("%v", err)
		return r.configBrokenOnce(err), nil
	}
	r.cfg = l.Config
	if !r.cfg.Enabled {
		return nil, nil
	}
	o, err := handler()
	if errors.Is(err, errQuiet) {
		return nil, nil
	}
	return o, err
}

func (r *run) sources() knowledge.Sources {
	return knowledge.Sources{Root: r.proj.Root, GlobalDir: knowledge.GlobalEntriesDir(r.env.Home), State: r.proj.CommonDir}
}

// load reads every item through the cache (session start).
func (r *run) load(mode knowledge.Mode) *knowledge.Set {
	set, err := knowledge.Load(r.sources(), knowledge.CachePath(r.proj), mode)
	return r.loaded(set, err)
}

// candidates reads the items that may be served for a call (the hot path).
func (r *run) candidates(c *knowledge.Call) *knowledge.Set {
	set, err := knowledge.Candidates(r.sources(), knowledge.CachePath(r.proj), c)
	return r.loaded(set, err)
}

// loaded logs the problems (broken entries) of a set read from the files,
// so that a broken file is reported once per change, not on every tool
// call.
func (r *run) loaded(set *knowledge.Set, err error) *knowledge.Set {
	if err != nil {
		r.log.Printf("knowledge cache: %v (served from the files)", err)
	}
	if set.Rebuilt {
		for _, p := range set.Problems {
			r.log.Printf("%v (skipped; the other entries are served)", p)
		}
	}
	if !r.cfg.Serve.Drafts {
		set = set.WithoutDrafts()
	}
	set, held := set.Servable(r.cloneID)
	if set.Rebuilt {
		for _, it := range held {
			r.log.Printf("%s (%s) is held for a person's review and not served: it %s; %s", it.ID, it.Path, it.Held, knowledge.HeldNext(it))
		}
	}
	return set
}

// cloneID is this clone's id, read once per run: an agent's draft is
// served only in the clone that wrote it. Without one, no draft is.
func (r *run) cloneID() string {
	if !r.cloned {
		r.cloned = true
		id, err := r.proj.CloneID()
		if err != nil {
			r.log.Printf("this clone's id: %v (drafts are not served)", err)
		}
		r.clone = id
	}
	return r.clone
}

// options are the run's ranking options, computed on first use: ranking
// and choosing what fits both need them, and with counters.rank on they
// read a file.
func (r *run) options() knowledge.Options {
	if r.opts == nil {
		o := ServeOptionsFor(r.proj, r.cfg)
		r.opts = &o
	}
	return *r.opts
}

// ServeOptionsFor are the hooks' ranking options in a project: with the
// items that hurt more than they helped when counters.rank is on.
func ServeOptionsFor(p *project.Project, cfg *config.Config) knowledge.Options {
	o := ServeOptions(cfg.Serve)
	if cfg.Counters.Rank {
		o.Hurting = knowledge.LoadHurting(knowledge.HurtingPath(p))
	}
	return o
}

// ServeOptions are the ranking options the hooks serve with, for whatever
// must rank exactly as they do ('knowledge why').
func ServeOptions(s config.Serve) knowledge.Options {
	w := s.Weights
	return knowledge.Options{
		Weights:   knowledge.Weights{Tool: w.Tool, File: w.File, Action: w.Action, Context: w.Context, Command: w.Command, FileMiss: w.FileMiss},
		Threshold: s.Threshold,
		MaxItems:  s.MaxItems,
	}
}

// output is what the agent is given. Everything it quotes from the
// project (entries, sections, directives, titles) passes here, so markup
// that imitates the harness or a role is made plain text once, for every
// agent.
func (r *run) output(text, decision, reason string) *Output {
	return &Output{HookSpecificOutput: Specific{
		HookEventName:            eventNames[r.event],
		PermissionDecision:       decision,
		PermissionDecisionReason: inject.Neutralise(reason),
		AdditionalContext:        inject.Neutralise(text),
	}}
}

// size is the number of characters an output takes once printed.
func size(o *Output) int { return utf8.RuneCount(o.Encode()) }
