// Package llm is the optional LLM extractor: it runs a configured command
// (by default Claude Code headless) with a session's channels on stdin and
// accepts only the observations that validate against a JSON Schema.
//
// What comes back is data from a model that read text an attacker may have
// written (a web page, a file, a commit message quoted in the session), so
// it is handled as hostile: its size and nesting are bounded, every item
// is validated against the schema on its own, then cleaned as any sighting
// is (control characters, line breaks, secrets, lengths), and anything
// else is logged and dropped. Nothing from the output is ever executed,
// and nothing learned is ever put in the command's arguments: the prompt
// goes on stdin.
//
// The command runs in its own process group, which is killed whole when
// it times out and when it ends, so a grandchild it left behind never
// outlives it. The child's environment carries DEVLEARN_INTERNAL=1, which
// silences devlearn's own hooks in the session it starts, so devlearn
// never learns from itself.
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Name is the extractor name recorded in the observations it returns.
const Name = "llm"

// Defaults for a Runner's zero fields.
const (
	DefaultTimeout = 120 * time.Second
	// DefaultMaxOutput bounds what is read from the command: a few
	// observations are a few kilobytes; a megabyte is a runaway.
	DefaultMaxOutput = 1 << 20
)

// GuardEnv is the environment guard every devlearn hook honours: the
// session the extractor starts must not run devlearn's hooks (the switches rule, docs/architecture.md).
const GuardEnv = "DEVLEARN_INTERNAL"

// errNoCommand is returned when no command is configured.
var errNoCommand = errors.New("llm: no extractor command configured (extractor.command)")

// Runner runs the extractor command.
type Runner struct {
	Command []string      // argv from the config; nothing learned is ever put in it
	Model   string        // passed as --model to Claude Code
	Timeout time.Duration // 0 means DefaultTimeout
	Env     []string      // base environment; the runner adds DEVLEARN_INTERNAL=1
	Log     io.Writer     // what was dropped and why; nil discards

	// Dir is the command's working folder; "" is the caller's. A stable
	// folder of its own keeps the model away from the project's files.
	Dir string
	// Redact scrubs every text before it goes into the prompt and every
	// text of the answer; nil means redact.Text.
	Redact func(string) string
	// MaxPrompt and MaxOutput bound stdin and stdout in bytes; 0 means
	// DefaultMaxPrompt and DefaultMaxOutput.
	MaxPrompt, MaxOutput int
	// Keep, when set, is given each prompt and what the command printed
	// (the extractor.debug setting keeps them, redacted).
	Keep func(prompt, stdout []byte)
}

// Request is what one extraction is about: the turns the offline stage
// nominated (Candidates, see Nominate), or, when none is given, the
// session's whole channels (Signals and Pairs).
type Request struct {
	Session    string
	Candidates []Candidate
	Signals    []transcript.UserSignal
	Pairs      []transcript.DialogPair
	Existing   []observe.Observation // the strongest existing ones, for the model to re-sight rather than duplicate
}

// Extract asks the model for the observations of one session. It returns
// the ones that validated, cleaned and redacted, each with an id computed
// as any other extractor's (or an existing id the model re-sighted). A
// session with nothing the person said returns nothing without running the
// command. An error means nothing usable came back: the command could not
// start, failed, timed out, or printed something that is not an answer;
// items that fail validation are logged and dropped without an error.
func (r *Runner) Extract(ctx context.Context, req Request) ([]extract.Observation, error) {
	obs, _, err := r.Read(ctx, req)
	return obs, err
}

// Read is Extract, saying also which of the person's turns the model read
// and stated no lesson of (passed): none unless it answered, and none left
// out of the prompt for its budget.
func (r *Runner) Read(ctx context.Context, req Request) (obs []extract.Observation, passed []string, err error) {
	if err := r.mayRun(); err != nil {
		return nil, nil, err
	}
	prompt, sent, ok := r.prompt(req)
	if !ok {
		return nil, nil, nil
	}
	out, name, err := r.run(ctx, prompt, schemaText())
	if err != nil {
		return nil, nil, err
	}
	if obs, err = r.Answer(out, req, name); err != nil {
		return nil, nil, err
	}
	return obs, passedOn(sent, obs), nil
}

