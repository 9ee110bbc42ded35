package transcript

import (
	"strings"
	"unicode"
)

// OwnWords returns what the person wrote in their own words: text without
// what an editor or a command template wrapped around it (Unwrap), nor
// what they pasted into it, which is someone else speaking (a program, a
// log, the agent, a document):
//
//   - fenced blocks (``` or ~~~; an unclosed fence runs to the end), and a
//     document's elements: from a line that only opens one
//     (<ParamField ...>) to the line that closes it,
//   - a table's rows (| a | b |), and the numbered headings of a chat
//     assistant's answer (2️⃣ ...),
//   - lines that look like code, a log or a shell session (indented by a
//     tab or four spaces, comment lines, prompts, stack frames, log
//     levels and time stamps, lines ending in ; { or }, a prompt's icon
//     glyphs: see machineLine), or an agent's terminal (Claude Code's ⏺
//     and ⎿),
//   - block quotes (> ...),
//   - another assistant's answer the person relayed (withoutRelayed).
//
// What is left keeps its order; a removed run of lines becomes one empty
// line, so that the sentences on either side stay apart.
func OwnWords(text string) string {
	return withoutRelayed(ownLines(unframe(Unwrap(text))))
}

// ownLines is text without the lines someone else wrote (OwnWords).
func ownLines(text string) string {
	if !strings.ContainsAny(text, "\n>`~#/;{}$[⏺⎿") && !strings.HasPrefix(text, "    ") && !strings.HasPrefix(text, "\t") {
		return text // one plain line: nothing pasted (the common case)
	}
	var b strings.Builder
	fence := ""
	gap := false
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		closing := ""
		if fence == "" {
			closing = markupOpens(trim)
		}
		pasted := true
		switch {
		case trim == "" && gap:
			// The blank lines of what was pasted are part of it.
		case fence != "":
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			fence = trim[:3]
		case closing != "":
			// A document's element (MDX, HTML, XML) on a line of its own:
			// what it holds is the document's, up to where it closes.
			fence = closing
		case pastedLine(line, trim):
		default:
			pasted = false
		}
		if pasted {
			gap = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if gap {
				b.WriteByte('\n')
			}
		}
		gap = false
		b.WriteString(line)
	}
	return strings.TrimSpace(b.String())
}

// unframe joins what a terminal's box wrapped: text copied out of an
// agent's input box ends a line with its frame (│) and starts the next
// with it, where the person wrote on ("… open a pull │\n│ request and
// review it"). Only lines with words on both sides of the wrap are
// joined, each without its frame: a box's blank lines are its own
// layout, and what it holds keeps its lines.
func unframe(text string) string {
	if !strings.Contains(text, "│") {
		return text
	}
	lines := strings.Split(text, "\n")
	out := lines[:1]
	for _, line := range lines[1:] {
		last, ok1 := strings.CutSuffix(strings.TrimRight(out[len(out)-1], " \t"), "│")
		next, ok2 := strings.CutPrefix(strings.TrimLeft(line, " \t"), "│")
		last = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(last), "│"))
		next = strings.TrimSpace(next)
		if ok1 && ok2 && last != "" && strings.TrimSpace(strings.TrimSuffix(next, "│")) != "" {
			out[len(out)-1] = last + " " + next
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// markupOpens reads a line that is only an element's opening tag
// (<ParamField type="string">) and returns its closing tag; "" for any
// other line, a tag closed on the same line, or one that closes itself.
func markupOpens(trim string) string {
	if len(trim) < 3 || trim[0] != '<' || !strings.HasSuffix(trim, ">") || strings.HasSuffix(trim, "/>") {
		return ""
	}
	name := trim[1:]
	if i := strings.IndexAny(name, " >\t"); i > 0 {
		name = name[:i]
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '.' || r == ':')) {
			return ""
		}
	}
	if strings.Contains(trim, "</"+name) {
		return ""
	}
	return "</" + name
}

