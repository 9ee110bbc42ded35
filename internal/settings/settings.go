// Package settings edits Claude Code's settings files (.claude/settings.json
// in a project, ~/.claude/settings.json for a person): devlearn's hooks and
// its status line. It owns the one list of devlearn's hooks, which enable,
// disable, init, uninstall and doctor all use.
//
// Edits never clobber: every key and every hook that is not devlearn's is
// kept as it was written, byte for byte outside the "hooks" and
// "statusLine" values; a file that is not valid JSON is reported with its
// line and column and never written; enabling twice gives one entry.
package settings

import (
	"fmt"
	"github.com/devlearn/devlearn/internal/jsonpos"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Hook is one of devlearn's hook registrations.
type Hook struct {
	Event   string // Claude Code's event name
	Sub     string // the `devlearn hook` subcommand
	Matcher string
	// HasMatcher is false for events that ignore matchers
	// (UserPromptSubmit, Stop): no "matcher" key is written for them.
	HasMatcher bool
	Timeout    int // seconds
}

// Hooks is every hook devlearn registers, in the order they are written.
var Hooks = []Hook{
	{Event: "SessionStart", Sub: "session-start", Matcher: "", HasMatcher: true, Timeout: 10},
	{Event: "UserPromptSubmit", Sub: "user-prompt-submit", Timeout: 5},
	{Event: "PreToolUse", Sub: "pre-tool-use", Matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash", HasMatcher: true, Timeout: 5},
	{Event: "PostToolUse", Sub: "post-tool-use", Matcher: "Read|Write|Edit|MultiEdit|NotebookEdit", HasMatcher: true, Timeout: 5},
	{Event: "Stop", Sub: "stop", Timeout: StopTimeout},
	{Event: "SessionEnd", Sub: "session-end", Matcher: "", HasMatcher: true, Timeout: 5},
}

// StopTimeout is the timeout (seconds) devlearn registers for its Stop
// hook. The hook runs the stop quality gates (issue 17), whose timeouts
// count against it: they share this budget less a reserve for the rest of
// the hook (hook.StopGateBudget, 285 s), so the hook answers before Claude
// Code gives up on it. Without stop gates the hook takes milliseconds.
const StopTimeout = 300

// Marker identifies devlearn's own hook commands, whatever their guard.
const Marker = "devlearn hook "

// Guard is the shell prefix that makes a registration harmless where
// devlearn is not installed (contract 11): Claude Code runs the command
// with a shell, `command -v` fails quietly, and `|| true` makes the hook
// succeed without output. Where devlearn is installed, exec hands it the
// hook's stdin and its exit status unchanged.
const Guard = "command -v devlearn >/dev/null 2>&1 && exec "

// HookGuard is Guard for devlearn-hook, the binary that serves the hooks
// and the status line and links nothing else, so that it starts several
// times faster than devlearn. Commands try it first and fall back to
// devlearn, then to nothing: a machine with only devlearn installed (an
// older install, or `go install ./cmd/devlearn`) still serves every hook.
const HookGuard = "command -v devlearn-hook >/dev/null 2>&1 && exec "

// Command is the exact command registered for hook subcommand sub.
func Command(sub string) string {
	return HookGuard + "devlearn-hook " + sub + " || " + Guard + "devlearn hook " + sub + " || true"
}

// StatusLineCommand is the status line devlearn registers (`init
// --statusline`): the HUD, reading Claude Code's status JSON on stdin for
// the session's folder.
const StatusLineCommand = HookGuard + "devlearn-hook hud --stdin || " + Guard + "devlearn hud --stdin || true"

// guarded reports whether a command has the shape of a guarded one: a
// `command -v` test first and `|| true` last.
func guarded(cmd string) bool {
	return strings.HasPrefix(cmd, "command -v ") && strings.HasSuffix(cmd, " || true")
}

// Entry is one hook command found in a settings file.
type Entry struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// IsDevlearn reports whether a hook command is one of devlearn's.
func IsDevlearn(cmd string) bool { return strings.Contains(cmd, Marker) }

var (
	devflowRe         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)devflow|/run-hook\b|self-learning`) })
	devflowLearningRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)learn|knowledge|decisions`) })
)

// IsDevflow reports whether a hook command is devflow's (devflow-kit
// installs them as `<dir>/.devflow/scripts/hooks/run-hook <name>` or
// scripts named after its self-learning feature).
func IsDevflow(cmd string) bool { return !IsDevlearn(cmd) && devflowRe().MatchString(cmd) }

// IsDevflowLearning reports whether a hook command is one of devflow's
// learning hooks, whose background job rewrites the observation log and
// the knowledge files devlearn now owns. devflow's other hooks (working
// memory, ambient mode) do not touch them.
func IsDevflowLearning(cmd string) bool {
	return IsDevflow(cmd) && devflowLearningRe().MatchString(cmd)
}

// File is a parsed settings file.
type File struct {
	name string
	obj  *object
	// hooks is the "hooks" object, event by event.
	hooks orderedObj
}