// mayRun says why the command may not run: none is configured, or this
// is a session the extractor started, whose model must never feed the
// extractor again.
func (r *Runner) mayRun() error {
	if len(r.Command) == 0 || r.Command[0] == "" {
		return errNoCommand
	}
	if slices.Contains(r.Env, GuardEnv+"=1") {
		return errors.New("llm: refusing to run inside a session devlearn started (DEVLEARN_INTERNAL=1)")
	}
	return nil
}

// run runs the command on prompt, its answer held to schema, and returns
// what it printed and the command's name for errors.
func (r *Runner) run(ctx context.Context, prompt, schema []byte) ([]byte, string, error) {
	argv := r.argv(schema)
	name := filepath.Base(argv[0])
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := run(ctx, argv, r.env(), r.Dir, prompt, r.maxOutput())
	if err != nil {
		return nil, name, fmt.Errorf("llm: cannot run %s: %w", name, err)
	}
	if r.Keep != nil {
		r.Keep(prompt, res.stdout)
	}
	switch {
	case res.timedOut:
		r.logStderr(name, res.stderr)
		return nil, name, fmt.Errorf("llm: %s did not answer within %s; it was stopped with its whole process group (raise extractor.timeout_seconds if the model needs longer)", name, timeout)
	case res.cancelled:
		return nil, name, fmt.Errorf("llm: %s stopped: %w", name, ctx.Err())
	case res.overflow:
		return nil, name, fmt.Errorf("llm: %s printed more than %d bytes; it was stopped and its output dropped", name, r.maxOutput())
	case res.waitErr != nil:
		r.logStderr(name, res.stderr)
		return nil, name, fmt.Errorf("llm: %s failed (%v); its output was dropped", name, res.waitErr)
	}
	return res.stdout, name, nil
}

// Answer reads what the command printed for req, as Extract does: a
// recorded answer is read exactly as a live one (make eval replays them;
// name labels the errors).
func (r *Runner) Answer(stdout []byte, req Request, name string) ([]extract.Observation, error) {
	answer, err := decodeOutput(stdout)
	if err != nil {
		return nil, fmt.Errorf("llm: %s's output was dropped: %w", name, err)
	}
	return r.accept(answer, req), nil
}

// Prompt is what the command is sent on stdin for req, and false when
// nothing would be sent (no candidate, nothing the person said): what a
// call costs, and what the debug setting keeps.
func (r *Runner) Prompt(req Request) ([]byte, bool) {
	p, _, ok := r.prompt(req)
	return p, ok
}

// prompt is Prompt with the candidates it carries; a prompt of a whole
// session carries none.
func (r *Runner) prompt(req Request) ([]byte, []Candidate, bool) {
	if req.Candidates != nil {
		return buildCandidatePrompt(req, r.redact(), r.maxPrompt())
	}
	p, ok := buildPrompt(req, r.redact(), r.maxPrompt())
	return p, nil, ok
}

func (r *Runner) redact() func(string) string {
	if r.Redact != nil {
		return r.Redact
	}
	return redact.Text
}

func (r *Runner) maxPrompt() int {
	if r.MaxPrompt > 0 {
		return r.MaxPrompt
	}
	return DefaultMaxPrompt
}

func (r *Runner) maxOutput() int {
	if r.MaxOutput > 0 {
		return r.MaxOutput
	}
	return DefaultMaxOutput
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, "llm: "+format+"\n", args...)
	}
}

// logStderr logs the end of a failed command's stderr, redacted and on one
// line: it is the one clue to why a model run failed.
func (r *Runner) logStderr(name, stderr string) {
	if s := oneLine(r.redact()(stderr)); s != "" {
		r.logf("%s stderr: %s", name, s)
	}
}

// argv is the configured command plus, for Claude Code, the model and the
// answer's schema when the command does not set them itself. Both come
// from the config and from devlearn; nothing learned is added.
func (r *Runner) argv(schema []byte) []string {
	argv := slices.Clone(r.Command)
	if !isClaude(argv[0]) {
		return argv
	}
	if r.Model != "" && !hasFlag(argv, "--model") {
		argv = append(argv, "--model", r.Model)
	}
	if !hasFlag(argv, "--json-schema") {
		argv = append(argv, "--json-schema", string(schema))
	}
	return argv
}

func isClaude(prog string) bool {
	base := strings.TrimSuffix(filepath.Base(prog), ".exe")
	return base == "claude"
}

