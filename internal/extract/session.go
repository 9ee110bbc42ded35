package extract

import "github.com/devlearn/devlearn/internal/transcript"

// Result is what the rule-based extractors find in one session.
type Result struct {
	// Observations from the conversation and from failures and their
	// fixes, deduplicated: one per identity (type and normalised pattern)
	// in the session.
	Observations []Observation `json:"observations"`
	// Candidates are [PROCESS_KNOWLEDGE] blocks, each once.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Requests are the session's part of the cross-session extractor:
	// keep them, and give those of several sessions to RepeatedRequests.
	Requests []Request `json:"requests,omitempty"`
	// Problems are knowledge blocks that could not be read.
	Problems []string `json:"problems,omitempty"`
}

// Session runs every per-session extractor on one session's channels (read
// by the transcript reader, which redacted them).
func Session(ch *transcript.Channels, opt Options) Result {
	var r Result
	ch = rooted(ch, opt.Root)
	c := newConversation(ch)
	for i := range c.turns {
		c.turns[i].root = opt.Root
	}
	lessons := c.lessons() // before requests: a correction is not a request
	r.Observations = dedupe(append(lessons, failureFixes(ch)...))
	var errs []error
	r.Candidates, errs = KnowledgeCandidates(ch, opt)
	for _, e := range errs {
		r.Problems = append(r.Problems, opt.redact(e.Error()))
	}
	r.Requests = c.requests()
	return r
}

// Across runs the cross-session extractor over the results of several
// sessions.
func Across(results []Result, opt Options) []Observation {
	var reqs []Request
	for _, r := range results {
		reqs = append(reqs, r.Requests...)
	}
	return RepeatedRequests(reqs, opt)
}
