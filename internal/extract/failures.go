package extract

import (
	"iter"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/transcript"
	vocab "github.com/devlearn/devlearn/internal/words"
)

// A command fails and the agent's own next steps make it pass: the lesson
// is what made it pass, read from the tool calls alone, in any language.
// What made it pass is one of:
//
//   - a small change to the command: a flag, a quote, a path, the
//     program's other name (`git push` → `git push --set-upstream origin
//     <branch>`, `python` → `python3`, `pytest` → `uv run pytest`);
//   - steps run before the same command (a formatter before the commit,
//     `npm install` before `npm ci`, `gh auth setup-git` before `git
//     push`), chained before it or run apart;
//   - the same command run outside the agent's sandbox (Codex's escalated
//     permissions);
//   - a change to a configuration file (.gitignore, requirements.txt,
//     docfx.json), then the same command;
//   - a pause, when the error says something else held a lock.
//
// A small change is the fix whatever else the agent ran on the way (it
// looks around before it retries); the steps between are the fix only when
// the command stayed as it was. A program that is not installed is a
// lesson by itself ("`python` is not available here"). Not lessons: a
// command that passes when run again as it was (a flake), one made to pass
// by editing source files (that is the work itself), one that changed
// beyond a few words (what fixed it cannot be told), one turned into a
// look around (`pkg install x`, then `pkg search x`), one whose only change
// is how much of its output was read (`| tail -1`, then `| tail -3`), a
// probe that finds nothing (grep, ls, a status), Claude Code's own tool errors
// (transcript.ToolCall.Protocol), anything after the person speaks again,
// and calls issued alongside the failure, before its result came back
// (parallel calls: the agent had not seen the failure yet). The failure is named by its error line, never by a progress,
// warning or timing line.

// maxFixWindow bounds how far after a failure its fix is looked for.
const maxFixWindow = 12

// maxChanged is about how many words a fix may change in the command:
// twice that in all, in one or two places; more, and it is another command.
const maxChanged = 3

// failureFixes finds the failures and their fixes in a session, each once.
func failureFixes(ch *transcript.Channels) []Observation {
	var out []Observation
	spoke := spokeAt(ch)   // where the person speaks again: a fix is the agent's own
	done := map[int]bool{} // failures already explained by a later one's fix
	for i := range ch.Tools {
		if done[i] {
			continue
		}
		f := &ch.Tools[i]
		if o, ok := heldShell(*f); ok {
			// Whatever the agent did next, the server was never going to
			// return: the lesson is how to start it.
			out = append(out, o)
			continue
		}
		if o, ok := refusedByShell(*f); ok {
			// The command was right for bash (a look around as much as
			// any), and the next one written so fails the same way: the
			// lesson is the shell, whatever the agent did next.
			out = append(out, o)
			continue
		}
		if o, ok := unitAbsent(ch.Tools, i); ok {
			// Whatever the agent did next, the unit is not there: the
			// lesson is how the program does not run here. Asked of
			// `systemctl status`, a probe, it is said all the same.
			out = append(out, o)
			continue
		}
		if o, ok := untrackedByGit(ch.Tools, spoke, i); ok {
			// The agent's next step does what git would not, over the
			// same files: the lesson is that git does not hold them.
			out = append(out, o)
			continue
		}
		fs, ok := failure(f)
		if !ok {
			continue
		}
		if o, ok := builtWithout(*f, fs); ok {
			// Whatever the agent did next, this build cannot do it: the
			// lesson is what the program lacks here.
			out = append(out, o)
			continue
		}
		if o, ok := codecDefault(*f, fs); ok {
			// Whatever the agent did next, every script that meets such
			// text fails so: the lesson is the machine's encoding.
			out = append(out, o)
			continue
		}
		if o, ok := expandedByCaller(*f, fs); ok {
			// Whatever the agent did next, it rewrote the script: the
			// lesson is the quoting.
			out = append(out, o)
			continue
		}
		first, firstStep := f, fs // the chain below moves on to later failures
		var between []transcript.ToolCall
		var said []string // what the agent wrote before each call after the failure (explainedFix)
		waited := false
		fixed := false
		for j := i + 1; j < len(ch.Tools) && j <= i+maxFixWindow; j++ {
			t := ch.Tools[j]
			if t.Sidechain != f.Sidechain || t.AgentID != f.AgentID {
				continue
			}
			if !t.Sidechain && personBetween(spoke, f.Line, t.Line) {
				break
			}
			if f.ResultLine > 0 && t.Line < f.ResultLine {
				continue // issued alongside the failure, before its result: no step taken because of it
			}
			said = append(said, t.Said)
			if t.Command == "" {
				if len(between) == 0 && transcript.EditTool(t.Name) && len(t.Paths) > 0 && writesThrough(f.Command, t.Paths[0]) {
					// The shell could not write the file (a heredoc patch in
					// PowerShell), the edit tool did at once.
					out = append(out, editedInstead(*f, fs, t.Paths[0]))
					fixed = true
					break
				}
				between = append(between, t) // an edit, a read
				continue
			}
			ts, chained, waits := sameStepIn(t.Command, fs)
			waited = waited || waits
			if ts == nil {
				switch s := parseStep(t.Command, ""); {
				case pauses(s.prog):
					waited = true
				case !reads(s):
					// What the agent read on the way (`sed -n '1,220p'
					// x.h`, as Codex reads) is no step of the fix.
					between = append(between, t)
				}
				continue
			}
			if t.Failed() && !filteredNothing(t) || !t.HasResult {
				// Failed again: the fix is what comes after this one.
				if nfs, ok := failure(&ch.Tools[j]); ok {
					switch {
					case otherError(fs.err, nfs.err) && len(between) == 0 && !(deniedHere(fs.err) && deniedHere(nfs.err)):
						// It got further, and nothing else ran between:
						// what changed in the command fixed the first
						// error ("Failed to spawn: ruff", then the lint
						// errors once `--with ruff` is added). Refused
						// again, elsewhere, it got no further.
						if o, ok := fixObservation(*f, fs, t, *ts, chained, between, said, waited, editedBefore(ch.Tools[:i])); ok {
							out = append(out, o)
						}
					case otherError(fs.err, nfs.err) && onlyEdits(between) && below(f.Command) == below(t.Command):
						// It got further once files were changed: the
						// change fixed the first error, when that error
						// says the rule the code broke.
						if o, ok := editFixed(*f, fs, t, editsIn(between)); ok {
							out = append(out, o)
						}
					}
					done[j] = true
					f, fs, between, said, waited = &ch.Tools[j], nfs, nil, nil, false
				}
				continue
			}
			if leftSandbox(*first, firstStep, t) {
				// The agent left the sandbox for the rerun: the lesson is
				// the first refusal's, not that of a workaround tried
				// on the way and refused in turn.
				out = append(out, sandboxed(*first, firstStep, t))
			} else if o, ok := fixObservation(*f, fs, t, *ts, chained, between, said, waited, editedBefore(ch.Tools[:i])); ok {
				out = append(out, o)
			}
			fixed = true
			break
		}
		if fixed {
			continue
		}
		if t := escalatedLater(ch.Tools, i, firstStep); t != nil {
			// Refused in the sandbox, and the same step passed once the
			// agent asked to leave it: the lesson holds even when the
			// person spoke between ("push it" again), and is the first
			// refusal's, not that of a workaround tried on the way.
			out = append(out, sandboxed(*first, firstStep, *t))
			continue
		}
		if notFound(fs.err, fs.prog) {
			// Run later by where it is, it is not on the PATH: that is
			// how to call it, in this session or the next. Run later by
			// its name, it was there after all (installed meanwhile).
			if path := calledByPath(ch.Tools, i, fs); path != "" {
				out = append(out, notOnPath(*f, fs, path))
				continue
			}
			if ranLater(ch.Tools, i, fs) {
				continue
			}
		}
		if o, ok := unsupported(*f, fs); ok {
			out = append(out, o)
		}
	}
	return out
}

// plainMove are the programs that move files without git: what an agent
// runs once git says it does not track them.
var plainMove = []string{"mv", "move", "move-item", "mi"}

// untrackedByGit is the lesson of `git mv` refused because git does not
// track the file ("fatal: not under version control"), when the agent's
// next calls, before the person speaks, pass moving one of the same files
// with the plain program on this machine: the files are new, and git is
// told of them after (`git add`). `git rm` is left out: "did not match any
// files" is as much `git add`'s error, or a file that is not there.
func untrackedByGit(calls []transcript.ToolCall, spoke []int, i int) (Observation, bool) {
	f := &calls[i]
	if !f.Failed() || f.Command == "" {
		return Observation{}, false
	}
	text := withoutHarness(f.Error)
	if !strings.Contains(strings.ToLower(text), "not under version control") {
		return Observation{}, false
	}
	for _, s := range stepsOf(f.Command) {
		if s.key != "git mv" || s.via != "" {
			continue
		}
		files := sources(s.words[2:])
		for t := range nextOwnCalls(calls, spoke, i) {
			if t.Failed() || t.Command == "" || t.Line == f.Line {
				continue // failed, or issued alongside, before git answered
			}
			for _, ts := range stepsOf(t.Command) {
				if ts.via == "" && slices.Contains(plainMove, ts.prog) && len(ts.words) > 1 && slices.ContainsFunc(sources(ts.words[1:]), func(w string) bool { return slices.Contains(files, w) }) {
					return untrackedLesson(*f, s, errorLine(text), ts), true
				}
			}
		}
	}
	return Observation{}, false
}

// untrackedLesson says which program to use on files git does not track.
func untrackedLesson(f transcript.ToolCall, s step, errLine string, plain step) Observation {
	key := "`" + s.key + "`"
	fails := " fails with \"" + clip(errLine, 100) + "\""
	resolution := "run `" + clip(plain.line(), 120) + "`, then `git add` what is to be kept"
	pattern := key + fails + ": git does not track these files; use `" + plain.words[0] + "`, then `git add`."
	return failurePitfall(f, pattern, commandDetails(s.key, f.Command, fails, "git refuses the untracked files", resolution),
		quote("tool", "`"+oneLine(f.Command)+"` → "+errLine),
		quote("tool", "`"+clip(plain.line(), 160)+"` → passed"))
}

// sources are the files a move moves: its operands but the last, where
// they go (`mv a b dir/`), which another move may share.
func sources(words []string) []string {
	ops := operands(words)
	if len(ops) < 2 {
		return nil
	}
	return ops[:len(ops)-1]
}

// operands are a step's words that are neither options nor redirections,
// unquoted.
func operands(words []string) []string {
	var out []string
	target := false // the word after a bare `>` is where output goes
	for _, w := range words {
		w = unquote(w)
		switch {
		case target:
			target = false
		case redirection(w) || w == "<":
			target = strings.HasSuffix(w, ">") || w == "<"
		case w != "" && !strings.HasPrefix(w, "-"):
			out = append(out, w)
		}
	}
	return out
}

// sandboxed is the lesson of a command that passed once run outside the
// agent's sandbox, in the words of the agent that ran it
// (transcript.ToolCall.Unsandboxed).
func sandboxed(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall) Observation {
	how := "run it with " + passed.Unsandboxed
	key := "`" + fs.key + "`"
	fails := " fails with \"" + clip(fs.err, 100) + "\""
	details := commandDetails(fs.key, failed.Command, fails, "the command fails until it is fixed", how+", outside the sandbox")
	if more := errorAround(withoutHarness(failed.Error)); more != "" {
		details += "; output: " + field(more)
	}
	return failurePitfall(failed, key+fails+" in the sandbox: "+how+".", details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("tool", "`"+oneLine(passed.Command)+"` → passed"))
}

// leftSandbox reports a rerun the agent asked to run outside its sandbox
// after the call failed with a refusal (deniedHere): that is what it
// judged the cause, whatever else it reworded on the way (the commit
// message, the files named).
func leftSandbox(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall) bool {
	return passed.Escalated() && !failed.Escalated() && deniedHere(fs.err)
}

// deniedHere reports an error that says the call was refused rather than
// wrong: a permission, an operation the process may not do, the network
// or a name it could not reach. Inside a sandbox these are the sandbox's.
func deniedHere(errLine string) bool {
	low := strings.ToLower(errLine)
	return mentions(low, "permission denied", "operation not permitted", "eperm", "eacces",
		"read-only file system", "could not resolve host", "temporary failure in name resolution", "network is unreachable")
}

