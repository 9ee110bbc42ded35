package knowledge

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/devlearn/devlearn/internal/repopath"
	"github.com/devlearn/devlearn/internal/textcut"
)

// A failure devlearn learned is either the machine's (the program is not
// installed, sudo has no terminal, the harness refuses the call): every
// later run of the program meets it; or the call's own: a pattern the
// program took for a flag, a path the shell cut at its parentheses, a
// port nothing listens on. Served before every run of the program, the
// second kind was noise at most of them: on the genuine sessions a `rg`
// failure on one pattern was given at every later `rg`, a `Get-Content`
// one on a route-group path at every file read. Its moment is a call that
// passes the same argument again.

// maxFailedArgs bounds the arguments one failure keeps.
const maxFailedArgs = 8

// failedArgs are the arguments of the failing call a learned failure
// records, when the failure was the call's own (ownArgs): the call quoted
// in its Issue ("`rg -n "- \[ \]" specs` fails with …"), or in its title
// when the Issue says only that the arguments were refused ("rg does not
// take these arguments here"). c is the failure's command trigger: each
// segment of the call that runs it gives the arguments after its
// subcommand words. Only what names something is kept (see distinctive);
// none means the failure is the program's, for every call of it. When the
// resolution quotes the call that passed ("run `…` instead"), what it
// passed too is no cause: the file both read, the user both logged in as.
func failedArgs(c Command, issue, resolution, title string) []string {
	if m := absentModule(title); m != "" {
		// Only a script that imports it again meets it: it is named there.
		return []string{m}
	}
	issue = strings.TrimSpace(issue)
	if strings.HasPrefix(title, "Before `") && c.Flag == "" {
		return namedFirst(c, issue, resolution)
	}
	var call string
	switch {
	case c.Flag != "":
		// The program refused a flag: the flag is what the next call
		// would pass again (RefusedFlag), whatever else it passes.
	case !ownArgs(title) || programSwapped(c, title, issue):
	case strings.HasPrefix(issue, "`"):
		call, _ = quotedCall(issue)
	case strings.Contains(issue, "does not take these arguments"):
		call = firstCode(title)
	}
	if call == "" {
		return nil
	}
	// The resolution quotes the call without its wrappers, so a run as
	// root is the failure's own only where the fix says so.
	failed := callArgs(c, call, strings.Contains(title, "leave out `sudo`"))
	fixed, ok := strings.CutPrefix(strings.TrimSpace(resolution), "run `")
	if fixed, _, closed := strings.Cut(fixed, "`"); ok && closed && len(failed) > 0 {
		passed := callArgs(c, fixed, false)
		var own []string
		for _, a := range failed {
			if !contains(passed, a) {
				own = append(own, a)
			}
		}
		if len(own) > 0 {
			failed = own
		}
	}
	if len(failed) > maxFailedArgs {
		failed = failed[:maxFailedArgs]
	}
	return failed
}

// namedFirst is what a failing call passed that a command of another
// program its fix ran first names too ("run `killall applet` first",
// before `cp build/applet ~/bin/` failed with "Text file busy"): that
// failure is about that argument, and only a call that passes it again
// meets it. A fix that names none of it (`git config …` before `git
// commit`, `npm install` before `npm run dev`, a service started before
// `psql -f postgres/schema.sql`) is the project's or the machine's, for
// every call of the program; so is one of the same program, even run as
// root, whose words are its own vocabulary (`git pull origin main` before
// `git push origin main`). Both sides are read as the hooks read a
// command, past wrappers and into what a shell was handed.
func namedFirst(c Command, issue, resolution string) []string {
	call, ok := quotedCall(issue)
	if !ok {
		return nil
	}
	names := map[string]bool{}
	for _, code := range codeSpans(resolution) {
		eachCommand(code, false, c.Verb, func(seg []argText, _ bool, _ []argText) bool {
			if len(seg) == 0 || verbOf(seg[0].text) == c.Verb {
				return true
			}
			eachNamed(seg[1:], actedOn, func(n string) { names[n] = true })
			return true
		})
	}
	var out []string
	for _, a := range segmentArgs(c, call, false, actedOn) {
		if names[a] && len(out) < maxFailedArgs {
			out = append(out, a)
		}
	}
	return out
}

