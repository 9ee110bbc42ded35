package transcript

import "strings"

// WithoutLogLines is text without the lines of a running program's log
// (logLine: a level, a time, a request a server answered). What names the
// code or the commands the person works on stays, whoever wrote it: a
// stack frame, a compiler's pointer to a line, a shell's prompt and its
// command, code, a document, a quote. A line that opens with a log level
// ("error: could not compile") reads as a log, as capture reads it. A text
// made of log lines alone (in a fence or not) is returned whole: the
// person sent it to be read.
func WithoutLogLines(text string) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0:0]
	words := false
	for _, line := range lines {
		trim := strings.TrimSpace(line)
		if logLine(trim) {
			continue
		}
		kept = append(kept, line)
		words = words || trim != "" && !strings.HasPrefix(trim, "```") && !strings.HasPrefix(trim, "~~~")
	}
	if !words || len(kept) == len(lines) {
		return text
	}
	return strings.Join(kept, "\n")
}
