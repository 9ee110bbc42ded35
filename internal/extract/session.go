package extract

import "github.com/devlearn/devlearn/internal/transcript"

// Result is what the rule-based extractors find in one session.
type Result struct {
	// Observations from corrections and lessons, deduplicated: one per
	// identity (type and normalised pattern) in the session.
	Observations []Observation `json:"observations"`
	// Candidates are [PROCESS_KNOWLEDGE] blocks, each once.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Requests and Failures are the session's part of the cross-session
	// extractors: keep them, and give those of several sessions to
	// RepeatedRequests and RepeatedFailures.
	Requests []Request `json:"requests,omitempty"`
	Failures []Failure `json:"failures,omitempty"`
	// Problems are knowledge blocks that could not be read.
	Problems []string `json:"problems,omitempty"`
}

// Session runs every per-session extractor on one session's channels.
func Session(ch *transcript.Channels, opt Options) Result {
	var r Result
	red := prepare(ch, opt)
	r.Observations = dedupe(append(corrections(red, opt), lessons(red, opt)...))
	var errs []error
	r.Candidates, errs = KnowledgeCandidates(ch, opt)
	for _, e := range errs {
		r.Problems = append(r.Problems, opt.redact(e.Error()))
	}
	r.Requests = requests(red, opt)
	r.Failures = failures(red, opt)
	return r
}

// Across runs the cross-session extractors over the results of several
// sessions.
func Across(results []Result, opt Options) []Observation {
	var reqs []Request
	var fails []Failure
	for _, r := range results {
		reqs = append(reqs, r.Requests...)
		fails = append(fails, r.Failures...)
	}
	return append(RepeatedRequests(reqs, opt), RepeatedFailures(fails, opt)...)
}