// actedOn is what an argument names as the thing a command acts on: the
// last part of a path, whole (a binary has no extension, and `chmod -R
// 777 .git` acts on the folder), not the folders it passes through
// (`/home/dev/…`, `postgres/schema.sql` is a file, not the service), nor a
// placeholder, a number or a short word. A ";" a recorded command held is
// stored as ",", which ends no name.
func actedOn(arg string) []string {
	a := strings.TrimRight(strings.ToLower(arg), "/\\,;")
	if i := strings.LastIndexAny(a, "/\\"); i >= 0 {
		a = a[i+1:]
	}
	if len(a) < 4 || strings.ContainsAny(a, "<>…$~") ||
		strings.IndexFunc(a, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' }) < 0 {
		return nil
	}
	return []string{a}
}

// callArgs is what the segments of a command line that run c pass after
// c's subcommand words and that names something (distinctive), flags
// left out: RefusedFlag reads the one refused. root: a run as root counts
// as passing "sudo" ("leave out `sudo`" is a fix of the call's own).
func callArgs(c Command, line string, root bool) []string {
	return segmentArgs(c, line, root, distinctive)
}

// segmentArgs is callArgs with what of each argument is kept (parts).
func segmentArgs(c Command, line string, root bool, parts func(string) []string) []string {
	var out []string
	add := func(a string) {
		if !contains(out, a) {
			out = append(out, a)
		}
	}
	eachCommand(line, false, c.Verb, func(seg []argText, asRoot bool, _ []argText) bool {
		if len(seg) == 0 || verbOf(seg[0].text) != c.Verb {
			return true
		}
		rest := seg[1:]
		for _, w := range c.Words {
			for len(rest) > 0 && strings.ToLower(rest[0].text) != w && alias(c.Verb, strings.ToLower(rest[0].text)) != w {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				rest = rest[1:]
			}
		}
		if root && asRoot {
			add("sudo")
		}
		eachNamed(rest, parts, add)
		return true
	})
	return out
}

// eachNamed gives what of each argument parts keeps, flags left out.
func eachNamed(args []argText, parts func(string) []string, f func(string)) {
	for _, t := range args {
		if strings.HasPrefix(t.text, "-") && !t.quoted {
			continue
		}
		for _, a := range parts(t.text) {
			f(a)
		}
	}
}

// commandOf is a segment from its program on, as Segments and failedArgs
// both read it: without the assignments
// and wrappers before it (`PGPASSWORD=x psql`, `sudo -u pg psql`, `env -i
// X=1 psql`, `nohup`), or, handed to a shell (`pwsh -NoLogo -Command rg
// …`, `cmd /c dir`), what the shell runs; a script the shell was given in
// one quoted word (`bash -c "…"`) is returned to be read on its own.
// asRoot says a wrapper ran it as root; host is the shell a command was
// handed to, with its flags (a lesson about quoting for `powershell
// -Command` is about that call too). verb is never skipped: sudo's own
// failure is sudo's.
func commandOf(seg []argText, verb string) (out []argText, asRoot bool, script string, host []argText) {
	for len(seg) > 1 {
		w := verbOf(seg[0].text)
		switch {
		case w == verb:
			return seg, asRoot, "", host
		case isAssignment(seg[0].text):
			seg = seg[1:]
		case wrappers[w]:
			asRoot = asRoot || w == "sudo"
			seg = seg[1:]
			// The wrapper's own flags, and the value of those that take
			// one (sudo -u postgres, nice -n 10).
			for len(seg) > 1 && strings.HasPrefix(seg[0].text, "-") && !seg[0].quoted {
				f := seg[0].text
				seg = seg[1:]
				if valued[f] && len(seg) > 1 {
					seg = seg[1:]
				}
			}
		case shells[w]:
			// Handed a command (-c, -Command, cmd's /c): what follows is
			// what runs. `bash script.sh` is bash running its script.
			rest, handed := seg[1:], false
			// cmd takes its switches with a slash, the others a dash.
			for len(rest) > 0 && !rest[0].quoted && (strings.HasPrefix(rest[0].text, "-") || w == "cmd" && strings.HasPrefix(rest[0].text, "/")) {
				handed = handed || commandFlags[strings.ToLower(rest[0].text)]
				rest = rest[1:]
			}
			if !handed || len(rest) == 0 {
				return seg, asRoot, "", host
			}
			host = seg[:len(seg)-len(rest)]
			if len(rest) == 1 && rest[0].quoted {
				return nil, asRoot, rest[0].text, host
			}
			seg = rest
		default:
			return seg, asRoot, "", host
		}
	}
	return seg, asRoot, "", host
}

