package extract

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A request or a failure is "repeated" when it comes back in several
// sessions. One session cannot tell, so the work is split: Requests and
// Failures give one session's normalised requests and failure signatures,
// which the caller keeps (or gathers from several transcripts), and
// RepeatedRequests and RepeatedFailures turn those seen in enough distinct
// sessions into observations, one per session, so that the observation log
// counts the sessions as its sources.

// Request is one request the person made, normalised so that the same ask
// in other words of politeness matches.
type Request struct {
	Key        string   `json:"key"`  // normalised: the identity across sessions
	Text       string   `json:"text"` // as written (redacted, short)
	Steps      []string `json:"steps,omitempty"`
	SessionID  string   `json:"session_id"`
	RecordUUID string   `json:"record_uuid"`
	Timestamp  string   `json:"timestamp,omitempty"`
}

// politeness opens or closes a request without changing what is asked.
var (
	politeHead = lazy(`^(?:(?:hey|hi|hello) (?:claude|there)|thanks|thank you|great|perfect|nice|cool|awesome|good|please|pls|plz|can you|could you|would you|will you|can we|could we|would you mind|i(?:'d| would) like you to|i want you to|i need you to|go ahead and|now|ok|okay|so|and|also|then|lets|let's|just|kindly)\b\s*`)
	politeTail = lazy(`\s*\b(?:please|pls|thanks|thank you|thx|for me|now|again)$`)
	digits     = lazy(`\d+`)
)

// acknowledgements are replies, not requests, however often they recur.
var acknowledgements = map[string]bool{
	"continue": true, "go on": true, "go ahead": true, "yes": true, "yes please": true, "no": true,
	"ok": true, "okay": true, "thanks": true, "thank you": true, "sure": true, "proceed": true,
	"do it": true, "looks good": true, "lgtm": true, "keep going": true, "try again": true,
	"sounds good": true, "perfect": true, "great": true, "nice": true, "good": true, "done": true,
	"carry on": true, "next": true, "stop": true, "wait": true, "fix it": true, "fix this": true,
	"fix these": true, "do that": true, "yes do it": true, "ok do it": true, "go for it": true,
}

const maxRequestWords = 16

// normalizeRequest returns the identity of a request, or "" for text that
// is not one (too short, too long to recur, an acknowledgement).
func normalizeRequest(text string) string {
	k := observe.Normalize(text)
	for {
		n := politeHead.ReplaceAllString(k, "")
		n = politeTail.ReplaceAllString(n, "")
		if n == k {
			break
		}
		k = n
	}
	k = strings.TrimSpace(digits.ReplaceAllString(k, "#"))
	words := strings.Fields(k)
	if len(words) < 2 || len(words) > maxRequestWords || acknowledgements[k] {
		return ""
	}
	return k
}

// Requests returns the session's requests, each key once (the first time).
func Requests(ch *transcript.Channels, opt Options) []Request {
	return requests(prepare(ch, opt), opt)
}

func requests(ch *transcript.Channels, opt Options) []Request {
	ctx := newContext(ch)
	var out []Request
	seen := map[string]bool{}
	for i, s := range ch.UserSignals {
		if s.Rejection {
			continue
		}
		k := normalizeRequest(s.Text)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		_, next := ctx.lines(i)
		out = append(out, Request{
			Key: k, Text: clip(opt.redact(strings.Join(strings.Fields(s.Text), " ")), maxQuote),
			Steps:     steps(ctx.window(s.Line, next), opt),
			SessionID: s.SessionID, RecordUUID: s.UUID, Timestamp: s.Timestamp,
		})
	}
	return out
}

// steps describes what the agent did for a request: the tool calls that
// changed or ran something, without the reads and searches.
func steps(calls []transcript.ToolCall, opt Options) []string {
	var out []string
	for _, t := range calls {
		var s string
		switch {
		case t.Command != "":
			s = t.Name + ": " + firstWords(opt.redact(t.Command), 8)
		case editTools[t.Name] && len(t.Paths) > 0:
			s = t.Name + " " + relative(opt.Root, t.Paths[0], t.Cwd)
		default:
			continue
		}
		s = opt.redact(s)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
		if len(out) == 8 {
			break
		}
	}
	return out
}

// RepeatedRequests turns requests made in at least Options.MinSessions
// distinct sessions into workflow observations, one per session.
func RepeatedRequests(reqs []Request, opt Options) []Observation {
	groups := map[string][]Request{}
	var order []string
	for _, r := range reqs {
		if _, ok := groups[r.Key]; !ok {
			order = append(order, r.Key)
		}
		groups[r.Key] = append(groups[r.Key], r)
	}
	var out []Observation
	for _, k := range order {
		g := firstPerSession(groups[k], func(r Request) string { return r.SessionID })
		if len(g) < opt.minSessions() {
			continue
		}
		var evidence []string
		for _, r := range g {
			if len(evidence) < observe.MaxEvidence {
				evidence = append(evidence, "user: "+clip(r.Text, maxQuote))
			}
		}
		for _, r := range g {
			details := "request: " + r.Text + "; sessions: " + strconv.Itoa(len(g))
			if len(r.Steps) > 0 {
				details += "; steps: " + strings.Join(r.Steps, ", ")
			}
			out = append(out, Observation{
				Type:       Workflow,
				Pattern:    clip(opt.redact(k), maxPattern),
				Details:    opt.redact(details),
				Evidence:   evidence,
				QualityOK:  len(r.Steps) > 0,
				SessionID:  r.SessionID,
				RecordUUID: r.RecordUUID,
				Timestamp:  r.Timestamp,
				Extractor:  ExtractorRepeatedRequest,
			})
		}
	}
	return out
}

