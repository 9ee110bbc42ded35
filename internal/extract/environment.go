package extract

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/transcript"
	vocab "github.com/devlearn/devlearn/internal/words"
)

// What a script run by an interpreter needs of the machine and did not
// find there: the text encoding it reads and prints in, a module. Both are
// true of every later script on that machine, whatever the script does,
// so the lesson is worded without the script.

// codecError finds Python's error for text its default encoding cannot
// hold: the error's name, the codec and which way it failed.
var codecError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(Unicode(?:De|En)codeError): '([\w-]+)' codec can't (decode|encode)`)
})

// codecDefault reads a Python run that failed because the machine's
// default encoding is not UTF-8 (cp932 on a Japanese Windows, gbk on a
// Chinese one, charmap, ascii): every later script that reads a file or
// prints such text fails the same way until it names the encoding. A
// UTF-8 codec's error is about the data, not the machine.
func codecDefault(f transcript.ToolCall, fs failedStep) (Observation, bool) {
	if fs.prog != "python" {
		return Observation{}, false
	}
	m := codecError().FindStringSubmatch(fs.err)
	if m == nil {
		return Observation{}, false
	}
	codec := strings.ToLower(m[2])
	if strings.ReplaceAll(strings.ReplaceAll(codec, "-", ""), "_", "") == "utf8" {
		return Observation{}, false
	}
	// Reading and printing fail on the same default: one lesson for both,
	// whichever came first, the error kept in its details.
	pattern := "Python here reads and prints text as " + codec + " unless told: pass `encoding='utf-8'` to `open()` and `read_text()`, and set `PYTHONIOENCODING=utf-8` for output."
	resolution := "pass encoding='utf-8' when reading or writing files, and set PYTHONIOENCODING=utf-8 for output"
	return machineLesson(f, "python", fs.err, pattern, "every script that reads, writes or prints such text fails", resolution), true
}

// machineLesson is the pitfall of a failure that teaches about the
// machine: its area, the error line it failed with, the lesson worded
// without the command, what fails and what to do.
func machineLesson(f transcript.ToolCall, area, errLine, pattern, impact, resolution string) Observation {
	details := commandDetails(area, f.Command, " fails with \""+clip(errLine, 100)+"\"", impact, resolution)
	return failurePitfall(f, pattern, details, quote("tool", "`"+clip(oneLine(f.Command), 120)+"` → "+clip(errLine, 120)))
}

// builtWithoutError finds a program saying its build lacks what was asked
// of it: an encoder, a codec, a format, a filter, a delegate, a feature it
// was not compiled with. The name is the first group that matched.
var builtWithoutError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)unknown (?:encoder|decoder|codec) '([^']+)'|(?:encoder|decoder) '?([\w-]+)'? not found|no such filter: '([^']+)'|no decode delegate for this image format ` + "`" + `?'?([\w-]+)|not compiled with ([\w-]+) support|(?:was )?built without ([\w-]+) support`)
})

// builtWithout reads a failure for something the installed program was
// built without (ffmpeg's "Unknown encoder 'libwebp_anim'", ImageMagick's
// "no decode delegate"): every later call asking it for the same fails
// the same way on this machine, whatever the files, so the lesson is the
// program and what it lacks.
func builtWithout(f transcript.ToolCall, fs failedStep) (Observation, bool) {
	m := builtWithoutError().FindStringSubmatch(f.Error)
	if m == nil || fs.prog == "" {
		return Observation{}, false
	}
	name := ""
	for _, g := range m[1:] {
		if g != "" {
			name = g
			break
		}
	}
	if name == "" {
		return Observation{}, false
	}
	line := strings.TrimSpace(strings.ReplaceAll(m[0], "`", ""))
	pattern := "`" + fs.prog + "` here was built without `" + name + "` (\"" + line + "\"): check what this build supports before asking for it, or use another program."
	return machineLesson(f, fs.prog, line, pattern, "every call that asks it for "+name+" fails", "check what the build supports, or use another program"), true
}

