package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/outcome"
)

func newKnowledgeStatsCmd(env *Env) *cobra.Command {
	var asJSON, flagged bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "How often each item was applied, and whether it helped or hurt",
		Long: `For every item in force (decisions, pitfalls, entries, slash commands,
skills, curated bullets): how many sessions applied it (served by a hook,
invoked, fetched through a tool), helped (what it warns about did not recur
in counters.helpful_after sessions that applied it) and hurt (it recurred
although applied, or the person corrected the agent on the same point), and
how often it went stale. docs/evolution.md has the exact rules and their
limits.

Items that hurt more than they help, and items not applied for
counters.review_after_days, are flagged for review. Nothing is ever
deleted for it: what to keep is a person's call ('devlearn learn --review',
'devlearn knowledge archive').`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			log, err := w.loadLog(env)
			if err != nil {
				return err
			}
			kw, err := env.knowledgeWS(true)
			if err != nil {
				return err
			}
			items, err := statItems(w, log, kw.load())
			if err != nil {
				return err
			}
			rows := outcome.Stats(log, items, w.now, w.cfg.Config.Counters.ReviewAfterDays)
			if flagged {
				var keep []outcome.Row
				for _, r := range rows {
					if len(r.Review) > 0 {
						keep = append(keep, r)
					}
				}
				rows = keep
			}
			if rows == nil {
				rows = []outcome.Row{}
			}
			if asJSON {
				return printJSON(env.Out, rows)
			}
			return printStats(env, rows)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rows as JSON")
	cmd.Flags().BoolVar(&flagged, "flagged", false, "only the items flagged for review")
	return cmd
}

// statItems lists what is in force: knowledge items, the commands and
// skills rendered from observations, and the curated bullets, each with
// when devlearn first wrote it (from the audit log).
func statItems(w *workspace, log *observe.Log, set *knowledge.Set) ([]outcome.StatItem, error) {
	audit, _, err := evolve.ReadLog(w.proj)
	if err != nil {
		return nil, err
	}
	byObs, byPath := map[string]time.Time{}, map[string]time.Time{}
	for _, e := range audit {
		t, err := time.Parse(time.RFC3339, e.Time)
		if err != nil {
			continue
		}
		for _, o := range e.Reason.Observations {
			if _, ok := byObs[o]; !ok {
				byObs[o] = t
			}
		}
		for _, f := range e.Files {
			if _, ok := byPath[f.Path]; !ok && f.Before == "" {
				byPath[f.Path] = t
			}
		}
	}
	var out []outcome.StatItem
	for _, it := range knowledge.Ordered(set.Items) {
		if !it.Active {
			continue
		}
		si := outcome.StatItem{ID: it.ID, Type: it.Type, Title: it.Title, Subjects: []string{outcome.Subject(it.Ref())}}
		if it.Observation != "" {
			si.Since = byObs[it.Observation]
		} else if it.Scope == knowledge.ScopeProject {
			si.Since = byPath[it.Path]
		}
		out = append(out, si)
	}
	for _, o := range log.Observations(w.now, w.cfg.Config) {
		if o.Status != observe.Created || o.Anchor != "" {
			continue // sections are knowledge items already
		}
		typ := ""
		switch l, _ := lesson.Get(o.Type); l.Artifact {
		case lesson.Command:
			typ = "command"
		case lesson.Skill:
			typ = "skill"
		default:
			continue
		}
		out = append(out, outcome.StatItem{ID: o.Artifact, Type: typ, Title: o.Pattern, Subjects: []string{o.ID}, Since: byObs[o.ID]})
	}
	man, _, err := manifest.LoadProject(w.proj)
	if err != nil {
		return nil, err
	}
	for _, e := range man.Entries {
		if !e.IsCurated() {
			continue
		}
		srcs := strings.Fields(e.Sources)
		si := outcome.StatItem{ID: e.Path + "#" + e.AnchorID, Type: "curated", Subjects: srcs}
		for _, s := range srcs {
			if o, ok := log.Observation(s, w.now, w.cfg.Config); ok && si.Title == "" {
				si.Title = o.Pattern
			}
			if t := byObs[s]; !t.IsZero() && (si.Since.IsZero() || t.Before(si.Since)) {
				si.Since = t
			}
		}
		out = append(out, si)
	}
	return out, nil
}

func printStats(env *Env, rows []outcome.Row) error {
	if len(rows) == 0 {
		fmt.Fprintln(env.Out, "No item to report.")
		return nil
	}
	t := newTable(env.Out)
	t.row("ITEM", "TYPE", "APPLIED", "HELPFUL", "HARMFUL", "STALE", "LAST APPLIED", "REVIEW")
	flagged := 0
	for _, r := range rows {
		last := "never"
		if r.LastApplied != "" {
			last = r.LastApplied[:10]
		}
		if len(r.Review) > 0 {
			flagged++
		}
		t.row(ellipsis(r.ID, 48), r.Type, fmt.Sprint(r.Applied), fmt.Sprint(r.Helpful), fmt.Sprint(r.Harmful), fmt.Sprint(r.Stale), last, strings.Join(r.Review, "; "))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if flagged > 0 {
		fmt.Fprintf(env.Out, "%s flagged for review. Nothing is deleted for it: 'devlearn learn --review' and 'devlearn knowledge archive' are yours to use.\n", plural(flagged, "item", "items"))
	}
	return nil
}
