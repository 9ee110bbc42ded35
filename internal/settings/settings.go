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
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/devlearn/devlearn/internal/jsonpos"
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
	{Event: "PostToolUseFailure", Sub: "post-tool-use-failure", Matcher: "Bash", HasMatcher: true, Timeout: 5},
	{Event: "Stop", Sub: "stop", Timeout: StopTimeout},
	{Event: "SessionEnd", Sub: "session-end", Matcher: "", HasMatcher: true, Timeout: 5},
}

// StopTimeout is the timeout (seconds) devlearn registers for its Stop
// hook. The hook runs the stop quality gates (docs/gates.md), whose timeouts
// count against it: they share this budget less a reserve for the rest of
// the hook (hook.StopGateBudget, 285 s), so the hook answers before Claude
// Code gives up on it. Without stop gates the hook takes milliseconds.
const StopTimeout = 300

// Marker identifies devlearn's own hook commands, whatever their guard.
const Marker = "devlearn hook "

// Guard is the shell prefix that makes a registration harmless where
// devlearn is not installed (the registration rule, docs/architecture.md): Claude Code runs the command
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

// Profile is how one agent's hook file lists devlearn's hooks. Claude
// Code's settings, Codex's hooks.json and Gemini CLI's settings hold
// {"matcher", "hooks": [...]} groups per event; Cursor's and Copilot's
// hooks.json hold the commands themselves.
type Profile struct {
	// Agent is the agent's name on devlearn's command line
	// (`devlearn hook AGENT EVENT`); "" is Claude Code.
	Agent string
	Hooks []Hook
	// Flat: an event's list holds the commands, each with its matcher.
	Flat bool
	// CommandKey and TimeoutKey name an entry's command and timeout
	// ("command" and "timeout" when empty).
	CommandKey, TimeoutKey string
	// TimeoutScale is what a Hook's seconds are multiplied by (Gemini CLI
	// counts milliseconds); 0 is 1.
	TimeoutScale int
	// Named gives each entry a stable "name" (Gemini CLI deduplicates
	// and disables hooks by name).
	Named bool
	// Version writes "version": 1 at the top when the file has none.
	Version bool
}

// Claude is Claude Code's profile.
var Claude = Profile{Hooks: Hooks}

// Command is the exact command the profile registers for sub.
func (p Profile) Command(sub string) string {
	if p.Agent == "" {
		return Command(sub)
	}
	return HookGuard + "devlearn-hook " + p.Agent + " " + sub + " || " + Guard + "devlearn hook " + p.Agent + " " + sub + " || true"
}

// Name is the stable name of a Named profile's entry for sub.
func (p Profile) Name(sub string) string { return "devlearn-" + sub }

func (p Profile) commandKey() string { return cmp.Or(p.CommandKey, "command") }
func (p Profile) timeoutKey() string { return cmp.Or(p.TimeoutKey, "timeout") }
func (p Profile) timeout(h Hook) int { return h.Timeout * max(p.TimeoutScale, 1) }

// sub is the `devlearn hook` event a devlearn command of this profile
// runs, "" when the command is not one of this profile's.
func (p Profile) sub(cmd string) string {
	i := strings.Index(cmd, Marker)
	if i < 0 {
		return ""
	}
	f := strings.Fields(cmd[i+len(Marker):])
	if p.Agent != "" {
		if len(f) == 0 || f[0] != p.Agent {
			return ""
		}
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
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
	devflowRe         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)[/\\]\.devflow[/\\]|\bdevflow-kit\b`) })
	devflowLearningRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)learn|knowledge|decisions`) })
)

// IsDevflow reports whether a hook command is devflow's: devflow-kit
// installs them as `<dir>/.devflow/scripts/hooks/run-hook <name>`, or runs
// `npx devflow-kit …`. A person's own script named after the idea
// ("self-learning.py") or another tool's ("devflow-cli") is not: init
// removes devflow's learning hooks, and must never remove theirs.
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
	name    string
	profile Profile
	obj     *object
	// hooks is the "hooks" object, event by event.
	hooks orderedObj
}

// Parse reads a Claude Code settings file. name is used in errors. Empty
// data is an empty file (a missing file is the caller's to treat as
// empty).
func Parse(name string, data []byte) (*File, error) { return ParseAs(name, data, Claude) }