// writesThrough reports a command that writes the file path through the
// shell: a heredoc, a redirection, Set-Content, a patch piped in, naming
// the file.
func writesThrough(cmd, path string) bool {
	name := path[strings.LastIndexAny(path, "/\\")+1:]
	if name == "" || !strings.Contains(cmd, name) {
		return false
	}
	low := strings.ToLower(cmd)
	for _, w := range []string{"<<", "> ", ">>", "set-content", "out-file", "add-content", "writealltext", "apply_patch", "applypatch", "| tee", "tee "} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// editedInstead is the lesson of a write through the shell that failed
// and that the edit tool then made: write that file with the edit tool.
func editedInstead(f transcript.ToolCall, fs failedStep, path string) Observation {
	file := relative(path, f.Cwd)
	key := "`" + fs.key + "`"
	fails := " fails with \"" + clip(fs.err, 100) + "\""
	pattern := key + fails + " here: change `" + clip(file, 100) + "` with the edit tool, not through the shell"
	// Its moment is that file coming up again, not every run of the
	// program that failed to write it (cat, tee).
	details := commandDetails(file, f.Command, fails, "the file is not changed", "change "+file+" with the edit tool")
	return failurePitfall(f, pattern+".", details,
		quote("tool", "`"+oneLine(f.Command)+"` → "+fs.err),
		quote("tool", "the edit tool changed "+file))
}

// commandDetails are the details of a lesson about a failed command: its
// area, the command and how it failed, what that does, and what to do.
func commandDetails(area, cmd, fails, impact, resolution string) string {
	return "area: " + field(area) + "; issue: `" + field(clip(oneLine(cmd), 160)) + "`" + strings.ReplaceAll(fails, ";", ",") +
		"; impact: " + impact + "; resolution: " + field(resolution)
}

// otherError reports two error lines that are not one error: the words
// differ beyond numbers (a line, a count, a time).
func otherError(a, b string) bool {
	norm := func(s string) string {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
		if r := []rune(s); len(r) > 50 {
			s = string(r[:50])
		}
		return s
	}
	return norm(a) != norm(b)
}

// readTools read one file they are given; their "File does not exist" is
// the same miss as a cat's.
var readTools = map[string]bool{"Read": true, "read_file": true}

// readMiss reports a read tool's call that found no file at its path.
func readMiss(t *transcript.ToolCall) bool {
	return readTools[t.Name] && t.IsError && !t.Rejected && len(t.Paths) > 0 && missing(t.Error)
}

// readError is a read tool's error as a person reads it: without the
// markup Claude Code wraps it in.
func readError(e string) string {
	return clip(untagged(firstLine(e)), 100)
}

// untagged is a Claude Code tool error without its <tool_use_error> tags.
func untagged(e string) string {
	return strings.TrimSpace(strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "").Replace(e))
}

// misreads are the reads that found no file and that the agent then read
// under the same name elsewhere in the project: a file read where it is
// not. A read tool's miss, or a shell's read among several in one command
// (`cat a.md; cat b.md`), which the fix of a failed command, made to pass
// as a whole, does not pair. One lesson a call: its first missed file
// found. ch is as read, its paths not yet stored (rooted): a path outside
// the project is no lesson about it.
func misreads(ch *transcript.Channels, root string) []Observation {
	spoke := spokeAt(ch)
	var out []Observation
	for i := range ch.Tools {
		f := &ch.Tools[i]
		paths, errs, by := missedPaths(f)
		if f.Command != "" && len(paths) < 2 {
			// One path missed: the failure's own fix tells, in the same
			// step (failureFixes). Made to pass as a whole, a command that
			// missed several has no one path put right.
			continue
		}
		for k, p := range paths {
			from, ok := projectPath(root, f.Cwd, p)
			if !ok || unheld(from) {
				continue
			}
			to, toBy, ok := readElsewhere(ch.Tools, spoke, i, root, from)
			if !ok {
				continue
			}
			details := "area: " + field(from) + "; issue: `" + by + " " + field(from) + "` fails with \"" + field(errs[k]) + "\"" +
				"; impact: the command fails until it is fixed; resolution: read `" + field(to) + "` instead"
			out = append(out, failurePitfall(*f, "Use `"+clip(to, 120)+"`: `"+from+"` does not exist.", details,
				quote("tool", by+" `"+from+"` → "+errs[k]), quote("tool", toBy+" `"+to+"` → passed")))
			break
		}
	}
	return out
}

// missedPaths are the paths a call read and did not find, each with the
// error line that says so: a read tool's one path (its error does not
// name it), or the paths of a command's reads on this machine that a line
// of its output names whole as not there (`cat a/x.md; cat b/x.md` may
// miss both, or only the second; `ls docs/ && cat docs/a.md` missed the
// file, not the folder); not after a cd in the same command, since where
// it looked is not known. by is what read them: the tool, or the program.
func missedPaths(t *transcript.ToolCall) (paths, errs []string, by string) {
	shaped := func(p string) bool {
		return vocab.PathLike(p) && !strings.ContainsAny(p, "$~*") && !revision(p) && !slices.Contains(paths, p)
	}
	if readMiss(t) {
		if p := t.Paths[0]; shaped(p) {
			paths, errs = append(paths, p), append(errs, readError(t.Error))
		}
		return paths, errs, t.Name
	}
	fs, ok := failure(t)
	if !ok || !fs.misplaced || changesFolder(t.Command) {
		return nil, nil, ""
	}
	lines := strings.Split(stripTerminalCodes(withoutHarness(t.Error)), "\n")
	for _, s := range stepsOf(t.Command) {
		if !reads(s) || s.via != "" {
			continue // a read on another machine is of its files
		}
		for _, w := range s.words[1:] {
			p := bare(unquote(w))
			if strings.HasPrefix(p, "-") || unheld(p) || !shaped(p) {
				continue
			}
			for _, l := range lines {
				if l = strings.TrimSpace(l); missing(l) && namesPath(l, p) {
					paths, errs = append(paths, p), append(errs, clip(l, 160))
					break
				}
			}
		}
	}
	return paths, errs, fs.prog
}

