package sessions

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/transcript"
)

// FuzzExports: the export readers never panic on any text, and every
// record they make is named by a line the text has.
func FuzzExports(f *testing.F) {
	f.Add(specClaude)
	f.Add(specCursor)
	f.Add(specOldest)
	f.Add(claudeExport)
	f.Add("_**User**_\n```\n_**Agent**_\n")
	f.Add("⏺ Bash(\n  ⎿  Error\n> \n⏺ Read(")
	f.Add(chatExtractor)
	f.Add(chatBlocks)
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Count(text, "\n") + 1
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for name, read := range map[string]func() (*transcript.Channels, error){
			"specstory": func() (*transcript.Channels, error) {
				return readSpecStory(strings.NewReader(text), "f.md", "f", at, transcript.Options{})
			},
			"export": func() (*transcript.Channels, error) {
				return readClaudeExport(strings.NewReader(text), "f.txt", "f", at, transcript.Options{})
			},
			"chat": func() (*transcript.Channels, error) {
				return readChatMarkdown(strings.NewReader(text), "f.md", "f", at, transcript.Options{})
			},
		} {
			ch, err := read()
			if err != nil {
				continue
			}
			check := func(what string, m transcript.Meta) {
				if m.Line < 1 || m.Line > lines || m.UUID != fmt.Sprintf("L%d", m.Line) {
					t.Fatalf("%s: %s %+v of a text of %d lines", name, what, m, lines)
				}
			}
			for _, u := range ch.UserSignals {
				check("turn", u.Meta)
			}
			for _, c := range ch.Tools {
				check("call", c.Meta)
			}
		}
	})
}