// shells are the programs a command is handed to with their flags before
// it (`pwsh -Command rg …`, `bash -c "…"`, `cmd /c dir`).
var shells = map[string]bool{"pwsh": true, "powershell": true, "cmd": true, "bash": true, "sh": true, "zsh": true}

// commandFlags hand a shell the command to run.
var commandFlags = map[string]bool{"-c": true, "-command": true, "/c": true, "/k": true}

// valued are the wrappers' flags that take a value: sudo's user and
// group, nice's niceness, env's unset.
var valued = map[string]bool{"-u": true, "-g": true, "-n": true, "-U": true, "-C": true}

// outsideRefusals are what programs and harnesses say when a call names
// a path outside where they work: git's "'../CLAUDE.md' is outside
// repository", Claude Code's "may only change directories to child
// directories", Gemini CLI's "must be within one of the workspace
// directories". They say it in English whatever the person speaks.
var outsideRefusals = []string{"is outside repository", "only change directories to child directories",
	"must be within one of the workspace", "must be within the root directory"}

// refusedOutside reports a learned failure whose call named a path
// outside the project and was refused for it: a call inside the project
// will not meet it, whatever the program.
func refusedOutside(issue string) bool {
	low := strings.ToLower(issue)
	for _, r := range outsideRefusals {
		if strings.Contains(low, r) {
			return true
		}
	}
	return false
}

// GoesOutside reports a command that leaves the project at root, run in
// cwd by a person whose home folder is home: `cd` alone goes home, and
// otherwise one of its words names a path outside (outsideWord).
func (s Segment) GoesOutside(root, cwd, home string) bool {
	if s.Verb == "cd" && len(s.Words) == 0 {
		return home == "" || OutsidePath(repopath.Rel(root, cwd, home))
	}
	return slices.ContainsFunc(s.Words, func(w string) bool { return outsideWord(root, cwd, home, w) })
}

