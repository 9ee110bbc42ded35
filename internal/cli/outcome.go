package cli

import (
	"context"
	"time"

	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lessons"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
	"github.com/devlearn/devlearn/internal/outcome"
	"github.com/devlearn/devlearn/internal/project"
)

// afterIngest is what the capture path does once a batch is ingested (not
// in a dry run): the sessions' classes are kept, and the helpfulness
// counters follow what the sessions applied and what recurred in them.
// It returns the counter events recorded.
func (env *Env) afterIngest(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time, res *ingest.Result, classes *classify.Sessions) (int, error) {
	if classes != nil {
		if err := classes.Save(ctx, p); err != nil {
			return 0, err
		}
	}
	events, _ := env.assessOutcomes(p, cfg, now, res)
	if len(events) > 0 {
		st := observe.ProjectStore(p)
		if err := st.Append(ctx, events...); err != nil {
			return 0, err
		}
	}
	if res != nil && res.Log != nil {
		// Rewritten even when this batch moved nothing: a merge may
		// have brought counter events from another branch.
		if err := knowledge.SaveHurting(p, env.hurting(p, res.Log)); err != nil {
			return len(events), err
		}
		// What the log knows is served from now on, ready or not, but
		// once: an observation that is the same lesson as an entry (a
		// correction the person asked to keep is both) is served as the
		// entry, in the person's words.
		obs := res.Log.Observations(now, cfg)
		if set, _ := knowledge.Load(knowledge.Sources{Root: p.Root, GlobalDir: knowledge.GlobalEntriesDir(env.Home())}, knowledge.CachePath(p), knowledge.Full); set != nil {
			obs = lessons.WithoutEntries(obs, set.Items)
		}
		if _, err := observed.Sync(p.Root, obs); err != nil {
			return len(events), err
		}
	}
	return len(events), nil
}

// hurting lists the Refs of the items in force that hurt more than they
// helped, by the same counters 'knowledge stats' flags them with, for the
// hooks to rank them lower when counters.rank is on.
func (env *Env) hurting(p *project.Project, log *observe.Log) []string {
	set, _ := knowledge.Load(knowledge.Sources{Root: p.Root, GlobalDir: knowledge.GlobalEntriesDir(env.Home())}, knowledge.CachePath(p), knowledge.Full)
	if set == nil {
		return nil
	}
	var out []string
	for _, it := range set.Items {
		c := log.Counters(outcome.Subject(it.Ref()))
		if c[outcome.Harmful] > c[outcome.Helpful] {
			out = append(out, it.Ref())
		}
	}
	return out
}

// servedIn reads what the hooks served in a session. It is the one place
// the counters read the hooks' per-session records from, so a change in
// how they are kept changes this function only.
func servedIn(p *project.Project, session string) ([]outcome.Use, error) {
	recs, err := hook.SessionOf(p, session).ServedIn()
	if err != nil {
		return nil, err
	}
	var out []outcome.Use
	for _, r := range recs {
		at, _ := time.Parse(time.RFC3339, r.At)
		out = append(out, outcome.Use{Subject: outcome.Subject(r.Ref), Session: session, At: at, How: outcome.Served})
	}
	return out, nil
}

// assessOutcomes computes the counter events of an ingested batch.
func (env *Env) assessOutcomes(p *project.Project, cfg *config.Config, now time.Time, res *ingest.Result) ([]*observe.Event, []outcome.Verdict) {
	if res == nil || res.Log == nil {
		return nil, nil
	}
	set, _ := knowledge.Load(knowledge.Sources{Root: p.Root, GlobalDir: knowledge.GlobalEntriesDir(env.Home())}, knowledge.CachePath(p), knowledge.Full)
	var uses []outcome.Use
	for _, s := range res.Sessions {
		if s.Err != nil || s.ID == "" {
			continue
		}
		served, err := servedIn(p, s.ID)
		if err == nil {
			uses = append(uses, served...)
		}
		if s.File == "" || set == nil {
			continue
		}
		fetched, err := outcome.Fetches([]string{s.File})
		if err != nil {
			continue
		}
		for _, f := range fetched {
			it := set.Find(f.ID, "")
			if it == nil {
				continue
			}
			sess := f.Session
			if sess == "" {
				sess = s.ID
			}
			uses = append(uses, outcome.Use{Subject: outcome.Subject(it.Ref()), Session: sess, At: f.At, How: outcome.Fetched})
		}
	}
	for _, u := range res.Uses {
		at, _ := time.Parse(time.RFC3339Nano, u.Timestamp)
		uses = append(uses, outcome.Use{Subject: u.ID, Session: u.SessionID, At: at.UTC().Truncate(time.Second), How: outcome.Invoked})
	}
	if len(uses) == 0 {
		return nil, nil
	}
	var seen []outcome.Sighting
	for _, o := range res.Observations {
		at, err := time.Parse(time.RFC3339Nano, o.Timestamp)
		if err != nil {
			at = now
		}
		seen = append(seen, outcome.Sighting{ID: o.ID, Pattern: o.Pattern, Session: o.SessionID, At: at.UTC().Truncate(time.Second)})
	}
	items := map[string]outcome.Item{}
	for _, o := range res.Log.Observations(now, cfg) {
		items[o.ID] = outcome.Item{Subject: o.ID, Observation: o.ID, Text: o.Pattern}
	}
	if set != nil {
		for _, it := range set.Items {
			subj := outcome.Subject(it.Ref())
			if _, ok := items[subj]; ok {
				continue // the observation's own text
			}
			items[subj] = outcome.Item{Subject: subj, Observation: it.Observation, Text: it.Title}
		}
	}
	return outcome.Assess(res.Log, uses, seen, func(s string) (outcome.Item, bool) {
		it, ok := items[s]
		return it, ok
	}, outcome.Options{Now: now, HelpfulAfter: cfg.Counters.HelpfulAfter, Similarity: cfg.Curator.Similarity})
}
