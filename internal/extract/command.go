package extract

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// A command line as far as a failure and its fix go: the command that
// matters in it, seen through what only carries it. Agents rarely run a
// program bare: they chain a cd before it, set variables, go through
// sudo, a package runner (uv run, npx), a shell (bash -c, powershell
// -Command, cmd /c), or another machine or container (ssh host, kubectl
// exec, docker exec). Two calls are the same step when that command's
// program and subcommand are the same, whatever carried them.

// step is the command that matters in a command line.
type step struct {
	// via names what carried it to another machine or container ("ssh",
	// "kubectl exec", "docker exec"), "" for none.
	via   string
	words []string // its words, quotes kept
	prog  string   // its program, normalised (python3 → python, gh.exe → gh)
	key   string   // via, program and subcommand: "git push", "ssh opkg remove"
	// carrier: the step is what carries a command elsewhere (ssh),
	// itself; stepsOf gives it before the steps it carries.
	carrier bool
	// through names the shells and runners on this machine that ran it
	// ("powershell", "cmd", "npx"), outermost first; "" when it ran bare.
	through string
}

// line is the step's command as words, joined.
func (s step) line() string { return strings.Join(s.words, " ") }

// parseStep finds the step of a command line. A chain (&&, ;, ||, |) is
// its first link that does something (not a cd, an export, an echo);
// when the error names another link's program ("jq: error ..."), that
// link.
func parseStep(cmd, errText string) step {
	return parseWords(shellWords(commandLine(cmd)), errText, "", "", 0)
}

// lastStep is the step a chain ends on: the one that held the shell when
// the call ran out of time ("chmod +x start.sh && ./start.sh": chmod
// returned, or start.sh would not have run).
func lastStep(cmd, errText string) step {
	links := splitLinks(shellWords(commandLine(cmd)))
	for i := len(links) - 1; i >= 0; i-- {
		if l := skipPrefixes(links[i]); len(l) > 0 && !setup[progName(l[0])] {
			return parseWords(links[i], errText, "", "", 0)
		}
	}
	return parseStep(cmd, errText)
}

// commandLine is a command's first line as the shell reads it: a line
// ended by a backslash goes on on the next ("cd x && \\\n  jq ." is one
// line), as agents write long chains.
func commandLine(cmd string) string {
	return firstLine(joinContinued(cmd))
}

// joinContinued joins the lines a backslash continues.
func joinContinued(cmd string) string {
	if !strings.Contains(cmd, "\\\n") && !strings.Contains(cmd, "\\\r\n") {
		return cmd
	}
	return strings.NewReplacer("\\\r\n", " ", "\\\n", " ").Replace(cmd)
}

func parseWords(words []string, errText, via, through string, depth int) step {
	links := splitLinks(words)
	var chosen []string
	named := false
	for i, l := range links {
		l = skipPrefixes(l)
		if len(l) == 0 || setup[progName(l[0])] {
			continue
		}
		if pauses(progName(l[0])) && i < len(links)-1 {
			continue // a pause before the command ("sleep 3 && opkg remove x") is not it
		}
		if chosen == nil {
			chosen = l
		}
		if errText != "" && namedIn(progName(l[0]), errText) {
			chosen, named = l, true
			break
		}
	}
	if !named && chosen != nil {
		if l, ok := subcommandNamed(links, chosen, errText); ok {
			// The error names what a later link of the same program
			// asked for ("cannot pull with rebase" of "git checkout main
			// && git pull"): that link failed, the first one passed.
			chosen = l
		} else if l, ok := quotedIn(links, chosen, errText); ok {
			// The error quotes another link's words ("Unable to find
			// type [System.Net.Http.HttpClient]" of "$c =
			// [System.Net.Http.HttpClient]::new()"): that link failed.
			chosen = skipPrefixes(l)
			if len(chosen) == 0 {
				return step{via: via} // a statement, no program to name
			}
		}
	}
	if chosen == nil {
		return step{via: via}
	}
	if depth < 4 {
		if inner, v, ok := carried(chosen); ok {
			if v != "" && errText != "" && namedIn(progName(chosen[0]), errText) {
				// The carrier failed, not what it carried: "ssh: Could not
				// resolve hostname …".
				return carrierStep(chosen, via)
			}
			if v != "" {
				via = strings.TrimSpace(via + " " + v)
			} else {
				through = strings.TrimSpace(through + " " + progName(chosen[0]))
			}
			return parseWords(inner, errText, via, through, depth+1)
		}
	}
	s := newStep(chosen, via)
	s.through = through
	return s
}