// outsideWord reports a word of a command that names a path outside the
// project: a parent, a home folder (`~`, `$HOME`, unless the project is
// under it there), a root (`/`, `D:\`), another absolute path. A device
// (`> /dev/null`) is where output goes, no folder a call works in; a
// pattern with slashes ("//.*console") names none.
func outsideWord(root, cwd, home, w string) bool {
	low := strings.ToLower(w)
	for _, h := range []string{"~", "$home", "${home}"} {
		if rest, ok := strings.CutPrefix(low, h); ok && (rest == "" || rest[0] == '/' || rest[0] == '\\') {
			return home == "" || OutsidePath(repopath.Rel(root, cwd, home+w[len(h):]))
		}
	}
	if w != ".." && !strings.ContainsAny(w, `/\`) {
		return false // a word, not a path
	}
	return OutsidePath(repopath.Rel(root, cwd, w))
}

// OutsidePath reports a path, as repopath.Rel gives it (relative to the
// project when inside it), that is outside the project.
func OutsidePath(p string) bool {
	p = repopath.Slash(p)
	switch {
	case p == "..", strings.HasPrefix(p, "../"):
		return true
	case !repopath.IsAbs(p), strings.HasPrefix(p, "/dev/"):
		return false
	}
	slash := strings.IndexByte(p, '/')
	if slash < 0 || slash == len(p)-1 {
		return true // a root: "/", "d:/"
	}
	first, _, _ := strings.Cut(p[slash+1:], "/")
	return !strings.ContainsAny(first, "*?^$[](){}|+\\") && strings.IndexFunc(first, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// absentModule is the module a learned failure says is not installed
// ("The Python module `yaml` is not installed here: importing it fails
// …"), in lower case, or "". The failing call was a script written into
// the command that imported it; a run of the interpreter that does not
// name it will not fail so.
func absentModule(title string) string {
	for _, lead := range []string{"The Python module `", "The Node package `"} {
		if rest, ok := strings.CutPrefix(title, lead); ok {
			if m, after, ok := strings.Cut(rest, "`"); ok && strings.HasPrefix(after, " is not installed here") {
				return strings.ToLower(m)
			}
		}
	}
	return ""
}

// ownArgs reads, in the title the failure extractor wrote, a failure of
// the call's own arguments: the fix put others in their place or left
// them out ("use `-oE` instead of `-oP`", "leave out `-n`"), or the
// program refused them ("is not supported here"). What a fix ran first
// ("Before `git commit`, run `git config …`"), a flag it added ("add
// `--legacy-peer-deps`"), a script the project lacks: those are the
// project's or the machine's, and meet every later call.
func ownArgs(title string) bool {
	if strings.HasPrefix(title, "Before `") {
		return false
	}
	// A long title is cut ("… instead of…", "use `-LiteralPath "…"`…"):
	// its start says it.
	return strings.Contains(title, "` instead of") || strings.Contains(title, "leave out `") ||
		strings.Contains(title, "` is not supported ") ||
		strings.HasSuffix(title, "…") && strings.Contains(title, ": use `")
}

// programSwapped reads a fix that ran another program in place of the
// one that failed ("use `python3` instead of `python`"), or an error that
// says that program is missing ("python: command not found", "The term
// 'rg' is not recognized"): that failure is the machine's, for every call
// of it. A word of the call taken for a command ("The term 'dashboard' is
// not recognized", a path cut at its parentheses) is the call's own.
func programSwapped(c Command, title, issue string) bool {
	low := strings.ToLower(title + " " + issue)
	if strings.Contains(low, c.Verb+": command not found") || strings.Contains(low, "'"+c.Verb+"' is not recognized") {
		return true // the program itself, not a word of the call
	}
	for rest := title; ; {
		_, after, ok := strings.Cut(rest, "instead of `")
		if !ok {
			return false
		}
		was, _, _ := strings.Cut(after, "`")
		if f := strings.Fields(was); len(f) > 0 && verbOf(f[0]) == c.Verb && len(f) == 1 {
			return true
		}
		rest = after
	}
}

// firstCode is the first span in backticks of a text.
func firstCode(s string) string {
	if spans := codeSpans(s); len(spans) > 0 {
		return spans[0]
	}
	return ""
}

// codeSpans are the spans in backticks of a text, each closed.
func codeSpans(s string) []string {
	var out []string
	for {
		_, after, ok := strings.Cut(s, "`")
		if !ok {
			return out
		}
		code, rest, ok := strings.Cut(after, "`")
		if !ok {
			return out
		}
		out = append(out, code)
		s = rest
	}
}

// quotedCall is the call an issue quotes at its start ("`rg -n x specs`
// fails with …"), up to its closing backtick or, cut short, the end.
func quotedCall(issue string) (string, bool) {
	rest, ok := strings.CutPrefix(issue, "`")
	if !ok {
		return "", false
	}
	call, _, _ := strings.Cut(rest, "`")
	return call, true
}