// namesPath reports a line that names the path p whole, as a program
// prints it: any case, either slash, at the end of a longer path that
// holds it ('C:\app\src\a.md' names src/a.md), but not the start of
// another (docs/ in docs/a.md, a.md in a.md.bak).
func namesPath(line, p string) bool {
	l := strings.ToLower(strings.ReplaceAll(line, `\`, "/"))
	p = strings.TrimPrefix(strings.ToLower(strings.ReplaceAll(p, `\`, "/")), "./")
	for from := 0; ; {
		i := strings.Index(l[from:], p)
		if i < 0 || p == "" {
			return false
		}
		i += from
		before, after := byte(' '), byte(' ')
		if i > 0 {
			before = l[i-1]
		}
		if end := i + len(p); end < len(l) {
			after = l[end]
		}
		if (before == '/' || !pathByte(before)) && !pathByte(after) && !(after == '/' && !strings.HasSuffix(p, "/")) {
			return true
		}
		from = i + 1
	}
}

// pathByte is a byte a path's name may hold.
func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/' || c >= 0x80
}

// readElsewhere is the first file the agent's next calls read (filesRead),
// before the person speaks, that is the file at from under its name
// elsewhere in the project, and the tool that read it.
func readElsewhere(tools []transcript.ToolCall, spoke []int, i int, root, from string) (to, by string, ok bool) {
	looked := false
	for t := range nextOwnCalls(tools, spoke, i) {
		for _, p := range filesRead(t) {
			if to, ok := projectPath(root, t.Cwd, p); ok && to != from && (sameFile(from, to) || looked && misspelled(from, to)) {
				return to, t.Name, true
			}
		}
		looked = looked || looksForNames(t)
	}
	return "", "", false
}

// looksForNames reports a call that lists or searches files (a Glob,
// `ls`, `find`, `rg`): after one, a file read under a name spelled
// otherwise is the one the agent was looking for.
func looksForNames(t *transcript.ToolCall) bool {
	switch t.Name {
	case "Glob", "LS", "Grep", "glob", "list_directory", "search_file_content":
		return true
	}
	for _, s := range stepsOf(t.Command) {
		switch s.prog {
		case "ls", "find", "tree", "dir", "fd", "rg", "grep", "get-childitem", "gci":
			return true
		}
	}
	return false
}

// projectPath is p relative to the repository when inside it, else to the
// folder the session ran in (another clone's root), as stored paths are;
// false for a path outside both, or one that climbs out.
func projectPath(root, cwd, p string) (string, bool) {
	rel := repopath.Rel(root, cwd, p)
	if c, ok := repopath.Under(cwd, rel); ok && repopath.IsAbs(rel) {
		rel = c
	}
	if repopath.IsAbs(rel) || rel == "" || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return rel, true
}

// filteredNothing reports a call whose only failure is its last link, a
// filter (grep, rg, findstr), finding nothing: exit 1 and no error text.
// The command before it ran; as a fix it passed.
func filteredNothing(t transcript.ToolCall) bool {
	if errorLine(t.Error) != "" {
		return false
	}
	links := splitLinks(shellWords(commandLine(t.Command)))
	if len(links) < 2 {
		return false
	}
	last := skipPrefixes(links[len(links)-1])
	return len(last) > 0 && filters[progName(last[0])]
}

// filters are the programs whose exit status says whether they found
// something.
var filters = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "findstr": true, "select-string": true}

// failedStep is a failure as a fix is matched to it.
type failedStep struct {
	step
	err string // its error line
	// misplaced: a read of a file that was not where the agent looked.
	// Only finding the same file elsewhere makes it a lesson.
	misplaced bool
	// misnamed: the branch or revision a look around named that the
	// repository does not have ("main" where it has "master"). Only the
	// same look with that one name put right makes it a lesson.
	misnamed string
}

// unmasked is the session with the shell calls that passed only because
// a filter ended their pipeline read as the failures they were: what they
// printed first is an error of one of their programs or of the shell
// (`git count-objects -v 2>&1 | head` printing "fatal: detected dubious
// ownership in repository ..."). The agent read it so, and what it ran
// next is the fix.
func unmasked(ch *transcript.Channels) *transcript.Channels {
	var tools []transcript.ToolCall
	for i, t := range ch.Tools {
		if t.IsError || t.Hidden == "" {
			continue
		}
		if first := printedFirst(t.Hidden); !saidByProgram(first, t.Command) || errorLine(first) == "" {
			continue
		}
		if tools == nil {
			tools = slices.Clone(ch.Tools)
		}
		tools[i].IsError, tools[i].Error = true, t.Hidden
	}
	if tools == nil {
		return ch
	}
	c := *ch
	c.Tools = tools
	return &c
}

// printedFirst is the first line a command printed, past the report an
// agent's runner wraps around it ("Exit code: 0", "Wall time: …",
// "Output:").
func printedFirst(out string) string {
	l, _, _ := printedFirstAt(out)
	return l
}

// printedFirstAt is printedFirst with its index among the output's lines
// (-1 when it printed none) and whether it was indented.
func printedFirstAt(out string) (line string, at int, indented bool) {
	for i, raw := range strings.Split(out, "\n") {
		l := strings.TrimSpace(raw)
		if low := strings.ToLower(l); l == "" || runnerReport(low) || timing().MatchString(l) {
			continue
		}
		return l, i, raw != strings.TrimLeft(raw, " \t")
	}
	return "", -1, false
}

// saidByProgram reports a line a program of the command, or the shell,
// wrote about itself ("ls: cannot access …", "fatal: …", "/bin/bash: line
// 1: sudo: command not found"), not a line of what it read or found: a
// log line that holds "error" is what `tail` was asked to show.
func saidByProgram(line, command string) bool {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "Traceback (most recent call last)") || strings.HasPrefix(strings.ToLower(line), "npm err") {
		return true
	}
	for _, glyph := range []string{"✖", "✗", "❌", "⨯"} {
		if strings.HasPrefix(line, glyph) {
			return true // the mark a command line tool puts before its own error
		}
	}
	head, _, ok := strings.Cut(line, ":")
	if !ok || strings.ContainsAny(head, " \t") {
		return false
	}
	switch head {
	// Lower case: "ERROR:" opens a line of a log, which is what was read.
	// "(eval)": zsh names the command line so when the harness runs it
	// through eval, as Claude Code does on macOS.
	case "fatal", "error", "bash", "sh", "zsh", "(eval)", "/bin/bash", "/bin/sh", "/usr/bin/bash", "usage", "Usage":
		return true
	}
	for _, s := range stepsOf(command) {
		if s.prog != "" && progName(strings.ToLower(head)) == s.prog {
			return true
		}
	}
	return false
}

// failure reports a call that really failed, with its step and error
// line: a non-protocol error of a command, with an error to read, that is
// not a probe finding nothing.
func failure(t *transcript.ToolCall) (failedStep, bool) {
	if !t.Failed() || t.Command == "" {
		return failedStep{}, false
	}
	text := withoutHarness(t.Error)
	if nothingToCommit(text) {
		// git commit exits 1 when nothing is staged, and says so in its
		// status ("On branch main … no changes added to commit"): a
		// report, not an error with a fix.
		return failedStep{}, false
	}
	e := errorLine(text)
	if e == "" {
		return failedStep{}, false
	}
	s := parseStep(t.Command, text)
	if s.key == "" {
		return failedStep{}, false
	}
	if low := strings.ToLower(text); exploringStep(s) && !usageError(low) && !notFound(e, s.prog) && !cannotStart(low, s.prog) && !blocked(low) && sudoLine(low) == "" {
		if missing(e) {
			return failedStep{step: s, err: e, misplaced: true}, true
		}
		if ref := unknownRevision(e); ref != "" {
			return failedStep{step: s, err: e, misnamed: ref}, true
		}
		return failedStep{}, false // grep found nothing
	}
	return failedStep{step: s, err: e}, true
}

// nothingToCommit reports git commit's status when nothing was staged.
func nothingToCommit(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "On branch ") && mentions(text, "nothing to commit", "no changes added to commit", "nothing added to commit")
}

// withoutHarness is an error without what the agent's own shell said:
// Git Bash on Windows failing to start a process (cygpath, fork). When
// that is all there is, running the command again is all it takes, and
// the next command is no fix of it; when the shell retried and the
// command then failed on its own ("ssh: Could not resolve hostname …"
// after "fork: retry"), what is left is the command's error.
func withoutHarness(text string) string {
	if !harness(text) {
		return text
	}
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		if !harness(line) && !strings.Contains(line, "dofork:") && !strings.Contains(line, "Win32 error") {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// harness reports text the agent's own shell wrote about failing to
// start a process.
func harness(text string) bool {
	for _, sig := range []string{"Command failed: cygpath", "cygheap read copy failed", "child_copy:", "fork: Resource temporarily unavailable", "fork: retry"} {
		if strings.Contains(text, sig) {
			return true
		}
	}
	return false
}

// sameStepIn returns the step of cmd that is the failed one's, the steps
// chained before it that do something ("nvm use 20" in "nvm use 20 && npm
// run build"), and whether one of them only waits; nil when cmd runs
// another step.
func sameStepIn(cmd string, f failedStep) (*step, []string, bool) {
	var before []string
	waits := false
	for _, s := range stepsOf(cmd) {
		if s.key == f.key {
			return &s, before, waits
		}
		switch {
		case s.carrier:
			// What carries the steps is not a step run before them.
		case pauses(s.prog):
			waits = true
		case s.key != "" && !setup[s.prog] && !exploringStep(s):
			before = append(before, s.line())
		}
	}
	return nil, nil, false
}

// personBetween reports a message of the person between two lines.
// spokeAt are the lines where the person speaks: what the agent does after
// one answers the person, not the call before it.
func spokeAt(ch *transcript.Channels) []int {
	var spoke []int
	for _, s := range ch.UserSignals {
		spoke = append(spoke, s.Line)
	}
	return spoke
}

// nextOwnCalls are the calls the agent that made call i made after it,
// within the fix window, up to where the person speaks again: what it did
// about that call. A subagent's calls are its own, and go on past the
// person's words to the main agent.
func nextOwnCalls(tools []transcript.ToolCall, spoke []int, i int) iter.Seq[*transcript.ToolCall] {
	return func(yield func(*transcript.ToolCall) bool) {
		f := &tools[i]
		for j := i + 1; j < len(tools) && j <= i+maxFixWindow; j++ {
			t := &tools[j]
			if t.Sidechain != f.Sidechain || t.AgentID != f.AgentID {
				continue
			}
			if !t.Sidechain && personBetween(spoke, f.Line, t.Line) || !yield(t) {
				return
			}
		}
	}
}

func personBetween(spoke []int, from, to int) bool {
	for _, l := range spoke {
		if l > from && l < to {
			return true
		}
	}
	return false
}

// fixObservation states what made the failed step pass, or reports that
// it cannot be told.
func fixObservation(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall, ps step, chained []string, between []transcript.ToolCall, said []string, waited bool, worked map[string]bool) (Observation, bool) {
	key := "`" + fs.key + "`"
	fails := " fails with \"" + clip(fs.err, 100) + "\""
	var steps []string // commands run between that do something
	var edits []string // files changed between
	for _, t := range between {
		switch {
		case t.Command != "" && t.HasResult && !t.IsError:
			steps = append(steps, oneLine(t.Command))
		case transcript.EditTool(t.Name) && len(t.Paths) > 0:
			edits = append(edits, t.Paths[0])
		}
	}
	if o, ok := moduleAbsent(failed, fs, passed, steps); ok {
		return o, true
	}
	if o, ok := quotedScriptBroke(failed, fs, passed); ok {
		return o, true
	}
	if below(failed.Command) != below(passed.Command) && !notFound(fs.err, fs.prog) {
		// The lines below the first (a heredoc's body, the rest of an
		// inline script) changed: the fix is in a script, not the command
		// (unless the program itself was missing: then it is the program).
		return Observation{}, false
	}
	// An option naming the folder the command ran in already (`git -C
	// <cwd>`) changes nothing: neither command is weighed with it.
	fs.words, ps.words = inFolder(fs.words, failed.Cwd), inFolder(ps.words, failed.Cwd)
	fw, pw := inFolder(shellWords(commandLine(failed.Command)), failed.Cwd), inFolder(shellWords(commandLine(passed.Command)), failed.Cwd)
	fw, pw = withoutPagers(fw), withoutPagers(pw)
	diff := withoutPlumbing(commandChanges(fw, pw, fs.step, ps))
	if len(diff) > 0 && !slices.ContainsFunc(diff, func(c change) bool { return !pause(c) }) {
		diff, waited = nil, true // "sleep 5 && brew install": the rerun waited first
	}
	if appendsOnly(fw, pw) {
		// "git checkout develop", then "git checkout develop && git pull":
		// what ran after the failed part cannot be what let it pass; the
		// steps between (`git stash`) did, or nothing did.
		diff = nil
	}
	chained = notRanIn(failed.Command, chained)
	if len(chained) > 0 {
		// "nvm use 20 && npm run build": the steps chained before the
		// same command, as if run apart.
		if !sameWords(fs.words, ps.words) {
			return Observation{}, false
		}
		diff = nil
	}
	if from, to, ok := otherFolder(failed.Command, passed.Command, failed.Cwd, fs.err); ok {
		// The folder was not where the agent thought, and the same step
		// passed from another: the lesson is where the folder is, for
		// the next cd into it, whatever else the rerun changed (a look
		// around as much as any).
		details := commandDetails(from, failed.Command, fails, "the command fails until it is fixed", "cd into `"+clip(to, 120)+"` instead")
		return failurePitfall(failed, "`"+clip(from, 100)+"` does not exist: use `"+clip(to, 120)+"` instead ("+key+fails+").", details,
			quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
			quote("tool", "`"+oneLine(passed.Command)+"` → passed")), true
	}
	if fs.misnamed != "" && (len(diff) != 1 || !namesRevision(unquote(diff[0].from), fs.misnamed) || strings.Contains(diff[0].to, " ")) {
		// A look at another branch is the agent moving on; the same
		// look with the name the error refused put right is the name
		// this repository uses.
		return Observation{}, false
	}
	if fs.misplaced {
		// A file not where the agent looked is a lesson only when the
		// same file is then read elsewhere: the path it will guess again.
		if p, ok := pathSwap(diff); !ok || len(diff) != 1 || !absent(fs.err, p) || !sameFile(p, unquote(diff[0].to)) {
			return Observation{}, false
		}
	}
	var pattern, resolution string
	area := fs.key
	switch {
	case len(chained) > 0 && len(diff) == 0:
		steps = append(steps, chained...)
		fallthrough
	case len(diff) == 0 && len(steps) > 0 && len(edits) == 0:
		var shown []string
		for _, s := range steps[max(0, len(steps)-3):] {
			shown = append(shown, "`"+clip(s, 80)+"`")
		}
		resolution = "run " + strings.Join(shown, ", then ") + " first"
		pattern = "Before " + key + ", run " + strings.Join(shown, ", then ") + ": without it, " + key + fails
	case len(diff) == 0 && passed.Escalated() && !failed.Escalated() && len(steps) == 0:
		return sandboxed(failed, fs, passed), true
	case len(diff) == 0 && len(edits) > 0 && len(steps) == 0:
		var configs []string
		for _, e := range edits {
			if configFile(e) && !worked[e] {
				configs = append(configs, relative(e, failed.Cwd))
			}
		}
		if len(configs) == 0 || len(configs) < len(edits) {
			// Source files changed, or files the agent was already
			// working on: the work itself, unless the error says the
			// rule the code broke (editFixed).
			return editFixed(failed, fs, passed, edits)
		}
		changed := strings.Join(unique(configs), ", ")
		resolution = "change " + changed
		pattern = key + fails + " until " + changed + " is changed"
	case len(diff) == 0 && waited && held(fs.err) && len(steps) == 0 && len(edits) == 0:
		resolution = "wait a moment and run it again"
		pattern = key + fails + " while another run holds it: wait a moment and run it again"
	case fs.prog == "git" && credentialPrompt(strings.ToLower(fs.err)) && len(steps) == 0 && len(edits) == 0 && !passed.Escalated() && namesOnly(diff):
		// Naming the remote or the branch answers no prompt for a
		// password: whatever let the rerun through (a credential the
		// person gave meanwhile), the lesson is the prompt.
		return unsupported(failed, fs)
	case cdSlip(diff, fs.err):
		// The folder was changed already, by an earlier call of the same
		// shell: a slip of the moment, not of the command.
		return Observation{}, false
	case bypassed(diff):
		// A check turned off (a hook, a signature, a certificate) is not
		// what was wrong: taught, it would teach skipping the check.
		return Observation{}, false
	case !looksAround(fs.step) && looksAround(ps):
		// An action turned into a look around (`pkg install openjdk-17`,
		// then `pkg search openjdk`): the agent went looking, and what it
		// found is not in the command.
		return Observation{}, false
	case removes(fs.step) && retargeted(diff):
		// Another file removed in place of one that was not there
		// (`Remove-Item backend/docker-compose.yml`, then `Remove-Item
		// .dockerignore`): the agent moved on. A flag added (`-r`) is a fix.
		return Observation{}, false
	case limitTweak(diff, fs.err):
		// Only a count changed that the error never named (`tail -20`,
		// then `tail -30`): how much was shown, not what was wrong.
		return Observation{}, false
	case otherSubcommand(fs.step, ps) && !wrongCommand(strings.ToLower(fs.err)):
		// It asked the program for something else, and the error did not
		// say the command was wrong: the agent moved on.
		return Observation{}, false
	case small(diff, fw, pw) && !sourceEdited(edits):
		// The command itself changed a little: that is the fix, whatever
		// the agent looked at on the way.
		resolution = "run `" + clip(ps.line(), 160) + "` instead"
		pattern = key + fails + ": " + describeChanges(diff)
		if p, ok := pathSwap(diff); ok {
			// Only a path was wrong: the lesson is about that path, and
			// the moment for it is when the path comes up again, not
			// every run of the program that read it.
			area = relative(p, failed.Cwd)
			switch {
			case fs.misplaced:
				// The right path first: a long pair is clipped at the
				// wrong one's end, which the area keeps whole.
				pattern = "Use `" + clip(relative(unquote(diff[0].to), failed.Cwd), 120) + "`: `" + area + "` does not exist"
			case absent(fs.err, p) && reads(fs.step) && !sameFile(p, unquote(diff[0].to)):
				// Another file read in place of a missing one is the
				// agent moving on, not where the missing one is (a
				// program run from another file is another matter).
				return Observation{}, false
			case absent(fs.err, p):
				pattern = "`" + clip(p, 100) + "` does not exist: use `" + clip(unquote(diff[0].to), 100) + "` instead (" + key + fails + ")"
			}
		} else if p, to, ok := missingSwap(diff, fs.err); ok {
			if reads(fs.step) && !sameFile(p, to) {
				// Another file read, with other lines of it, in place of
				// a missing one: the agent moved on, as above.
				return Observation{}, false
			}
			// The path the error says is missing changed, and other words
			// with it (a line range, a flag): the path was the mistake,
			// and the moment for the lesson is when it comes up again,
			// not every run of the program (`sed -n '1,160p' a/utils.py`,
			// then `sed -n '1,200p' a/views/utils.py`).
			area = relative(p, failed.Cwd)
			pattern = "`" + clip(p, 100) + "` does not exist: use `" + clip(to, 100) + "` instead (" + key + fails + ")"
		}
	case len(steps) == 0 && len(edits) == 0 && fs.through != ps.through && sameUnquoted(fs.words, ps.words):
		// The same command passed once another shell or a runner ran it
		// (`code x` from Git Bash, then `powershell 'code x'`): what ran
		// it is the fix.
		resolution = "run `" + clip(oneLine(passed.Command), 160) + "` instead"
		if ps.through == "" {
			pattern = key + fails + " through `" + outermost(fs.through) + "`: run it directly"
		} else {
			pattern = key + fails + ": run it through `" + outermost(ps.through) + "`"
		}
	case len(diff) > 0 && len(edits) == 0 && !exploringStep(fs.step):
		// Changed beyond telling what fixed it, no file changed on the
		// way: the agent may have said what it made of the failure.
		return explainedFix(failed, fs, passed, said)
	default:
		// Passed as it was (a flake), after source edits (the work), or a
		// look around that changed (what it found is not in the command).
		return Observation{}, false
	}
	details := commandDetails(area, failed.Command, fails, "the command fails until it is fixed", resolution)
	if more := errorAround(withoutHarness(failed.Error)); more != "" {
		details += "; output: " + field(more)
	}
	return failurePitfall(failed, pattern+".", details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("tool", "`"+oneLine(passed.Command)+"` → passed")), true
}

// editFixed is the lesson of a failure that the agent's edits fixed: a
// lesson only when the error line states the rule the code broke
// (platformRule: "require is not defined in ES module scope, you can use
// import instead", "Cannot overwrite variable Host because it is
// read-only"), which the agent will break again in another file; an error
// that only says the code is not done yet (a failed assertion, a missing
// attribute) is the work. The reported-error route holds the person's
// runs to the same rule.
func editFixed(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall, edits []string) (Observation, bool) {
	if len(edits) == 0 || !platformRule(strings.ToLower(fs.err)) || !errorReport().MatchString(strings.TrimSpace(fs.err)) {
		return Observation{}, false
	}
	var files []string
	for _, e := range edits {
		files = append(files, relative(e, failed.Cwd))
	}
	files = unique(files)
	if len(files) > maxShownEdits {
		files = files[:maxShownEdits]
	}
	key := "`" + fs.key + "`"
	fails := " fails with \"" + clip(fs.err, 100) + "\""
	shown := "`" + strings.Join(files, "`, `") + "`"
	details := commandDetails(files[0], failed.Command, fails, "the error comes back until the code follows the rule", "change "+strings.Join(files, ", "))
	if more := errorAround(withoutHarness(failed.Error)); more != "" {
		details += "; output: " + field(more)
	}
	return failurePitfall(failed, key+fails+": fixed by changing "+shown+".", details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("tool", "the agent changed "+strings.Join(files, ", ")+", then `"+oneLine(passed.Command)+"` got past it")), true
}

// platformRule reports an error line that says what the language, the
// framework or the platform allows, in words a mistake in the code being
// written does not use: "Cannot read properties of undefined", "invalid
// syntax" or "expected 3, got 4" say the code is not right yet, and fixing
// it is the work.
func platformRule(low string) bool {
	return mentions(low, "instead", "not supported", "unsupported", "not allowed", "not permitted", "deprecated", "read-only", "read only", "no longer", "can only", "must be", "must not", "requires ")
}

// onlyEdits reports calls made between a failure and its rerun that
// changed files and ran nothing (reads aside).
func onlyEdits(between []transcript.ToolCall) bool {
	return len(editsIn(between)) > 0 && !slices.ContainsFunc(between, func(t transcript.ToolCall) bool { return t.Command != "" })
}

// editsIn are the files the edit tools changed among calls.
func editsIn(calls []transcript.ToolCall) []string {
	var out []string
	for _, t := range calls {
		if transcript.EditTool(t.Name) && len(t.Paths) > 0 && !t.IsError {
			out = append(out, t.Paths[0])
		}
	}
	return out
}

// namesOnly reports changes that only add, drop or swap plain names (a
// remote, a branch: `origin main`), no option, setting or address.
func namesOnly(cs []change) bool {
	if len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		for _, w := range strings.Fields(c.from + " " + c.to) {
			if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "=:@/") {
				return false
			}
		}
	}
	return true
}

