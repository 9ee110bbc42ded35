package cli

import (
	"fmt"
	"io"

	"github.com/devlearn/devlearn/internal/inject"
)

// printFlagged names, as a lesson arrives (ingest, a merge), each line of
// its text that imitates harness or role markup or reads as an order to
// fetch and run code or to ignore other instructions, and says what
// becomes of it when it is served (docs/serve.md).
func printFlagged(out io.Writer, prefix, where, text string) int {
	n := 0
	for _, f := range inject.Scan(text) {
		then := "served as plain text"
		if f.Kind != inject.KindMarkup {
			then = "held, never served, until a person accepts it ('devlearn learn --review')"
		}
		fmt.Fprintf(out, "%sflagged  %s:%d  %s: %s\n", prefix, where, f.Line, f.What(), then)
		n++
	}
	return n
}