// pastedLine reports a line that is code, a shell session, a log or a
// quote rather than the person's prose.
func pastedLine(line, trim string) bool {
	if trim == "" {
		return false
	}
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") {
		// Indented: code, unless it is a nested list item.
		if !listItem(trim) {
			return true
		}
	}
	for _, p := range []string{">", "//", "/*", "#!", "<!--"} {
		if strings.HasPrefix(trim, p) {
			return true // a quote, a comment
		}
	}
	if outputLine(trim) {
		return true
	}
	if strings.HasPrefix(trim, "|") && strings.HasSuffix(trim, "|") && strings.Count(trim, "|") >= 3 {
		return true // a table's row: a document's or a program's, not a sentence
	}
	if strings.HasPrefix(trim, "</") && strings.HasSuffix(trim, ">") {
		return true // an element's closing tag
	}
	if keycap(trim) {
		return true // "2️⃣ ...": the numbered heading of a chat assistant's answer
	}
	if strings.HasPrefix(trim, "# ") && !strings.Contains(trim[2:], " ") {
		return true // a shell comment of one word; "# Title" lines of prose keep their spaces
	}
	for _, s := range []string{";", "{", "}", "*/", "-->"} {
		if strings.HasSuffix(trim, s) {
			return true
		}
	}
	return false
}

// outputLine reports a line a program or an agent printed: a log, a stack
// trace, a shell session, an agent's terminal.
func outputLine(trim string) bool {
	// ⏺ and ⎿ open what Claude Code's terminal shows of the agent's
	// replies and tool calls.
	for _, p := range []string{"$ ", "at ", "Traceback", "File \"", "panic:", "goroutine ", "⏺", "⎿"} {
		if strings.HasPrefix(trim, p) && (p != "at " || strings.Contains(trim, "(") && strings.Contains(trim, ":")) {
			return true
		}
	}
	return machineLine(trim)
}

// logLine reports a line of a running program's log: a level, a time, a
// process, a request it answered; "remote:" is what a git server sends
// back. Unlike a stack frame, a compiler's pointer to a line or a shell's
// prompt, it names no code the person works on, nor a command they ran.
// A compiler's message that opens with a level ("error: could not
// compile") reads as one: its shape is a log's.
func logLine(trim string) bool {
	for _, p := range []string{"[ERROR]", "[INFO]", "[WARN", "[DEBUG]", "ERROR ", "INFO ", "WARN ", "DEBUG ", "npm ERR!", "npm error", "npm warn", "remote: "} {
		if rest, ok := strings.CutPrefix(trim, p); ok && !strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return true // but "DEBUG = True" is code
		}
	}
	if len(trim) > 10 && trim[4] == '-' && trim[7] == '-' && isDigits(trim[:4]) {
		return true // a line that starts with a date: 2026-03-01...
	}
	first, rest, _ := strings.Cut(trim, " ")
	lead, _, _ := strings.Cut(strings.TrimLeft(trim, "-=*#[ "), " ")
	switch {
	case strings.HasPrefix(trim, "(") && pidPrefix(first):
		return true // (python:31759): Adwaita-WARNING **: ...
	case levelPrefix(lead):
		return true // info: ..., DEBUG: ..., warning(gtk): ..., --- DEBUG: ...
	case clockTime(trim):
		return true // 18:16:20.190 or [12:00:01]
	case requestLogged(first, rest):
		return true // GET /items?page=1 200 in 329ms, "POST /api HTTP/1.1" 201 17
	}
	return false
}