// limitTweak reports changes that only put one number for another where
// the error line names none of the numbers taken out: a line count, a
// depth or a page size the agent changed while it looked (`ssh host 'cd
// app && pm2 logs --lines 20'`, then `--lines 30`, after "cd: app: No such
// file or directory"). A number the error names ("port 3000 is already in
// use", then 3001) is what was wrong, and so is one when the error is
// about an amount (time run out, memory, a limit: `timeout 60`, then
// `timeout 300`).
func limitTweak(cs []change, errLine string) bool {
	if len(cs) == 0 || mentions(strings.ToLower(errLine), amountWords...) {
		return false
	}
	for _, c := range cs {
		if !number(c.from) || !number(c.to) || strings.Contains(errLine, c.from) {
			return false
		}
	}
	return true
}

// amountWords say an error is about an amount, which a number changes.
var amountWords = []string{"time", "memory", "killed", "limit", "exceed", "too many", "too large", "too big", "maximum", "max ", "size", "space", "quota", "budget"}

// number reports a word made of digits only.
func number(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// cdSlip reports a failure of the shell's own change of folder ("cd:
// frontend: No such file or directory", PowerShell's Set-Location) that
// passed once that change was left out or made another step ("cd
// frontend && npm run build", then "npm run build"): the shell was in
// that folder already, since an agent's shell keeps its folder from one
// call to the next. A change to another folder ("cd web") is a path the
// agent got wrong, and stays a lesson.
func cdSlip(cs []change, errLine string) bool {
	low := strings.ToLower(errLine)
	if !(strings.Contains(low, "cd: ") && (strings.Contains(low, "no such file or directory") || strings.Contains(low, "can't cd to")) ||
		strings.Contains(low, "set-location") && strings.Contains(low, "cannot find path")) {
		return false
	}
	if len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		from, to := strings.Fields(c.from), strings.Fields(c.to)
		if len(from) == 0 || !cdWord(from[0]) || len(to) > 0 && cdWord(to[0]) {
			return false
		}
	}
	return true
}

// otherFolder is the folder a failed command could not cd into and the
// folder the command that passed cd'd into instead, carried the same way
// (both here, or both over ssh to one host). A folder named from where the shell
// stood is left out on this machine: the shell keeps its folder from one
// call to the next, and `cd backend` failing there is a slip of the
// moment (cdSlip), not a folder that is elsewhere; so is a folder named
// from the root inside the one the shell stood in (cwd), which the stored
// lesson would name from the project's folder, as it names the folder the
// command passed in when that one is the project's too: "<worktree>/shop
// does not exist: use <worktree>" would mislead. On another machine the
// shell starts at home each time, so the name holds.
func otherFolder(failed, passed, cwd, errLine string) (from, to string, ok bool) {
	if !cdMissing(errLine) {
		return "", "", false
	}
	from, fvia, fok := cdInto(failed)
	to, tvia, tok := cdInto(passed)
	if !fok || !tok || fvia != tvia || hostOf(failed) != hostOf(passed) || bare(from) == bare(to) || !namesPath(errLine, from) {
		return "", "", false
	}
	if fvia == "" && !repopath.IsAbs(from) && !strings.HasPrefix(from, "~") {
		return "", "", false
	}
	if _, inside := repopath.Under(cwd, driveSlash(from)); fvia == "" && inside {
		return "", "", false
	}
	if fvia == "" && !repopath.IsAbs(to) && !strings.HasPrefix(to, "~") {
		return "", "", false // "use shop": from where the shell stood, no place of its own
	}
	return from, to, true
}

// driveSlash is a Git Bash path to a Windows drive (/c/Users/ana) as
// Windows writes it (c:/Users/ana), so that it compares with a Windows
// working folder.
func driveSlash(p string) string {
	if len(p) >= 3 && p[0] == '/' && p[2] == '/' && ('a' <= p[1] && p[1] <= 'z' || 'A' <= p[1] && p[1] <= 'Z') {
		return p[1:2] + ":" + p[2:]
	}
	return p
}

// cdInto is the folder a command's first change of folder goes to, and
// what carried it to another machine ("" for none).
func cdInto(cmd string) (dir, via string, ok bool) {
	for _, s := range stepsOf(cmd) {
		if s.carrier || len(s.words) == 0 {
			continue
		}
		if !cdWord(progName(s.words[0])) {
			return "", "", false
		}
		var args []string
		for _, w := range s.words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.EqualFold(w, "/d") {
				args = append(args, unquote(w))
			}
		}
		if len(args) != 1 || unheld(args[0]) {
			return "", "", false
		}
		return args[0], s.via, true
	}
	return "", "", false
}

// cdMissing reports a shell's error that the folder a cd named is not
// there (bash, zsh, sh, PowerShell's Set-Location).
func cdMissing(errLine string) bool {
	low := strings.ToLower(errLine)
	// zsh says "cd:1: no such file or directory: x", bash "cd: x: No
	// such file or directory", dash "can't cd to x".
	return strings.Contains(low, "cd:") && (strings.Contains(low, "no such file or directory") || strings.Contains(low, "can't cd to")) ||
		strings.Contains(low, "set-location") && strings.Contains(low, "cannot find path")
}

// sameUnquoted reports two commands that are the same words once their
// quotes are taken off: `code "C:\x.md"` and `code C:\x.md`.
func sameUnquoted(a, b []string) bool {
	words := func(ws []string) string {
		var out []string
		for _, w := range ws {
			out = append(out, strings.Fields(unquote(w))...)
		}
		return strings.Join(out, " ")
	}
	return len(a) > 0 && words(a) == words(b)
}

// outermost is the first of the shells and runners a step went through.
func outermost(through string) string {
	first, _, _ := strings.Cut(through, " ")
	return first
}

// notRanIn is the steps of chained that the command cmd did not run
// already: a step chained before the failed command as well is no fix.
func notRanIn(cmd string, chained []string) []string {
	if len(chained) == 0 {
		return nil
	}
	ran := map[string]bool{}
	for _, s := range stepsOf(cmd) {
		ran[s.line()] = true
	}
	var out []string
	for _, c := range chained {
		if !ran[c] {
			out = append(out, c)
		}
	}
	return out
}

// below is a command's text after its first line, spaces collapsed.
func below(cmd string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(joinContinued(cmd)), "\n")
	return strings.Join(strings.Fields(rest), " ")
}

// failurePitfall is the observation of a lesson learned from the failed
// call f, sighted where its error came back.
func failurePitfall(f transcript.ToolCall, pattern, details string, evidence ...string) Observation {
	if rt := runtimeIn(f.Error); rt != "" {
		details += "; runtime: " + rt
	}
	return pitfallAt(f.SessionID, recordOf(&f), f.Timestamp, pattern, details, evidence...)
}

// pitfallAt is a pitfall the tool calls taught, sighted at a record.
func pitfallAt(session, record, timestamp, pattern, details string, evidence ...string) Observation {
	return Observation{
		Type:       Pitfall,
		Pattern:    clip(pattern, maxPattern),
		Details:    details,
		Evidence:   evidence,
		QualityOK:  true,
		SessionID:  session,
		RecordUUID: record,
		Timestamp:  timestamp,
		Extractor:  ExtractorFailureFix,
		Class:      ClassFailureFix,
	}
}

// recordOf is where a call's outcome was seen: its result's record, else
// the call's own.
func recordOf(t *transcript.ToolCall) string {
	if t.ResultUUID != "" {
		return t.ResultUUID
	}
	return t.UUID
}

// editedBefore are the files changed by the calls before a failure: a
// file the agent was working on is the work, not a setting to know.
func editedBefore(calls []transcript.ToolCall) map[string]bool {
	out := map[string]bool{}
	for _, t := range calls {
		if transcript.EditTool(t.Name) && len(t.Paths) > 0 {
			out[t.Paths[0]] = true
		}
	}
	return out
}

