package propose

import (
	"slices"
	"strings"
)

// A gate's verdict is its exit status, so a proposal must be a command
// that exits non-zero when what it checks is wrong. Most commands a lesson
// names do (tests, linters, vet, build). Some do not: a formatter that
// rewrites files or lists them exits 0 either way, and gofmt with no path
// formats its standard input, which a gate does not give it, so it checks
// nothing. devlearn knows these commands and proposes their checking form;
// a command that only prints (echo, true) is not proposed at all. Any other
// command is proposed as the lesson wrote it, for a person to read.
type checkForm struct {
	// prog is the command's leading words; check is a flag that already
	// makes it fail on a finding (the command is kept as written).
	prog  []string
	check []string
	// drop are flags the checking form replaces (rewrite in place, print
	// a diff); form builds it from the flags left and the paths ("." when
	// none), and names the gate.
	drop []string
	form func(flags, paths string) (command, name string)
}

// lister is the checking form of a formatter that lists the files it
// would change and exits 0: its list, when not empty, is the failure.
func lister(prog string) func(flags, paths string) (string, string) {
	return func(flags, paths string) (string, string) {
		list := strings.Join(strings.Fields(prog+" -l "+flags+" "+paths), " ")
		return `files=$(` + list + `) && test -z "$files" || { echo "$files"; exit 1; }`, prog + " -l"
	}
}

// withFlag is the checking form of a formatter that has a flag to check
// instead of rewrite.
func withFlag(prog, flag string) func(flags, paths string) (string, string) {
	return func(flags, paths string) (string, string) {
		return strings.Join(strings.Fields(prog+" "+flag+" "+flags+" "+paths), " "), prog + " " + flag
	}
}

var checkForms = []checkForm{
	{prog: []string{"gofmt"}, drop: []string{"-l", "-w", "-d"}, form: lister("gofmt")},
	{prog: []string{"goimports"}, drop: []string{"-l", "-w", "-d"}, form: lister("goimports")},
	{prog: []string{"black"}, check: []string{"--check"}, form: withFlag("black", "--check")},
	{prog: []string{"isort"}, check: []string{"--check-only", "--check", "-c"}, form: withFlag("isort", "--check-only")},
	{prog: []string{"prettier"}, check: []string{"--check", "-c", "--list-different", "-l"}, drop: []string{"--write", "-w"}, form: withFlag("prettier", "--check")},
	{prog: []string{"terraform", "fmt"}, check: []string{"-check"}, drop: []string{"-write=true"}, form: withFlag("terraform fmt", "-check")},
	{prog: []string{"cargo", "fmt"}, check: []string{"--check"}, form: func(string, string) (string, string) { return "cargo fmt --check", "cargo fmt" }},
	{prog: []string{"rustfmt"}, check: []string{"--check"}, form: func(flags, paths string) (string, string) {
		if paths == "." {
			return "cargo fmt --check", "cargo fmt" // rustfmt takes files, not folders
		}
		return withFlag("rustfmt", "--check")(flags, paths)
	}},
}

// neverFail are programs whose exit status says nothing of the project.
var neverFail = map[string]bool{"echo": true, "printf": true, "true": true, ":": true, "pwd": true, "date": true, "sleep": true, "whoami": true, "clear": true}

// canFail returns the command a proposal runs for what a lesson wrote: the
// command itself, or its checking form, with the gate's name; ok is false
// for a command that cannot fail.
func canFail(cmd string) (command, gateName string, ok bool) {
	words := strings.Fields(cmd)
	if len(words) == 0 || neverFail[words[0]] {
		return "", "", false
	}
	if strings.ContainsAny(cmd, "|;&$`<>()") {
		// Shell the lesson wrote itself: read as written.
		return cmd, name(cmd), true
	}
	for _, c := range checkForms {
		if len(words) < len(c.prog) || !slices.Equal(words[:len(c.prog)], c.prog) {
			continue
		}
		args := words[len(c.prog):]
		if slices.ContainsFunc(args, func(a string) bool { return slices.Contains(c.check, a) }) {
			return cmd, name(cmd), true
		}
		var flags, paths []string
		for _, a := range args {
			switch {
			case slices.Contains(c.drop, a):
			case strings.HasPrefix(a, "-"):
				flags = append(flags, a)
			default:
				paths = append(paths, a)
			}
		}
		if len(paths) == 0 {
			paths = []string{"."}
		}
		command, gateName := c.form(strings.Join(flags, " "), strings.Join(paths, " "))
		return command, gateName, true
	}
	return cmd, name(cmd), true
}