// Parse reads a settings file. name is used in errors. Empty data is an
// empty file (a missing file is the caller's to treat as empty).
func Parse(name string, data []byte) (*File, error) {
	obj, err := parseObject(name, data)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, obj: obj}
	if raw, ok := obj.get("hooks"); ok {
		if raw.Kind() == 'n' {
			return f, nil
		}
		h, err := decodeObj(raw)
		if err != nil {
			return nil, f.shapeError("hooks", `"hooks" must be an object of event names ({"SessionStart": [...]})`)
		}
		for _, ev := range h {
			groups, err := decodeArray(ev.val)
			if err != nil {
				return nil, f.shapeError("hooks", fmt.Sprintf("hooks.%s must be a list of {\"matcher\", \"hooks\"} groups", ev.key))
			}
			for _, g := range groups {
				if _, err := decodeObj(g); err != nil {
					return nil, f.shapeError("hooks", fmt.Sprintf("hooks.%s holds something that is not a {\"matcher\", \"hooks\"} group", ev.key))
				}
			}
		}
		f.hooks = h
	}
	return f, nil
}

func (f *File) shapeError(key, msg string) error {
	for _, m := range f.obj.members {
		if m.key == key {
			line, col := jsonpos.At(f.obj.data, int64(m.keyStart))
			return &SyntaxError{File: f.name, Line: line, Col: col, Msg: msg}
		}
	}
	return &SyntaxError{File: f.name, Msg: msg}
}

// Bytes is the file as it now stands.
func (f *File) Bytes() []byte { return f.obj.data }