func hasFlag(argv []string, flag string) bool {
	for _, a := range argv[1:] {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// env is the base environment with the guard set. What Claude Code sets
// in the sessions it runs, and a hook (and so the worker) inherits, is
// dropped: with CLAUDECODE set it refuses to start ("cannot be launched
// inside another Claude Code session"), and with the parent's entry point
// and session token it starts but prints nothing. This session is not
// nested, only started from one, and the parent's token is not its to use.
func (r *Runner) env() []string {
	out := make([]string, 0, len(r.Env)+2)
	for _, kv := range r.Env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case GuardEnv, "DEVLEARN_LLM_MODEL", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ACCESS_TOKEN":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, GuardEnv+"=1")
	if r.Model != "" {
		// For a command of one's own that is not Claude Code.
		out = append(out, "DEVLEARN_LLM_MODEL="+r.Model)
	}
	return out
}

// accept validates and cleans each item of the answer, logging and
// dropping the ones that do not pass, and merges items that turn out to be
// the same observation.
func (r *Runner) accept(items []json.RawMessage, req Request) []extract.Observation {
	red := r.redact()
	existing := map[string]string{}
	for _, o := range req.Existing {
		existing[o.ID] = o.Type
	}
	at := lastTime(req)
	var out []extract.Observation
	index := map[string]int{}
	for i, raw := range items {
		if i == MaxItems {
			r.logf("%d more items dropped: an answer holds at most %d", len(items)-MaxItems, MaxItems)
			break
		}
		it, err := validateItem(raw)
		if err != nil {
			r.logf("item %d dropped: %s", i+1, clipStart(red(err.Error()), 300))
			continue
		}
		q := it.QualityOK
		s := observe.Sighting{ID: it.ID, Type: it.Type, Pattern: it.Pattern, Details: it.Details, Evidence: it.Evidence, QualityOK: &q, Extractor: Name}
		if err := s.Clean(nil, red); err != nil {
			r.logf("item %d dropped: %s", i+1, clipStart(red(oneLine(err.Error())), 300))
			continue
		}
		// An id the model gives must be the pattern's own or one of the
		// existing observations it was shown, with the same type: it may
		// re-sight, not invent or retype.
		if it.ID != "" && it.ID != observe.ID(s.Type, s.Pattern) {
			if t, ok := existing[it.ID]; !ok || t != s.Type {
				r.logf("item %d dropped: id %s is not the id of its pattern nor an existing %s", i+1, it.ID, s.Type)
				continue
			}
		}
		if j, dup := index[s.ID]; dup {
			out[j].Evidence = extract.MergeEvidence(out[j].Evidence, s.Evidence)
			out[j].QualityOK = out[j].QualityOK || q
			continue
		}
		if s.Evidence == nil {
			s.Evidence = []string{}
		}
		index[s.ID] = len(out)
		out = append(out, extract.Observation{
			ID: s.ID, Type: s.Type, Pattern: s.Pattern, Details: s.Details, Evidence: s.Evidence, QualityOK: q,
			SessionID: req.Session, RecordUUID: recordUUID(req.Session, s), Extractor: Name, Timestamp: at,
		})
	}
	return out
}

// recordUUID stands for the transcript record uuid in the event id
// (the events rule, docs/architecture.md): the session and a hash of what the model said, so running
// the extractor again on the same session adds nothing when the model says
// the same thing, and a new event when it says something else.
func recordUUID(session string, s observe.Sighting) string {
	h := sha256.New()
	for _, part := range append([]string{s.ID, s.Type, s.Pattern, s.Details, fmt.Sprint(*s.QualityOK)}, s.Evidence...) {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return session + ":" + Name + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// lastTime is the time of the latest record the request holds: when what
// the model read was said, which is what an extracted event records.
func lastTime(req Request) string {
	last := ""
	for _, c := range req.Candidates {
		last = max(last, c.Timestamp)
	}
	for _, s := range req.Signals {
		last = max(last, s.Timestamp)
	}
	for _, p := range req.Pairs {
		last = max(last, p.Timestamp)
		if p.Reply != nil {
			last = max(last, p.Reply.Timestamp)
		}
	}
	return last
}

// oneLine collapses white space and drops control characters, for log
// lines made of text a command or a model wrote.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
