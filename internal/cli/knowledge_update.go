package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/project"
)

func newKnowledgeUpdateCmd(env *Env) *cobra.Command {
	var (
		upd            knowledge.Entry
		body, from     string
		global, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "update KEY",
		Short: "Change an existing entry: its summary, body, tags, category, kind, priority or triggers",
		Long: `Change an existing knowledge entry. Each flag given replaces that field
(--tags and the trigger flags replace the whole list); the others stay.
--from FILE (- for stdin) replaces the whole entry with the one in the file,
whose key, if it names one, must be KEY. The key, the file and created_at
stay; updated_at is stamped. The result is checked like a new entry before
anything is written. Status changes go through 'knowledge promote' and
'knowledge archive'.

The project's entry is changed, or the global one with --global or when the
project has none.`,
		Example: `  devlearn knowledge update api-date-format --summary "API returns epoch seconds, not ISO-8601"
  devlearn knowledge update api-date-format --tags api,dates --category api_quirk
  git show HEAD:.memory/knowledge/entries/x.md | devlearn knowledge update x --from -`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			key := args[0]
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			st, cur, err := w.locate(key, global, "knowledge update")
			if err != nil {
				return err
			}
			// The change is applied to the entry as it is on disk when it
			// is written (Store.Edit), so an update made meanwhile by
			// another session or an MCP tool is not lost.
			var apply func(e *knowledge.Entry)
			changed := c.Flags().NFlag() - countSet(c, "global", "json")
			if from != "" {
				if changed > 1 {
					return exitcode.Usagef("--from takes the whole entry; only --global and --json go with it")
				}
				data, name, err := readInput(env, from)
				if err != nil {
					return err
				}
				parsed, err := knowledge.ParseDraft(name, data)
				if err != nil {
					return err
				}
				if parsed.Key != "" && parsed.Key != key {
					return exitcode.Usagef("%s holds key %q, not %q: an update keeps its key", name, parsed.Key, key)
				}
				apply = func(e *knowledge.Entry) {
					created, status := e.CreatedAt, e.Status
					*e = *parsed
					e.Key, e.CreatedAt = key, created
					if e.Status == "" {
						e.Status = status
					}
				}
			} else {
				if changed == 0 {
					return exitcode.Usagef("update needs something to change: --summary, --body, --tags, --category, --kind, --priority, --ask, the trigger flags, or --from FILE")
				}
				if err := checkEntryFlags(&upd); err != nil {
					return err
				}
				if c.Flags().Changed("body") && body == "-" {
					data, err := io.ReadAll(env.In)
					if err != nil {
						return err
					}
					body = string(data)
				}
				apply = func(e *knowledge.Entry) {
					set := func(name string, apply func()) {
						if c.Flags().Changed(name) {
							apply()
						}
					}
					set("summary", func() { e.Summary = upd.Summary })
					set("kind", func() { e.Kind = upd.Kind })
					set("category", func() { e.Category = upd.Category })
					set("priority", func() { e.Priority = upd.Priority })
					set("ask", func() { e.Ask = upd.Ask })
					set("tags", func() { e.Tags = upd.Tags })
					set("tool", func() { e.Triggers.Tools = upd.Triggers.Tools })
					set("file", func() { e.Triggers.Files = upd.Triggers.Files })
					set("action", func() { e.Triggers.Actions = upd.Triggers.Actions })
					set("context", func() { e.Triggers.Context = upd.Triggers.Context })
					set("body", func() { e.Body = body })
				}
			}
			now, err := env.Now()
			if err != nil {
				return err
			}
			st.Now = now
			summary := cur.Summary
			if c.Flags().Changed("summary") {
				summary = upd.Summary
			}
			next, path, err := st.Edit(env.Context(), key, "knowledge update: "+summary, func(e *knowledge.Entry) error {
				apply(e)
				return nil
			})
			if err != nil {
				return err
			}
			out := written{Key: key, Scope: st.Scope, Path: path, Status: next.Status, Changed: true}
			if asJSON {
				return printJSON(env.Out, out)
			}
			fmt.Fprintf(env.Out, "Updated %s (%s, %s).\n", path, next.Status, st.Scope)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&upd.Summary, "summary", "", "one line saying what the entry is about")
	f.StringVar(&upd.Kind, "kind", "", "checklist, pattern, warning, requirement or note")
	f.StringVar(&upd.Category, "category", "", "business_rule, architecture, api_quirk, lesson_learned or convention")
	f.StringVar(&upd.Priority, "priority", "", "CRITICAL, HIGH, MEDIUM or LOW")
	f.BoolVar(&upd.Ask, "ask", false, "ask the person before the tool runs when this entry is served")
	f.StringSliceVar(&upd.Tags, "tags", nil, "the tags, comma-separated (replaces them all; --tags '' clears)")
	f.SetNormalizeFunc(tagAlias)
	f.StringArrayVar(&upd.Triggers.Tools, "tool", nil, "trigger: a tool name (repeat; replaces the list)")
	f.StringArrayVar(&upd.Triggers.Files, "file", nil, "trigger: a file glob (repeat; replaces the list)")
	f.StringArrayVar(&upd.Triggers.Actions, "action", nil, "trigger: an action keyword (repeat; replaces the list)")
	f.StringArrayVar(&upd.Triggers.Context, "context", nil, "trigger: a context keyword (repeat; replaces the list)")
	f.StringVar(&body, "body", "", "the markdown body (- reads it from stdin)")
	f.StringVar(&from, "from", "", "replace the whole entry with the one in FILE, - for stdin")
	f.BoolVar(&global, "global", false, "change the global store's entry")
	f.BoolVar(&asJSON, "json", false, "print what was written as JSON")
	return cmd
}