func firstPerSession[T any](items []T, session func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, it := range items {
		if s := session(it); !seen[s] {
			seen[s] = true
			out = append(out, it)
		}
	}
	return out
}

// Failure is a tool call that failed, with two identities: the failing
// command (or tool and file), and the error's signature.
type Failure struct {
	CommandKey   string `json:"command_key"`             // tool + normalised command, or tool + file
	SignatureKey string `json:"signature_key,omitempty"` // normalised first line of the error
	Tool         string `json:"tool"`
	Area         string `json:"area"`  // the command, or the file
	Error        string `json:"error"` // the error's first meaningful line (redacted, short)
	// Resolution is what made the same call succeed later in the session,
	// or "" when it never did.
	Resolution string `json:"resolution,omitempty"`
	SessionID  string `json:"session_id"`
	RecordUUID string `json:"record_uuid"` // the tool result's record
	Timestamp  string `json:"timestamp,omitempty"`
}

// Failures returns the session's failed tool calls (subagents' included),
// each command and each signature once.
func Failures(ch *transcript.Channels, opt Options) []Failure {
	return failures(prepare(ch, opt), opt)
}

func failures(ch *transcript.Channels, opt Options) []Failure {
	var out []Failure
	seen := map[string]bool{}
	for i, t := range ch.Tools {
		if !t.Failed() {
			continue
		}
		if permissionDenied(t.Error) {
			continue // Claude Code asking for a permission: not the tool failing
		}
		f := failure(t, opt)
		if f.CommandKey == "" && f.SignatureKey == "" || seen[f.CommandKey+"\n"+f.SignatureKey] {
			continue
		}
		seen[f.CommandKey+"\n"+f.SignatureKey] = true
		f.Resolution = resolution(ch.Tools, i, f, opt)
		out = append(out, f)
	}
	return out
}

var (
	cdPrefix  = lazy(`^cd\s+\S+\s*&&\s*`)
	envPrefix = lazy(`^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+`)
	hexRun    = lazy(`\b[0-9a-f]{6,}\b`)
	quoted    = lazy("'[^']*'|\"[^\"]*\"|`[^`]*`")
	pathish   = lazy(`(?:[\w.-]*/)+[\w.-]+`)
)

func failure(t transcript.ToolCall, opt Options) Failure {
	f := Failure{Tool: t.Name, SessionID: t.SessionID, RecordUUID: t.ResultUUID, Timestamp: t.Timestamp}
	if f.RecordUUID == "" {
		f.RecordUUID = t.UUID
	}
	name := t.Name
	if name == "" {
		name = "tool"
	}
	switch {
	case t.Command != "":
		c := strings.TrimSpace(strings.SplitN(t.Command, "\n", 2)[0])
		c = cdPrefix.ReplaceAllString(c, "")
		c = envPrefix.ReplaceAllString(c, "")
		f.Area = clip(opt.redact(strings.Join(strings.Fields(c), " ")), 80)
		// Looking around fails all the time (grep finds nothing, ls a
		// missing folder): only a failing build, test or run is a pitfall
		// by its command alone.
		if !exploring(c) {
			f.CommandKey = name + " " + observe.Normalize(f.Area)
		}
	case len(t.Paths) > 0:
		f.Area = opt.redact(relative(opt.Root, t.Paths[0], t.Cwd))
		f.CommandKey = name + " " + f.Area
	default:
		f.Area = name // only its error signature can identify it
	}
	line := opt.redact(errorLine(t.Error))
	f.Error = clip(line, maxQuote)
	if sig := signature(line); len(strings.Fields(sig)) >= 3 {
		f.SignatureKey = name + ": " + sig
	}
	return f
}

var explorers = map[string]bool{
	"ls": true, "cat": true, "grep": true, "rg": true, "ag": true, "find": true, "fd": true, "head": true,
	"tail": true, "which": true, "type": true, "command": true, "echo": true, "printf": true, "pwd": true,
	"cd": true, "test": true, "[": true, "stat": true, "file": true, "wc": true, "tree": true, "less": true,
	"sleep": true, "kill": true, "pkill": true, "ps": true, "lsof": true, "du": true, "df": true, "env": true,
}

func exploring(cmd string) bool {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return true
	}
	if f[0] == "git" && len(f) > 1 {
		switch f[1] {
		case "status", "log", "diff", "show", "branch", "remote", "rev-parse", "ls-files", "grep", "blame":
			return true
		}
	}
	return explorers[path.Base(f[0])]
}

