package extract

import (
	"path"
	"strings"

	"github.com/devlearn/devlearn/internal/transcript"
)

// A command fails and the agent's next steps make it pass: the lesson is
// the fix, learned from the pair. Two shapes, both read from the tool
// calls alone, in any language:
//
//   - the same command passes after other commands ran in between (a
//     formatter before the commit, `npm install` before `npm ci`): run
//     those first;
//   - a changed command passes (`git push` → `git push --set-upstream
//     origin x`, `pytest` → `uv run pytest`): run that one instead.
//
// Not lessons: a command that passes when run again unchanged (a flake),
// and one made to pass by editing files (that is the work itself). Claude
// Code's own tool errors are not failures (transcript.ToolCall.Protocol),
// and the failure is named by its error line, never by an INFO, progress
// or warning line. The same fix in another session is the same
// observation, so it recurs across sessions by its count.

// maxFixWindow bounds how far after a failure its fix is looked for.
const maxFixWindow = 12

// failureFixes finds the failures and their fixes in a session, each once.
func failureFixes(ch *transcript.Channels) []Observation {
	var out []Observation
	// Where the person speaks again: a fix is the agent's own next steps.
	var spoke []int
	for _, s := range ch.UserSignals {
		spoke = append(spoke, s.Line)
	}
	for i, f := range ch.Tools {
		if !f.Failed() || f.Command == "" || exploring(f.Command) {
			continue
		}
		key := commandKey(f.Command)
		if key == "" {
			continue
		}
		var between []transcript.ToolCall
		for _, t := range ch.Tools[i+1 : min(len(ch.Tools), i+1+maxFixWindow)] {
			if t.Sidechain != f.Sidechain || t.AgentID != f.AgentID {
				continue
			}
			if !t.Sidechain && personBetween(spoke, f.Line, t.Line) {
				break
			}
			if t.Command == "" || commandKey(t.Command) != key && lastLink(t.Command) != oneLine(f.Command) {
				between = append(between, t)
				continue
			}
			if t.Failed() || t.IsError || !t.HasResult {
				between = nil // failed again: the fix is what comes after this one
				continue
			}
			if o, ok := fixObservation(f, t, between); ok {
				out = append(out, o)
			}
			break
		}
	}
	return out
}

// personBetween reports a message of the person between two lines.
func personBetween(spoke []int, from, to int) bool {
	for _, l := range spoke {
		if l > from && l < to {
			return true
		}
	}
	return false
}

func fixObservation(failed, passed transcript.ToolCall, between []transcript.ToolCall) (Observation, bool) {
	fc, pc := oneLine(failed.Command), oneLine(passed.Command)
	ran := pc // as it ran, for the evidence
	key := commandKey(fc)
	errLine := errorLine(failed.Error)
	fails := ""
	if errLine != "" {
		fails = " fails with \"" + clip(errLine, 80) + "\""
	}
	var pattern, resolution string
	// "nvm use 20 && npm run build" after "npm run build": the steps
	// chained before the same command are run first, as if run apart.
	var chained []string
	if last, before := lastLink(pc), links(pc); fc != pc && last == fc && !edited(between) {
		for _, l := range before[:len(before)-1] {
			if !exploring(l) {
				chained = append(chained, "`"+clip(l, 80)+"`")
			}
		}
		if len(chained) > 0 {
			pc = fc
		}
	}
	if fc == pc {
		fixes := chained
		for _, t := range between {
			if t.Command != "" && !exploring(t.Command) && t.HasResult && !t.IsError && len(fixes) < 3 {
				fixes = append(fixes, "`"+clip(oneLine(t.Command), 80)+"`")
			}
		}
		if len(fixes) == 0 {
			return Observation{}, false // passed again as it was, or after edits: not a lesson
		}
		resolution = "run " + strings.Join(fixes, ", then ") + " first"
		pattern = "Before `" + key + "`, run " + strings.Join(fixes, ", then ")
		if fails != "" {
			pattern += ": without it, `" + key + "`" + fails
		}
	} else {
		resolution = "run `" + clip(pc, 100) + "` instead"
		pattern = "Run `" + clip(pc, 100) + "` instead of `" + clip(fc, 60) + "`"
		if fails != "" {
			pattern += ", which" + fails
		}
	}
	o := Observation{
		Type:    Pitfall,
		Pattern: clip(pattern+".", maxPattern),
		Details: "area: " + field(key) + "; issue: `" + field(clip(fc, 100)) + "`" + strings.ReplaceAll(fails, ";", ",") +
			"; impact: the command fails until it is fixed; resolution: " + field(resolution),
		Evidence: []string{
			quote("tool", "`"+fc+"` → "+errLine),
			quote("tool", "`"+ran+"` → passed"),
		},
		QualityOK:  true,
		SessionID:  failed.SessionID,
		RecordUUID: failed.ResultUUID,
		Timestamp:  failed.Timestamp,
		Extractor:  ExtractorFailureFix,
		Class:      ClassFailureFix,
	}
	if o.RecordUUID == "" {
		o.RecordUUID = failed.UUID
	}
	return o, true
}

func oneLine(s string) string { return strings.Join(strings.Fields(firstLine(s)), " ") }

// links splits a command line into the commands it chains with && or ;
// (not ||, whose right side runs only when the left fails).
func links(cmd string) []string {
	var out, cur []string
	for _, f := range strings.Fields(firstLine(cmd)) {
		end := f == "&&" || f == ";"
		if !end && strings.HasSuffix(f, ";") {
			cur, end = append(cur, strings.TrimSuffix(f, ";")), true
		} else if !end {
			cur = append(cur, f)
		}
		if end && len(cur) > 0 {
			out, cur = append(out, strings.Join(cur, " ")), nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, " "))
	}
	return out
}

