package transcript

import "strings"

// WithoutOutput is text without the lines of a running program's log
// (logLine: a level, a time, a request a server answered). What names the
// code or the commands the person works on stays, whoever wrote it: a
// stack frame, a compiler's message, a shell's prompt and its command,
// code, a document, a quote. A text made of such lines alone is returned
// whole: the person sent it to be read.
func WithoutOutput(text string) string {
	lines := strings.Split(text, "\n")
	kept := lines[:0:0]
	words := false
	for _, line := range lines {
		trim := strings.TrimSpace(line)
		if logLine(trim) {
			continue
		}
		kept = append(kept, line)
		words = words || trim != ""
	}
	if !words || len(kept) == len(lines) {
		return text
	}
	return strings.Join(kept, "\n")
}
