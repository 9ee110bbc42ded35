// readClaudeExportFile reads what Claude Code's /export command writes (a
// text file, "<date>-<first words>.txt" by default), or a copy of its
// terminal conversation saved by hand: the session as the person saw it,
// which people keep and commit when the JSONL files stay in their home
// folder.
//
// Its layout is the terminal's (docs/agents.md, "Claude Code's text
// export"): the welcome box (its "cwd:" line names the folder), the
// person's prompts opened by "> " or "❯ " (continued on lines indented two
// spaces), the agent's messages and tool calls opened by "⏺ " or "● "
// ("⏺ Bash(command)", "⏺ Update(path)", continued on indented lines), and
// each call's result under "  ⎿  ", "Error: …" when it failed. Wide
// columns are cut ("…") and may carry a right-hand column ("timeout: 1m",
// "Cost: $0.31"): a command read from it is what the person saw, not
// always all of it.
//
// There are no ids or times in it: each record's id is "L<n>", n the line
// that opens it, and its time the date of the file's name, else the
// file's modification time.

package sessions

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

var (
	exportTool   = regexp.MustCompile(`^(?:⏺|●) ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)?)\((.*)$`)
	exportRight  = regexp.MustCompile(`\s{2,}(?:timeout: .*|Cost: \$.*|\d+m? ?\d*s\)?)\s*$`)
	exportDate   = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})`)
	exportFolded = regexp.MustCompile(`\s*…? ?\(ctrl\+[a-z] to (?:expand|see all)\)`)
	exportCwd    = regexp.MustCompile(`^│\s+(?:cwd: )?((?:/|~/|[A-Za-z]:\\)\S*)\s*│`)
	exportBanner = []string{"Welcome to Claude Code", "Claude Code v"}
)

// exportTools are the tool names Claude Code shows, as its hooks name
// them.
var exportTools = map[string]string{
	"Bash": "Bash", "Read": "Read", "Write": "Write", "Update": "Edit", "Edit": "Edit", "MultiEdit": "Edit",
	"NotebookEdit": "NotebookEdit", "Create": "Write",
}

// claudeExportHead reports whether a text file that starts with head is
// a Claude Code export: it opens with Claude Code's welcome box, or (not
// strict: a file named one by one) its lines hold the person's prompts,
// the agent's marks and a tool result's.
func claudeExportHead(head []byte, strict bool) bool {
	const space = " \n\r\ufeff"
	start := bytes.TrimLeft(head[:min(len(head), 1024)], space)
	if first, rest, ok := bytes.Cut(start, []byte("\n")); ok && !bytes.HasPrefix(first, []byte("╭")) && len(first) <= maxLaunchLine && bytes.Contains(bytes.ToLower(first), []byte("claude")) {
		start = bytes.TrimLeft(rest, space) // the command that started it, copied with the terminal ("claude", "$ claude --resume")
	}
	if bytes.HasPrefix(start, []byte("╭")) {
		for _, b := range exportBanner {
			if bytes.Contains(start, []byte(b)) {
				return true
			}
		}
	}
	if strict {
		return false
	}
	if bytes.Contains(head, []byte(nbsp)) {
		head = bytes.ReplaceAll(head, []byte(nbsp), []byte(" "))
	}
	prompts, marks := 0, 0
	for _, l := range bytes.Split(head, []byte("\n")) {
		switch {
		case bytes.HasPrefix(l, []byte("> ")), bytes.HasPrefix(l, []byte("❯ ")):
			prompts++
		case bytes.HasPrefix(l, []byte("⏺ ")), bytes.HasPrefix(l, []byte("● ")):
			marks++
		}
	}
	return prompts > 0 && marks > 1 && bytes.Contains(head, []byte("  ⎿  "))
}

// maxLaunchLine bounds the line above the welcome box that may be the
// command that started Claude Code, its prompt included
// ("me@box:~/projects/shop (feature/cart) $ claude --resume").
const maxLaunchLine = 200

var readClaudeExportFile = fromSaved(readClaudeExport)

// exportRecord is the record being read: a prompt, a message, a call.
type exportRecord struct {
	kind  string // "prompt", "agent", "tool", "result"
	line  int
	lines []string
	// a call's
	name   string
	args   []string
	closed bool // its arguments' ")" was read
}

type exportReader struct {
	b    *builder
	ts   string
	cwd  string
	wrap bool // the terminal broke the last result line: the next one continues it
	rec  *exportRecord
	call *exportRecord // the last tool call, whose result comes next
	res  []string
	fail bool
}

func readClaudeExport(r io.Reader, name, id string, at time.Time, opt transcript.Options) (*transcript.Channels, error) {
	er := &exportReader{b: newBuilder(name, opt), ts: at.Format(time.RFC3339)}
	er.b.claude = true
	er.b.session(id)
	if err := eachLine(r, er.b, name, er.read); err != nil {
		return nil, err
	}
	er.flush()
	er.endResult()
	return er.b.done(), nil
}

// nbsp is the no-break space a terminal copied by hand may hold where
// Claude Code wrote a space ("  ⎿ \u00a0☐ Fix the cart"): read as one.
const nbsp = "\u00a0"

func (er *exportReader) read(n int, line string) {
	line = strings.ReplaceAll(line, nbsp, " ")
	switch {
	case strings.HasPrefix(line, "│") || strings.HasPrefix(line, "╭") || strings.HasPrefix(line, "╰"):
		if m := exportCwd.FindStringSubmatch(line); m != nil && er.cwd == "" {
			er.cwd = strings.TrimSpace(m[1])
		}
		return
	case strings.HasPrefix(line, "> "), strings.HasPrefix(line, "❯ "), line == ">", line == "❯":
		er.start(&exportRecord{kind: "prompt", line: n, lines: []string{cutMark(line)}})
		return
	case strings.HasPrefix(line, "⏺ "), strings.HasPrefix(line, "● "):
		if m := exportTool.FindStringSubmatch(line); m != nil {
			rec := &exportRecord{kind: "tool", line: n, name: m[1]}
			rec.arg(m[2])
			er.start(rec)
			return
		}
		if text := cutMark(line); text != "Update Todos" { // the to-do list Claude Code shows, not words
			er.start(&exportRecord{kind: "agent", line: n, lines: []string{text}})
		} else {
			er.start(&exportRecord{kind: "todo", line: n})
		}
		return
	case strings.HasPrefix(strings.TrimLeft(line, " "), "⎿"):
		er.flush()
		text := strings.TrimSpace(strings.TrimPrefix(strings.TrimLeft(line, " "), "⎿"))
		er.rec = &exportRecord{kind: "result", line: n}
		if strings.HasPrefix(text, "Error") {
			er.fail = true
			er.res = er.res[:0] // what it printed before ("Waiting…") is not the error
		}
		er.res = append(er.res, text)
		er.wrap = er.wraps(line)
		return
	}
	if er.rec == nil {
		return
	}
	if line != "" && !strings.HasPrefix(line, " ") {
		// Text at the margin that no mark opens: a status line ("✻
		// Worked for 31s"), or what the export left unmarked.
		er.flush()
		return
	}
	switch er.rec.kind {
	case "tool":
		if !er.rec.closed {
			er.rec.arg(strings.TrimSpace(line))
		}
	case "result":
		er.resultLine(line)
	default:
		er.rec.lines = append(er.rec.lines, strings.TrimPrefix(line, "  "))
	}
}

// resultLine adds a line of a result, joined to the one before when the
// terminal wrapped it there (the line before kept the space it was broken
// at; a word broken in two cannot be told from two lines, and stays so).
func (er *exportReader) resultLine(line string) {
	text := strings.TrimSpace(line)
	if er.wrap && len(er.res) > 0 && text != "" {
		er.res[len(er.res)-1] += " " + text
	} else {
		er.res = append(er.res, text)
	}
	er.wrap = er.wraps(line)
}

// wraps reports a result's line that the terminal broke: one that ends
// with the space it broke at.
func (er *exportReader) wraps(line string) bool {
	return strings.TrimSpace(line) != "" && strings.HasSuffix(line, " ")
}

// cutMark is a line without the mark that opens it.
func cutMark(line string) string {
	for _, m := range []string{"> ", "❯ ", "⏺ ", "● "} {
		if rest, ok := strings.CutPrefix(line, m); ok {
			return rest
		}
	}
	return ""
}

// arg adds a line of a call's arguments, without the right-hand column
// and the marks of what Claude Code folded ("… (ctrl+r to expand)").
// Older versions close the line with ")…".
func (rec *exportRecord) arg(s string) {
	s = exportRight.ReplaceAllString(s, "")
	s = exportFolded.ReplaceAllString(s, "")
	s = strings.TrimSuffix(strings.TrimSpace(s), "…")
	if strings.HasSuffix(s, ")") {
		s, rec.closed = strings.TrimSuffix(s, ")"), true
	}
	if s = strings.TrimSpace(s); s != "" {
		rec.args = append(rec.args, s)
	}
}

// start ends the record read and begins rec.
func (er *exportReader) start(rec *exportRecord) {
	er.flush()
	if rec.kind != "result" {
		er.endResult()
	}
	er.rec = rec
}

// flush hands the record read to the builder (a result waits for the
// next record: a call may show several lines under "⎿").
func (er *exportReader) flush() {
	rec := er.rec
	er.rec = nil
	if rec == nil || rec.kind == "result" {
		return
	}
	m := transcript.Meta{UUID: fmt.Sprintf("L%d", rec.line), Timestamp: er.ts, Line: rec.line}
	switch rec.kind {
	case "todo":
		er.endResult()
	case "prompt":
		text := strings.TrimSpace(strings.Join(rec.lines, "\n"))
		if cmd, ok := strings.CutSuffix(text, " is running…"); ok && strings.HasPrefix(cmd, "/") {
			text = cmd // a slash command the person ran
		}
		er.b.user(m, text, er.cwd)
	case "agent":
		er.b.assistant(m, strings.Join(rec.lines, "\n"))
	case "tool":
		er.endResult()
		name, ok := exportTools[rec.name]
		if !ok {
			return
		}
		args := strings.TrimSpace(strings.Join(rec.args, " "))
		args = strings.TrimSuffix(args, "…")
		var command string
		var paths []string
		if name == "Bash" {
			command = args
		} else if args != "" {
			paths = []string{args}
		}
		id := m.UUID
		er.b.tool(m, id, name, command, paths, er.cwd)
		er.call, er.res, er.fail = &exportRecord{kind: "tool", line: rec.line, name: id}, er.res[:0], false
	}
}

// endResult hands the result read to the last call.
func (er *exportReader) endResult() {
	if er.call == nil {
		return
	}
	text := strings.TrimSpace(strings.Join(er.res, "\n"))
	if er.fail {
		text = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "Error:"), "Error"))
	}
	m := transcript.Meta{UUID: fmt.Sprintf("L%d", er.call.line), Timestamp: er.ts, Line: er.call.line}
	er.b.result(m, er.call.name, er.fail, text)
	er.call, er.res, er.fail = nil, er.res[:0], false
}
