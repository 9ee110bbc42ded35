// readCodexFile reads Codex CLI session logs ("rollouts",
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, or .jsonl.zst
// once Codex has compressed them) into the channels devlearn's
// extractors read, decompressing them with a zstd decoder.
//
// Each line is {"timestamp", "type", "payload"}. What is read:
// session_meta (the session's id and cwd), event_msg user_message (what
// the person typed; Codex's injected user-role items, AGENTS.md and
// environment context, are not the person and are skipped),
// response_item message of role assistant, function_call and
// custom_tool_call with their *_output, and event_msg exec_command_end
// for a shell call's exit code. Everything else is skipped.
//
// Codex before its session_meta lines (to mid-2025) wrote the older
// shape: a first line holding the session's id, timestamp and
// instructions, then the response items on lines of their own, without
// payload or timestamps, and {"record_type":"state"} lines between them.
// The person's words are then the user-role messages that are not
// Codex's own injections (AGENTS.md, <user_instructions>, the
// <environment_context> that gives the cwd).

package sessions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"

	"github.com/devlearn/devlearn/internal/agent/codex"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// codexCompressed is the suffix of a rollout Codex has compressed.
const codexCompressed = ".zst"

// jsonRaw is a value read later, or not at all.
type jsonRaw = jsontext.Value

// payload holds the fields read from any line's payload. Each is raw
// where Codex's types put values of different kinds under one name, so
// that a line of a type devlearn skips never fails to read.
type payload struct {
	Type string `json:"type"`
	// session_meta, turn_context
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Git       struct {
		Branch string `json:"branch"`
	} `json:"git"`
	// event_msg user_message
	Message jsonRaw `json:"message"`
	// response_item message
	Role    string  `json:"role"`
	Content jsonRaw `json:"content"`
	// function_call, custom_tool_call and their outputs
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Input     string  `json:"input"`
	CallID    string  `json:"call_id"`
	Output    jsonRaw `json:"output"`
	// event_msg exec_command_end
	ExitCode  *int    `json:"exit_code"`
	Stderr    jsonRaw `json:"stderr"`
	Aggregate jsonRaw `json:"aggregated_output"`
}