// distinctive is what of one argument names a thing the next failing
// call would name again, in the form it is looked for (lower case): of a
// path, the segments that name a file, a host, a route group or a glob
// ("layout.tsx", "localhost:8080", "(dashboard)", "*mdpreview*"), not the
// folders every path of the project passes through; another argument
// whole, when it is more than a short word or a number. A word cut short
// ("001-item…") or a placeholder ("<n>", "<worktree>") names nothing; the
// file a placeholder's folder holds still does.
func distinctive(arg string) []string {
	a := strings.ToLower(arg)
	if strings.HasSuffix(a, "...") {
		return nil
	}
	// A Windows path's separators are backslashes; a pattern's escapes
	// are too (`header\=x`), and a pattern with a space is no path.
	if !strings.Contains(a, "/") && !windowsPath(a) {
		if !strings.ContainsAny(a, "<>…$") && len(a) >= 4 && strings.IndexFunc(a, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
			return []string{a}
		}
		return nil
	}
	var out []string
	for _, s := range strings.FieldsFunc(a, func(r rune) bool { return r == '/' || r == '\\' }) {
		switch {
		case len(s) < 4, s == "http:", s == "https:", strings.Trim(s, ".") == "", strings.ContainsAny(s, "<>…$"):
		case strings.ContainsAny(s, "()[]:*?") || strings.Contains(strings.Trim(s, "."), "."):
			out = append(out, s)
		}
	}
	return out
}

// windowsPath reports a word with backslashes that reads as a Windows
// path: a drive or a share at its start, a relative start (`.\`), or a
// file's name with its extension at its end (`src\app\page.tsx`).
func windowsPath(a string) bool {
	if !strings.Contains(a, `\`) || strings.IndexFunc(a, unicode.IsSpace) >= 0 {
		return false
	}
	if len(a) > 2 && a[1] == ':' && a[2] == '\\' || strings.HasPrefix(a, `\\`) || strings.HasPrefix(a, `.\`) || strings.HasPrefix(a, `..\`) {
		return true
	}
	last := a[strings.LastIndexByte(a, '\\')+1:]
	dot := strings.LastIndexByte(last, '.')
	return dot > 0 && dot < len(last)-1 && strings.IndexFunc(last[dot+1:], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
}

// passesArgs reports whether a call's text passes one of a failure's
// arguments again: line is the call's command (or request) in the form
// Call.Line gives it. The argument must stand on its own, between
// separators: `x.py` is not in `index.py`, nor `main` in `domain`. A
// name without a dot may go on after one: a module's part
// (`matplotlib.pyplot`) is the module.
func passesArgs(line string, args []string) bool {
	for _, a := range args {
		for from := 0; ; {
			i := strings.Index(line[from:], a)
			if i < 0 {
				break
			}
			i += from
			j := i + len(a)
			if separated(line, i, j) || isSep(line, i-1) && j < len(line) && line[j] == '.' && !strings.Contains(a, ".") {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// separated reports whether line[i:j] stands between separators (or the
// line's ends): blanks, slashes, quotes and the marks a shell or a URL
// puts between words.
func separated(line string, i, j int) bool { return isSep(line, i-1) && isSep(line, j) }

// isSep reports whether line[k] separates words, or k is past an end.
func isSep(line string, k int) bool {
	const seps = " \t\n/\\\"'`=:,;|&()<>{}"
	return k < 0 || k >= len(line) || strings.ContainsRune(seps, rune(line[k]))
}

// lowerLine is the call's Line as failure arguments are looked for in
// it: lower case (a path's segments are looked for alone, so either kind
// of slash finds them). Computed once, and only for a call some failure's
// arguments are looked for in: most calls run no such command.
func (c *Call) lowerLine() string {
	if c.lower == nil {
		l := strings.ToLower(c.Line)
		c.lower = &l
	}
	return *c.lower
}

// The failure coming back: when a call fails, the failures learned before
// whose program it ran and whose error it printed again are served with
// what made them pass. The error is the evidence a trigger could only
// guess at before the call: a failure's draft given at every run of its
// program was noise wherever the run went well.

// Runs reports whether the call runs one of the item's commands, whatever
// the arguments it records: at a failure, the error says whether it is the
// same one. (A refused flag still counts: the error names it.)
func (it *Item) Runs(c *Call) bool {
	for _, cm := range it.Match.Commands {
		for _, sg := range c.Commands {
			if cm.Match(sg) {
				return true
			}
		}
	}
	return false
}

// FailedWith is the error a learned failure quotes ("`rg` fails with
// "rg: regex parse error: …""), or "" when its text quotes none. The
// line of its Issue holds it whole, quotes inside it included (npm's
// `Missing script: "build"`), up to the quote that ends the line; a
// title, cut short or followed by the fix, only up to its first quote.
func FailedWith(text string) string {
	first := ""
	for _, line := range strings.Split(text, "\n") {
		for _, cue := range []string{`fails with "`, `failed with "`} {
			_, after, ok := strings.Cut(line, cue)
			if !ok {
				continue
			}
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "- issue:") || strings.HasPrefix(t, "- **Issue**:") {
				if end := strings.LastIndexByte(after, '"'); end >= 0 {
					after = after[:end]
				}
				return strings.TrimSuffix(strings.TrimSpace(after), "…")
			}
			if first == "" {
				msg, _, _ := strings.Cut(after, "\"")
				msg, _, _ = strings.Cut(msg, "…")
				first = strings.TrimSpace(msg)
			}
		}
	}
	return first
}