// sshTarget is the host ssh's arguments name and the command they run
// there, past its options (and the values of those that take one).
func sshTarget(args []string) (host string, cmd []string) {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		f := args[0]
		args = args[1:]
		if len(f) == 2 && strings.ContainsRune("iplJoFbcDEeIlLmOQRSwW", rune(f[1])) && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return "", nil
	}
	return args[0], args[1:]
}

// hostOf is the host a command is carried to by ssh, or "".
func hostOf(cmd string) string {
	for _, l := range splitLinks(shellWords(commandLine(cmd))) {
		if w := skipPrefixes(l); len(w) > 0 && progName(w[0]) == "ssh" {
			host, _ := sshTarget(w[1:])
			return host
		}
	}
	return ""
}

// pauses reports a program that only waits (sleep, start-sleep, wait).
func pauses(prog string) bool { return prog == "sleep" || prog == "start-sleep" || prog == "wait" }

// carrierStep is the step of a link that carries a command to another
// machine or container (ssh host "..."), as itself: what failed when the
// carrier did, and what passes when it is run again, whatever it carries.
func carrierStep(words []string, via string) step {
	s := newStep(words, via)
	s.carrier = true
	return s
}

// newStep is the step of a link's words, carried by via. Its key is how
// parseStep and stepsOf both tell two calls are the same step, so it is
// made here only.
func newStep(words []string, via string) step {
	s := step{via: via, words: words, prog: progName(words[0])}
	// A statement of a script ("$x = ...", a PowerShell hashtable's
	// "name = 'x'" split at its semicolons) is no program: no key.
	if programLike(s.prog) && !assignment(words) {
		// A subcommand is the step: "pip install", "bun run build", not
		// those with their first word again as a script.
		what := subcommand(s.prog, words[1:])
		if what == "" {
			what = script(s.prog, words[1:])
		}
		s.key = strings.TrimSpace(via + " " + s.prog + what)
	}
	return s
}

// assignment reports words that set a variable with a spaced "=", as a
// script's statement does; a shell's own "x=1 cmd" is a prefix, dropped
// before (skipPrefixes).
func assignment(words []string) bool {
	return len(words) > 1 && strings.HasPrefix(words[1], "=") && !strings.HasPrefix(words[1], "==")
}

// programLike reports a word that can name a program.
func programLike(p string) bool {
	if p == "" {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-", r)) && !unicode.IsLetter(r) {
			return false
		}
	}
	return !strings.HasPrefix(p, "-")
}