// unsupported is the lesson of a program that is not installed where the
// agent runs, or of an option it does not take there, when no fix
// followed: the agent need not try it again.
func unsupported(f transcript.ToolCall, fs failedStep) (Observation, bool) {
	var pattern, issue string
	area := fs.key
	switch {
	case fs.misplaced:
		return Observation{}, false
	case fs.prog == "git" && credentialPrompt(strings.ToLower(fs.err)):
		// Worded without the error, which names the host: every push
		// that fails so is one lesson. In a chain (`git add -A && git
		// commit … && git push`), the link that reaches the remote asked.
		area = remoteStep(f.Command, fs.key)
		pattern = "`" + area + "` cannot ask for a username or password in the agent's shell, which has no terminal: give it a token or a credential helper (`gh auth setup-git` for GitHub), or ask the person to run it."
		issue = "git asked for credentials, and the agent's shell cannot answer"
	case sudoLine(f.Error) != "":
		// Worded without the command, so that every sudo that fails so,
		// in this session or the next, is one lesson, served before the
		// next sudo. The error is sudo's line, wherever it stands: a
		// fingerprint reader's prompt and its time-out come first.
		pattern = "`sudo` cannot ask for a password in the agent's shell, which has no terminal: ask the person to run what needs it (it fails with \"" + clip(sudoLine(f.Error), 60) + "\")."
		issue = "sudo needs a terminal to read the password, and the agent's shell has none"
		area = "sudo"
	case notFound(fs.err, fs.prog):
		pattern = "`" + fs.prog + "` is not available " + where(fs) + ": `" + clip(fs.line(), 60) + "` fails with \"" + clip(fs.err, 100) + "\"."
		issue = fs.prog + " is not installed " + strings.Replace(where(fs), "here", "where the agent runs", 1)
	case certificateError(strings.ToLower(f.Error)):
		// A proxy on the network, or a server whose certificate is not
		// trusted: nothing the agent may change about the command, and
		// turning the check off is no fix (bypassed).
		pattern = "`" + fs.prog + "` cannot verify the server's TLS certificate from the agent's shell here: ask the person to run it, and do not turn the check off."
		issue = fs.prog + " cannot verify the server's certificate (\"" + clip(certificateLine(f.Error), 120) + "\"): a proxy on this network or an untrusted certificate"
		// The network is the moment, not the program: served at every
		// later run of it, it distracted where the network let it
		// through. It is listed in the index a session starts with.
		area = "TLS certificates"
	case optionError(strings.ToLower(fs.err)):
		pattern = "`" + clip(fs.line(), 80) + "` is not supported " + where(fs) + ": it fails with \"" + clip(fs.err, 100) + "\"."
		issue = fs.prog + " does not take these arguments " + where(fs)
	case noSuchTarget(strings.ToLower(fs.err)):
		pattern = "`" + clip(fs.line(), 80) + "` names no script or target of this project: it fails with \"" + clip(fs.err, 100) + "\"."
		issue = "the project defines no such script or target"
	case namesAlternative(strings.ToLower(fs.err)) && !raised(fs.err):
		pattern = "`" + clip(fs.line(), 80) + "` fails, and says what to run instead: \"" + clip(fs.err, 140) + "\"."
		issue = "the command's own error names what to run"
	default:
		return Observation{}, false
	}
	if noSuchTarget(strings.ToLower(fs.err)) && area == fs.prog && len(fs.words) > 1 && !strings.HasPrefix(fs.words[1], "-") {
		// "yarn test:web": the script is the moment, not every yarn run.
		area = fs.prog + " " + unquote(fs.words[1])
	}
	details := "area: " + field(area) + "; issue: " + field(issue) + "; impact: the command fails; resolution: call it otherwise, use another program, or ask the person"
	return failurePitfall(f, pattern, details, quote("tool", "`"+oneLine(f.Command)+"` → "+fs.err)), true
}

// expandedByCaller reads a PowerShell script passed in double quotes
// (`powershell -Command "… $_.Name …"`) that failed because the shell
// running the command expanded its variables first: the error holds what
// followed a variable without the variable (`$_.Name` arrived as
// `extglob.Name`, bash's last argument put in its place). Worded without
// the command, so that every such failure is one lesson, served before
// the next powershell call.
func expandedByCaller(f transcript.ToolCall, fs failedStep) (Observation, bool) {
	words := shellWords(commandLine(f.Command))
	if len(words) < 2 {
		return Observation{}, false
	}
	if p := progName(words[0]); p != "powershell" && p != "pwsh" {
		return Observation{}, false
	}
	script := powershellScript(words[1:])
	if !strings.HasPrefix(script, `"`) {
		return Observation{}, false
	}
	for _, m := range variableRe().FindAllStringSubmatch(script, -1) {
		if member := m[2]; strings.Contains(f.Error, member) && !strings.Contains(f.Error, m[1]+member) {
			pattern := "`$` inside a double-quoted `powershell -Command \"…\"` is expanded by the shell running it before PowerShell reads it: put the PowerShell command in single quotes."
			details := commandDetails("powershell", f.Command, " fails with \""+clip(fs.err, 100)+"\"",
				field("`"+m[1]+member+"` reached PowerShell without `"+m[1]+"`"), "quote the PowerShell command in single quotes (or escape each `$`)")
			return failurePitfall(f, pattern, details, quote("tool", "`"+oneLine(f.Command)+"` → "+oneLine(f.Error))), true
		}
	}
	return Observation{}, false
}

// variableRe finds a PowerShell variable and the member read on it:
// `$_.Name`, `$proc.Id`.
var variableRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(\$[A-Za-z_]\w*)(\.[A-Za-z]\w{2,})`)
})

// sudoLine is the line of text in which sudo says it failed for want of
// a terminal to ask for the password on ("sudo: a terminal is required to
// read the password", "no tty present", localised as sudo is: "sudo: для
// ввода пароля требуется терминал"), or for a password it could not
// read; "" when there is none.
func sudoLine(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		low := strings.ToLower(line)
		if strings.HasPrefix(low, "sudo:") && mentions(low, "terminal", "терминал", "tty", "端末", "终端", "終端", "터미널", "password is required") {
			return line
		}
	}
	return ""
}

// remoteStep is the git subcommand of cmd that reaches a remote, or key
// when it names none. The whole command is read: a commit message in a
// heredoc comes before the push chained after it.
func remoteStep(cmd, key string) string {
	if m := remoteGit().FindStringSubmatch(cmd); m != nil {
		return "git " + m[1]
	}
	return key
}

var remoteGit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bgit\s+(push|pull|fetch|clone|ls-remote)\b`)
})

// credentialPrompt reports git failing because it would have asked for a
// username or password ("fatal: could not read Username for
// 'https://github.com': No such device or address", "terminal prompts
// disabled").
func credentialPrompt(low string) bool {
	return mentions(low, "could not read username", "could not read password", "terminal prompts disabled")
}

// heldShell is the lesson of a server started in the foreground: it never
// returns, so the tool's time limit ended the call ("Command timed out
// after 2m 0.0s", Codex's "command timed out after 20017 milliseconds").
// A server is told by what it printed (serving, listening, its local
// address) or by its name (http-server, python -m http.server, runserver,
// serve); a slow build or a hung client that timed out is no server.
// Claude Code reports its time limit as its own error (Protocol), so the
// call is read here, before failure leaves such errors out.
func heldShell(f transcript.ToolCall) (Observation, bool) {
	if !f.IsError || f.Rejected || f.Command == "" {
		return Observation{}, false
	}
	e := errorLine(f.Error)
	if !strings.HasPrefix(strings.ToLower(e), "command timed out") {
		return Observation{}, false
	}
	fs := failedStep{step: lastStep(f.Command, f.Error), err: e}
	if fs.key == "" || !serving(strings.ToLower(f.Error)) && !serverNamed(fs.step) {
		return Observation{}, false
	}
	pattern := "`" + fs.key + "` never returns: run in the foreground, it held the shell until the tool's time limit. Start it in the background, its output sent to a file (`… > server.log 2>&1 &`)."
	details := commandDetails(fs.key, f.Command, " fails with \""+clip(fs.err, 100)+"\"",
		"the call blocks until the tool gives up, and the server stops with it",
		"start it in the background, its output redirected (`… > server.log 2>&1 &`), and check it with curl")
	return failurePitfall(f, pattern, details, quote("tool", "`"+oneLine(f.Command)+"` → "+fs.err)), true
}

// serving reports output in which a program says it serves: its address
// on this machine, or that it listens.
func serving(low string) bool {
	return localAddress().MatchString(low) || mentions(low, "serving ", "listening on", "listening at", "running on http", "server running", "server started", "started server")
}

