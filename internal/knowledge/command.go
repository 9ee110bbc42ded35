package knowledge

import (
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Command is a command trigger: a program and the subcommand words that
// must follow it, in order ("npm install", "git push", "terraform
// apply"); no words means any use of the program ("npm" in "use pnpm,
// not npm"). Arguments (paths, names, patterns) are left out: a lesson
// about `go test -race ./...` concerns every `go test`, and the missing
// -race is the very mistake it is about.
type Command struct {
	Verb  string   // lower case, without folder or .exe
	Words []string // lower case
	// Written: the entry's triggers name it (triggers.commands), rather
	// than its text: like a written file trigger, it narrows an entry
	// whose author also set tools.
	Written bool
	// Flag, when set, must be among the flags of the call ("grep -P"):
	// a lesson about a flag the program rejected concerns the calls that
	// pass it, not every grep. A short flag is found in a cluster (-oP).
	Flag string
	// Args, when set, are what the call a learned failure records passed
	// (a file, a host, a pattern: failure.go): that failure was the
	// call's own, and its moment is a call that passes one of them again.
	Args []string
	// Outside: a learned failure refused a path outside the project (git's
	// "is outside repository", Claude Code's cd out of the session's
	// folder): only a call that names such a path meets it again.
	Outside bool
}

// String is the command as it reads: "git push".
func (c Command) String() string {
	s := c.Verb
	if len(c.Words) > 0 {
		s += " " + strings.Join(c.Words, " ")
	}
	if c.Flag != "" {
		s += " " + c.Flag
	}
	return s
}

// Match reports whether a segment of a shell command runs this command:
// the same program, and the words among its arguments in order.
func (c Command) Match(s Segment) bool {
	if c.Verb != s.Verb {
		return false
	}
	i := 0
	for _, w := range s.Words {
		if i < len(c.Words) && (w == c.Words[i] || alias(s.Verb, w) == c.Words[i]) {
			i++
		}
	}
	return i == len(c.Words) && (c.Flag == "" || slices.ContainsFunc(s.Flags, func(f string) bool { return flagHas(f, c.Flag) }))
}

// flagHas reports whether a flag as the call passes it is flag: the same
// long flag (with or without its value, --x=1), or a cluster of short
// ones holding it (-oP holds -P).
func flagHas(passed, flag string) bool {
	if strings.HasPrefix(flag, "--") || len(flag) != 2 {
		return passed == flag || strings.HasPrefix(passed, flag+"=")
	}
	return !strings.HasPrefix(passed, "--") && strings.HasPrefix(passed, "-") && strings.Contains(passed[1:], flag[1:])
}

// Segment is one simple command of a shell command line: its program,
// the words after it that are not flags, and its flags as written.
type Segment struct {
	Verb  string
	Words []string
	Flags []string
	// Outside: a word of it is a path outside the project (a parent, a
	// home folder, another absolute path; `cd` alone goes home). Set by
	// whoever knows where the project is (the hook).
	Outside bool
}

// maxSegments bounds what is read of one command line: a pasted script is
// not one tool call's intent.
const maxSegments = 32

// Segments splits a shell command line into its simple commands ("cd web
// && npm install x | tee log" is cd, npm and tee), each with its program
// (without folder, lower case) and its words. Assignments (FOO=1) and
// wrappers (sudo, env, time, nohup, exec, command) before the program are
// skipped with their flags (commandOf), sudo counting as a segment of its
// own; a command handed to a shell (`pwsh -Command rg …`, `bash -c "npm
// test"`) counts with the shell; `npx tool` also counts as tool.
func Segments(line string) []Segment {
	var out []Segment
	eachCommand(line, true, "", func(toks []argText, asRoot bool, host []argText) bool {
		if asRoot {
			// Running as root is a step of its own: a lesson about sudo
			// (it cannot ask for a password here) is about every use.
			out = append(out, Segment{Verb: "sudo"})
		}
		if len(host) > 0 {
			// The shell runs too: its flags are how it was called.
			hs := Segment{Verb: verbOf(host[0].text)}
			for _, t := range host[1:] {
				hs.Flags = append(hs.Flags, t.text)
			}
			out = append(out, hs)
		}
		if len(toks) > 0 && !isAssignment(toks[0].text) && !wrappers[strings.ToLower(toks[0].text)] {
			s := Segment{Verb: verbOf(toks[0].text)}
			for _, t := range toks[1:] {
				if strings.HasPrefix(t.text, "-") {
					s.Flags = append(s.Flags, t.text)
				} else {
					s.Words = append(s.Words, strings.ToLower(t.text))
				}
			}
			out = append(out, s)
			if runners[s.Verb] && len(s.Words) > 0 {
				out = append(out, Segment{Verb: verbOf(s.Words[0]), Words: s.Words[1:]})
			}
		}
		return len(out) < maxSegments
	})
	if len(out) > maxSegments {
		out = out[:maxSegments]
	}
	return out
}

// eachCommand gives f each simple command of line as commandOf reads it
// for verb: from its program on (nil for a script handed to a shell in
// quotes, whose own commands follow, two shells deep: `bash -c "npm
// test"` runs npm test), whether a wrapper ran it as root, and the shell
// it was handed to. Segments and a failure's arguments (callArgs) read a
// line with it, so the two never disagree on what a call ran. intent is
// shellTokens'; f returns false to read no further.
func eachCommand(line string, intent bool, verb string, f func(cmd []argText, asRoot bool, host []argText) bool) {
	var read func(line string, depth int) bool
	read = func(line string, depth int) bool {
		for _, part := range shellTokens(line, intent) {
			cmd, asRoot, script, host := commandOf(part, verb)
			if !f(cmd, asRoot, host) {
				return false
			}
			if script != "" && depth < 2 && !read(script, depth+1) {
				return false
			}
		}
		return true
	}
	read(line, 0)
}

var (
	wrappers = map[string]bool{"sudo": true, "env": true, "time": true, "nohup": true, "exec": true, "command": true, "nice": true, "xargs": true}
	runners  = map[string]bool{"npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true}
)

func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for _, c := range t[:eq] {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// verbOf is a program's name: "./node_modules/.bin/eslint" is eslint,
// `C:\Go\bin\go.exe` is go.
func verbOf(t string) string {
	t = strings.ToLower(path.Base(strings.ReplaceAll(t, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		t = strings.TrimSuffix(t, ext)
	}
	return t
}

// alias is the long form of a subcommand some programs abbreviate.
func alias(verb, w string) string {
	switch verb {
	case "npm", "pnpm", "yarn", "bun":
		if w == "i" {
			return "install"
		}
		if w == "rm" || w == "un" || w == "uninstall" {
			return "remove"
		}
	}
	return w
}

// splitShell cuts a command line into the tokens of each simple command,
// at ; & | && || and newlines outside quotes, removing quotes. It is a
// reading of intent, not a shell: substitutions and here-documents are
// taken as words.
func splitShell(line string) [][]string {
	var out [][]string
	for _, seg := range shellTokens(line, true) {
		words := make([]string, len(seg))
		for i, t := range seg {
			words[i] = t.text
		}
		out = append(out, words)
	}
	return out
}

// argText is one word of a command line and whether it was quoted.
type argText struct {
	text   string
	quoted bool
}

// shellTokens cuts a command line into its simple commands' words, at ;
// & | and newlines outside quotes, removing the quotes. For intent
// (Segments), parentheses also end a command (a subshell's), and a line
// of more than maxSegments commands is cut there. For what a call passed
// (failure.go), a word is kept as written: a route group's parentheses
// are in it, and so is the backslash of \" inside double quotes, which
// does not end them.
func shellTokens(line string, intent bool) [][]argText {
	var (
		out     [][]argText
		cur     []argText
		tok     strings.Builder
		in      bool
		quoted  bool
		quote   rune
		escaped bool
	)
	endTok := func() {
		if in {
			cur = append(cur, argText{tok.String(), quoted})
			tok.Reset()
			in, quoted = false, false
		}
	}
	endCmd := func() {
		endTok()
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	for _, r := range line {
		switch {
		case escaped:
			tok.WriteRune('\\')
			tok.WriteRune(r)
			escaped = false
		case !intent && quote == '"' && r == '\\':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				tok.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in, quoted = r, true, true
		case r == ';' || r == '&' || r == '|' || r == '\n' || intent && (r == '(' || r == ')'):
			endCmd()
		case r == ' ' || r == '\t' || r == '\r' || !intent && unicode.IsSpace(r):
			endTok()
		default:
			tok.WriteRune(r)
			in = true
		}
		if intent && len(out) >= maxSegments {
			return out
		}
	}
	endCmd()
	return out
}

// commandIn reads a command a lesson names in backticks (`npm install
// date-fns`, `git push --force`): the program, then the subcommand words
// up to the first flag or argument. ok is false for what is not a
// command: a path, a code expression, a sentence.
func commandIn(span string) (Command, bool) {
	segs := splitShell(span)
	if len(segs) == 0 {
		return Command{}, false
	}
	toks := segs[0]
	for len(toks) > 0 && (isAssignment(toks[0]) || wrappers[strings.ToLower(toks[0])]) {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return Command{}, false
	}
	first := toks[0]
	verb := verbOf(first)
	known := knownVerbs.has(verb)
	if !known {
		// An unknown program counts when it reads like one and comes
		// with a subcommand: `sqlc generate`, `./scripts/reset.sh`.
		if !programLike(first) || len(toks) < 2 && !strings.HasPrefix(first, "./") {
			return Command{}, false
		}
	}
	c := Command{Verb: verb}
	rest := toks[1:]
	if runners[verb] && len(rest) > 0 && programLike(rest[0]) {
		c.Verb, rest = verbOf(rest[0]), rest[1:]
	}
	for _, t := range rest {
		if len(c.Words) == 2 || !subcommandLike(t) {
			break
		}
		c.Words = append(c.Words, alias(c.Verb, strings.ToLower(t)))
	}
	if !known && len(c.Words) == 0 && !strings.HasPrefix(first, "./") {
		return Command{}, false
	}
	if ambiguousVerbs.has(c.Verb) && len(c.Words) == 0 {
		return Command{}, false
	}
	return c, true
}

// CommandTrigger reads a command trigger as an entry writes it
// (triggers.commands: "git push", "rg", "Get-Content"): the program,
// whatever it is, since what is written there was run as one, then up to
// two subcommand words; a flag or an argument ends it. ok is false for
// what cannot be a program: nothing, a flag, a sentence.
func CommandTrigger(s string) (Command, bool) {
	toks := strings.Fields(s)
	if len(toks) == 0 || strings.HasPrefix(toks[0], "-") || strings.ContainsAny(toks[0], "\"'`$(){}<>|;&") {
		return Command{}, false
	}
	c := Command{Verb: verbOf(toks[0]), Written: true}
	for _, t := range toks[1:] {
		if flagLike(t) {
			c.Flag = t
			break
		}
		t = strings.ToLower(t)
		if len(c.Words) == 2 || !subcommandLike(t) {
			break
		}
		c.Words = append(c.Words, alias(c.Verb, t))
	}
	return c, strings.IndexFunc(c.Verb, unicode.IsLetter) >= 0
}

// flagLike: a flag as a trigger names it, -P or --force: one dash and a
// letter or digit, or two dashes and a name, without a value.
func flagLike(t string) bool {
	name, long := strings.CutPrefix(t, "--")
	if !long {
		name, _ = strings.CutPrefix(t, "-")
		if len(t) != 2 || name == t {
			return false
		}
	}
	if name == "" || len(name) > 40 {
		return false
	}
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_')) {
			return false
		}
	}
	return true
}

// programLike: a program's name or path (lower case letters, digits, -
// _ . /), not a function call, a flag or a sentence's word in capitals.
func programLike(t string) bool {
	if t == "" || strings.HasPrefix(t, "-") {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./", c)) {
			return false
		}
	}
	return !strings.HasSuffix(t, ".") && strings.ContainsAny(t, "abcdefghijklmnopqrstuvwxyz")
}

// subcommandLike: a word that names a subcommand ("install", "gen:api",
// "force-unlock"), not a path, a flag, a placeholder or a value.
func subcommandLike(t string) bool {
	if t == "" || len(t) > 30 || t[0] < 'a' || t[0] > 'z' {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == ':' || c == '_') {
			return false
		}
	}
	return true
}

// knownVerbs are programs a lesson may name without backticks ("use
// pnpm, not npm"; "never pip install").
var knownVerbs = lazySet(`npm pnpm yarn npx bun bunx deno node tsc eslint prettier vite vitest jest
playwright cypress webpack go gofmt golangci-lint cargo rustc rustup pip pip3 pipx python python3
poetry uv uvx pytest ruff black mypy tox conda bundle bundler gem rake rails rspec ruby mvn gradle
gradlew dotnet nuget git gh docker docker-compose podman kubectl helm kustomize minikube terraform
tofu terragrunt ansible ansible-playbook aws gcloud az sqlc psql mysql sqlite3 redis-cli make cmake
bazel ninja composer php artisan xcodebuild pod flutter dart mix iex sbt curl wget rsync scp ssh sed
awk jq rm chmod chown brew apt apt-get yum dnf pacman nix protoc buf openssl vercel netlify firebase
flyctl heroku wrangler supabase prisma alembic flyway goose atlas just task mage`)

// ambiguousVerbs are programs whose name is also a common English word:
// they count as a command only with a subcommand ("go test", "make
// generate") or in backticks with one.
var ambiguousVerbs = lazySet(`go make just task mix rake ruby python node php dart black buf mage
pod gem bundle`)

// subcommands are words that follow a program in a lesson's prose
// ("never pip install", "npm install breaks the lock file").
var subcommands = lazySet(`install i add remove uninstall update upgrade run exec test build lint fmt
vet generate publish deploy push pull commit rebase merge reset checkout switch clone fetch tag
stash cherry-pick revert apply plan destroy init migrate start serve dev up down login tidy get
mod ci audit link release version sync lock format check clean edit delete create rollout scale
restart logs describe force-unlock import export`)

// wordSet is a set of words built the first time it is asked: a hook
// process links this package but most never derive a command, and eleven
// sets built before main were a quarter of the hook's initialisation.
type wordSet struct {
	words string
	once  sync.Once
	m     map[string]bool
}

func lazySet(words string) *wordSet { return &wordSet{words: words} }

func (s *wordSet) has(w string) bool {
	s.once.Do(func() { s.m = setOf(s.words) })
	return s.m[w]
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// commandContext are the words before a program in prose that say it is
// run, not talked about: "use pnpm", "not npm", "never pip install".
var commandContext = lazySet(`run runs ran running use uses using used not never avoid instead than
execute executes executing invoke invokes invoking call calls calling with prefer don't dont stop
before after`)

// uniqueCommands appends c to list unless a command that it implies is
// already there (npm install adds nothing to npm).
func uniqueCommands(list []Command, c Command) []Command {
	for i, o := range list {
		if o.Verb != c.Verb {
			continue
		}
		if len(o.Words) <= len(c.Words) && slices.Equal(o.Words, c.Words[:len(o.Words)]) {
			return list // o is as broad or broader
		}
		if len(c.Words) < len(o.Words) && slices.Equal(c.Words, o.Words[:len(c.Words)]) {
			c.Written = c.Written || o.Written
			list[i] = c
			return list
		}
	}
	return append(list, c)
}