// script is " -m module" or " file" for an interpreter running a module or
// a script of its own: `python -m pytest` and `python -m pip` are two
// steps; `python -c` and a heredoc are the interpreter itself.
func script(prog string, args []string) string {
	if !versioned[prog] && prog != "bash" && prog != "sh" && prog != "deno" && prog != "bun" {
		return ""
	}
	for i := 0; i < len(args); i++ {
		a := strings.Trim(args[i], `"'`)
		switch {
		case a == "-m" && i+1 < len(args):
			return " -m " + strings.Trim(args[i+1], `"'`)
		case a == "-c" || a == "-" || a == "-e" || strings.HasPrefix(a, "<<"):
			return ""
		case strings.HasPrefix(a, "-"):
			continue
		default:
			return " " + path.Base(strings.ReplaceAll(a, `\`, "/"))
		}
	}
	return ""
}

// stepsOf are the steps of every link of a command line, in order, those
// a carrier runs included: `ssh host "sleep 2 && opkg remove x"` runs
// sleep, then opkg remove, on host.
func stepsOf(cmd string) []step {
	return appendSteps(nil, shellWords(commandLine(cmd)), "", "", 0)
}

func appendSteps(out []step, words []string, via, through string, depth int) []step {
	for _, l := range splitLinks(words) {
		l = skipPrefixes(l)
		if len(l) == 0 {
			continue
		}
		if depth < 4 {
			if inner, v, ok := carried(l); ok {
				in := through
				if v != "" {
					out = append(out, carrierStep(l, via))
				} else {
					in = strings.TrimSpace(through + " " + progName(l[0]))
				}
				out = appendSteps(out, inner, strings.TrimSpace(via+" "+v), in, depth+1)
				continue
			}
		}
		s := newStep(l, via)
		s.through = through
		out = append(out, s)
	}
	return out
}

// namedIn reports an error that starts with the program's name
// ("jq: error: ...", "ssh: connect to host ...").
func namedIn(prog, errText string) bool {
	return prog != "" && strings.Contains(strings.ToLower(errText), prog+": ")
}

// subcommandNamed finds the later link that runs chosen's program with
// another subcommand, when the error line says that subcommand, and not
// chosen's own, among its first words ("error: cannot pull with rebase"
// of "git checkout main && git pull"). A subcommand of two words is named
// by its last ("npm run build && npm run e2e" failing with "e2e needs the
// server"). A word inside a path, a name or quotes is not said
// ("internal/test/helpers.go", "no method named `run`"), nor one further
// on (a commit's subject after "could not apply 1a2b3c4...").
func subcommandNamed(links [][]string, chosen []string, errText string) ([]string, bool) {
	prog := progName(chosen[0])
	own := subcommand(prog, chosen[1:])
	if own == "" || errText == "" {
		return nil, false
	}
	said := leadingWords(errorLine(errText), prog)
	if said[lastWord(own)] {
		return nil, false
	}
	after := false
	for _, l := range links {
		l = skipPrefixes(l)
		if len(l) == 0 {
			continue
		}
		if !after {
			after = slices.Equal(l, chosen)
			continue
		}
		if progName(l[0]) != prog {
			continue
		}
		if sub := subcommand(prog, l[1:]); sub != "" && sub != own {
			if w := lastWord(sub); len(w) >= 3 && said[w] {
				return l, true
			}
		}
	}
	return nil, false
}

// lastWord is the last of a subcommand's words.
func lastWord(sub string) string {
	f := strings.Fields(sub)
	return strings.ToLower(f[len(f)-1])
}

// maxSaidWords is how far into an error line a subcommand it names is
// looked for, past its "error:" or the program's name.
const maxSaidWords = 5

// leadingWords are the first words of an error line, lowered, past an
// opening "error:", "fatal:" or "<prog>:": only words standing alone, not
// a part of a path, a name or something quoted.
func leadingWords(line, prog string) map[string]bool {
	out := map[string]bool{}
	f := strings.Fields(strings.ToLower(line))
	for len(f) > 0 && (f[0] == "error:" || f[0] == "fatal:" || f[0] == "err:" || f[0] == prog+":") {
		f = f[1:]
	}
	for _, w := range f[:min(len(f), maxSaidWords)] {
		if w = strings.TrimRight(w, ",;:!?)"); w != "" && !strings.ContainsAny(w, "/\\.-_`'\"()[]{}<>=") {
			out[w] = true
		}
	}
	return out
}

// quotedIn finds the link, other than chosen, whose words hold what the
// error quotes (in brackets, quotes or backticks), when chosen does not.
func quotedIn(links [][]string, chosen []string, errText string) ([]string, bool) {
	for _, q := range errorQuotes(errText) {
		if holds(chosen, q) {
			return nil, false
		}
		for _, l := range links {
			if holds(l, q) {
				return l, true
			}
		}
	}
	return nil, false
}

// holds reports a link with a word in what the error quotes, or holding
// it ("scripts/x.js" in '/repo/scripts/x.js').
func holds(link []string, q string) bool {
	for _, w := range link {
		w = unquote(w)
		if len(w) >= 4 && (strings.Contains(q, w) || strings.Contains(w, q)) {
			return true
		}
	}
	return false
}

// errorQuotes are the words an error quotes, four characters or more:
// 'x', "x", `x`, [x].
func errorQuotes(errText string) []string {
	var out []string
	for _, m := range quotedWords().FindAllStringSubmatch(firstLine(errorLine(errText)), 8) {
		for _, q := range m[1:] {
			if len(q) >= 4 {
				out = append(out, q)
			}
		}
	}
	return out
}

var quotedWords = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("'([^'\\s]+)'|\"([^\"\\s]+)\"|`([^`\\s]+)`|\\[([^\\]\\s]+)\\]")
})

// setup are programs that prepare a link rather than do the work, in the
// shells agents run (PowerShell's Set-Location is its cd, Write-Host its
// echo).
var setup = map[string]bool{"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "source": true, ".": true, "echo": true, "true": true, "unset": true, "shopt": true,
	"set-location": true, "push-location": true, "pop-location": true, "sl": true, "write-host": true, "write-output": true}

// cdWord reports a shell's command to change folder (PowerShell's
// Set-Location and Push-Location, their alias sl, cmd's chdir).
func cdWord(w string) bool {
	switch strings.ToLower(w) {
	case "cd", "pushd", "chdir", "set-location", "push-location", "sl":
		return true
	}
	return false
}

