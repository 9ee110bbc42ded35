// Package propose is Cloche's script generator (docs/evolution.md) for
// devlearn: when a lesson calls for a check ("run `gosec ./...` before
// committing"), it proposes a quality gate. A proposal is only ever shown:
// it joins the config when a person accepts it in `devlearn learn
// --review`, and a project config's gates run only once that file is
// trusted (`devlearn trust`, the trust rule of docs/architecture.md), so nothing learned runs without
// two decisions of a person.
package propose

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/observe"
)

// Proposal is a gate a lesson calls for.
type Proposal struct {
	ID      string      `json:"id"`   // gate-<8 hex>, from where and what
	List    string      `json:"list"` // stop, pre.done, post.verify
	Gate    config.Gate `json:"gate"`
	Source  string      `json:"source"` // the observation
	Lesson  string      `json:"lesson"`
	Because string      `json:"because"` // the words that call for it
}

// FlagDeclined marks an observation whose proposed gate a person declined
// (the flag's reason is the proposal's id): it is not proposed again.
const FlagDeclined = "gate_declined"

// The patterns are compiled on first use, not when the program starts:
// every devlearn command links this package, and compiling them took
// 0.5-1.5 ms of each start (GODEBUG=inittrace=1), render-ready's and
// reconcile's included, which never propose anything.
var (
	// A command in backticks after "run" (or "check with"), then when.
	quotedRun = lazyRegexp("(?i)\\b(?:run|check with|use)\\s+`([^`\\n]{1,200})`(?:[^.;\\n]*?)\\b(before|after|prior to|on|when)\\s+(?:(?:each|every|any|a|the|you|your|we)\\s+)*([a-z]+(?:\\s+request)?)")
	// A bare command of up to four words after "run", then when.
	bareRun = lazyRegexp(`(?i)\brun\s+([a-z0-9][\w./:@-]*(?:\s+[\w./:=@-]+){0,3}?)\s+(before|after|prior to|on)\s+(?:(?:each|every|any|a|the|you|your|we)\s+)*([a-z]+(?:\s+request)?)`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// notCommands are words a bare "run ..." starts with that name no
// command ("run the tests before committing" says what, not how).
var notCommands = map[string]bool{
	"the": true, "all": true, "a": true, "an": true, "it": true, "them": true, "this": true, "that": true,
	"tests": true, "test": true, "checks": true, "check": true, "linter": true, "linters": true, "everything": true,
	"migrations": true, "build": true, "your": true, "our": true, "my": true, "some": true, "any": true, "each": true,
	"every": true, "both": true, "those": true, "these": true, "unit": true, "integration": true, "e2e": true,
}

// where maps the moment a lesson names to the gate list that runs then.
func where(when, event string) (string, bool) {
	event = strings.ToLower(event)
	has := func(prefixes ...string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(event, p) {
				return true
			}
		}
		return false
	}
	switch strings.ToLower(when) {
	case "after":
		if has("test", "build", "implement", "change", "edit") {
			return "post.verify", true
		}
		return "", false
	default: // before, prior to, on, when
		switch {
		case has("commit", "push", "finish", "stop", "hand", "done"):
			return "stop", true
		case has("merg", "releas", "deploy", "ship", "pr", "pull request", "tag"):
			return "pre.done", true
		}
	}
	return "", false
}

// Find returns the gates the lessons in force call for, one per
// observation at most, leaving out those already in the config (the same
// command in any list) and those a person declined.
func Find(log *observe.Log, obs []observe.Observation, cfg *config.Config) []Proposal {
	have := commands(cfg)
	var out []Proposal
	seen := map[string]bool{}
	for _, o := range obs {
		if o.Status != observe.Created && o.Status != observe.Ready {
			continue
		}
		p, ok := of(o)
		if !ok || have[p.Gate.Command] || seen[p.ID] {
			continue
		}
		if on, reason := log.Flag(o.ID, FlagDeclined); on && reason == p.ID {
			continue
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Proposal) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// of reads the gate an observation's lesson calls for, if any.
func of(o observe.Observation) (Proposal, bool) {
	for _, text := range []string{o.Pattern, o.Details} {
		if m := quotedRun().FindStringSubmatch(text); m != nil {
			if p, ok := proposal(o, strings.TrimSpace(m[1]), m[2], m[3], m[0]); ok {
				return p, true
			}
		}
		if m := bareRun().FindStringSubmatch(text); m != nil {
			first := strings.ToLower(strings.Fields(m[1])[0])
			if notCommands[first] {
				continue
			}
			if p, ok := proposal(o, strings.TrimSpace(m[1]), m[2], m[3], m[0]); ok {
				return p, true
			}
		}
	}
	return Proposal{}, false
}

func proposal(o observe.Observation, written, when, event, because string) (Proposal, bool) {
	list, ok := where(when, event)
	if !ok || !plausible(written) {
		return Proposal{}, false
	}
	command, gateName, ok := canFail(written)
	if !ok {
		return Proposal{}, false
	}
	sum := sha256.Sum256([]byte(list + "\n" + command))
	return Proposal{
		ID:      "gate-" + hex.EncodeToString(sum[:4]),
		List:    list,
		Gate:    config.Gate{Name: gateName, Command: command, Required: true},
		Source:  o.ID,
		Lesson:  o.Pattern,
		Because: because,
	}, true
}

// plausible keeps what reads as one command line: printable, one line,
// short, starting with a program name.
func plausible(cmd string) bool {
	if cmd == "" || len(cmd) > 200 || strings.ContainsAny(cmd, "\n\r\x00") {
		return false
	}
	for _, r := range cmd {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	c := cmd[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '/'
}

// name is a gate name from its command: its first two words.
func name(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}

// commands lists the commands of every gate of cfg.
func commands(cfg *config.Config) map[string]bool {
	out := map[string]bool{}
	add := func(gs []config.Gate) {
		for _, g := range gs {
			out[g.Command] = true
		}
	}
	for _, stage := range config.Stages {
		pre, _ := cfg.Gates.Pre.For(stage)
		post, _ := cfg.Gates.Post.For(stage)
		add(pre)
		add(post)
	}
	add(cfg.Gates.Stop)
	return out
}

// Accept returns the project config file data (name labels errors) with
// the proposal's gate added, as a gate preset adds its gates: a gate of
// the same name already in that list is left as the person wrote it.
func Accept(name string, data []byte, p Proposal) ([]byte, error) {
	g, err := json.Marshal(p.Gate)
	if err != nil {
		return nil, err
	}
	var raw string
	switch when, stage, _ := strings.Cut(p.List, "."); when {
	case "stop":
		raw = fmt.Sprintf(`{"stop": [%s]}`, g)
	default:
		raw = fmt.Sprintf(`{%q: {%q: [%s]}}`, when, stage, g)
	}
	out, _, err := gate.PresetOf("proposal "+p.ID, json.RawMessage(raw)).Apply(name, data)
	return out, err
}