// lastLink is the last command a command line chains.
func lastLink(cmd string) string {
	l := links(cmd)
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// edited reports a tool call that is not a command (an edit, a write)
// among those between a failure and its fix.
func edited(between []transcript.ToolCall) bool {
	for _, t := range between {
		if t.Command == "" {
			return true
		}
	}
	return false
}

// wrappers run the command that follows them: `uv run pytest` is pytest.
var wrappers = map[string]int{"uv": 1, "poetry": 1, "pnpm": 0, "npx": 0, "bunx": 0, "pipx": 1, "bundle": 1, "sudo": 0, "time": 0, "env": 0, "nohup": 0}

// subcommands name the tools whose first argument says what they do.
var subcommands = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "cargo": true, "docker": true,
	"make": true, "kubectl": true, "gh": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "dotnet": true,
	"mvn": true, "gradle": true, "./gradlew": true, "bundle": true, "rails": true, "rake": true, "terraform": true,
	"helm": true, "deno": true, "just": true, "task": true, "composer": true, "mix": true, "swift": true, "brew": true,
}

// commandKey names what a command does, without its arguments: "git
// push", "go test", "npm run build", "pytest". Commands with the same key
// are the same step tried again.
func commandKey(cmd string) string {
	f := strings.Fields(firstLine(cmd))
	// cd somewhere && ...
	for len(f) >= 3 && f[0] == "cd" && (f[2] == "&&" || f[2] == ";") {
		f = f[3:]
	}
	// VAR=value ...
	for len(f) > 0 && strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "-") {
		f = f[1:]
	}
	for len(f) > 1 {
		skip, ok := wrappers[f[0]]
		if !ok || f[0] == "pnpm" && f[1] != "exec" && f[1] != "dlx" {
			break
		}
		if skip == 1 && (f[1] == "run" || f[1] == "exec") || f[0] == "pnpm" {
			f = f[2:]
		} else if skip == 0 {
			f = f[1:]
		} else {
			break
		}
	}
	if len(f) == 0 {
		return ""
	}
	prog := path.Base(f[0])
	if strings.HasPrefix(f[0], "./") {
		prog = f[0]
	}
	key := prog
	args := f[1:]
	if subcommands[prog] || subcommands[f[0]] {
		for i, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			key += " " + a
			if (a == "run" || a == "exec" || a == "mod") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				key += " " + args[i+1]
			}
			break
		}
	}
	return key
}

var explorers = map[string]bool{
	"ls": true, "cat": true, "grep": true, "rg": true, "ag": true, "find": true, "fd": true, "head": true,
	"tail": true, "which": true, "type": true, "command": true, "echo": true, "printf": true, "pwd": true,
	"cd": true, "test": true, "[": true, "stat": true, "file": true, "wc": true, "tree": true, "less": true,
	"sleep": true, "kill": true, "pkill": true, "ps": true, "lsof": true, "du": true, "df": true, "env": true,
	"curl": true, "wget": true,
}

// exploring reports a command that looks around rather than builds, runs
// or changes something: it fails all the time (grep finds nothing) and
// teaches nothing.
func exploring(cmd string) bool {
	f := strings.Fields(cmd)
	for len(f) >= 3 && f[0] == "cd" && (f[2] == "&&" || f[2] == ";") {
		f = f[3:]
	}
	if len(f) == 0 {
		return true
	}
	if f[0] == "git" && len(f) > 1 {
		switch f[1] {
		case "status", "log", "diff", "show", "branch", "remote", "rev-parse", "ls-files", "grep", "blame", "fetch":
			return true
		}
	}
	return explorers[path.Base(f[0])]
}

// errorLine is the line of an error output that says what failed: the
// first that reads as an error (error, fatal, exception, panic, failed, a
// failing test, not found, denied, missing, requires...), else the first
// that is not an INFO, progress or warning line.
func errorLine(e string) string {
	var fallback string
	for _, l := range strings.Split(e, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || !strings.ContainsFunc(l, isLatinLetter) && strings.IndexFunc(l, isCJK) < 0 {
			continue
		}
		low := strings.ToLower(l)
		if levelLine(low) {
			continue
		}
		if errorish(low) {
			return clip(strings.Join(strings.Fields(l), " "), 160)
		}
		if fallback == "" && !progressLine(low) {
			fallback = l
		}
	}
	return clip(strings.Join(strings.Fields(fallback), " "), 160)
}

// levelLine reports a line a program logs at a level below error: INFO,
// DEBUG, WARN, a note or a hint.
func levelLine(low string) bool {
	for _, p := range []string{"info", "[info]", "debug", "[debug]", "warn", "[warn", "npm warn", "note:", "hint:"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	for _, p := range []string{"level=info", "level=warn", "level=debug", "level=trace"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// progressLine reports a line that shows progress or success.
func progressLine(low string) bool {
	for _, p := range []string{"progress", "downloading", "downloaded", "fetching", "fetch ", "resolving", "installing", "compiling", "building", "running", "#", "[+]", "✔", "✓", "exit code", "time="} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

func errorish(low string) bool {
	for _, w := range []string{"error", "fatal", "exception", "panic", "failed", "fail:", "fail ", "--- fail", "✖", "●", "traceback", "cannot", "can't", "could not", "not found", "no such", "denied", "refused", "rejected", "missing", "requires", "undefined", "invalid", "unable to", "not allowed", "ignored by", "conflict"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

func isLatinLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