// skipPrefixes drops what runs the command without being it: variable
// assignments, sudo, env, time, nohup, timeout N, nice, exec.
func skipPrefixes(w []string) []string {
	for len(w) > 0 {
		p := progName(w[0])
		switch {
		case strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") && !strings.HasPrefix(w[0], "\"") && !strings.HasPrefix(w[0], "'"):
			w = w[1:]
		case p == "sudo" || p == "doas":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				if w[0] == "-u" || w[0] == "-g" {
					w = w[min(2, len(w)):]
					continue
				}
				w = w[1:]
			}
		case p == "timeout":
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isNumberish(w[0])) {
				w = w[1:]
			}
		case p == "env" || p == "time" || p == "nohup" || p == "nice" || p == "exec" || p == "command" || p == "stdbuf":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
		default:
			return w
		}
	}
	return w
}

func isNumberish(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' && r != 's' && r != 'm' }) < 0
}

// carried unwraps a command that runs another: a shell's -c, PowerShell's
// -Command, cmd's /c, ssh's remote command, a container's exec, a package
// runner. via names a hop to another machine or container.
func carried(w []string) (inner []string, via string, ok bool) {
	p := progName(w[0])
	rest := w[1:]
	switch p {
	case "bash", "sh", "zsh", "dash", "fish":
		for i, a := range rest {
			if strings.HasPrefix(a, "-") && strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
				if i+1 < len(rest) {
					return shellWords(unquote(strings.Join(rest[i+1:], " "))), "", true
				}
			}
		}
	case "powershell", "pwsh":
		if script := powershellScript(rest); script != "" {
			return shellWords(unquote(script)), "", true
		}
	case "cmd":
		for i, a := range rest {
			if l := strings.ToLower(a); l == "/c" || l == "//c" || l == "/k" {
				if i+1 < len(rest) {
					return shellWords(unquote(strings.Join(rest[i+1:], " "))), "", true
				}
			}
		}
	case "wsl":
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return rest, "", true
		}
	case "ssh":
		if _, cmd := sshTarget(rest); len(cmd) > 0 {
			return shellWords(unquote(strings.Join(cmd, " "))), "ssh", true
		}
	case "kubectl", "oc":
		if len(rest) > 0 && rest[0] == "exec" {
			for i, a := range rest {
				if a == "--" && i+1 < len(rest) {
					return rest[i+1:], p + " exec", true
				}
			}
		}
	case "docker", "podman":
		if len(rest) > 1 && rest[0] == "compose" {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "exec" {
			args := rest[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "-") {
				f := args[0]
				args = args[1:]
				if (f == "-u" || f == "-w" || f == "-e" || f == "--user" || f == "--workdir" || f == "--env") && len(args) > 0 {
					args = args[1:]
				}
			}
			if len(args) > 1 {
				return args[1:], p + " exec", true
			}
		}
	case "uv", "poetry", "pipx", "bundle", "pdm", "hatch", "rye":
		if len(rest) > 0 && (rest[0] == "run" || rest[0] == "exec") {
			return runnerArgs(rest[1:])
		}
	case "pnpm", "yarn":
		if len(rest) > 0 && (rest[0] == "exec" || rest[0] == "dlx") {
			return runnerArgs(rest[1:])
		}
	case "npx", "bunx", "pnpx":
		return runnerArgs(rest)
	}
	return nil, "", false
}

// powershellScript is the script a PowerShell command line runs, as it
// was written (its quotes kept): the words after its options.
func powershellScript(args []string) string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		f := strings.ToLower(args[0])
		args = args[1:]
		if f == "-command" || f == "-c" {
			break
		}
		if (f == "-executionpolicy" || f == "-file" || f == "-windowstyle") && len(args) > 0 {
			args = args[1:]
		}
	}
	return strings.Join(args, " ")
}

// runnerArgs skips a package runner's options (and the values of those
// that take one) to the command it runs.
func runnerArgs(w []string) ([]string, string, bool) {
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		f := w[0]
		w = w[1:]
		switch f {
		case "--with", "--group", "--extra", "--python", "-p", "--package", "--from", "--directory", "--project", "--env-file":
			if len(w) > 0 {
				w = w[1:]
			}
		}
	}
	if len(w) == 0 {
		return nil, "", false
	}
	return w, "", true
}

