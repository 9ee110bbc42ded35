// Package hookcmd runs the commands Claude Code calls all the time:
// `hook EVENT` on every hook event and `hud` for the status line, and the
// two a hook of one's own may run at a session's edges, `render-ready`
// and `reconcile`. Both binaries serve them through this package: devlearn
// through its command tree (internal/cli), devlearn-hook on its own, so
// that a hook process links nothing else.
//
// What this package imports is what every tool call pays to start: Go
// runs the initialisation of every linked package before main. It must
// stay free of the terminal UI, the clipboard, go-git's root package and
// transports (and their ssh, openpgp and tls crypto) and net/http;
// TestHookPathImports (cmd/devlearn-hook) fails when one comes in.
package hookcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/agent"
	"github.com/devlearn/devlearn/internal/agentver"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/reconcile"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/settings"
)

// Env is everything a command takes from the world outside it: streams,
// environment, working folder, clock and the context a signal cancels.
// Commands never touch os.* for these, so tests and the demo run them
// in-process with exact inputs. Both binaries' commands take this one
// type: devlearn's command tree (internal/cli) wraps it to hang its own
// helpers on, devlearn-hook uses it as it is.
type Env struct {
	// Ctx is cancelled when the process gets SIGINT or SIGTERM: what a
	// hook started (the stop gates) ends with it. nil is never cancelled.
	Ctx    context.Context
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	// Environ is the whole environment, for the commands a hook starts
	// (the stop gates); nil starts them with an empty one.
	Environ func() []string
	// Dir is the process's folder.
	Dir string
	// Clock is the real clock; Now applies DEVLEARN_NOW over it.
	Clock func() time.Time
	// OutTTY reports whether Out is a terminal (colour).
	OutTTY bool
	// Devlearn finds the devlearn binary, which session end starts as
	// the worker. It is called only when a worker is due.
	Devlearn func() (string, error)
}

func (env *Env) Context() context.Context {
	if env.Ctx == nil {
		return context.Background()
	}
	return env.Ctx
}

// Now is the current time: DEVLEARN_NOW over the clock (see Now).
func (env *Env) Now() (time.Time, error) { return Now(env.Getenv, env.Clock) }

// Home is the global devlearn folder: $DEVLEARN_HOME, else ~/.devlearn.
func (env *Env) Home() string { return Home(env.Getenv) }

// Project finds the project around the working folder.
func (env *Env) Project() (*project.Project, error) { return FindProject(env.Dir) }

// Config loads the configuration of p (global, then project); nil p
// loads the global one alone.
func (env *Env) Config(p *project.Project) (*config.Loaded, error) {
	root := ""
	if p != nil {
		root = p.Root
	}
	return LoadConfig(env.Getenv, root)
}

// Now is the current time: DEVLEARN_NOW (RFC 3339) when set, so that many
// days of history can be replayed in tests, benchmarks and the demo.
func Now(getenv func(string) string, clock func() time.Time) (time.Time, error) {
	if s := getenv("DEVLEARN_NOW"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}, exitcode.Usagef("DEVLEARN_NOW=%q is not an RFC 3339 time (example: 2026-04-19T09:00:00Z)", s)
		}
		return t.UTC(), nil
	}
	return clock().UTC(), nil
}

// Home is the global devlearn folder: $DEVLEARN_HOME, else ~/.devlearn.
func Home(getenv func(string) string) string {
	if h := getenv("DEVLEARN_HOME"); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".devlearn")
	}
	return ""
}

// FindProject finds the project around dir, for the commands that need
// one (a hook outside any project quietly does nothing instead).
func FindProject(dir string) (*project.Project, error) {
	p, err := project.Find(dir)
	if err != nil {
		return nil, exitcode.WithHint(err, "run devlearn inside a git repository (or 'git init' one first)")
	}
	return p, nil
}

// workspace is what a command working on the project around the folder
// starts from.
type workspace struct {
	proj *project.Project
	cfg  *config.Config
	now  time.Time
}

