package extract

import (
	"slices"
	"strings"

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
	ch = unmasked(ch)
	read := ch // as read: the path rules tell the project's paths from others themselves
	ch = rooted(ch, opt.Root)
	c := newConversation(ch)
	for i := range c.turns {
		c.turns[i].root = opt.Root
	}
	lessons := c.lessons() // before requests: a correction is not a request
	obs := slices.Concat(lessons, failureFixes(ch), c.reportedFailures(), harnessRefusals(ch), misreads(read, opt.Root))
	in := instance(ch, opt.Root)
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
	r.Requests = c.requests(in)
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

// unmasked is the session with the shell calls that passed only because
// a filter ended their pipeline read as the failures they were: what they
// printed first is an error of one of their programs or of the shell
// (`git count-objects -v 2>&1 | head` printing "fatal: detected dubious
// ownership in repository ..."). The agent read it so, and what it ran
// next is the fix.
func unmasked(ch *transcript.Channels) *transcript.Channels {
	var tools []transcript.ToolCall
	for i, t := range ch.Tools {
		if t.IsError || t.Hidden == "" {
			continue
		}
		if first := printedFirst(t.Hidden); !saidByProgram(first, t.Command) || errorLine(first) == "" {
			continue
		}
		if tools == nil {
			tools = slices.Clone(ch.Tools)
		}
		tools[i].IsError, tools[i].Error = true, t.Hidden
	}
	if tools == nil {
		return ch
	}
	c := *ch
	c.Tools = tools
	return &c
}

// printedFirst is the first line a command printed, past the report an
// agent's runner wraps around it ("Exit code: 0", "Wall time: …",
// "Output:").
func printedFirst(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if low := strings.ToLower(l); l == "" || runnerReport(low) || timing().MatchString(l) {
			continue
		}
		return l
	}
	return ""
}

// saidByProgram reports a line a program of the command, or the shell,
// wrote about itself ("ls: cannot access …", "fatal: …", "/bin/bash: line
// 1: sudo: command not found"), not a line of what it read or found: a
// log line that holds "error" is what `tail` was asked to show.
func saidByProgram(line, command string) bool {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "Traceback (most recent call last)") || strings.HasPrefix(strings.ToLower(line), "npm err") {
		return true
	}
	head, _, ok := strings.Cut(line, ":")
	if !ok || strings.ContainsAny(head, " \t") {
		return false
	}
	switch head {
	// Lower case: "ERROR:" opens a line of a log, which is what was read.
	case "fatal", "error", "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "usage", "Usage":
		return true
	}
	for _, s := range stepsOf(command) {
		if s.prog != "" && progName(strings.ToLower(head)) == s.prog {
			return true
		}
	}
	return false
}
