package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/words"
)

// minIndexBudget is the smallest budget the index can keep to: its header
// and closing lines take about 60 tokens. It is the config's minimum too.
const minIndexBudget = 100

func newKnowledgeIndexCmd(env *Env) *cobra.Command {
	var (
		all, asJSON, devflow bool
		budget               int
	)
	cmd := &cobra.Command{
		Use:   "index",
		Short: "The compact index of decisions, pitfalls and entries, most important first",
		Long: `Print the index the agent gets at session start: one line per decision,
pitfall and entry (project and global), most important first, each with its
status and an estimate of the tokens it takes to read in full, held to
knowledge.index_budget_tokens (default 1,500). What does not fit is counted
and named with the command that lists it. Deprecated and superseded
decisions and pitfalls, archived and candidate entries are left out unless
--all. A decision or pitfall line ends with its status and area as devflow
wrote them ("[Accepted]", "[Active]  —  scripts/hooks/"); --devflow prints
devflow's own compact index of the two files, line for line, for the
orchestrators that read it.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			if !c.Flags().Changed("budget") {
				budget = w.cfg.Knowledge.IndexBudgetTokens
			}
			if devflow && asJSON {
				return exitcode.Usagef("--devflow and --json exclude each other")
			}
			if budget < 0 || (budget > 0 && budget < minIndexBudget) {
				return exitcode.Usagef("--budget %d: want 0 (no limit) or at least %d (the index's own lines need about that)", budget, minIndexBudget)
			}
			set := w.load()
			if !all {
				// As session start lists it: no lesson held for review,
				// no draft of another clone.
				set, _ = set.Servable(func() string {
					if w.proj == nil {
						return ""
					}
					id, _ := w.proj.CloneID()
					return id
				})
			}
			if devflow {
				root := ""
				if w.proj != nil {
					root = w.proj.Root
				}
				var in []*knowledge.Item
				for _, it := range set.Items {
					if it.Active || all {
						in = append(in, it)
					}
				}
				_, err = fmt.Fprint(env.Out, knowledge.DevflowIndex(in, root))
				return err
			}
			ix := knowledge.BuildIndex(set, knowledge.IndexOptions{BudgetTokens: budget, All: all})
			if asJSON {
				return printJSON(env.Out, ix)
			}
			_, err = fmt.Fprint(env.Out, ix.Text)
			return err
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list what is not in force (deprecated, superseded, archived, candidate)")
	cmd.Flags().IntVar(&budget, "budget", 0, "token budget of the index (0: no limit; default: knowledge.index_budget_tokens)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the index as JSON")
	cmd.Flags().BoolVar(&devflow, "devflow", false, "print devflow's compact index of decisions and pitfalls")
	return cmd
}

// shown is an item as `show --json` prints it.
type shown struct {
	*knowledge.Item
	Label string           `json:"label"`
	Ref   string           `json:"ref"`
	Text  string           `json:"text"`
	Entry *knowledge.Entry `json:"entry,omitempty"`
}

func newKnowledgeShowCmd(env *Env) *cobra.Command {
	var asJSON, global bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a decision, pitfall or entry in full",
		Long: `Print one item in full. ID is an ADR or PF anchor (ADR-003, PF-001), the
observation id it was made from (obs_...), or an entry's key. A project
entry hides a global one with the same key; --global shows the global one.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			var it *knowledge.Item
			if global {
				// Straight from the global store: a project entry with
				// the same key hides it from the set.
				e, path, err := entrystore.Global(w.home).Read(args[0])
				if err != nil {
					return notFound(args[0])
				}
				it = knowledge.FromEntry(e, knowledge.ScopeGlobal, path)
			} else if it = w.load().Find(args[0], ""); it == nil {
				return notFound(args[0])
			}
			s := shown{Item: it, Label: it.Label(), Ref: it.Ref(), Text: it.Text}
			if it.Type == knowledge.TypeEntry {
				data, err := os.ReadFile(w.src.AbsPath(it))
				if err != nil {
					return err
				}
				s.Text = string(data)
				if fresh, e, err := w.src.Current(it); err == nil {
					s.Item, s.Entry = fresh, e
				}
			}
			if asJSON {
				return printJSON(env.Out, s)
			}
			fmt.Fprintf(env.Out, "%s [%s] %s\n", it.ID, it.Label(), it.Path)
			_, err = fmt.Fprint(env.Out, "\n"+strings.TrimRight(s.Text, "\n")+"\n")
			return err
		},
	}
	cmd.Flags().BoolVar(&global, "global", false, "look in the global store only")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the item as JSON")
	return cmd
}

