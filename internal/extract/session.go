package extract

import (
	"slices"

	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/transcript"
)

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
	// Missing are the paths its reads did not find: keep them, and give
	// those of several sessions to StalePaths.
	Missing []Missing `json:"missing,omitempty"`
	// Problems are knowledge blocks that could not be read.
	Problems []string `json:"problems,omitempty"`
}

// Session runs every per-session extractor on one session's channels (read
// by the transcript reader, which redacted them).
func Session(ch *transcript.Channels, opt Options) Result {
	var r Result
	ch = unmasked(withoutAmbient(ch))
	read := ch // as read: the path rules tell the project's paths from others themselves
	ch = rooted(ch, opt.Root)
	c := newConversation(ch)
	in := instance(ch, opt.Root)
	for i := range c.turns {
		c.turns[i].root, c.turns[i].folders = opt.Root, in.Folders
	}
	lessons := c.lessons() // before requests: a correction is not a request
	instructions := c.instructions(in)
	obs := slices.Concat(lessons, failureFixes(ch), rereadWithEncoding(ch), c.reportedFailures(), harnessRefusals(ch), misreads(read, opt.Root), hiddenSkipped(read, opt.Root), writtenLessons(read), recapLessons(ch), routines(instructions))
	for i := range obs {
		obs[i].Pattern = identity.Generalize(obs[i].Pattern, in)
		obs[i].Details = identity.Generalize(obs[i].Details, in)
	}
	r.Observations = dedupe(obs)
	var errs []error
	r.Candidates, errs = KnowledgeCandidates(ch, opt)
	for _, e := range errs {
		r.Problems = append(r.Problems, opt.redact(e.Error()))
	}
	r.Requests = requestsOf(instructions)
	r.Missing = missingPaths(read, in, opt.Root)
	return r
}

// Across runs the cross-session extractors (repeated requests, paths not
// found again) over the results of several sessions.
func Across(results []Result, opt Options) []Observation {
	var reqs []Request
	var missing []Missing
	for _, r := range results {
		reqs = append(reqs, r.Requests...)
		missing = append(missing, r.Missing...)
	}
	return append(RepeatedRequests(reqs, opt), StalePaths(missing, opt)...)
}

// instance is what names this session's instances: the branches it ran
// on and the folders it ran in (its worktrees), so that a lesson reads
// the same from every worktree and branch (identity.Generalize).
func instance(ch *transcript.Channels, root string) identity.Instance {
	in := identity.Instance{Branches: ch.Stats.Branches}
	add := func(f string) {
		if f != "" && !slices.Contains(in.Folders, f) {
			in.Folders = append(in.Folders, f)
		}
	}
	add(root)
	for _, u := range ch.UserSignals {
		add(u.Cwd)
	}
	for _, t := range ch.Tools {
		add(t.Cwd)
	}
	return in
}
