package ingest

import (
	"context"
	"fmt"

	"github.com/devlearn/devlearn/internal/extract"
)

// Record records observations found outside a transcript (Claude Code's
// auto memory) exactly as Run records what the extractors find: cleaned,
// redacted, once per source and time, appended unless in a dry run.
func (p *Pipeline) Record(ctx context.Context, found []extract.Observation) (*Result, error) {
	log, err := p.Log.Load()
	if err != nil {
		return nil, err
	}
	res := &Result{DryRun: p.DryRun, Sessions: []SessionReport{}, Observations: []Observed{}, Candidates: []SavedCandidate{}, Uses: []Usage{}, Problems: []string{}, Log: log}
	problem := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		res.Problems = append(res.Problems, msg)
		p.logf("%s", msg)
	}
	inBatch := map[string]bool{}
	for _, o := range found {
		inBatch[o.SessionID] = true
	}
	existing := log.Observations(p.Now, p.Config)
	events := p.events(log, knownLessons(existing), saidLessons(existing), found, nil, inBatch, res, problem)
	if p.DryRun || len(events) == 0 {
		return res, nil
	}
	if err := p.Log.Append(ctx, events...); err != nil {
		return res, err
	}
	res.Appended = len(events)
	return res, nil
}