func openWorkspace(env *Env) (*workspace, error) {
	now, err := Now(env.Getenv, env.Clock)
	if err != nil {
		return nil, err
	}
	p, err := FindProject(env.Dir)
	if err != nil {
		return nil, err
	}
	l, err := LoadConfig(env.Getenv, p.Root)
	if err != nil {
		return nil, err
	}
	return &workspace{proj: p, cfg: l.Config, now: now}, nil
}

// LoadConfig loads the configuration of the project at root (global,
// then project; root "" is outside any project).
func LoadConfig(getenv func(string) string, root string) (*config.Loaded, error) {
	l, err := config.LoadProject(Home(getenv), root)
	if err != nil {
		return nil, exitcode.WithHint(err, "fix the file, or run 'devlearn doctor' to check the whole installation")
	}
	return l, nil
}

// Colour wraps s in an ANSI colour (code "33" is yellow) on a terminal
// that wants colour, and leaves it as it is elsewhere.
func Colour(tty bool, getenv func(string) string, code, s string) string {
	if !tty || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// PrintJSON writes v as indented JSON, the shape every --json flag prints.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// hookTimeout bounds a hook's own work (reconcile, at session start),
// below the 10 seconds devlearn registers session start with.
const hookTimeout = 8 * time.Second

// hookStdinBudget bounds the wait for the hook's input: Claude Code writes
// it at once, so a writer that sends no complete object within this and
// never closes stdin is not coming; the hook gives up, logs why and exits
// 0, well within the shortest timeout devlearn registers a hook with (5 s).
const hookStdinBudget = 3 * time.Second

// hookMemoryLimit is where a hook's garbage collector, off otherwise,
// starts.
const hookMemoryLimit = 256 << 20

// Hook serves one hook event. It never fails: a hook's failure must not
// reach the agent (an exit code of 2 would even block the tool call), so
// errors go to the hook log and the process exits 0.
func Hook(env *Env, event string) {
	he := HookEnv(env)
	he.Drops = drops(agentver.Claude, settings.Claude)
	serve(env, event, he)
}

// AgentHook serves another agent's hook event through its adapter
// (internal/agent): the same handlers, the agent's input read as the one
// request and the answer printed as that agent honours it. An event
// devlearn does not register for that agent does nothing: the agent could
// not show what would be served.
func AgentHook(env *Env, a *agent.Agent, event string) {
	if !a.Serves(event) {
		fmt.Fprintf(env.Err, "devlearn: %s has no %q hook here (served: %s); nothing done\n", a.Title, event, strings.Join(a.Events(), ", "))
		return
	}
	he := HookEnv(env)
	he.Codec = a.For(env.Getenv)
	he.Drops = drops(a.Name, a.Profile)
	serve(env, event, he)
}

// drops is hook.Env.Drops for an agent registered with profile p: the
// agent's own name for devlearn's event, asked of the table
// (internal/agentver) for the version init or doctor recorded in the
// clone's state, which is read only for an event a row names.
func drops(agent string, p settings.Profile) func(stateDir, event string) bool {
	return func(stateDir, event string) bool {
		for _, h := range p.Hooks {
			if h.Sub == event {
				return agentver.Concerns(agent, h.Event) && agentver.Drops(agent, h.Event, agentver.Cached(stateDir, agent))
			}
		}
		return false
	}
}

func serve(env *Env, event string, he hook.Env) {
	known := false
	for _, e := range hook.Events() {
		known = known || e == event
	}
	if !known {
		// Said on stderr for a person trying it by hand; exit 0 all the same.
		fmt.Fprintf(env.Err, "devlearn: no hook %q here (served: %s); nothing done\n", event, strings.Join(hook.Events(), ", "))
		return
	}
	// A hook is a process of a few milliseconds that allocates a few
	// megabytes at most: collecting garbage would cost more than it frees.
	// The memory limit still starts a collection should a hook run away.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(hookMemoryLimit))
	timeout := hookTimeout
	if event == hook.Stop {
		// The stop gates' budget, and the rest of the hook, within the
		// timeout registered for Stop.
		timeout = time.Duration(settings.StopTimeout)*time.Second - 5*time.Second
	}
	ctx, cancel := context.WithTimeout(env.Context(), timeout)
	defer cancel()
	hook.Run(ctx, event, he, &deadlineReader{r: env.In, budget: hookStdinBudget}, env.Out)
}

// slowAfter reads DEVLEARN_SLOW_HOOK_MS, the milliseconds a hook call may
// take before it warns (default hook.SlowHook).
func slowAfter(v string) time.Duration {
	ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || ms < 0 {
		return 0
	}
	if ms == 0 {
		return time.Nanosecond // every call: for seeing the warning
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// HookEnv is the hook package's view of env.
func HookEnv(env *Env) hook.Env {
	on := func(k string) bool { return Switch(env.Getenv, k) }
	return hook.Env{
		Dir:      env.Dir,
		Home:     Home(env.Getenv),
		UserHome: env.Getenv("HOME"),
		Now: func() time.Time {
			if t, err := Now(env.Getenv, env.Clock); err == nil {
				return t
			}
			return env.Clock().UTC()
		},
		Silenced:    on("DEVLEARN_INTERNAL") || on("DEVLEARN_DISABLE"),
		NoInjection: on("DISABLE_EXPERIENCE_INJECTION"),
		Stderr:      env.Err,
		SlowAfter:   slowAfter(env.Getenv("DEVLEARN_SLOW_HOOK_MS")),
		Redact:      redact.Text,
		Reconcile:   ReconcileQuietly,
		StartWorker: func(p *project.Project) error { return StartWorker(env, p) },
		Task:        env.Getenv("DEVLEARN_TASK"),
		Environ:     environ(env),
	}
}

// Switch reports whether the environment variable k is set to something
// that means on: anything but empty, "0" or "false". The hooks and the
// commands that report on them (learn --status) read switches with it, so
// they never disagree on whether one is set.
func Switch(getenv func(string) string, k string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv(k)))
	return v != "" && v != "0" && v != "false"
}

// environ is the environment the commands a hook starts (gates) inherit.
func environ(env *Env) []string {
	if env.Environ == nil {
		return []string{}
	}
	return env.Environ()
}

// ReconcileQuietly is what session start runs before serving, so that what
// it serves follows what people did to the artifacts since the last
// session. Most of the time nothing changed and the quiet-run cache answers
// in microseconds.
func ReconcileQuietly(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time) error {
	r := &reconcile.Reconciler{
		Proj:   p,
		Log:    observe.ProjectStore(p),
		Writer: evolve.New(p, now, evolve.Trigger{Command: "hook session-start"}),
		Opts:   reconcile.Options{Now: now, Config: cfg},
	}
	_, err := r.Run(ctx)
	return err
}

// deadlineReader gives up reading when the budget since the first Read has
// passed without the input's end: a pipe whose writer never closes it (and
// never completes the object) would otherwise hold the hook for ever. The
// read it gave up on is left to the process's exit.
type deadlineReader struct {
	r       io.Reader
	budget  time.Duration
	expires time.Time
	pending chan readResult
	rest    []byte
	err     error
}

type readResult struct {
	data []byte
	err  error
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	if len(d.rest) > 0 {
		n := copy(p, d.rest)
		d.rest = d.rest[n:]
		return n, nil
	}
	if d.err != nil {
		return 0, d.err
	}
	if d.expires.IsZero() {
		d.expires = time.Now().Add(d.budget)
	}
	if d.pending == nil {
		ch := make(chan readResult, 1)
		buf := make([]byte, len(p))
		go func() {
			n, err := d.r.Read(buf)
			ch <- readResult{buf[:n], err}
		}()
		d.pending = ch
	}
	t := time.NewTimer(time.Until(d.expires))
	defer t.Stop()
	select {
	case res := <-d.pending:
		d.pending = nil
		n := copy(p, res.data)
		d.rest = res.data[n:]
		if len(d.rest) > 0 {
			d.err = res.err // after what is left
			return n, nil
		}
		return n, res.err
	case <-t.C:
		return 0, fmt.Errorf("no complete hook input on stdin within %s, and stdin was not closed: gave up (Claude Code writes the whole object at once)", d.budget)
	}
}