// Entries lists every hook command in the file, in file order.
func (f *File) Entries() []Entry {
	var out []Entry
	for _, ev := range f.hooks {
		groups, _ := decodeArray(ev.val)
		for _, g := range groups {
			gr, _ := decodeObj(g)
			matcher := ""
			if m, ok := gr.get("matcher"); ok {
				matcher, _ = stringValue(m)
			}
			hv, _ := gr.get("hooks")
			list, _ := decodeArray(hv)
			for _, h := range list {
				if e, ok := entryOf(h); ok {
					e.Event, e.Matcher = ev.key, matcher
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func entryOf(v jsontext.Value) (Entry, bool) {
	o, err := decodeObj(v)
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if c, ok := o.get("command"); ok {
		e.Command, _ = stringValue(c)
	}
	if t, ok := o.get("timeout"); ok && t.Kind() == '0' {
		fmt.Sscan(string(t), &e.Timeout)
	}
	return e, e.Command != ""
}

// remove drops every hook entry whose command matches, then every group
// and event left empty by that. It returns what it dropped.
func (f *File) remove(match func(cmd string) bool) []Entry {
	var removed []Entry
	var events orderedObj
	for _, ev := range f.hooks {
		groups, _ := decodeArray(ev.val)
		var keptGroups []jsontext.Value
		touched := false
		for _, g := range groups {
			gr, _ := decodeObj(g)
			matcher := ""
			if m, ok := gr.get("matcher"); ok {
				matcher, _ = stringValue(m)
			}
			hv, ok := gr.get("hooks")
			list, err := decodeArray(hv)
			if !ok || err != nil {
				keptGroups = append(keptGroups, g)
				continue
			}
			var kept []jsontext.Value
			for _, h := range list {
				if e, ok := entryOf(h); ok && match(e.Command) {
					e.Event, e.Matcher = ev.key, matcher
					removed = append(removed, e)
					continue
				}
				kept = append(kept, h)
			}
			switch {
			case len(kept) == len(list):
				keptGroups = append(keptGroups, g)
			case len(kept) > 0:
				touched = true
				keptGroups = append(keptGroups, gr.set("hooks", encodeArray(kept)).encode())
			default:
				touched = true
			}
		}
		switch {
		case !touched:
			events = append(events, ev)
		case len(keptGroups) > 0:
			events = append(events, kv{ev.key, encodeArray(keptGroups)})
		}
	}
	if len(removed) > 0 {
		f.setHooks(events)
	}
	return removed
}

func (f *File) setHooks(h orderedObj) {
	f.hooks = h
	if len(h) == 0 {
		f.obj.data = f.obj.with("hooks", nil)
	} else {
		f.obj.data = f.obj.with("hooks", h.encode())
	}
	// Offsets moved: read the object again (it was valid, it still is).
	obj, err := parseObject(f.name, f.obj.data)
	if err != nil {
		panic(fmt.Sprintf("settings: an edit broke the JSON of %s: %v", f.name, err))
	}
	f.obj = obj
}

// Registered reports whether every devlearn hook is present exactly once,
// in exactly the form Hooks describes.
func (f *File) Registered() bool { return len(f.Problems()) == 0 }

// Problems lists what is wrong with devlearn's registration in this file,
// one line each; none when every hook is there exactly as it should be.
func (f *File) Problems() []string {
	var probs []string
	found := map[string][]Entry{}
	for _, e := range f.Entries() {
		if IsDevlearn(e.Command) {
			found[e.Event] = append(found[e.Event], e)
		}
	}
	for _, h := range Hooks {
		es := found[h.Event]
		delete(found, h.Event)
		switch {
		case len(es) == 0:
			probs = append(probs, fmt.Sprintf("%s: not registered", h.Event))
		case len(es) > 1:
			probs = append(probs, fmt.Sprintf("%s: registered %d times", h.Event, len(es)))
		case es[0].Command != Command(h.Sub):
			if !guarded(es[0].Command) {
				probs = append(probs, fmt.Sprintf("%s: %q is not guarded: it fails for a teammate without devlearn", h.Event, es[0].Command))
			} else {
				probs = append(probs, fmt.Sprintf("%s: %q is not devlearn's current command", h.Event, es[0].Command))
			}
		case es[0].Matcher != h.Matcher:
			probs = append(probs, fmt.Sprintf("%s: matcher %q, want %q", h.Event, es[0].Matcher, h.Matcher))
		case es[0].Timeout != h.Timeout:
			probs = append(probs, fmt.Sprintf("%s: timeout %d, want %d", h.Event, es[0].Timeout, h.Timeout))
		}
	}
	for ev, es := range found {
		probs = append(probs, fmt.Sprintf("%s: devlearn has no %s hook, but %q is registered", ev, ev, es[0].Command))
	}
	return probs
}

// Any reports whether any devlearn hook is registered in the file.
func (f *File) Any() bool {
	for _, e := range f.Entries() {
		if IsDevlearn(e.Command) {
			return true
		}
	}
	return false
}

// Enable registers devlearn's hooks. Entries already exactly right are
// left where they are; anything else of devlearn's (an old form, a
// duplicate, a hook devlearn no longer has) is replaced. It reports
// whether the file changed.
func (f *File) Enable() bool {
	if f.Registered() {
		return false
	}
	f.remove(IsDevlearn)
	events := f.hooks
	for _, h := range Hooks {
		var group orderedObj
		if h.HasMatcher {
			group = append(group, kv{"matcher", strValue(h.Matcher)})
		}
		entry := orderedObj{
			{"type", strValue("command")},
			{"command", strValue(Command(h.Sub))},
			{"timeout", jsontext.Value(fmt.Sprint(h.Timeout))},
		}
		group = append(group, kv{"hooks", encodeArray([]jsontext.Value{entry.encode()})})
		var groups []jsontext.Value
		if cur, ok := events.get(h.Event); ok {
			groups, _ = decodeArray(cur)
		}
		groups = append(groups, group.encode())
		events = events.set(h.Event, encodeArray(groups))
	}
	f.setHooks(events)
	return true
}

// Disable removes every devlearn hook and returns what it removed.
func (f *File) Disable() []Entry { return f.remove(IsDevlearn) }

// RemoveDevflowLearning removes devflow's learning hooks (see
// IsDevflowLearning) and returns them.
func (f *File) RemoveDevflowLearning() []Entry { return f.remove(IsDevflowLearning) }

// Devflow lists devflow's hooks in the file, learning or not.
func (f *File) Devflow() []Entry {
	var out []Entry
	for _, e := range f.Entries() {
		if IsDevflow(e.Command) {
			out = append(out, e)
		}
	}
	return out
}

// StatusLine returns the status line command, if one is set.
func (f *File) StatusLine() string {
	raw, ok := f.obj.get("statusLine")
	if !ok {
		return ""
	}
	o, err := decodeObj(raw)
	if err != nil {
		return ""
	}
	c, _ := o.get("command")
	s, _ := stringValue(c)
	return s
}

// IsDevlearnStatusLine reports whether a status line command is devlearn's.
func IsDevlearnStatusLine(cmd string) bool { return strings.Contains(cmd, "devlearn hud") }

// SetStatusLine makes devlearn's HUD the status line. Someone else's status
// line is never replaced unless force is set; kept returns it.
func (f *File) SetStatusLine(force bool) (changed bool, kept string) {
	cur := f.StatusLine()
	if cur == StatusLineCommand {
		return false, ""
	}
	if _, set := f.obj.get("statusLine"); set && !IsDevlearnStatusLine(cur) && !force {
		return false, cur
	}
	v := orderedObj{
		{"type", strValue("command")},
		{"command", strValue(StatusLineCommand)},
		{"padding", jsontext.Value("0")},
	}
	f.replace("statusLine", v.encode())
	return true, ""
}

// RemoveStatusLine removes the status line if it is devlearn's.
func (f *File) RemoveStatusLine() bool {
	if !IsDevlearnStatusLine(f.StatusLine()) {
		return false
	}
	f.replace("statusLine", nil)
	return true
}

func (f *File) replace(key string, v jsontext.Value) {
	f.obj.data = f.obj.with(key, v)
	obj, err := parseObject(f.name, f.obj.data)
	if err != nil {
		panic(fmt.Sprintf("settings: an edit broke the JSON of %s: %v", f.name, err))
	}
	f.obj = obj
}

// Empty reports whether the file holds no settings at all.
func (f *File) Empty() bool { return len(f.obj.members) == 0 }