// unitError finds systemd saying a unit does not exist.
var unitError = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Unit (?:file )?([\w@.-]+\.(?:service|timer|socket)) (?:could not be found|not found|does not exist)`)
})

// unitAbsent reads systemd saying a unit the agent named is not there
// ("Unit pi_bot.service could not be found."): the program runs some
// other way on this machine (a background process, supervisor), and the
// next session would guess the unit again. A unit the session then
// creates (its file written or read back, the unit started) was only not
// there yet.
func unitAbsent(calls []transcript.ToolCall, i int) (Observation, bool) {
	f := calls[i]
	if !f.IsError || f.Protocol || f.Command == "" {
		return Observation{}, false
	}
	m := unitError().FindStringSubmatch(f.Error)
	if m == nil {
		return Observation{}, false
	}
	unit := m[1]
	for _, t := range calls[i+1:] {
		if !t.IsError && strings.Contains(t.Command, unit) {
			return Observation{}, false // made, or found after all
		}
	}
	line := strings.TrimSpace(m[0])
	pattern := "There is no systemd unit `" + unit + "` here (\"" + line + "\"): find how it runs (`ps aux`) before restarting it as a service."
	return machineLesson(f, "systemctl", line, pattern, "every call that names the unit fails", "find how the program runs here (a background process, another supervisor) and restart it that way"), true
}

// runtimeIn is the runtime an error ran on, when its output names it: a
// Python traceback's frames are paths under the interpreter's install
// ("…/python3.8/…", "Python.3.8_3.8.2800…", "\\Python311\\"), Node ends
// an uncaught error with its version ("Node.js v18.17.0"). An error
// of one version ("unsupported operand type(s) for |" on Python 3.8) is
// the lesson only with the version: the same code runs on another.
func runtimeIn(text string) string {
	if m := pythonRe().FindStringSubmatch(text); m != nil {
		minor := m[1]
		if minor == "" {
			minor = m[2]
		}
		return "Python 3." + minor
	}
	if m := nodeRe().FindStringSubmatch(text); m != nil {
		return "Node.js " + m[1]
	}
	return ""
}

var (
	pythonRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bpython[._ -]?3[._](\d{1,2})(?:[^\d]|$)|[\\/]python3(\d{1,2})[\\/]`)
	})
	nodeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bNode\.js v(\d{1,2})\.\d+\.\d+`)
	})
)

// A shell habit that this machine's shell refuses: a bash heredoc or an
// `&&` chain in PowerShell, a `$(…)` the agent's harness escaped. The
// command was written right for bash; every later one written so fails
// the same way, whatever it runs and whatever the agent did next, so the
// lesson is the shell's, worded without the command.
type shellRefusal struct {
	written string // what the command holds: "<<", "&&", "$("
	// refused reads the error (terminal codes stripped) for the shell's
	// own words of refusal.
	refused func(text string) bool
	// area is the lesson's moment: "" for the program the command fed
	// (the next heredoc feeds it again); a name no command has when any
	// command may meet it (served at one program's every run, such a
	// lesson distracted), so that it is listed in the session's index.
	area                        string
	pattern, impact, resolution string
}

var shellRefusals = []shellRefusal{
	{
		// PowerShell names the error by an id in every language
		// (MissingFileSpecification, RedirectionNotSupported) or, from 7
		// on, heads it "ParserError" with the line it failed on.
		written: "<<",
		refused: func(text string) bool {
			return mentions(text, "MissingFileSpecification", "RedirectionNotSupported") || strings.Contains(text, "ParserError") && strings.Contains(text, "<<")
		},
		pattern:    "The agent's shell here is PowerShell, where a bash heredoc (`<<'EOF'`) does not parse: pass a script with `python -c` or a PowerShell here-string (`@'…'@`), and make edits with the edit tool.",
		impact:     "every command with a heredoc fails",
		resolution: "pass scripts with python -c or a here-string, edit files with the edit tool",
	},
	{
		// `&&` chains commands only from PowerShell 7 on; the id is
		// English in every language.
		written: "&&",
		refused: func(text string) bool {
			return mentions(text, "InvalidEndOfLine", "'&&' is not a valid statement separator")
		},
		area:       "&&",
		pattern:    "The agent's shell here is Windows PowerShell 5, where `&&` does not chain commands: use `;`, or `if ($?) { … }` to run the next only when the first passed.",
		impact:     "every command chained with && fails",
		resolution: "chain with ; or if ($?) { … }",
	},
	{
		// bash, quoting back what it read, shows `\$ (` where the command
		// had `$(`, and fails on the parenthesis.
		written: "$(",
		refused: func(text string) bool {
			return strings.Contains(text, "syntax error near unexpected token") && strings.Contains(text, `\$ (`)
		},
		area:       "$(…)",
		pattern:    "The agent's shell here escapes `$(…)` before bash reads it (`\\$ (`: \"syntax error near unexpected token\"): run the inner command first and use its output as it is, or put the command in a script file.",
		impact:     "every command with a command substitution fails",
		resolution: "run the inner command on its own first and paste its output, or write the command to a script and run that",
	},
}

// refusedByShell reads a failed call for a shell habit the shell refused.
func refusedByShell(f transcript.ToolCall) (Observation, bool) {
	if !f.Failed() {
		return Observation{}, false
	}
	text := stripTerminalCodes(f.Error)
	for _, r := range shellRefusals {
		if !strings.Contains(f.Command, r.written) || !r.refused(text) {
			continue
		}
		area := r.area
		if area == "" {
			if area = parseStep(f.Command, "").prog; area == "" {
				area = "powershell"
			}
		}
		err := errorLine(text)
		details := commandDetails(area, f.Command, " fails with \""+clip(err, 100)+"\"", r.impact, r.resolution)
		return failurePitfall(f, r.pattern, details, quote("tool", "`"+oneLine(f.Command)+"` → "+err)), true
	}
	return Observation{}, false
}

// quotedScriptBroke reads a script passed in quotes (`node -e "…"`,
// `python -c "…"`) that the shell could not even read: its quotes
// nested in the script's, bash reached the end looking for the closing
// one. The same program then passed with the script fed through a
// quoted heredoc, which the shell does not read: that is the fix, for
// every long script of that program.
func quotedScriptBroke(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall) (Observation, bool) {
	low := strings.ToLower(fs.err)
	if !mentions(low, "unexpected eof while looking for matching", "unterminated quoted string") {
		return Observation{}, false
	}
	if strings.Contains(failed.Command, "<<") || !strings.Contains(commandLine(passed.Command), "<<") {
		return Observation{}, false
	}
	flag := ""
	for _, w := range fs.words[1:] {
		if w == "-e" || w == "-c" || w == "--eval" {
			flag = " " + w
			break
		}
	}
	if flag == "" {
		return Observation{}, false // not a script in quotes: a quote the agent left open
	}
	pattern := "`" + fs.prog + flag + "` with a long script in quotes broke the shell's quoting: pass the script through a quoted heredoc (`" + fs.prog + " <<'EOF'`)."
	details := commandDetails(fs.prog, failed.Command, " fails with \""+clip(fs.err, 100)+"\"",
		"the shell cannot read the command", "feed the script through a quoted heredoc")
	return failurePitfall(failed, pattern, details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("tool", "`"+oneLine(passed.Command)+"` → passed")), true
}

// noModule finds the module an interpreter could not import: Python's
// "No module named 'x'", Node's "Cannot find module 'x'" and "Cannot find
// package 'x'". A relative or absolute path is a file, not a module.
var noModule = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`No module named '([A-Za-z_][\w.]*)'|Cannot find (?:module|package) '([@A-Za-z][\w.@/-]*)'`)
})

// moduleAbsent reads a script written into the command (`python -c`, a
// heredoc, `node -e`) that failed to import a module, then ran again
// without it and passed, nothing installed in between: the module is not
// there, and the agent did without it. What the passing run imported in
// its place, if anything, is the way around.
func moduleAbsent(failed transcript.ToolCall, fs failedStep, passed transcript.ToolCall, steps []string) (Observation, bool) {
	m := noModule().FindStringSubmatch(fs.err)
	if m == nil {
		return Observation{}, false
	}
	module, lang := m[1], "Python module"
	if module == "" {
		module, lang = m[2], "Node package"
	}
	if strings.Contains(module, ".") && lang == "Python module" {
		return Observation{}, false // a package's part: where it runs from, not what is installed
	}
	before, after := importsIn(failed.Command), importsIn(passed.Command)
	if !before[module] || after[module] {
		return Observation{}, false // the script is a file, or the module is still used
	}
	if !rewriteOf(scriptOf(failed.Command), scriptOf(passed.Command)) {
		// Another script altogether (a probe, "import x; print('ok')",
		// then the work): the agent moved on, and nothing took its place.
		return Observation{}, false
	}
	for _, s := range steps {
		if strings.Contains(s, module) || mentions(strings.ToLower(s), "install", " add ") {
			return Observation{}, false // installed meanwhile: another lesson
		}
	}
	var instead []string
	for name := range after {
		if !before[name] {
			instead = append(instead, "`"+name+"`")
		}
	}
	pattern := "The " + lang + " `" + module + "` is not installed here: importing it fails with \"" + clip(fs.err, 100) + "\""
	resolution := "do without it, or ask the person to install it"
	if len(instead) > 0 {
		slices.Sort(instead)
		pattern += "; the run that passed used " + strings.Join(instead, ", ") + " instead"
		resolution = "use " + strings.Join(instead, ", ") + " instead"
	}
	details := commandDetails(fs.prog, failed.Command, " fails with \""+clip(fs.err, 100)+"\"", "scripts that import it fail", resolution)
	return failurePitfall(failed, pattern+".", details,
		quote("tool", "`"+oneLine(failed.Command)+"` → "+fs.err),
		quote("tool", "`"+oneLine(passed.Command)+"` → passed")), true
}

// importLine finds what a script imports: Python's `import a, b as c` and
// `from a import b`, Node's require("a") and `import … from "a"`.
var importLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|[;\s"'])(?:import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)|from\s+([\w.]+)\s+import\b)|require\(\s*["']([^"']+)["']\s*\)|\bfrom\s+["']([^"']+)["']|import\s+["']([^"']+)["']`)
})

// importsIn returns the top-level names a command's scripts import.
func importsIn(cmd string) map[string]bool {
	out := map[string]bool{}
	for _, m := range importLine().FindAllStringSubmatch(cmd, -1) {
		switch {
		case m[1] != "":
			for _, part := range strings.Split(m[1], ",") {
				name, _, _ := strings.Cut(strings.TrimSpace(part), " ")
				name, _, _ = strings.Cut(name, ".")
				out[name] = true
			}
		case m[2] != "":
			name, _, _ := strings.Cut(m[2], ".")
			if name != "" {
				out[name] = true
			}
		default:
			for _, s := range m[3:] {
				if s != "" {
					out[s] = true
				}
			}
		}
	}
	return out
}

// rewriteOf reports a script that is another's rewrite: it keeps at least
// half of the other's names (identifiers, paths, strings of three letters
// or more), and three at least, more than a probe's "import" and "print".
func rewriteOf(a, b string) bool {
	names := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range scriptName().FindAllString(s, -1) {
			out[strings.ToLower(w)] = true
		}
		return out
	}
	was, now := names(a), names(b)
	kept := 0
	for w := range was {
		if now[w] {
			kept++
		}
	}
	return kept >= 3 && 2*kept >= len(was)
}

