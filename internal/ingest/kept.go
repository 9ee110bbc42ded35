package ingest

import (
	"context"

	"github.com/devlearn/devlearn/internal/extract/lang"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/transcript"
)

// A lesson the person explicitly asked to keep is their own decision, in
// a session that ran without the prompt hook as in one that ran with it:
// the transcript's request becomes the active entry the hook would have
// made (keep.Keeper, the same code), at once. The request is read as the
// hook reads a prompt (the correction detector, then keep.Find, on the
// person's own turns, redacted as they were read); a request that only
// points back ("remember this") is left to the observation the
// extractors make of it, as is everything keep.Find does not take for a
// lasting rule.

// request is one lesson a session's person asked to keep.
type request struct {
	session string
	q       keep.Request
	text    string // the turn it is part of
	ts      string // the turn's time
}

// keepRequests are the lessons a session's person asked to keep.
func keepRequests(session string, ch *transcript.Channels) []request {
	var out []request
	for _, u := range ch.UserSignals {
		// A refusal's reason is not a prompt: the hook never sees it.
		// The person's own words: a rule in a template they ran, or in a
		// log they pasted, is not theirs to keep.
		if u.Rejection || !lang.MayBeCorrection(u.Own) {
			continue
		}
		for _, q := range keep.Find(u.Own) {
			if q.Lesson == "" {
				continue
			}
			id := u.SessionID
			if id == "" {
				id = session
			}
			out = append(out, request{session: id, q: q, text: u.Own, ts: u.Timestamp})
		}
	}
	return out
}

// keepAll keeps the requests as active entries through store (nil in a
// dry run: nothing is written, what would be is reported). The entries
// the project already has are read once, archived ones too: a transcript
// ingested again never brings back what a person archived.
func (p *Pipeline) keepAll(ctx context.Context, store *entrystore.Store, reqs []request, problem func(string, ...any)) []keep.Kept {
	if len(reqs) == 0 || p.Proj == nil {
		return nil
	}
	src := knowledge.Sources{Root: p.Proj.Root}
	entries := &keep.Entries{Src: src, Load: func() *knowledge.Set { return knowledge.ReadAll(src) }}
	k := &keep.Keeper{Store: store, Log: p.Log, Source: SourceTranscript, Entries: entries, Reread: true}
	var out []keep.Kept
	for _, r := range reqs {
		k.Session = r.session
		kept, err := k.Keep(ctx, r.q, r.text, p.at(r.ts))
		if err != nil {
			problem("session %s: keeping %q: %v", r.session, r.q.Lesson, err)
			continue
		}
		out = append(out, kept)
	}
	return out
}