// machineLine reports a line a program wrote, in whatever language the
// program speaks, by its shape rather than its words: people paste a
// terminal whole, prompt, warnings and all, and a warning that says
// "please use X instead" is the program's advice, not theirs. A line in
// a frame (│ ... │) is not one: people copy their own words out of an
// agent's input box.
func machineLine(trim string) bool {
	if logLine(trim) {
		return true
	}
	first, rest, _ := strings.Cut(trim, " ")
	switch {
	case exceptionPrefix(first):
		return true // AttributeError: 'ListBox' object has no attribute
	case lineNumbered(first, rest):
		return true // bash: line 5: ..., /x.py: строка 5: ...
	case sourceLocation(first) && reports(rest):
		return true // index-CsW7B3MJ.js:88 Uncaught TypeError: ..., main.go:12:5: error: ...
	case prompt(first) || promptAfter(first, rest) || bracketPrompt(trim):
		return true // user@host:~/src$ make, ❯ make, (base) ➜ repo make, node ➜ /workspaces/x $ npm run dev, [me@box src]$ make
	case goFrame(trim):
		return true // main.main(), github.com/x/y.(*T).Run(0x2009, {0x1, 0x2}): a Go panic's stack
	case assignment(first, rest) || assignment(bulleted(trim)):
		return true // device.name = "alsa_card.pci-0000_03_00.1", "  * device.name = ..." (wpctl's default)
	case isDigits(first) && first != "" && (rest == "|" || strings.HasPrefix(rest, "| ")):
		return true // "  11 | # install binaries ...": a listing a build tool quotes
	case serialized(trim):
		return true // a resource file's entries, or a string with its newlines escaped
	case strings.Contains(trim, "^C") || strings.Contains(trim, "Traceback (most recent call last)"):
		return true // an interrupted program, echoed
	}
	for _, r := range trim {
		if r >= 0xE000 && r <= 0xF8FF {
			return true // a prompt's or a status line's icon font glyph
		}
	}
	return false
}

// requestLogged: a server's log line for a request it answered, the
// method, the path, then the status at once, or after the protocol, and
// after it nothing, or what a log gives: a size, a time ("GET /items 200
// in 12ms", "\"POST /api HTTP/1.1\" 201 17", "GET / 304 - 1.2 ms"). A
// person naming an endpoint goes on in words of their own ("GET /items
// 500 on an empty page", "GET /api/orders 500 in production").
func requestLogged(first, rest string) bool {
	if status(first) {
		// The status and time of a request line the terminal wrapped
		// after its path, and only those: " 500 in 514ms (compile: 26ms,
		// proxy.ts: 11ms)". "200 in 30s is too slow" goes on in words.
		// A wrap inside the path or inside the timings leaves a piece
		// ("11ms, render: 477ms)") that no line rule can tell from words.
		f := strings.Fields(rest)
		return len(f) > 1 && f[0] == "in" && strings.HasSuffix(f[1], "s") && measure(f[1]) &&
			(len(f) == 2 || timings(strings.Join(f[2:], " ")))
	}
	switch strings.TrimPrefix(first, "\"") {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
	default:
		return false
	}
	f := strings.Fields(rest)
	if len(f) < 2 || !strings.HasPrefix(f[0], "/") {
		return false
	}
	f = f[1:]
	if strings.HasPrefix(f[0], "HTTP/") {
		f = f[1:]
	}
	if len(f) == 0 || !status(f[0]) {
		return false
	}
	if len(f) == 1 {
		return true
	}
	switch f[1] {
	case "-", "OK":
		return true
	case "in":
		return len(f) > 2 && measure(f[2]) // "in 12ms", not "in production"
	}
	return measure(f[1])
}