var scriptName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z_][\w]{2,}`)
})

// scriptOf is a command without its program's name: what it runs.
func scriptOf(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if i := strings.IndexAny(cmd, " \t\n"); i > 0 {
		return cmd[i:]
	}
	return ""
}

// encodingSetting finds where a command says which text encoding to use:
// PowerShell's -Encoding, a code page switched to UTF-8 (chcp 65001,
// [Console]::OutputEncoding), Python's encoding= and PYTHONIOENCODING.
var encodingSetting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)-Encoding\s+['"]?[\w-]+['"]?|chcp(?:\.com)?\s+65001|\[Console\]::(?:Output|Input)Encoding\s*=|\$OutputEncoding\s*=|PYTHONIOENCODING=\S+|-X\s+utf-?8|encoding\s*=\s*['"]utf-?8(?:-sig)?['"]`)
})

// rereadWithEncoding reads a file read again at once by the same program
// with an encoding named: what the first read printed was garbled (UTF-8
// shown in the system's code page), though nothing failed. Every later
// read of such a file needs the setting, whichever file, so the lesson
// names the program and the setting, the file in its details.
func rereadWithEncoding(ch *transcript.Channels) []Observation {
	spoke := spokeAt(ch)
	var out []Observation
	for i := range ch.Tools {
		f := ch.Tools[i]
		if f.Command == "" || f.Failed() || encodingSetting().MatchString(f.Command) {
			continue // a failure is the failure rules'; named already
		}
		fs := parseStep(f.Command, "")
		files := pathsIn(fs.line())
		if fs.prog == "" || len(files) == 0 || !reads(fs) {
			continue // only a read prints a file's text
		}
		for j := i + 1; j < len(ch.Tools) && j <= i+4; j++ {
			t := ch.Tools[j]
			if t.Sidechain != f.Sidechain || t.AgentID != f.AgentID || personBetween(spoke, f.Line, t.Line) {
				break
			}
			set := rereadSetting(t.Command, fs.prog, files)
			if set == "" {
				continue
			}
			name := fs.prog
			if len(fs.words) > 0 && strings.EqualFold(fs.words[0], name) {
				name = fs.words[0] // as written: Get-Content
			}
			pattern := "`" + name + "` here does not read files as UTF-8 unless told: add `" + set + "`."
			details := "area: " + field(fs.prog) + "; issue: `" + field(clip(oneLine(f.Command), 160)) + "` printed " + field(files[0]) + " garbled, and it was read again with " + field(set) +
				"; impact: text read without it is garbled; resolution: " + field("add "+set+" when reading files")
			out = append(out, failurePitfall(f, pattern, details,
				quote("tool", "`"+oneLine(f.Command)+"`"),
				quote("tool", "`"+oneLine(t.Command)+"` → read again")))
			break
		}
	}
	return out
}

// rereadSetting is the encoding setting of a command that reads files
// again with the program prog: in that step's own words, or set before it
// (`chcp 65001 && type a.txt`); "" when there is none.
func rereadSetting(cmd, prog string, files []string) string {
	if cmd == "" {
		return ""
	}
	for _, s := range stepsOf(cmd) {
		if s.prog != prog || !allIn(files, pathsIn(s.line())) {
			continue
		}
		if set := encodingSetting().FindString(s.line()); set != "" {
			return set
		}
		loc := encodingSetting().FindStringIndex(cmd)
		if at := strings.Index(cmd, s.words[0]); loc != nil && at >= 0 && loc[0] < at {
			return cmd[loc[0]:loc[1]]
		}
	}
	return ""
}

// pathsIn lists the file names a command names (a word with an extension
// or a folder in it, not a pattern).
func pathsIn(cmd string) []string {
	var out []string
	for _, w := range shellWords(commandLine(cmd)) {
		if w = unquote(w); !strings.HasPrefix(w, "-") && strings.Contains(w, ".") && !strings.ContainsAny(w, "*?") && vocab.PathLike(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func allIn(want, have []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