// ParseAs reads an agent's hook file, as its profile lays hooks out.
func ParseAs(name string, data []byte, p Profile) (*File, error) {
	obj, err := parseObject(name, data)
	if err != nil {
		return nil, err
	}
	f := &File{name: name, profile: p, obj: obj}
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
		if f.profile.Flat {
			for _, h := range groups {
				if e, ok := f.entryOf(h); ok {
					e.Event = ev.key
					out = append(out, e)
				}
			}
			continue
		}
		for _, g := range groups {
			gr, _ := decodeObj(g)
			matcher := ""
			if m, ok := gr.get("matcher"); ok {
				matcher, _ = stringValue(m)
			}
			hv, _ := gr.get("hooks")
			list, _ := decodeArray(hv)
			for _, h := range list {
				if e, ok := f.entryOf(h); ok {
					e.Event, e.Matcher = ev.key, matcher
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func (f *File) entryOf(v jsontext.Value) (Entry, bool) {
	o, err := decodeObj(v)
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if c, ok := o.get(f.profile.commandKey()); ok {
		e.Command, _ = stringValue(c)
	}
	if t, ok := o.get(f.profile.timeoutKey()); ok && t.Kind() == '0' {
		fmt.Sscan(string(t), &e.Timeout)
	}
	if m, ok := o.get("matcher"); ok && f.profile.Flat {
		e.Matcher, _ = stringValue(m)
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
		if f.profile.Flat {
			for _, h := range groups {
				if e, ok := f.entryOf(h); ok && match(e.Command) {
					e.Event = ev.key
					removed = append(removed, e)
					touched = true
					continue
				}
				keptGroups = append(keptGroups, h)
			}
			groups = nil
		}
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
				if e, ok := f.entryOf(h); ok && match(e.Command) {
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
	p := f.profile
	var ours []Entry
	for _, e := range f.Entries() {
		if IsDevlearn(e.Command) {
			ours = append(ours, e)
		}
	}
	claimed := make([]bool, len(ours))
	found := make([][]Entry, len(p.Hooks))
	// An entry belongs to the hook of its event that runs its subcommand;
	// one that runs none (an old form) to the first hook of its event
	// left without one, to be reported as not current.
	for pass := 0; pass < 2; pass++ {
		for i, h := range p.Hooks {
			if pass == 1 && len(found[i]) > 0 {
				continue
			}
			for j, e := range ours {
				if claimed[j] || e.Event != h.Event || (pass == 0 && p.sub(e.Command) != h.Sub) {
					continue
				}
				claimed[j] = true
				found[i] = append(found[i], e)
			}
		}
	}
	for i, h := range p.Hooks {
		es := found[i]
		switch {
		case len(es) == 0:
			probs = append(probs, fmt.Sprintf("%s: not registered", h.Event))
		case len(es) > 1:
			probs = append(probs, fmt.Sprintf("%s: registered %d times", h.Event, len(es)))
		case es[0].Command != p.Command(h.Sub):
			if !guarded(es[0].Command) {
				probs = append(probs, fmt.Sprintf("%s: %q is not guarded: it fails for a teammate without devlearn", h.Event, es[0].Command))
			} else {
				probs = append(probs, fmt.Sprintf("%s: %q is not devlearn's current command", h.Event, es[0].Command))
			}
		case es[0].Matcher != h.Matcher:
			probs = append(probs, fmt.Sprintf("%s: matcher %q, want %q", h.Event, es[0].Matcher, h.Matcher))
		case es[0].Timeout != p.timeout(h):
			probs = append(probs, fmt.Sprintf("%s: timeout %d, want %d", h.Event, es[0].Timeout, p.timeout(h)))
		}
	}
	for j, e := range ours {
		if !claimed[j] {
			probs = append(probs, fmt.Sprintf("%s: devlearn has no %s hook, but %q is registered", e.Event, e.Event, e.Command))
		}
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
	p := f.profile
	events := f.hooks
	for _, h := range p.Hooks {
		var entry orderedObj
		if p.Named {
			entry = append(entry, kv{"name", strValue(p.Name(h.Sub))})
		}
		entry = append(entry, kv{"type", strValue("command")})
		if p.Flat && h.HasMatcher {
			entry = append(entry, kv{"matcher", strValue(h.Matcher)})
		}
		entry = append(entry,
			kv{p.commandKey(), strValue(p.Command(h.Sub))},
			kv{p.timeoutKey(), jsontext.Value(fmt.Sprint(p.timeout(h)))},
		)
		item := entry.encode()
		if !p.Flat {
			var group orderedObj
			if h.HasMatcher {
				group = append(group, kv{"matcher", strValue(h.Matcher)})
			}
			group = append(group, kv{"hooks", encodeArray([]jsontext.Value{item})})
			item = group.encode()
		}
		var groups []jsontext.Value
		if cur, ok := events.get(h.Event); ok {
			groups, _ = decodeArray(cur)
		}
		groups = append(groups, item)
		events = events.set(h.Event, encodeArray(groups))
	}
	if _, ok := f.obj.get("version"); p.Version && !ok {
		f.replace("version", jsontext.Value("1"))
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

// IsDevlearnStatusLine reports whether a status line command is devlearn's:
// the one init writes, or the one it wrote before. A person's own status
// line that calls the HUD among other things (as init advises when it
// keeps theirs) is theirs: init never replaces it, uninstall never removes
// it.
func IsDevlearnStatusLine(cmd string) bool {
	return cmd == StatusLineCommand || cmd == statusLineBefore
}

// statusLineBefore is the status line init wrote before devlearn-hook
// served the HUD.
const statusLineBefore = Guard + "devlearn hud --stdin || true"

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

// Empty reports whether the file holds no settings at all (a "version"
// that Enable added counts for nothing).
func (f *File) Empty() bool {
	m := f.obj.members
	return len(m) == 0 || (f.profile.Version && len(m) == 1 && m[0].key == "version")
}
