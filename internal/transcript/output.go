package transcript

import "strings"

// WithoutOutput is text without the lines a program or an agent printed
// (outputLine: a log, a stack trace, a shell session), keeping what people
// wrote, pasted or not: a document, a quote, code.
func WithoutOutput(text string) string {
	if !strings.Contains(text, "\n") {
		if outputLine(strings.TrimSpace(text)) {
			return ""
		}
		return text
	}
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if outputLine(strings.TrimSpace(line)) {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