// minErrorSign is the shortest error signature that identifies an error:
// "error: " alone is every error.
const minErrorSign = 16

// maxErrorSign is how much of a recorded error must come back: its start
// names the error, its end the instance (a path, a count, a time).
const maxErrorSign = 48

// placeholders are the general forms devlearn stores an error's instances
// in (identity.Generalize, redact): what follows one differs next time.
var placeholders = []string{"<worktree>", "<branch>", "<hash>", "<id>", "<tmp>", "[redacted", "~/", "~\\"}

// Error is a failed call's error, read once for every learned failure
// compared with it: its lines as errors are compared.
type Error []string

// ReadError reads what a failed call printed (its first maxErrorBytes).
func ReadError(got string) Error {
	lines := strings.Split(textcut.Bytes(got, maxErrorBytes), "\n")
	e := make(Error, 0, len(lines))
	for _, l := range lines {
		if s := errorSign(l); s != "" {
			e = append(e, s)
		}
	}
	return e
}

// Holds reports whether the error is the one a failure recorded: a line
// of it holds what the recorded error says before its first instance that
// devlearn stored in its general form ("<worktree>", "~/", "[REDACTED…]";
// numbers are left out of both), 16 characters at least, the first 48 of
// them, in any case. An error's own brackets and angles (Rust's
// `error[E0425]`, `Promise<string>`) are its words.
func (e Error) Holds(recorded string) bool {
	sign := errorSign(strings.ReplaceAll(recorded, "<n>", ""))
	for _, p := range placeholders {
		if i := strings.Index(sign, p); i >= 0 {
			sign = strings.TrimSpace(sign[:i])
		}
	}
	if utf8.RuneCountInString(sign) < minErrorSign {
		return false
	}
	if r := []rune(sign); len(r) > maxErrorSign {
		sign = string(r[:maxErrorSign])
	}
	for _, line := range e {
		if strings.Contains(line, sign) {
			return true
		}
	}
	return false
}

// maxErrorBytes is how much of a failed call's error is read: the line
// that names the error comes early, a build's whole log is not read.
const maxErrorBytes = 16 << 10

// errorSign is an error line as errors are compared: lower case, without
// digits, blanks collapsed.
func errorSign(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}