func permissionDenied(e string) bool {
	return strings.HasPrefix(e, "Claude requested permissions") || strings.Contains(e, "but you haven't granted it yet")
}

// errorLine is the first line of an error that says something: not blank,
// not an exit code, not a warning printed before the error.
func errorLine(e string) string {
	e = strings.ReplaceAll(strings.ReplaceAll(e, "<tool_use_error>", ""), "</tool_use_error>", "")
	for _, l := range strings.Split(e, "\n") {
		l = strings.TrimSpace(l)
		low := strings.ToLower(l)
		if l == "" || strings.HasPrefix(low, "exit code") || strings.HasPrefix(low, "warn") ||
			strings.HasPrefix(low, "npm warn") || strings.HasPrefix(low, "info") || strings.HasPrefix(low, "debug") ||
			strings.Contains(low, "level=info") || strings.Contains(low, "level=debug") || !strings.ContainsFunc(l, isLetter) {
			continue
		}
		return l
	}
	return strings.TrimSpace(e)
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// signature is an error line with what changes between runs taken out:
// quoted names, paths, hashes and numbers.
func signature(line string) string {
	s := quoted.ReplaceAllString(line, "#")
	s = pathish.ReplaceAllString(s, "#")
	s = hexRun.ReplaceAllStringFunc(strings.ToLower(s), func(h string) string {
		if strings.ContainsAny(h, "0123456789") {
			return "#" // an id or a hash; "facade" stays a word
		}
		return h
	})
	s = digits.ReplaceAllString(s, "#")
	return clip(observe.Normalize(s), 120)
}

// resolution looks after failure i for the same call succeeding, and
// names what happened in between.
func resolution(tools []transcript.ToolCall, i int, f Failure, opt Options) string {
	failed := tools[i]
	var between []string
	for _, t := range tools[i+1:] {
		if t.Sidechain != failed.Sidechain || t.AgentID != failed.AgentID {
			continue
		}
		same := t.Name == failed.Name && (t.Command != "" && t.Command == failed.Command ||
			len(t.Paths) > 0 && len(failed.Paths) > 0 && t.Paths[0] == failed.Paths[0])
		if same && t.HasResult && !t.IsError {
			if len(between) == 0 {
				return "it succeeded when retried"
			}
			return "it succeeded after " + strings.Join(between, ", ")
		}
		if len(between) < 3 {
			d := t.Name
			switch {
			case t.Command != "":
				d += ": " + firstWords(t.Command, 6)
			case len(t.Paths) > 0:
				d += " " + path.Base(t.Paths[0])
			}
			between = append(between, opt.redact(d))
		}
	}
	return ""
}

// RepeatedFailures turns failures seen in at least Options.MinSessions
// distinct sessions into pitfall observations, one per session: first by
// failing command, then by error signature for failures the commands did
// not cover.
func RepeatedFailures(fails []Failure, opt Options) []Observation {
	var out []Observation
	covered := map[*Failure]bool{}
	emit := func(key func(*Failure) string, pattern func(*Failure) string) {
		groups := map[string][]*Failure{}
		var order []string
		for i := range fails {
			f := &fails[i]
			k := key(f)
			if k == "" || covered[f] {
				continue
			}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], f)
		}
		for _, k := range order {
			g := firstPerSession(groups[k], func(f *Failure) string { return f.SessionID })
			if len(g) < opt.minSessions() {
				continue
			}
			for _, f := range groups[k] {
				covered[f] = true
			}
			var evidence []string
			resolved := ""
			for _, f := range g {
				if len(evidence) < observe.MaxEvidence {
					evidence = append(evidence, "tool: "+clip(f.Tool+" "+f.Area+" → "+f.Error, maxQuote))
				}
				if resolved == "" {
					resolved = f.Resolution
				}
			}
			res := resolved
			if res == "" {
				res = "none found in the transcripts"
			}
			p := clip(opt.redact(pattern(g[0])), maxPattern)
			for _, f := range g {
				out = append(out, Observation{
					Type:    Pitfall,
					Pattern: p,
					Details: opt.redact("area: " + f.Area + "; issue: " + f.Tool + " fails with: " + f.Error +
						"; impact: failed in " + strconv.Itoa(len(g)) + " sessions; resolution: " + res),
					Evidence:   evidence,
					QualityOK:  resolved != "",
					SessionID:  f.SessionID,
					RecordUUID: f.RecordUUID,
					Timestamp:  f.Timestamp,
					Extractor:  ExtractorRepeatedFailure,
				})
			}
		}
	}
	emit(func(f *Failure) string { return f.CommandKey },
		func(f *Failure) string { return f.Tool + " fails: " + f.Area })
	emit(func(f *Failure) string { return f.SignatureKey },
		func(f *Failure) string {
			return f.Tool + " error: " + f.SignatureKey[strings.Index(f.SignatureKey, ": ")+2:]
		})
	return out
}