func newKnowledgeListCmd(env *Env) *cobra.Command {
	var (
		asJSON, global, project bool
		status, category        string
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List knowledge entries, with their status",
		Long: `List the knowledge entries of the project and the global store: key,
priority, kind, status and summary. --status draft (or candidate) lists what
waits for review; --category lesson_learned (or business_rule, architecture,
api_quirk, convention) only that category. Broken entry files are named on
stderr with their line. 'devlearn lessons' lists the entries and what the
log observed together, one lesson each, in force, draft or retired.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if status != "" && !slices.Contains(knowledge.Statuses, status) {
				return exitcode.Usagef("--status %q is not one of %s", status, strings.Join(knowledge.Statuses, ", "))
			}
			if category != "" && !slices.Contains(knowledge.Categories, category) {
				return exitcode.Usagef("--category %q is not one of %s", category, strings.Join(knowledge.Categories, ", "))
			}
			if global && project {
				return exitcode.Usagef("--global and --project exclude each other")
			}
			w, err := env.knowledgeWS(project)
			if err != nil {
				return err
			}
			var out []*knowledge.Item
			for _, it := range knowledge.Ordered(w.load().Items) {
				switch {
				case it.Type != knowledge.TypeEntry,
					status != "" && it.Status != status,
					global && it.Scope != knowledge.ScopeGlobal,
					project && it.Scope != knowledge.ScopeProject:
					continue
				}
				if category != "" {
					// The category is in the file, not in the cached item:
					// read it (a list is no hot path).
					if _, e, err := w.src.Current(it); err != nil || e.Category != category {
						continue
					}
				}
				out = append(out, it)
			}
			if asJSON {
				if out == nil {
					out = []*knowledge.Item{}
				}
				return printJSON(env.Out, out)
			}
			if len(out) == 0 {
				fmt.Fprintln(env.Out, "No entries.")
				return nil
			}
			width := 0
			for _, it := range out {
				width = max(width, len(it.ID))
			}
			for _, it := range out {
				fmt.Fprintf(env.Out, "%-*s  %-8s  %-11s  %-9s  %-7s  %s\n", width, it.ID, it.Priority, it.Kind, it.Status, it.Scope, ellipsis(it.Title, 70))
			}
			fmt.Fprintf(env.Out, "%s. Read one with `%s`.\n", plural(len(out), "entry", "entries"), knowledge.ShowCommand)
			return nil
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only entries with this status (candidate, draft, active, archived)")
	cmd.Flags().StringVar(&category, "category", "", "only entries of this category ("+strings.Join(knowledge.Categories, ", ")+")")
	cmd.Flags().BoolVar(&global, "global", false, "only the global store")
	cmd.Flags().BoolVar(&project, "project", false, "only the project's entries")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	return cmd
}

// hit is a search result.
type hit struct {
	*knowledge.Item
	Label string `json:"label"`
	Score int    `json:"score"`
}

func newKnowledgeSearchCmd(env *Env) *cobra.Command {
	var asJSON, all, global bool
	cmd := &cobra.Command{
		Use:   "search WORDS...",
		Short: "Find decisions, pitfalls and entries by their words",
		Long: `Find items whose id, title, area, tags or text hold the given words (whole
words, case folded, plural "s" ignored). A word in the title counts twice.
Best first; items not in force only with --all.`,
		Args: argsRange(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.knowledgeWS(false)
			if err != nil {
				return err
			}
			query := words.Words(strings.Join(args, " "))
			if len(query) == 0 {
				return exitcode.Usagef("search: %q has no words to look for", strings.Join(args, " "))
			}
			var hits []hit
			for _, it := range knowledge.Ordered(w.load().Items) {
				if (!it.Active && !all) || (global && it.Scope != knowledge.ScopeGlobal) {
					continue
				}
				text := it.Text
				if it.Type == knowledge.TypeEntry {
					if data, err := os.ReadFile(w.src.AbsPath(it)); err == nil {
						text = string(data)
					}
				}
				title := words.NewHaystack(it.ID+" "+it.Title, it.Area)
				body := words.NewHaystack(text)
				score := 0
				for _, q := range query {
					switch {
					case title.Has(q):
						score += 2
					case body.Has(q):
						score++
					}
				}
				if score > 0 {
					hits = append(hits, hit{Item: it, Label: it.Label(), Score: score})
				}
			}
			slices.SortStableFunc(hits, func(a, b hit) int { return b.Score - a.Score })
			if asJSON {
				if hits == nil {
					hits = []hit{}
				}
				return printJSON(env.Out, hits)
			}
			if len(hits) == 0 {
				fmt.Fprintf(env.Out, "Nothing matches %q.\n", strings.Join(args, " "))
				return nil
			}
			for _, h := range hits {
				fmt.Fprintf(env.Out, "- %s [%s] %s\n", h.ID, h.Label, knowledge.Cut(h.Title, knowledge.TitleWidth))
			}
			fmt.Fprintf(env.Out, "%s. Read one with `%s`.\n", plural(len(hits), "match", "matches"), knowledge.ShowCommand)
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also search what is not in force")
	cmd.Flags().BoolVar(&global, "global", false, "search the global store only")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the matches as JSON")
	return cmd
}