func newKnowledgeAgeCmd(env *Env) *cobra.Command {
	var global, asJSON bool
	cmd := &cobra.Command{
		Use:   "age",
		Short: "Archive the candidates and drafts that waited too long for a person",
		Long: `Archive the candidate entries not promoted within
knowledge.candidate_max_age_days, and the drafts the agent wrote that no
person promoted within knowledge.draft_max_age_days (30 days each by
default; 0 lets them wait). An archived draft is no longer served. Both are
kept, never deleted: 'knowledge list --status archived' and 'knowledge
index --all' list them, and 'learn --review --restore entry:KEY' brings one
back. An entry without a created_at (written before devlearn stamped one)
starts its clock now. 'devlearn ingest' and the worker after a batch of
sessions do the same; reading (list, index, learn --review) never does.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(!global)
			if err != nil {
				return err
			}
			st, err := w.store(global, "knowledge age")
			if err != nil {
				return err
			}
			if st.Now, err = env.Now(); err != nil {
				return err
			}
			k := w.cfg.Knowledge
			aged, err := st.Age(env.Context(), windows(w.cfg))
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, map[string]any{
					"days": k.CandidateMaxAgeDays, "archived": aged.Archived, "started": aged.Started,
					"draft_days": k.DraftMaxAgeDays, "expired": aged.Expired, "drafts_started": aged.DraftsStarted,
				})
			}
			printAged(env, k.CandidateMaxAgeDays, "candidate", "candidates",
				"Candidates never age here (knowledge.candidate_max_age_days is 0).",
				"a candidate for more than %d days", aged.Archived, aged.Started)
			printAged(env, k.DraftMaxAgeDays, "draft", "drafts",
				"Drafts never expire here (knowledge.draft_max_age_days is 0).",
				"a draft no person reviewed for more than %d days", aged.Expired, aged.DraftsStarted)
			return nil
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "age the global store's candidates and drafts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was done as JSON")
	return cmd
}

// printAged says what ageing did to one status.
func printAged(env *Env, days int, one, many, off, why string, archived, started []string) {
	if days == 0 {
		fmt.Fprintln(env.Out, off)
		return
	}
	for _, k := range archived {
		fmt.Fprintf(env.Out, "Archived %s: "+why+".\n", k, days)
	}
	if n := len(started); n > 0 {
		fmt.Fprintf(env.Out, "%s had no creation time; %s from now.\n", plural(n, one, many), map[bool]string{true: "it ages", false: "they age"}[n == 1])
	}
	if len(archived) == 0 {
		fmt.Fprintf(env.Out, "No %s is older than %d days.\n", one, days)
	}
}

// windows are the config's review windows of candidates and drafts.
func windows(cfg *config.Config) entrystore.Windows {
	return entrystore.Windows{
		Candidates: entrystore.DaysWindow(cfg.Knowledge.CandidateMaxAgeDays),
		Drafts:     entrystore.DaysWindow(cfg.Knowledge.DraftMaxAgeDays),
	}
}

// ageEntries archives the project's candidates and drafts past their
// review windows, for the commands that write the store on their way (the
// worker, ingest): reading never ages anything.
func ageEntries(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time, command string, logf func(string, ...any)) error {
	w := windows(cfg)
	if w.Candidates <= 0 && w.Drafts <= 0 {
		return nil
	}
	//devlearn:triggers "worker" "ingest"
	st := entrystore.Project(p, evolve.New(p, now, evolve.Trigger{Command: command}))
	aged, err := st.Age(ctx, w)
	if err == nil && logf != nil {
		if n := len(aged.Archived); n > 0 {
			logf("archived %s not promoted within %d days: %s", plural(n, "candidate", "candidates"), cfg.Knowledge.CandidateMaxAgeDays, strings.Join(aged.Archived, ", "))
		}
		if n := len(aged.Expired); n > 0 {
			logf("archived %s not reviewed within %d days: %s", plural(n, "draft", "drafts"), cfg.Knowledge.DraftMaxAgeDays, strings.Join(aged.Expired, ", "))
		}
	}
	return err
}