var localAddress = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::\]):\d{2,5}\b`)
})

// serverNamed reports a step whose program or subcommand is a server's
// name.
func serverNamed(s step) bool {
	for _, w := range strings.Fields(s.key) {
		w = strings.ToLower(w)
		if strings.HasSuffix(w, "server") || w == "serve" || w == "runserver" {
			return true
		}
	}
	return false
}

// where names where a step ran: here, or the machine or container its
// carrier reaches (a program missing on a router is not missing here).
func where(fs failedStep) string {
	if fs.via == "" {
		return "here"
	}
	return "on the machine `" + fs.via + "` reaches"
}

// ranLater reports a call after the i-th that ran the program prog and
// passed: the program is there after all (installed, or found on another
// path), so its absence is no standing lesson.
func ranLater(calls []transcript.ToolCall, i int, fs failedStep) bool {
	for _, t := range calls[i+1:] {
		if t.Command == "" || t.Failed() || !t.HasResult {
			continue
		}
		for _, s := range stepsOf(t.Command) {
			if s.prog == fs.prog && s.via == fs.via {
				return true
			}
		}
	}
	return false
}

// calledByPath is the path a call after the i-th ran the program by, and
// passed, when the failed step had called it by its name: the program is
// there, only not on the PATH. "" when no call did so, or when something
// was installed first (rustup, then `~/.cargo/bin/cargo`): the program
// was missing then, and the install was the fix.
func calledByPath(calls []transcript.ToolCall, i int, fs failedStep) string {
	if len(fs.words) == 0 || strings.ContainsAny(unquote(fs.words[0]), "/\\") {
		return ""
	}
	for _, t := range calls[i+1:] {
		if installs(t.Command) {
			return ""
		}
		if t.Command == "" || t.Failed() || !t.HasResult {
			continue
		}
		for _, s := range stepsOf(t.Command) {
			if s.prog != fs.prog || s.via != fs.via || len(s.words) == 0 {
				continue
			}
			if p := unquote(s.words[0]); strings.ContainsAny(p, "/\\") {
				return p
			}
		}
	}
	return ""
}

// escalatedLater is the first later call of the session that ran the
// failed step outside the sandbox and passed, when the failure was a
// refusal (deniedHere) inside it; nil otherwise.
func escalatedLater(calls []transcript.ToolCall, i int, fs failedStep) *transcript.ToolCall {
	f := calls[i]
	if f.Escalated() || !deniedHere(fs.err) {
		return nil
	}
	for j := i + 1; j < len(calls); j++ {
		t := &calls[j]
		if !leftSandbox(f, fs, *t) || t.Failed() || !t.HasResult || t.Sidechain != f.Sidechain || t.AgentID != f.AgentID {
			continue
		}
		if s, _, _ := sameStepIn(t.Command, fs); s != nil {
			return t
		}
	}
	return nil
}

// installs reports a command that installs something: a package
// manager's install, an installer script.
func installs(cmd string) bool {
	for _, w := range strings.Fields(strings.ToLower(cmd)) {
		w = strings.Trim(w, "'\"")
		if w == "install" || strings.HasSuffix(w, "-init") || strings.HasSuffix(w, "-init.sh") || strings.HasSuffix(w, "install.sh") {
			return true
		}
	}
	return false
}

// notOnPath is the lesson of a program its name did not find and a path
// did: call it by that path. Its area is the program, so the next run of
// it by name is its moment.
func notOnPath(f transcript.ToolCall, fs failedStep, path string) Observation {
	pattern := "`" + fs.prog + "` is not on the PATH " + where(fs) + ": `" + clip(fs.line(), 60) + "` fails with \"" + clip(fs.err, 100) + "\"; run it as `" + clip(path, 100) + "`."
	details := "area: " + field(fs.prog) + "; issue: " + field(fs.prog+" is not found by its name "+strings.Replace(where(fs), "here", "where the agent runs", 1)) +
		"; impact: the command fails; resolution: " + field("run it as "+path)
	return failurePitfall(f, pattern, details, quote("tool", "`"+oneLine(f.Command)+"` → "+fs.err), quote("tool", "a later call ran "+path))
}

// notFound reports an error saying the program itself is not there.
func notFound(errLine, prog string) bool {
	low := strings.ToLower(errLine)
	if !strings.Contains(low, prog) {
		return false
	}
	for _, p := range []string{"command not found", "is not recognized as the name of a cmdlet", "is not recognized as an internal or external command", "no such file or directory", "not found"} {
		if strings.Contains(low, prog+": "+p) || strings.Contains(low, prog+"' "+p) || strings.Contains(low, "'"+prog+"' is not recognized") || strings.Contains(low, prog+": command not found") {
			return true
		}
	}
	return mentions(low, notFoundWords...)
}

// notFoundWords are how a shell says it found no such program, in the
// languages its messages are translated into: bash's "command not found"
// and PowerShell's "is not recognized as the name of a cmdlet" (the
// program is named in the same line, checked above).
var notFoundWords = []string{
	"command not found", "orden no encontrada", "comando no encontrado", "commande introuvable",
	"befehl nicht gefunden", "kommando nicht gefunden", "команда не найдена", "未找到命令", "找不到命令",
	"コマンドが見つかりません", "명령어를 찾을 수 없", "명령을 찾을 수 없", "comando não encontrado",
	"no se reconoce como nombre", "n'est pas reconnu comme nom", "wurde nicht als name eines cmdlet",
	"não é reconhecido como nome", "として認識されません", "识别为 cmdlet", "не распознано как имя", "인식되지 않습니다",
}

// cannotStart reports an error saying the program could not even be
// started: a script whose interpreter line is wrong (a CRLF line end), one
// not executable, a binary for another machine. A probe that cannot start
// has failed as surely as any command.
func cannotStart(low, prog string) bool {
	for _, p := range []string{": bad interpreter", ": permission denied", ": cannot execute", ": exec format error"} {
		if strings.Contains(low, prog+p) {
			return true
		}
	}
	return false
}

// plumbing are the words that only route a command's output: a
// redirection, or a filter the output is piped to last. Added or taken
// out on a rerun, they change what is shown, not whether it works (and a
// filter last hides the exit status: such a rerun "passes" whatever
// happened).
func plumbing(c change) bool {
	for _, side := range []string{c.from, c.to} {
		words := strings.Fields(side)
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case redirection(w):
				i += redirected(words, i) - 1
			case w == "|" || w == "|&":
				if i+1 >= len(words) || !pagers[progName(words[i+1])] {
					return false
				}
				i = len(words) // the filter's own arguments
			default:
				return false
			}
		}
	}
	return true
}

// pause reports a change that only puts a wait before the command:
// "sleep 5 &&".
func pause(c change) bool {
	words := strings.Fields(c.to)
	if c.from != "" || len(words) < 2 || !pauses(progName(words[0])) {
		return false
	}
	for _, w := range words[1:] {
		if !isNumberish(w) && w != "&&" && w != ";" && !strings.HasPrefix(w, "-") {
			return false
		}
	}
	return true
}

// redirection reports a shell word that sends a stream somewhere: 2>&1,
// >/dev/null, 2>, &>.
func redirection(w string) bool {
	w = strings.TrimLeft(w, "0123456789&")
	return strings.HasPrefix(w, ">")
}

// pagers are the programs output is piped to only to be shown shorter.
var pagers = map[string]bool{"head": true, "tail": true, "less": true, "more": true, "cat": true, "select-object": true, "out-string": true}

// withoutPagers is a command's words without the pagers its output is
// piped through (`| tail -1`, `| head -20`) and their arguments: how much
// of the output the agent read is no part of a fix (`tail -1` then `tail
// -3` is the same `npm install`).
func withoutPagers(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		if (words[i] == "|" || words[i] == "|&") && i+1 < len(words) && pagers[progName(words[i+1])] {
			i++
			for i+1 < len(words) && !chainWord(words[i+1]) {
				i++
			}
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// chainWord reports a word that ends one command of a line and starts the
// next.
func chainWord(w string) bool {
	switch w {
	case "|", "|&", "&&", "||", ";", "&":
		return true
	}
	return false
}

// withoutPlumbing is cs without the changes that only route output.
func withoutPlumbing(cs []change) []change {
	var out []change
	for _, c := range cs {
		switch {
		case plumbing(c):
		case c.from != "" && c.to != "" && plumbing(change{to: c.to}):
			// "validate" replaced by "2>&1": the word was left out.
			out = append(out, change{from: c.from, fromWords: c.fromWords})
		case c.from != "" && c.to != "" && plumbing(change{from: c.from}):
			out = append(out, change{to: c.to, toWords: c.toWords})
		default:
			out = append(out, c)
		}
	}
	return out
}

// change is one difference between a failed command and its fix: the
// words taken out and the words put in at one place (either may be
// empty), and how many words each weighs (weight).
type change struct {
	from, to           string
	fromWords, toWords int
}

// maxWords bounds the commands compared word by word.
const maxWords = 120

// commandChanges are the differences between the words of a failed
// command line and those of the one that passed, as runs of words; nil
// when they are the same. For a command carried by a quoted string (ssh
// host "…", bash -c "…") whose only change is inside it, the words inside
// are compared.
func commandChanges(failed, passed []string, fs, ps step) []change {
	cs := wordChanges(failed, passed)
	if len(cs) == 1 && quoted(cs[0].from) && quoted(cs[0].to) {
		return wordChanges(fs.words, ps.words)
	}
	return cs
}

func quoted(w string) bool {
	return len(w) >= 2 && (w[0] == '"' || w[0] == '\'') && w[len(w)-1] == w[0]
}

// wordChanges compares two word lists by their longest common
// subsequence and returns the runs that differ.
func wordChanges(a, b []string) []change {
	if len(a) > maxWords || len(b) > maxWords {
		if strings.Join(a, " ") == strings.Join(b, " ") {
			return nil
		}
		return []change{{strings.Join(a, " "), strings.Join(b, " "), weight(a), weight(b)}}
	}
	// lcs[i][j]: the common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []change
	var from, to []string
	flush := func() {
		if len(from)+len(to) > 0 {
			out = append(out, change{strings.Join(from, " "), strings.Join(to, " "), weight(from), weight(to)})
			from, to = nil, nil
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j] && !(len(to) > 0 && len(from) == 0 && lcs[i][j+1] == lcs[i][j]):
			flush()
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			// An insertion goes on while the word it meets can as well
			// be matched later: "--with ruff" inserted before "ruff",
			// one change, not "--with" and "ruff" apart.
			to = append(to, b[j])
			j++
		default:
			from = append(from, a[i])
			i++
		}
	}
	flush()
	return out
}

// appendsOnly reports a passed command line that is the failed one, word
// for word, with more steps after it (`&&`, `;`, `||`, a pipe); where
// the output was sent (`2>&1`) is no part of either.
func appendsOnly(failed, passed []string) bool {
	failed, passed = unredirected(failed), unredirected(passed)
	if len(passed) <= len(failed) || !slices.Equal(failed, passed[:len(failed)]) {
		return false
	}
	switch passed[len(failed)] {
	case "&&", ";", "||", "|":
		return true
	}
	return false
}

// unredirected is words without their redirections and the targets of
// those written apart ("2> /dev/null").
func unredirected(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		if redirection(words[i]) {
			i += redirected(words, i) - 1
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// redirected is how many words the redirection at words[i] takes: one, or
// two when its target is written apart ("2> /dev/null").
func redirected(words []string, i int) int {
	if strings.HasSuffix(words[i], ">") && i+1 < len(words) {
		return 2
	}
	return 1
}

// weight is how many words a run of shell words counts for in a change:
// a quoted path with spaces in it ("C:\Program Files\GitHub CLI\gh.exe")
// is one, and so is a list of files side by side, unquoted (`git add .`
// fixed by `git add index.html styles.css script.js`: the files named one
// by one are one change, an instance's list); a quoted script, pattern or
// sentence counts its words.
func weight(words []string) int {
	n := 0
	listed := false // the word before was a file of a list
	for _, w := range words {
		if quoted(w) && quotedPath(w[1:len(w)-1]) {
			n++
			listed = false
			continue
		}
		if !quoted(w) && !strings.ContainsAny(w, " \t") && vocab.PathLike(w) {
			if !listed {
				n++
			}
			listed = true
			continue
		}
		listed = false
		n += max(1, len(strings.Fields(w)))
	}
	return n
}

// quotedPath reports a quoted word that names a file: separators, and
// none of the characters of code or a shell (parentheses are a path's
// too: "Program Files (x86)").
func quotedPath(s string) bool {
	return strings.ContainsAny(s, `/\`) && !strings.ContainsAny(s, ";{}=<>|&$`'\"\n")
}

// small reports changes a fix may make and still be the same command: a
// run or two of a few words, the rest kept.
func small(cs []change, a, b []string) bool {
	if len(cs) == 0 || len(cs) > 2 {
		return false
	}
	n := 0
	for _, c := range cs {
		n += max(c.fromWords, c.toWords)
	}
	return n <= 2*maxChanged && n < max(len(a), len(b))
}

// bypassed reports a change that turns a check off, whatever else it
// changed: `--no-rebase --no-gpg-sign` in place of `--rebase` may pass
// only because the signature was skipped, and taught, it would teach
// skipping it.
func bypassed(cs []change) bool {
	for _, c := range cs {
		for _, w := range strings.Fields(c.to) {
			if bypassFlags[strings.ToLower(strings.SplitN(w, "=", 2)[0])] {
				return true
			}
		}
	}
	return false
}

// bypassFlags turn off a check: git's hooks and signatures, TLS
// verification, pip's guard of the system's packages, npm's install
// scripts (what builds a package).
var bypassFlags = map[string]bool{
	"--no-verify": true, "--no-gpg-sign": true, "--insecure": true, "-k": true, "--no-check-certificate": true,
	"--break-system-packages": true, "--trusted-host": true, "--allow-unauthenticated": true, "--skip-verify": true,
	"--disable-verification": true, "--no-sign": true, "--ignore-scripts": true,
}

// describeChanges says what the fix changed.
func describeChanges(cs []change) string {
	var parts []string
	for _, c := range cs {
		switch {
		case c.from == "":
			parts = append(parts, "add `"+clip(c.to, 80)+"`")
		case c.to == "":
			parts = append(parts, "leave out `"+clip(c.from, 80)+"`")
		default:
			parts = append(parts, "use `"+clip(c.to, 80)+"` instead of `"+clip(c.from, 80)+"`")
		}
	}
	return strings.Join(parts, ", ")
}

// pathSwap reports a fix that only put one path in place of another,
// with the path that was wrong. The same path written otherwise (quoted,
// its parentheses escaped) is a fix of how the command is written, and a
// path a trigger cannot hold whole (spaces, parentheses, quotes) is left
// to the command.
func pathSwap(cs []change) (string, bool) {
	if len(cs) == 0 {
		return "", false
	}
	for _, c := range cs {
		if c.fromWords != 1 || c.toWords != 1 || !swapsPath(unquote(c.from), unquote(c.to)) {
			return "", false
		}
	}
	return unquote(cs[0].from), true
}

// swapsPath reports one path of the project put in place of another. An
// address is no path of the project: one URL put in place of another
// (`curl http://localhost:8080/health`, then `curl https://api…/health`)
// is a lesson about the command's argument, for the next call that
// passes it. Nor is a glob one path, on either side: `chmod +x *.sh` made
// to pass by naming the scripts is about that call, not a file every
// later script edit should hear of.
func swapsPath(from, to string) bool {
	return vocab.PathLike(from) && vocab.PathLike(to) && !unheld(from) && bare(from) != bare(to) &&
		!strings.Contains(from, "://") && !strings.Contains(to, "://") && !strings.ContainsAny(from+to, "*?")
}

// missingSwap is the one path a change set puts another path in place of
// where the error says that path is missing, whatever else changed with
// it; false when no such path changed, or two did.
func missingSwap(cs []change, errLine string) (from, to string, ok bool) {
	// The one word of a run that is a path ("'1,160p' a/utils.py" is one
	// run of changed words).
	onePath := func(side string) (string, bool) {
		found, n := "", 0
		for _, w := range strings.Fields(side) {
			if w = unquote(w); vocab.PathLike(w) {
				found, n = w, n+1
			}
		}
		return found, n == 1
	}
	for _, c := range cs {
		f, fok := onePath(c.from)
		t, tok := onePath(c.to)
		if !fok || !tok || !swapsPath(f, t) || !absent(errLine, f) {
			continue
		}
		if ok {
			return "", "", false
		}
		from, to, ok = f, t, true
	}
	return from, to, ok
}

// removes reports a step that deletes what it is given.
func removes(s step) bool {
	switch s.prog {
	case "rm", "rmdir", "unlink", "del", "erase", "rd", "remove-item", "ri":
		return true
	case "git":
		return s.key == "git rm"
	}
	return false
}

// retargeted reports a change that puts one argument in place of another
// (not a flag in place of nothing).
func retargeted(cs []change) bool {
	operand := func(side string) bool {
		return slices.ContainsFunc(strings.Fields(side), func(w string) bool { return !strings.HasPrefix(w, "-") })
	}
	return slices.ContainsFunc(cs, func(c change) bool { return operand(c.from) && operand(c.to) })
}

// reads reports a step that only reads what it is given: a look around,
// or sed printing lines.
func reads(s step) bool {
	return exploringStep(s) || s.prog == "sed" && !slices.ContainsFunc(s.words, func(w string) bool { return strings.HasPrefix(w, "-i") })
}

// sameFile reports two paths that name the same file: one base name, or
// one extension and the words of one base name all in the other's, with
// one word more ("bmad-help.md" and "help.md"; not "step-01-init.md" and
// "step-01-discovery.md", nor "api.md" and "api-design-guide.md").
func sameFile(a, b string) bool {
	if path.Base(repopath.Slash(bare(a))) == path.Base(repopath.Slash(bare(b))) {
		return true
	}
	if siblingExt(a, b) {
		return true
	}
	if path.Ext(bare(a)) != path.Ext(bare(b)) {
		return false
	}
	wa, wb := nameWords(a), nameWords(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	if len(wa) == 0 || len(wb) > len(wa)+1 {
		return false
	}
	for _, w := range wa {
		if !slices.Contains(wb, w) {
			return false
		}
	}
	return true
}

// siblingExt reports two paths in one folder that are one file's name
// with its extension's sibling in the same language ("src/db.js" for
// "src/db.ts", "ci.yaml" for "ci.yml"), not another extension ("help.md"
// and "help.txt"): which one a project uses is what the agent guesses
// wrong.
func siblingExt(a, b string) bool {
	a, b = repopath.Slash(bare(a)), repopath.Slash(bare(b))
	ea, eb := strings.ToLower(path.Ext(a)), strings.ToLower(path.Ext(b))
	if path.Dir(a) != path.Dir(b) || ea == eb || extFamily[ea] == "" || extFamily[ea] != extFamily[eb] {
		return false
	}
	wa := nameWords(a)
	return len(wa) > 0 && slices.Equal(wa, nameWords(b))
}

// misspelled reports two paths in one folder whose names are the same
// words with one of them misspelled ("personas/revewer.md" for
// "personas/reviewer.md"). Two such names are as often two files
// ("employer.py" and "employee.py", "modal.tsx" and "model.tsx"), so a
// read under the one is taken for the other only after the agent looked
// for it (misreads); a word that differs by a number, a short one, or one
// that is the other with letters more at an end names another file of a
// series ("step-01-init.md" and "step-02-init.md", "test_a.py" and
// "test_b.py", "order.ts" and "orders.ts", "validate.ts" and
// "validator.ts").
func misspelled(a, b string) bool {
	a, b = repopath.Slash(bare(a)), repopath.Slash(bare(b))
	if path.Dir(a) != path.Dir(b) || !strings.EqualFold(path.Ext(a), path.Ext(b)) {
		return false
	}
	wa, wb := nameWords(a), nameWords(b)
	if len(wa) == 0 || len(wa) != len(wb) {
		return false
	}
	slips := 0
	for i := range wa {
		if wa[i] == wb[i] {
			continue
		}
		if slips++; slips > 1 || !typo(wa[i], wb[i]) {
			return false
		}
	}
	return slips == 1
}

// extFamily groups the extensions one kind of file is written under, in
// one project or another: which one a project uses is what the agent
// guesses wrong.
var extFamily = map[string]string{
	".js": "js", ".ts": "js", ".jsx": "js", ".tsx": "js", ".mjs": "js", ".cjs": "js", ".mts": "js", ".cts": "js",
	".yaml": "yaml", ".yml": "yaml",
	".htm": "html", ".html": "html",
	".jpg": "jpeg", ".jpeg": "jpeg",
	".md": "markdown", ".markdown": "markdown",
}

// typo reports two words of letters that one edit turns into the other
// (a letter added, dropped, replaced, or two neighbours swapped), or two
// edits when both are eight letters or more, as spelling checkers allow.
// Short words a letter apart are often two words ("card" and "cart"), and
// so are words of fewer letters two edits apart ("billing" and
// "building").
func typo(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	short := min(len(ra), len(rb))
	if short < 5 || len(ra) > maxWordRunes || len(rb) > maxWordRunes || max(len(ra), len(rb))-short > 2 {
		return false
	}
	if len(ra) != len(rb) && commonPrefix(ra, rb) >= short-2 {
		return false // "orders", "validator": the same stem, another ending
	}
	if strings.HasSuffix(a, b) || strings.HasSuffix(b, a) {
		return false // "deserializer": another word before the same one
	}
	for _, r := range a + b {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	if short < 8 {
		return editDistance(ra, rb) <= 1
	}
	return editDistance(ra, rb) <= 2
}

// commonPrefix is how many runes a and b start with alike.
func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxWordRunes bounds the words typo compares: no word is longer, and
// editDistance's table grows with the square of it.
const maxWordRunes = 64

// editDistance is the number of single-letter edits (insertions,
// deletions, replacements, swaps of two neighbours) between a and b.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// nameWords are the words of a path's base name without its extension,
// split at dashes, dots, underscores and capitals, in lower case.
func nameWords(p string) []string {
	base := path.Base(repopath.Slash(bare(p)))
	base = strings.TrimSuffix(base, path.Ext(base))
	var out []string
	var w []rune
	flush := func() {
		if len(w) > 0 {
			out = append(out, strings.ToLower(string(w)))
			w = w[:0]
		}
	}
	prev := rune(0)
	for _, r := range base {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			w = append(w, r)
		default:
			w = append(w, r)
		}
		prev = r
	}
	flush()
	return out
}

// missing reports an error line saying a path is not there.
func missing(errLine string) bool {
	low := strings.ToLower(errLine)
	return mentions(low, "no such file", "does not exist", "cannot find", "could not find", "cannot access", "not found")
}

// unknownRevision is the name git refused as no branch, tag or commit
// of the repository ("fatal: ambiguous argument 'main': unknown
// revision…", "fatal: bad revision 'main'", "fatal: Not a valid object
// name main"), or "".
func unknownRevision(errLine string) string {
	for _, re := range unknownRevisions() {
		if m := re.FindStringSubmatch(errLine); m != nil {
			if name := strings.Trim(m[1], "'\""); branchLike(name) {
				return name
			}
			return ""
		}
	}
	return ""
}

// branchLike reports a revision that names a branch or a tag, the name a
// repository may not have: not one counted from HEAD (HEAD~5, x^, x@{1})
// nor one that holds what only names an instance, a commit's hash say
// (identity.Generalize), which are this moment's.
func branchLike(rev string) bool {
	if strings.HasPrefix(rev, "HEAD") || strings.ContainsAny(rev, "~^") || strings.Contains(rev, "@{") {
		return false
	}
	base, _, _ := strings.Cut(rev, "..")
	return base != "" && identity.Generalize(base, identity.Instance{}) == base
}

// namesRevision reports a word of a git command that names rev: the
// word itself, or a range starting with it ("main...HEAD").
func namesRevision(w, rev string) bool {
	rest, ok := strings.CutPrefix(w, rev)
	return ok && (rest == "" || strings.HasPrefix(rest, ".."))
}

var unknownRevisions = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`ambiguous argument '([^']+)': unknown revision`),
		regexp.MustCompile(`bad revision '([^']+)'`),
		regexp.MustCompile(`[Nn]ot a valid object name:? '?([^'\s]+)'?`),
	}
})

// mentions reports a text (lower case) that holds any of words.
func mentions(low string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// unheld reports a path a file trigger cannot hold whole (spaces,
// parentheses, quotes): a lesson about it is left to the command.
func unheld(p string) bool { return strings.ContainsAny(p, " ()'\"`,;") }

// absent reports an error saying the path p is not there.
func absent(errLine, p string) bool {
	return strings.Contains(strings.ToLower(errLine), strings.ToLower(path.Base(repopath.Slash(p)))) && missing(errLine)
}

// bare is a path without the quotes and escapes a shell needs around it.
func bare(p string) string {
	return strings.NewReplacer("'", "", `"`, "", "`", "", `\(`, "(", `\)`, ")").Replace(p)
}

func sameWords(a, b []string) bool { return strings.Join(a, " ") == strings.Join(b, " ") }

// inFolder is a command's words without an option that names the folder
// it ran in already (`git -C /root/capsule count-objects` run in
// /root/capsule).
func inFolder(words []string, cwd string) []string {
	if cwd == "" {
		return words
	}
	cwd = strings.TrimRight(cwd, "/")
	var out []string
	for i := 0; i < len(words); i++ {
		if words[i] == "-C" && i+1 < len(words) && strings.TrimRight(unquote(words[i+1]), "/") == cwd {
			i++
			continue
		}
		out = append(out, words[i])
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(commandLine(s)), " ") }

// unique is list without its repeats, in order.
func unique(list []string) []string {
	var out []string
	for _, x := range list {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// configFile reports a file whose change is a setting, not the work: a
// lesson when it is what made a command pass.
func configFile(p string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, `\`, "/")))
	switch base {
	case ".gitignore", ".gitattributes", ".npmrc", ".nvmrc", ".python-version", ".tool-versions", ".editorconfig", "dockerfile", "makefile",
		"requirements.txt", "requirements-dev.txt", "constraints.txt", "go.mod", "cargo.toml", "pyproject.toml", "setup.cfg", "tox.ini",
		"pytest.ini", "package.json", ".gitleaksignore", ".dockerignore", ".env", ".env.local", ".env.example", "gemfile", "pipfile":
		return true
	}
	if strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt") || strings.HasPrefix(base, "docker-compose") || strings.HasPrefix(base, "tsconfig") {
		return true
	}
	for _, suffix := range []string{".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".config.js", ".config.ts", ".config.mjs", ".config.cjs", ".csproj", ".props", ".plist", ".service"} {
		if strings.HasSuffix(base, suffix) {
			return true
		}
	}
	return false
}

func sourceEdited(edits []string) bool {
	for _, e := range edits {
		if !configFile(e) {
			return true
		}
	}
	return false
}

// held reports an error that says something else holds what the command
// needs: a lock, a busy resource, a run in progress.
func held(errLine string) bool {
	low := strings.ToLower(errLine)
	return mentions(low, "lock", "busy", "in progress", "already running", "try again", "temporarily", "in use")
}

var explorers = map[string]bool{
	"ls": true, "dir": true, "cat": true, "type": true, "grep": true, "egrep": true, "rg": true, "ag": true, "find": true, "fd": true, "head": true,
	"tail": true, "which": true, "where": true, "whereis": true, "command": true, "echo": true, "printf": true, "pwd": true,
	"cd": true, "test": true, "[": true, "stat": true, "file": true, "wc": true, "tree": true, "less": true, "more": true,
	"sleep": true, "kill": true, "pkill": true, "ps": true, "lsof": true, "du": true, "df": true, "env": true, "printenv": true,
	"curl": true, "wget": true, "dig": true, "nslookup": true, "host": true, "ping": true, "netstat": true, "ss": true, "ip": true,
	"ifconfig": true, "journalctl": true, "dmesg": true, "uname": true, "whoami": true, "id": true, "date": true, "diff": true,
	"jq": true, "sort": true, "uniq": true, "cut": true, "xxd": true, "od": true, "readlink": true, "realpath": true, "nl": true,
	"select-string": true, "test-path": true, "resolve-dnsname": true, "test-netconnection": true, "select-object": true, "where-object": true,
}

// exploring reports a command that looks around rather than builds, runs
// or changes something: it fails all the time (grep finds nothing) and
// teaches nothing.
func exploring(cmd string) bool { return exploringStep(parseStep(cmd, "")) }

// lookVerbs are the subcommands that look around: they change nothing.
var lookVerbs = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "branch": true, "remote": true, "rev-parse": true, "ls-files": true,
	"ls-remote": true, "grep": true, "blame": true, "fetch": true, "list": true, "ls": true, "info": true, "view": true,
	"describe": true, "get": true, "version": true, "--version": true, "help": true, "search": true, "inspect": true, "logs": true,
	"top": true, "check-ignore": true, "reflog": true, "shortlog": true, "cat-file": true, "for-each-ref": true, "rev-list": true,
	"whoami": true, "doctor": true, "outdated": true, "audit": true, "which": true, "env": true,
}

// looksAround reports a step that looks around, whether or not its
// program's subcommands are known: `pkg search openjdk` as `git status`.
func looksAround(s step) bool {
	if exploringStep(s) {
		return true
	}
	// The subcommand, or the one under it: `claude mcp list`, `gh repo view`.
	for _, w := range commandWords(s.words, 2) {
		if lookVerbs[w] {
			return true
		}
	}
	return false
}

// commandWords are a step's first n words after its program that name
// what it does: plain words, not options, paths or values.
func commandWords(words []string, n int) []string {
	var out []string
	for _, w := range words[min(1, len(words)):] {
		if len(out) == n || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "./\\:=@'\"`$") || strings.IndexFunc(w, unicode.IsLetter) < 0 {
			break
		}
		out = append(out, strings.ToLower(w))
	}
	return out
}

// otherSubcommand reports a rerun that asked the program for something
// else (`claude mcp remove x`, then `claude mcp list`; `ibus list-engine`,
// then `ibus read-cache`): a subcommand both name, named otherwise.
//
// The second word is a subcommand only when one side is a look (`list`,
// `show`, `status`): `opkg remove kmod-ovpn`, then `opkg remove
// openvpn-openssl kmod-ovpn`, names other packages to the same command.
func otherSubcommand(failed, passed step) bool {
	f, p := commandWords(failed.words, 2), commandWords(passed.words, 2)
	switch {
	case len(f) == 0 || len(p) == 0:
		return false
	case f[0] != p[0]:
		return true
	case len(f) > 1 && len(p) > 1 && f[1] != p[1]:
		return lookVerbs[f[1]] || lookVerbs[p[1]]
	}
	return false
}

// wrongCommand reports an error that says the command itself was wrong (an
// unknown subcommand or option, a usage line, a program or module not
// there): then another subcommand may well be the fix.
func wrongCommand(low string) bool {
	return usageError(low) || mentions(low, "unknown", "invalid", "unrecognised", "usage:", "did you mean", "not a valid", "no such command", "is not a", "not found", "no module named", "not installed",
		"desconhecido", "desconocido", "inconnu", "unbekannt", "неизвестн", "未知", "不明", "알 수 없는")
}

func exploringStep(s step) bool {
	if s.key == "" {
		return true
	}
	if explorers[s.prog] {
		return true
	}
	// PowerShell's readers: Get-Content, Get-ChildItem, Get-Service ...
	if strings.HasPrefix(s.prog, "get-") || strings.HasPrefix(s.prog, "test-") || strings.HasPrefix(s.prog, "show-") {
		return true
	}
	sub := strings.TrimPrefix(strings.TrimPrefix(s.key, s.via+" "), s.prog)
	sub = strings.TrimSpace(sub)
	if first, _, _ := strings.Cut(sub, " "); first != "" {
		if lookVerbs[first] {
			return true
		}
		// Whole words of the subcommand ("list-units", "show_config"),
		// not letters inside a name ("test_checkbox.py", "playlist").
		if s.prog != "npm" {
			for _, w := range strings.FieldsFunc(strings.ToLower(sub), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if lookWords[w] || lookWords[strings.TrimSuffix(w, "s")] {
					return true
				}
			}
		}
	}
	for _, w := range s.words[1:] {
		if w == "--help" || w == "--version" || w == "--dry-run" {
			return true
		}
	}
	return false
}

// lookWords are the words of a subcommand that looks ("list-units",
// "show-ref", "checks").
var lookWords = map[string]bool{"list": true, "show": true, "status": true, "check": true, "info": true, "inspect": true}

// certificateError reports a TLS client's error that it could not verify
// the server's certificate, in the words of Go, OpenSSL, curl, Python and
// Node.
func certificateError(low string) bool {
	return mentions(low, "x509:", "failed to verify certificate", "certificate verify failed", "ssl certificate problem", "self-signed certificate", "self signed certificate", "unable to get local issuer certificate", "unable_to_get_issuer_cert", "self_signed_cert_in_chain")
}

// certificateLine is the line of text that says the certificate could
// not be verified.
func certificateLine(text string) string {
	for _, l := range strings.Split(stripTerminalCodes(text), "\n") {
		if certificateError(strings.ToLower(l)) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// optionError reports an error about an option or argument the program
// does not take.
func optionError(low string) bool {
	return mentions(low, "unrecognized option", "unknown option", "invalid option", "illegal option", "unknown flag", "unrecognized flag", "unexpected argument", "unrecognized argument", "no such option", "unrecognized or incomplete command line")
}

// noSuchTarget reports a package manager's or make's error that the
// script or target asked for does not exist.
func noSuchTarget(low string) bool {
	return mentions(low, "couldn't find a script named", "missing script:", "no script named", "script not found", "no rule to make target", "task not found", "unknown task")
}

// namesAlternative reports an error that names what to run instead ("Use
// command \"yarn test_webdb\"", "Did you mean 'status'?").
func namesAlternative(low string) bool {
	return mentions(low, "use command", "did you mean", "instead use", "use instead", "try running", "please run", "please use")
}

// raised reports an exception the code being run raised
// ("AttributeError: 'str' object has no attribute 'decode'. Did you mean:
// 'encode'?"): the code's mistake, not how to run the command.
func raised(errLine string) bool {
	name, _, ok := strings.Cut(errLine, ":")
	return ok && !strings.Contains(name, " ") && (strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception")) && name != "Error"
}

// usageError reports an error about how a command was called: a probe
// failing that way still teaches how to call it.
// blocked reports an error of the place a command runs rather than of what
// it looked for: no network, a sandbox's refusal. A probe that fails so
// found nothing because it could not look.
func blocked(low string) bool {
	return mentions(low, "could not resolve host", "temporary failure in name resolution", "network is unreachable", "connection refused", "operation not permitted", "eperm")
}

func usageError(low string) bool {
	return mentions(low, "unrecognized", "unknown option", "invalid option", "illegal option", "unknown flag", "requires an argument", "unexpected argument", "invalid argument", "parsererror", "parse error", "is not recognized")
}

var (
	timing = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(exit code:? -?\d+|wall time:? [\d.]+ ?\w*|total output lines:? \d+|output:|process exited with code \d+|chunk id:|original token count|script completed|warning: truncated output)`)
	})
)

// psPosition reports PowerShell's line saying where in the command the
// error is, in the languages it speaks ("At line:1 char:13", "In Zeile:1
// Zeichen:13", "Au caractère Ligne:1 : 13", "所在位置 行:1 字符: 13").
func psPosition(l string) bool {
	for _, p := range []string{"At line:", "In Zeile:", "Au caractère ", "En línea:", "Na linha:", "строка:", "Строка:", "所在位置 行:", "発生場所 行:", "위치 줄:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// errorLine is the line of an error output that says what failed: the
// first that reads as an error (error, fatal, exception, panic, failed, a
// failing test, not found, denied, missing, requires...), else the first
// that is not an INFO, progress, warning or timing line. A Python
// traceback is named by its last line, the exception.
func errorLine(e string) string {
	l, _, _ := errorLineAt(e)
	return l
}

// errorLineAt is errorLine with the output's lines and the index of the
// last one the error line was read from.
func errorLineAt(e string) (line string, at int, lines []string) {
	lines = strings.Split(stripTerminalCodes(e), "\n")
	if l, i := pytestError(lines); i >= 0 {
		return clip(l, 160), i, lines
	}
	fallback, fallbackAt := "", -1
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || !strings.ContainsFunc(l, isLatinLetter) && strings.IndexFunc(l, isCJK) < 0 {
			continue
		}
		low := strings.ToLower(l)
		if levelLine(low) || timing().MatchString(l) || banner(low) || runnerReport(low) || strings.HasPrefix(l, "+ ") || psPosition(l) || ruled(l) {
			continue // PowerShell's "+ CategoryInfo", "At line:1 char:1" restate the error
		}
		if strings.HasPrefix(l, "Traceback (most recent call last)") {
			if last, k := exceptionLine(lines[i+1:]); last != "" {
				return clip(last, 160), i + 1 + k, lines
			}
			continue
		}
		if errorish(low) {
			at = i
			if strings.HasSuffix(l, ":") {
				// A heading: what it announces is on the next line.
				for k, next := range lines[i+1:] {
					if n := strings.TrimSpace(next); n != "" {
						if !timing().MatchString(n) && !levelLine(strings.ToLower(n)) {
							l += " " + n
							at = i + 1 + k
						}
						break
					}
				}
			}
			return clip(strings.Join(strings.Fields(l), " "), 160), at, lines
		}
		if fallback == "" && !progressLine(low) {
			fallback, fallbackAt = l, i
		}
	}
	return clip(strings.Join(strings.Fields(fallback), " "), 160), fallbackAt, lines
}

// ruled reports a heading drawn between rules ("===== ERRORS =====",
// "_____ test_add _____", "----- Captured stderr -----"): it announces
// what follows, the error is below it.
func ruled(l string) bool {
	rule := func(s string) bool {
		return len(s) >= 3 && strings.Trim(s, "=_-") == ""
	}
	f := strings.Fields(l)
	return len(f) >= 3 && rule(f[0]) && rule(f[len(f)-1])
}

// pytestError is the first line pytest marks as the error ("E
// ModuleNotFoundError: No module named 'opk'", "E   assert 1 == 2") in
// an output that is pytest's, and its index; -1 when there is none. Its
// headings and the test's source it prints above say less.
func pytestError(lines []string) (string, int) {
	pytest := false
	for _, l := range lines {
		if ruled(l) {
			low := strings.ToLower(l)
			pytest = pytest || strings.Contains(low, "errors") || strings.Contains(low, "failures") || strings.Contains(low, "short test summary") || strings.Contains(low, "error collecting") || strings.Contains(low, "test session starts")
		}
	}
	if !pytest {
		return "", -1
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "E   ") && strings.TrimSpace(l[1:]) != "" {
			return strings.Join(strings.Fields(l[1:]), " "), i
		}
	}
	return "", -1
}

// errorAround is what an error output says right after its error line:
// the lines that tell why it failed ("BusyBox v1.36 multi-call binary"
// after "ps: unrecognized option"), which the error line alone leaves out.
func errorAround(e string) string {
	_, at, lines := errorLineAt(e)
	return linesAfter(lines, at)
}

// linesAfter is errorAround for an output already split, its error line
// at index at (-1: none).
func linesAfter(lines []string, at int) string {
	if at < 0 {
		return ""
	}
	var out []string
	for _, l := range lines[at+1:] {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
			if len(out) == 2 {
				break
			}
		}
	}
	return clip(strings.Join(out, " "), 200)
}

// exceptionLine is the exception a traceback ends in, and its index.
func exceptionLine(lines []string) (string, int) {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		if strings.Contains(t, "Error") || strings.Contains(t, "Exception") {
			return strings.Join(strings.Fields(t), " "), i
		}
	}
	return "", -1
}

// runnerReport reports a line of the report Codex's script runner wraps
// around a command's output ("Script failed", "Script error:", "Exit
// code: 1"): the command's own error is below it.
func runnerReport(low string) bool {
	switch low {
	case "script failed", "script error:", "output:":
		return true
	}
	code, ok := strings.CutPrefix(low, "exit code:")
	return ok && strings.TrimFunc(code, func(r rune) bool { return r == ' ' || r >= '0' && r <= '9' }) == ""
}

// banner reports a line a program prints whatever happens: ssh's warnings,
// a shell's greeting.
func banner(low string) bool {
	for _, p := range []string{"** warning: connection is not using a post-quantum", "** this session may be vulnerable", "** the server may need to be upgraded", "warning: permanently added", "pseudo-terminal will not be allocated"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
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
	return mentions(low, "error", "fatal", "exception", "panic", "failed", "fail:", "fail ", "--- fail", "✖", "●", "traceback", "cannot", "can't", "could not", "not found", "no such", "denied", "refused", "rejected", "missing", "requires", "undefined", "invalid", "unable to", "not allowed", "ignored by", "conflict", "not recognized", "not permitted", "timed out", "unrecognized")
}

func isLatinLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// stripTerminalCodes drops the escape sequences a terminal would have
// drawn as colour, cursor moves or links (CSI "ESC [ ... letter", OSC "ESC ]
// ... BEL or ESC \\"): tools print them when they think a person watches, and
// left in they split words and hide the line's level from levelLine.
func stripTerminalCodes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '[': // parameters and intermediates, then one final byte in @..~
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']': // up to BEL or ESC \\
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default: // a two-byte escape
			i++
		}
	}
	return b.String()
}
