// Package inject tells knowledge text that tries to speak as something
// other than data: markup that imitates the harness or a chat role (a tag
// such as </system-reminder>, a line "SYSTEM: ...", tool-call syntax), and
// a lesson that reads as an order to fetch and run code or to ignore the
// other instructions. Everything devlearn serves to an agent passes
// through Neutralise; what Instructions finds is held until a person
// accepts it (docs/serve.md).
//
// It is a leaf: the hooks call it on every served text, so it imports the
// standard library only and scans each text once.
package inject

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Kinds of finding.
const (
	KindMarkup = "markup"              // harness or role markup
	KindRun    = "fetch-and-run"       // an order to fetch and run code
	KindIgnore = "ignore-instructions" // an order to set other instructions aside
)

// Finding is one suspicious piece of a text.
type Finding struct {
	Line int    // 1-based
	Kind string // KindMarkup, KindRun, KindIgnore
	Text string // what matched, as written (cut to 80 bytes)
}

// What says what a finding is, for a log line or a doctor check.
func (f Finding) What() string {
	switch f.Kind {
	case KindRun:
		return "reads as an order to fetch and run code: " + quote(f.Text)
	case KindIgnore:
		return "reads as an order to ignore other instructions: " + quote(f.Text)
	}
	return "imitates harness or role markup: " + quote(f.Text)
}

func quote(s string) string { return "\"" + s + "\"" }

// Scan is every finding of a text: markup first, then orders, by line.
func Scan(s string) []Finding {
	return append(Markup(s), Instructions(s)...)
}

// Held is why a text is held for a person's review ("" when it is not):
// the first order to fetch and run code or to ignore instructions.
func Held(s string) string {
	if f := Instructions(s); len(f) > 0 {
		return f[0].What()
	}
	return ""
}

// Hash is what records a person's acceptance of a held text: an edit
// after it was accepted holds it again.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))))
	return hex.EncodeToString(sum[:8])
}

func cut(s string) string {
	if len(s) > 80 {
		s = s[:80]
		for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
	}
	return s
}

// lineAt is the 1-based line of byte offset i.
func lineAt(s string, i int) int { return strings.Count(s[:i], "\n") + 1 }
