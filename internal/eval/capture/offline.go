package capture

import (
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Offline is the rule-based extractors as the capture pipeline runs them
// (internal/ingest): each session on its own, then what only several
// sessions show (a request repeated) over all of the case's sessions.
func Offline(chs []*transcript.Channels) []extract.Observation {
	opt := extract.Options{Redact: redact.Text}
	var results []extract.Result
	var out []extract.Observation
	for _, ch := range chs {
		r := extract.Session(ch, opt)
		results = append(results, r)
		out = append(out, r.Observations...)
	}
	return append(out, extract.Across(results, opt)...)
}
