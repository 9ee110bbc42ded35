// Package classify puts a session in one of Cloche's classes (docs/evolution.md) from its
// first request: bug (something is broken), feedback (review-style
// remarks), feature (new functionality), enhancement (better existing
// functionality) or chore (maintenance). Offline rules (rules.yaml) decide
// first; when they cannot tell, a model can be asked (the LLM route, with
// classify.llm), through the caller. Bug and feedback sessions are where
// the lessons worth keeping come from, so they weigh more.
package classify

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/devlearn/devlearn/internal/words"
)

// The classes, in the order a tie is broken.
const (
	Bug         = "bug"
	Feedback    = "feedback"
	Chore       = "chore"
	Enhancement = "enhancement"
	Feature     = "feature"
	// Unclassified: the rules found nothing to go by.
	Unclassified = "unclassified"
)

// Classes lists the five classes in tie-break order.
var Classes = []string{Bug, Feedback, Chore, Enhancement, Feature}

//go:embed rules.yaml
var rulesYAML []byte

var rules = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	if err := yaml.Unmarshal(rulesYAML, &m); err != nil {
		panic(fmt.Sprintf("classify: rules.yaml: %v", err)) // embedded: a test reads it
	}
	return m
})

// Result is a session's class and why.
type Result struct {
	Class string `json:"class"`
	By    string `json:"by"`            // "rules", "llm"
	Why   string `json:"why,omitempty"` // the phrases that decided
}

// MaxRequest bounds what is read of the first request: its start says what
// it is about, and a pasted log should not outvote it.
const MaxRequest = 600

// Rules classifies a first request by the offline rules.
func Rules(request string) Result {
	if len(request) > MaxRequest {
		request = request[:MaxRequest]
	}
	hay := words.NewHaystack(request)
	lower := strings.ToLower(request)
	best, bestN := Unclassified, 0
	var why []string
	for _, c := range Classes {
		var found []string
		for _, p := range rules()[c] {
			if hit(hay, lower, p) {
				found = append(found, p)
			}
		}
		if len(found) > bestN {
			best, bestN, why = c, len(found), found
		}
	}
	return Result{Class: best, By: "rules", Why: strings.Join(why, ", ")}
}

func hit(hay *words.Haystack, lower, phrase string) bool {
	if strings.IndexFunc(phrase, cjk) >= 0 {
		return strings.Contains(lower, strings.ToLower(phrase))
	}
	return hay.Has(words.Phrase(phrase))
}

func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Weighs reports whether sessions of class c weigh more in extraction.
func Weighs(c string) bool { return c == Bug || c == Feedback }

// FirstRequest is the person's first request among a session's messages:
// the first that is not a slash command or its output.
func FirstRequest(messages []string) string {
	for _, m := range messages {
		t := strings.TrimSpace(m)
		if t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "<command-") || strings.HasPrefix(t, "<local-command") {
			continue
		}
		return t
	}
	return ""
}