// timings reports the breakdown a web server logs after a request's time,
// and nothing after it: "(compile: 26ms, proxy.ts: 11ms, render: 477ms)",
// or, cut where the terminal wrapped it, whole items then a word or an
// item begun ("(compile: 26ms, proxy.ts: 11ms, rend").
func timings(s string) bool {
	inner, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	inner, closed := strings.CutSuffix(inner, ")")
	parts := strings.Split(inner, ",")
	if !closed {
		if len(parts) < 2 || len(strings.Fields(parts[len(parts)-1])) > 2 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	for _, part := range parts {
		name, value, ok := strings.Cut(part, ":")
		if !ok || strings.TrimSpace(name) == "" || !measure(strings.TrimSpace(value)) {
			return false
		}
	}
	return true
}

// status reports an HTTP status code: 100 to 599.
func status(w string) bool {
	return len(w) == 3 && isDigits(w) && w[0] >= '1' && w[0] <= '5'
}

// measure reports a size or a time as a log writes it: "17", "1.2", "329ms",
// "4.0s".
func measure(w string) bool {
	if v, ok := strings.CutSuffix(w, "ms"); ok {
		w = v
	} else {
		w = strings.TrimSuffix(w, "s")
	}
	return strings.ContainsAny(w, "0123456789") && strings.Trim(w, "0123456789.") == ""
}

// pidPrefix: "(name:1234):".
func pidPrefix(w string) bool {
	name, pid, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(w, "("), "):"), ":")
	return ok && strings.HasSuffix(w, "):") && name != "" && isDigits(pid) && pid != ""
}

// levelPrefix: a log level word, maybe with a domain, then a colon.
func levelPrefix(w string) bool {
	w, ok := strings.CutSuffix(w, ":")
	if !ok {
		return false
	}
	if i := strings.IndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
		w = w[:i] // warning(gtk)
	}
	if i := strings.LastIndexByte(w, '-'); i > 0 {
		w = w[i+1:] // Adwaita-WARNING
	}
	switch w {
	case "HINT", "DETAIL", "NOTICE", "CONTEXT", "STATEMENT", "QUERY":
		return true // PostgreSQL's lines around its error, in capitals
	}
	switch strings.ToLower(w) {
	case "debug", "info", "err", "fatal", "trace", "critical", "panic", "error":
		return true
	case "warn", "warning":
		// "Warning: never deploy on Fridays" is how a person writes one.
		return w != "Warning" && w != "Warn"
	}
	return false
}

// exceptionPrefix: "TypeError:", "java.io.IOException:".
func exceptionPrefix(w string) bool {
	w, ok := strings.CutSuffix(w, ":")
	if !ok || strings.ContainsAny(w, "/\\") {
		return false
	}
	for _, s := range []string{"Error", "Exception"} {
		if len(w) > len(s) && strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// lineNumbered: a program or a file, then a word and a number, each
// ending in a colon, the way a shell reports an error in its own language
// ("bash: line 5:", "script.sh: Zeile 3:", "/a.py: строка 5:").
func lineNumbered(first, rest string) bool {
	if len(first) < 2 || !strings.HasSuffix(first, ":") {
		return false
	}
	word, rest, ok := strings.Cut(rest, " ")
	if !ok || word == "" || strings.HasSuffix(word, ":") {
		return false
	}
	num, _, _ := strings.Cut(rest, " ")
	num, ok = strings.CutSuffix(num, ":")
	return ok && num != "" && isDigits(num)
}

// sourceLocation: a file with its extension and a line number, maybe a
// column, the way a browser's console or a compiler opens a message
// ("index-CsW7B3MJ.js:88", "main.go:12:5:", "a.tsx(1,31):").
func sourceLocation(w string) bool {
	w = strings.TrimSuffix(w, ":")
	if i := strings.IndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
		w = w[:i] + ":" + strings.Replace(w[i+1:len(w)-1], ",", ":", 1) // tsc: a.tsx(1,31)
	}
	file, pos, ok := strings.Cut(w, ":")
	if !ok || !isDigits(strings.Replace(pos, ":", "", 1)) || pos == "" || strings.HasPrefix(pos, ":") || strings.HasSuffix(pos, ":") {
		return false
	}
	dot := strings.LastIndexByte(file, '.')
	return dot > 0 && dot < len(file)-1 && !strings.ContainsAny(file[dot+1:], "/\\")
}

// reports: what follows a source location in a program's message, a
// level or an exception ("Uncaught TypeError:", "error:", "warning:"); a
// person pointing at a line writes words of their own after it.
func reports(rest string) bool {
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "- ") // tsc: "a.tsx:1:31 - error TS6133: ..."
	w, after, _ := strings.Cut(rest, " ")
	code, _, _ := strings.Cut(after, " ")
	switch strings.ToLower(strings.TrimSuffix(w, ":")) {
	case "uncaught":
		return true
	case "error", "warning", "warn", "fatal":
		// "error:", or "error TS6133:": a level, then maybe its code; "error
		// handling is wrong here" is the person's.
		return strings.HasSuffix(w, ":") || strings.HasSuffix(code, ":")
	}
	return exceptionPrefix(w)
}