// progName is a program's name as a step knows it: its file name, lower
// case, without .exe, and without the version of an interpreter
// (python3.11 and python are one program).
func progName(w string) string {
	w = strings.Trim(w, `"'`)
	w = strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		w = strings.TrimSuffix(w, ext)
	}
	base := strings.TrimRight(w, "0123456789.")
	if versioned[base] {
		return base
	}
	return w
}

// versioned are programs whose name may carry a version.
var versioned = map[string]bool{"python": true, "pip": true, "pydoc": true, "node": true, "ruby": true, "gem": true, "perl": true, "php": true, "java": true, "gcc": true, "g++": true, "clang": true, "lua": true}

// subcommand is " sub" for a program whose first word says what it does
// ("git push", "npm run build", "gh auth login"), "" otherwise.
func subcommand(prog string, args []string) string {
	if !subcommands[prog] {
		return ""
	}
	var out []string
	for i := 0; i < len(args) && len(out) < 2; i++ {
		a := strings.Trim(args[i], `"'`)
		if strings.HasPrefix(a, "-") || a == "" {
			if len(out) > 0 {
				break
			}
			if valued[prog+" "+a] {
				i++ // git -c user.name=x, git -C dir, make -C dir
			}
			continue
		}
		if strings.ContainsAny(a, "/\\.=:@") && len(out) == 0 {
			break // a path or a value, not a subcommand
		}
		out = append(out, a)
		if !twoLevel[prog] && a != "run" && a != "exec" && a != "mod" {
			break
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " " + strings.Join(out, " ")
}

// subcommands name the tools whose first argument says what they do.
var subcommands = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "cargo": true, "docker": true, "podman": true,
	"make": true, "kubectl": true, "gh": true, "pip": true, "uv": true, "poetry": true, "dotnet": true,
	"mvn": true, "gradle": true, "./gradlew": true, "gradlew": true, "bundle": true, "rails": true, "rake": true, "terraform": true,
	"helm": true, "deno": true, "just": true, "task": true, "composer": true, "mix": true, "swift": true, "brew": true,
	"apt": true, "apt-get": true, "dnf": true, "yum": true, "pacman": true, "yay": true, "opkg": true, "apk": true, "winget": true, "choco": true, "scoop": true,
	"systemctl": true, "service": true, "supervisorctl": true, "juju": true, "snap": true, "op": true, "uci": true, "az": true, "aws": true, "gcloud": true,
	"firebase": true, "vercel": true, "wrangler": true, "flutter": true, "dart": true, "rustup": true, "nvm": true, "conda": true, "ollama": true, "codex": true, "claude": true,
}

// valued are the options before a subcommand that take a value.
var valued = map[string]bool{"git -c": true, "git -C": true, "make -C": true, "make -f": true, "docker -H": true, "docker --context": true, "kubectl -n": true, "kubectl --namespace": true, "kubectl --context": true, "npm --prefix": true, "go -C": true, "cargo --manifest-path": true, "gh -R": true, "gh --repo": true}

// twoLevel are tools whose commands take two words ("gh auth login",
// "op item get", "juju config set").
var twoLevel = map[string]bool{"gh": true, "op": true, "az": true, "aws": true, "gcloud": true, "kubectl": true, "docker": true, "juju": true}

// shellWords splits a command line into words, keeping a quoted string
// (with its quotes) in one word and the chaining operators apart.
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	quote := rune(0)
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			b.WriteRune(r)
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				b.WriteRune(rs[i])
			}
		case r == '"' || r == '\'':
			quote = r
			b.WriteRune(r)
		case unicode.IsSpace(r):
			flush()
		case r == '&' && (strings.HasSuffix(b.String(), ">") || i+1 < len(rs) && rs[i+1] == '>' && b.Len() == 0):
			b.WriteRune(r) // a redirection: 2>&1, &>file
		case r == ';' || r == '|' || r == '&':
			flush()
			op := string(r)
			if i+1 < len(rs) && (rs[i+1] == '&' || rs[i+1] == '|') && (r == '&' || r == '|') {
				op += string(rs[i+1])
				i++
			}
			if op == "&" {
				continue // a job sent to the background: the command is the same
			}
			out = append(out, op)
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// splitLinks splits words at the chaining operators.
func splitLinks(w []string) [][]string {
	var out [][]string
	var cur []string
	for _, x := range w {
		switch x {
		case "&&", "||", ";", "|":
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
		default:
			cur = append(cur, x)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// unquote takes off one pair of quotes around s.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