// readCodex collects a rollout's channels; name labels its problems.
func readCodex(r io.Reader, name string, opt transcript.Options) (*transcript.Channels, error) {
	b := newBuilder(name, opt)
	var cwd string
	shells := map[string]bool{} // call ids of shell calls, whose exit code exec_command_end gives
	older := false              // the shape before session_meta lines
	var started string
	problems, err := jsonl.Scan(r, func(n int, raw []byte) error {
		b.line(n)
		var l struct {
			Timestamp string  `json:"timestamp"`
			Type      string  `json:"type"`
			Payload   payload `json:"payload"`
			// The older shape's first line.
			ID string `json:"id"`
		}
		if err := jsonv2.Unmarshal(raw, &l); err != nil {
			return err
		}
		if l.Type == "" && l.ID != "" && l.Timestamp != "" && b.sessionID() == "" {
			older, started = true, l.Timestamp
			b.session(l.ID)
			return nil
		}
		if older && l.Type != "" {
			// An item on a line of its own: read it as the payload of a
			// response_item, at the session's start time.
			if err := jsonv2.Unmarshal(raw, &l.Payload); err != nil {
				return err
			}
			l.Timestamp, l.Type = started, "response_item"
		}
		p := &l.Payload
		meta := transcript.Meta{Timestamp: l.Timestamp, Line: n}
		if id := b.sessionID(); id != "" {
			meta.UUID = fmt.Sprintf("%s:%d", id, n)
		}
		switch l.Type {
		case "session_meta":
			b.session(cmpOr(p.ID, p.SessionID))
			cwd = cmpOr(cwd, p.Cwd)
			b.branch(p.Git.Branch)
		case "turn_context":
			cwd = cmpOr(p.Cwd, cwd)
		case "event_msg":
			switch p.Type {
			case "user_message":
				b.user(meta, jsonString(p.Message), cwd)
			case "exec_command_end":
				if p.ExitCode != nil {
					shells[p.CallID] = true
					b.result(meta, p.CallID, *p.ExitCode != 0, cmpOr(jsonString(p.Stderr), jsonString(p.Aggregate)))
				}
			}
		case "response_item":
			switch p.Type {
			case "message":
				if older && p.Role == "user" {
					said := contentText(p.Content)
					if c := environmentCwd(said); c != "" {
						cwd = c
					}
					if !codexInjected(said) {
						b.user(meta, said, cwd)
					}
					return nil
				}
				if p.Role == "assistant" {
					var parts []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					}
					jsonv2.Unmarshal(p.Content, &parts)
					var said []string
					for _, c := range parts {
						if c.Type == "output_text" || c.Type == "text" {
							said = append(said, c.Text)
						}
					}
					b.assistant(meta, strings.Join(said, "\n\n"))
				}
			case "function_call", "custom_tool_call":
				name, command, paths, patch := codexTool(p)
				b.tool(meta, p.CallID, name, command, paths, cwd)
				b.wrote(p.CallID, transcript.Write{Patch: patch})
				if escalated(p) {
					b.escalated(p.CallID)
				}
			case "function_call_output", "custom_tool_call_output":
				if shells[p.CallID] {
					return nil // exec_command_end said it already
				}
				failed, text := outcome(p.Output)
				b.result(meta, p.CallID, failed, text)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read rollout %s: %w", name, err)
	}
	for _, p := range problems {
		b.problem(p)
	}
	return b.done(), nil
}

// contentText is the text of a message's content parts.
func contentText(raw jsonRaw) string {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	jsonv2.Unmarshal(raw, &parts)
	var said []string
	for _, c := range parts {
		if c.Type == "input_text" || c.Type == "text" || c.Type == "output_text" {
			said = append(said, c.Text)
		}
	}
	return strings.Join(said, "\n\n")
}

// injected reports a user-role message Codex wrote itself: the project's
// instructions and the environment it runs in.
func codexInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"<user_instructions>", "<environment_context>", "# AGENTS.md instructions", "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

var cwdTag = regexp.MustCompile(`<cwd>([^<]*)</cwd>`)

// environmentCwd is the folder an <environment_context> message names.
func environmentCwd(text string) string {
	if !strings.HasPrefix(strings.TrimSpace(text), "<environment_context>") {
		return ""
	}
	if m := cwdTag.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// tool names a call the way devlearn's extractors know calls: a shell
// command is Bash with its command line, apply_patch the Edit (or Write)
// of the files its patch names, and the patch.
func codexTool(p *payload) (name, command string, paths []string, patch string) {
	switch p.Name {
	case "shell", "exec_command", "local_shell", "container.exec", "shell_command":
		var args struct {
			Command jsonRaw `json:"command"`
			Cmd     jsonRaw `json:"cmd"`
		}
		jsonv2.Unmarshal([]byte(p.Arguments), &args)
		cmd := commandLine(cmpOrRaw(args.Command, args.Cmd))
		if patch, ok := strings.CutPrefix(cmd, "apply_patch "); ok && strings.Contains(patch, "*** Begin Patch") {
			// Older Codex ran its patches through the shell tool
			// (["apply_patch", "*** Begin Patch ..."]): an edit all the
			// same, of the files the patch names.
			name, _ = codex.PatchTarget(patch)
			return name, "", patchFiles(patch), patch
		}
		return "Bash", cmd, nil, ""
	case "exec":
		// Codex's code mode: a script that calls the shell tools.
		if cmds := scriptCommands(cmpOr(p.Input, p.Arguments)); len(cmds) > 0 {
			return "Bash", strings.Join(cmds, "; "), nil, ""
		}
		return p.Name, "", nil, ""
	case "apply_patch":
		patch := p.Input
		if patch == "" {
			var args struct {
				Input string `json:"input"`
			}
			jsonv2.Unmarshal([]byte(p.Arguments), &args)
			patch = args.Input
		}
		name, _ = codex.PatchTarget(patch)
		return name, "", patchFiles(patch), patch
	}
	return p.Name, "", nil, ""
}

// commandLine is a shell call's command: a string, or argv, where
// ["bash", "-lc", "go test ./..."] is the script it runs.
func commandLine(raw jsonRaw) string {
	var s string
	if jsonv2.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if jsonv2.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

func patchFiles(patch string) []string {
	var out []string
	for l := range strings.Lines(patch) {
		l = strings.TrimSpace(l)
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(l, prefix); ok {
				out = append(out, strings.TrimSpace(f))
			}
		}
	}
	return out
}

// escalated reports a shell call that asked to run outside Codex's
// sandbox: with_escalated_permissions (older), sandbox_permissions
// "require_escalated" (newer).
func escalated(p *payload) bool {
	var args struct {
		With       bool   `json:"with_escalated_permissions"`
		Permission string `json:"sandbox_permissions"`
	}
	text := cmpOr(p.Arguments, p.Input)
	if text == "" || !strings.Contains(text, "escalat") {
		return false
	}
	if jsonv2.Unmarshal([]byte(text), &args) == nil {
		return args.With || args.Permission == "require_escalated"
	}
	// A script of code mode: the options of the call it makes.
	return scriptEscalated.MatchString(text)
}

var (
	// tools.shell_command({command: "..."}), tools.exec_command({"cmd": "..."})
	scriptCall      = regexp.MustCompile(`tools\.(?:shell_command|exec_command|shell)\(\{[^}]*?"?(?:command|cmd)"?\s*:\s*("(?:[^"\\]|\\.)*")`)
	scriptEscalated = regexp.MustCompile(`"?(?:sandbox_permissions"?\s*:\s*"require_escalated"|with_escalated_permissions"?\s*:\s*true)`)
)

// scriptCommands are the shell commands a code-mode script runs.
func scriptCommands(script string) []string {
	var out []string
	for _, m := range scriptCall.FindAllStringSubmatch(script, -1) {
		var s string
		if jsonv2.Unmarshal([]byte(m[1]), &s) == nil && strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// exitLine is the exit status in a call's output text: "Exit code: N"
// (shell, shell_command), "Process exited with code N" (the unified
// exec_command, after its chunk header).
var exitLine = regexp.MustCompile(`(?m)^(?:Exit code: |Process exited with code )(\d+)`)

// outcome reads a call's output: older Codex wrote {"output",
// "metadata": {"exit_code"}}, newer a text that holds "Exit code: N" or
// "Process exited with code N", code mode a list of text parts that holds it.
func outcome(raw jsonRaw) (failed bool, text string) {
	var s string
	if jsonv2.Unmarshal(raw, &s) != nil {
		var o struct {
			Content string `json:"content"`
		}
		if jsonv2.Unmarshal(raw, &o) == nil {
			s = o.Content
		} else {
			// Code mode answers with a list of text parts.
			s = contentText(raw)
		}
	}
	var o struct {
		Output   string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if jsonv2.Unmarshal([]byte(s), &o) == nil && o.Metadata.ExitCode != nil {
		return *o.Metadata.ExitCode != 0, o.Output
	}
	if m := exitLine.FindStringSubmatch(s); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code != 0, s
	}
	if rest, ok := strings.CutPrefix(s, toolError); ok {
		// An apply_patch Codex could not apply ("error: Failed to find
		// expected lines in …", "error: invalid hunk at line 4"): older
		// Codex gave it back as this text alone, without the metadata a
		// call it ran carries.
		return true, rest
	}
	if m := execError.FindStringSubmatch(s); m != nil {
		rest := s[len(m[0]):]
		// The tool's time limit is no failure of the command, as Claude
		// Code's own is not.
		return !strings.HasPrefix(rest, "command timed out"), sandboxOutput(rest)
	}
	return false, s
}

// toolError opens the text older Codex gave back for a call it refused
// to run as it was written.
const toolError = "error: "

// execError opens the text Codex gives back, in place of the output and
// its metadata, for a command that did not end well under its sandbox:
// "failed in sandbox LinuxSeccomp with execution error: sandbox denied
// exec error, exit code: 2, stdout: …, stderr: …" (any exit status but 0
// is reported so, whether or not the sandbox had anything to do with it),
// "… execution error: command timed out" (the tool's time limit), or
// "execution error: Io(…)" (the program not found). Read as a success, a
// test run that failed and the command that fixed it were no failure and
// no fix.
var execError = regexp.MustCompile(`^(?:failed in sandbox \w+ with )?execution error: `)

// sandboxOutput is what a command printed, out of the rest of such a text:
// its stdout and stderr when it names them ("exit code: 2, stdout: …,
// stderr: …"), else the rest as it is ("command timed out").
func sandboxOutput(rest string) string {
	i := strings.Index(rest, "stdout: ")
	if i < 0 {
		return rest
	}
	out := rest[i+len("stdout: "):]
	if j := strings.LastIndex(out, ", stderr: "); j >= 0 {
		// Printed in that order, each in full: the error last, where
		// an error line is looked for, without the separator.
		out = strings.TrimSpace(out[:j]) + "\n" + out[j+len(", stderr: "):]
	}
	return strings.TrimSpace(out)
}

// openRollout opens a rollout, decompressing one that ends in .zst.
func openRollout(path string) (io.ReadCloser, error) {
	f, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, codexCompressed) {
		return f, nil
	}
	d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rc := d.IOReadCloser()
	return struct {
		io.Reader
		io.Closer
	}{rc, closers{rc, f}}, nil
}

type closers []io.Closer

func (c closers) Close() error {
	var errs []error
	for _, x := range c {
		errs = append(errs, x.Close())
	}
	return errors.Join(errs...)
}

// readCodexFile reads the rollout at path, compressed or not.
func readCodexFile(path string, opt transcript.Options) (*transcript.Channels, error) {
	r, err := openRollout(path)
	if err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	defer r.Close()
	return readCodex(r, path, opt)
}

// isCodexRollout reports whether a file's first line is a rollout's
// session_meta, or the older shape's first line.
func isCodexRollout(path string) bool {
	ok, _ := firstMeta(path)
	return ok
}

// codexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func codexHome(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// findCodex lists the rollouts under home (sessions/ and archived_sessions/)
// of sessions that ran inside root, by the cwd their session_meta
// records. Where Codex left both a rollout and its compressed copy, the
// plain one is read.
func findCodex(home, root string) ([]string, error) {
	var files []string
	for _, dir := range []string{"sessions", "archived_sessions"} {
		err := filepath.WalkDir(filepath.Join(home, dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			if err != nil {
				return err
			}
			n := d.Name()
			if d.Type().IsRegular() && strings.HasPrefix(n, "rollout-") && (strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".jsonl"+codexCompressed)) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	plain := map[string]bool{}
	for _, f := range files {
		plain[f] = true
	}
	roots := []string{filepath.Clean(root)}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != roots[0] {
		roots = append(roots, r)
	}
	var out []string
	for _, f := range files {
		if base, ok := strings.CutSuffix(f, codexCompressed); ok && plain[base] {
			continue
		}
		if _, cwd := firstMeta(f); insideAny(cwd, roots) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out, nil
}

// firstMeta reads a rollout's first line: whether it is a session_meta,
// and the cwd it records.
func firstMeta(path string) (bool, string) {
	r, err := openRollout(path)
	if err != nil {
		return false, ""
	}
	defer r.Close()
	br := bufio.NewReader(io.LimitReader(r, 4<<20))
	first, _ := br.ReadBytes('\n')
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
		// The older shape's first line.
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		// Present on the older shape's first line, null when the session
		// had none: its presence, not its value, tells a rollout.
		Instructions jsonRaw `json:"instructions"`
	}
	if jsonv2.Unmarshal(bytes.TrimSpace(first), &l) != nil {
		return false, ""
	}
	switch {
	case l.Type == "session_meta":
		return true, l.Payload.Cwd
	case l.Type == "" && l.ID != "" && l.Timestamp != "" && len(l.Instructions) > 0:
		// The cwd is in the first <environment_context> message.
		for i := 0; i < 50; i++ {
			line, err := br.ReadBytes('\n')
			var item struct {
				Role    string  `json:"role"`
				Content jsonRaw `json:"content"`
			}
			if jsonv2.Unmarshal(bytes.TrimSpace(line), &item) == nil && item.Role == "user" {
				if c := environmentCwd(contentText(item.Content)); c != "" {
					return true, c
				}
			}
			if err != nil {
				break
			}
		}
		return true, ""
	}
	return false, ""
}

// insideAny reports whether cwd, when a session recorded one, lies inside
// one of roots (the working tree as named and as its links resolve).
func insideAny(cwd string, roots []string) bool {
	if cwd == "" {
		return false
	}
	for _, r := range roots {
		if inside(cwd, r) {
			return true
		}
	}
	return false
}

func cmpOrRaw(a, b jsonRaw) jsonRaw {
	if len(a) > 0 {
		return a
	}
	return b
}