// prompt: a shell's prompt before a command, "user@host:~/src$" or a
// prompt character standing alone.
func prompt(first string) bool {
	switch first {
	case "❯", "➜", "λ", "»", "PS>":
		return true
	}
	if at := strings.IndexByte(first, '@'); at > 0 {
		if c := strings.IndexByte(first[at:], ':'); c > 0 {
			return strings.HasSuffix(first, "$") || strings.HasSuffix(first, "#") || strings.HasSuffix(first, ">")
		}
	}
	return strings.HasPrefix(first, "PS") && strings.HasSuffix(first, ">") && strings.Contains(first, ":\\")
}

// bracketPrompt: the prompt bash prints by default on Fedora and Red Hat,
// the user and the host in brackets with the folder ("[me@box src]$
// make"), and the ones built like it that put the command on a line of
// its own after the status ("[me@box ~/src main !2]", then "[1]$ make").
// An address in brackets is no prompt: a prompt names a folder after it,
// or ends in the character before the command.
func bracketPrompt(trim string) bool {
	if !strings.HasPrefix(trim, "[") {
		return false
	}
	in, after, ok := strings.Cut(trim[1:], "]")
	if !ok || in == "" {
		return false
	}
	switch {
	case after == "$" || after == "#" || after == "%":
		return true
	case strings.HasPrefix(after, "$ ") || strings.HasPrefix(after, "# ") || strings.HasPrefix(after, "% "):
		return true
	case after != "":
		return false
	}
	who, where, _ := strings.Cut(in, " ")
	at := strings.IndexByte(who, '@')
	return at > 0 && at < len(who)-1 && !strings.ContainsAny(who, "/:") && (strings.HasPrefix(where, "~") || strings.HasPrefix(where, "/"))
}

// goFrame: a line of a Go program's stack as a panic prints it, a call
// of a qualified function, named in ASCII with nothing before it, with
// its arguments ("main.main()", "pkg.(*T).Run(0x2009, {0x1, 0x2})",
// "panic({0x1039?, 0x2009?})"). A sentence naming a call has words
// before it, spaced or in another script ("src/main.goを直して(テストも)").
func goFrame(trim string) bool {
	open := strings.IndexByte(trim, '(')
	if open <= 0 || !strings.HasSuffix(trim, ")") {
		return false
	}
	name := trim[:open]
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./*()%-", r)) {
			return false
		}
	}
	return strings.Contains(name, ".") && !strings.Contains(name, "..") || strings.Contains(trim[open:], "0x")
}

// promptAfter: a prompt character after one word, the environment or the
// user a prompt names first ("(base) ➜ repo", a conda environment; "node
// ➜ /workspaces/x $", a dev container's user).
func promptAfter(first, rest string) bool {
	second, more, _ := strings.Cut(rest, " ")
	if second != "❯" && second != "➜" {
		return false
	}
	third, _, _ := strings.Cut(strings.TrimSpace(more), " ")
	// What a prompt shows next: a folder, a branch, the $ before the
	// command; "Alice ➜ she reviews" is an arrow in a sentence.
	return strings.HasPrefix(first, "(") && strings.HasSuffix(first, ")") ||
		strings.HasPrefix(third, "/") || strings.HasPrefix(third, "~") ||
		strings.Contains(more, " $ ") || strings.Contains(more, "git:(")
}

// assignment: a name, maybe dotted, given a value, as in code and in
// configuration ("x = 1", "opts.level := 3").
func assignment(first, rest string) bool {
	if !strings.HasPrefix(rest, "= ") && !strings.HasPrefix(rest, ":= ") && rest != "=" {
		return false
	}
	for _, r := range first {
		if !(r == '_' || r == '.' || r == '-' || r == '[' || r == ']' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return first != ""
}

// serialized reports a line of data as a file or a program stores it: two
// entries or more keyed by a path ("Levels/Museum/Advisor_Text=There they
// are…[i2t]Levels/Museum/Advisor_Title=…", a game's strings pasted to be
// translated), or a long string with its newlines escaped twice or more
// ("…\n\nYou'll always…"). A person's sentence setting one key
// ("set log.level=debug") is neither.
func serialized(trim string) bool {
	if len(trim) >= 80 && strings.Count(trim, `\n`) >= 2 {
		return true
	}
	keyed := 0
	for i := 0; ; i++ {
		k := strings.IndexByte(trim[i:], '=')
		if k < 0 {
			break
		}
		i += k
		if i+1 == len(trim) || trim[i+1] == ' ' || trim[i+1] == '=' {
			continue
		}
		j := i
		for j > 0 && keyByte(trim[j-1]) {
			j--
		}
		if strings.Contains(trim[j:i], "/") {
			keyed++
		}
	}
	return keyed >= 2
}

// keyByte is a byte of a resource key: letters, digits, _ . and /.
func keyByte(b byte) bool {
	return b == '_' || b == '/' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// bulleted is a line without the bullet a program's listing marks it
// with ("* ", "- ", "• "), as first word and rest.
func bulleted(trim string) (string, string) {
	for _, b := range []string{"* ", "- ", "• "} {
		if after, ok := strings.CutPrefix(trim, b); ok {
			first, rest, _ := strings.Cut(strings.TrimSpace(after), " ")
			return first, rest
		}
	}
	return "", ""
}

// clockTime: a time of day to the second, as logs stamp their lines.
func clockTime(s string) bool {
	for i := 0; i+8 <= len(s); i++ {
		if s[i] != ':' || i < 2 {
			continue
		}
		// hh:mm:ss, the hour's digits before i.
		if isDigits(s[i-2:i]) && isDigits(s[i+1:i+3]) && i+5 < len(s) && s[i+3] == ':' && isDigits(s[i+4:i+6]) {
			if i+6 == len(s) || s[i+6] < '0' || s[i+6] > '9' {
				return true
			}
		}
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// keycap reports a line that opens with a keycap number (1️⃣, 🔟), how
// chat assistants number the parts of an answer people paste back.
func keycap(trim string) bool {
	// A mark may come first: "✅ 3️⃣ ...".
	trim = strings.TrimLeftFunc(trim, func(r rune) bool { return unicode.Is(unicode.So, r) && r != '🔟' || r == 0xFE0F || r == ' ' })
	if strings.HasPrefix(trim, "🔟") {
		return true
	}
	rs := []rune(trim)
	i := 1
	if len(rs) > 1 && rs[1] == 0xFE0F {
		i = 2
	}
	return len(rs) > i && strings.ContainsRune("0123456789#*", rs[0]) && rs[i] == 0x20E3
}

// listItem reports a markdown list item: "- x", "* x", "+ x", "1. x".
func listItem(trim string) bool {
	if len(trim) > 1 && strings.ContainsRune("-*+", rune(trim[0])) && trim[1] == ' ' {
		return true
	}
	i := 0
	for i < len(trim) && trim[i] >= '0' && trim[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(trim) && (trim[i] == '.' || trim[i] == ')') && trim[i+1] == ' '
}
