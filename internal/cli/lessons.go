package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/lessons"
	"github.com/devlearn/devlearn/internal/review"
)

func newLessonsCmd(env *Env) *cobra.Command {
	var (
		status string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "lessons",
		Short: "The one list of what devlearn learned here: draft, in force, retired",
		Long: `Every lesson devlearn learned in this project, once: what a person asked to
keep, what the agent wrote as a draft, what was seen in sessions, and the
commands, skills, decisions and pitfalls rendered from them, joined where
they are the same lesson. Each has one status:

  draft     learned, not accepted yet: seen too few times, proposed, or the
            agent's own draft (some drafts are served meanwhile, below what
            is in force; the why says which)
  in force  served to the agent: kept at a person's request, accepted, or
            rendered as an artifact
  retired   no longer served: a person said no (retired it, deleted or
            reverted its artifact); restore brings it back

and the reason for it. Decide with 'lessons accept', 'lessons retire' and
'lessons restore' (several ids at once), change one with 'lessons edit'.
An id is the one listed, or any name of a part of the lesson: the entry's
key, the observation's id (obs_…), the section's anchor (ADR-003, PF-001).

'devlearn knowledge list' and 'devlearn learn --list' still list each store
alone; 'learn --review --keep/--deprecate/--restore' still decide.`,
		Example: `  devlearn lessons
  devlearn lessons --status draft
  devlearn lessons show obs_5382140ca01f
  devlearn lessons accept obs-5382140ca01f
  devlearn lessons retire never-run-git-push-yourself-93d65ed5
  devlearn lessons restore never-run-git-push-yourself-93d65ed5`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return listLessons(env, status, asJSON)
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only lessons with this status (draft, in-force, retired)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lessons as JSON")
	completeWith(cmd, "status", func() []string { return []string{"draft", "in-force", "retired"} })
	cmd.AddCommand(
		newLessonsShowCmd(env),
		newLessonsDecideCmd(env, "accept", "Accept lessons: drafts go in force", `Accept each lesson: a draft or a proposed entry goes in force (served as
what the project knows); a lesson still being observed is made ready,
whatever the thresholds, and the next render makes its artifact; a lesson
held for review (it read as an order to fetch and run code, or to ignore
other instructions) is served from now on, this text only.`),
		newLessonsDecideCmd(env, "retire", "Retire lessons: no longer served, a \"no\" that sticks", `Retire each lesson, every part of it: its entry is archived, its
observation deprecated (a rendered section says Status: Deprecated, a
rendered command or skill is removed, a copy kept in history), so neither
the next ingest nor the next render brings it back. 'lessons restore' undoes
it. Every change is in 'devlearn history'.`),
		newLessonsDecideCmd(env, "restore", "Restore retired lessons", `Restore each retired lesson: its entry is active again, its observation
ready again ('devlearn render-ready' brings its artifact back).`),
		newLessonsEditCmd(env),
	)
	return cmd
}

// lessonsWS is the one list with what made it.
type lessonsWS struct {
	w    *workspace
	list []*lessons.Lesson
}

// loadLessons joins the observations and the knowledge items of the
// project here.
// findLesson loads the list and the lesson id names in it; an id that names
// none is a usage error.
func findLesson(env *Env, id string) (*lessonsWS, *lessons.Lesson, error) {
	lw, err := loadLessons(env)
	if err != nil {
		return nil, nil, err
	}
	l, err := lessons.Find(lw.list, id)
	if err != nil {
		return nil, nil, exitcode.UsageError(err)
	}
	return lw, l, nil
}

func loadLessons(env *Env) (*lessonsWS, error) {
	w, err := env.workspace()
	if err != nil {
		return nil, err
	}
	log, err := w.loadLog(env)
	if err != nil {
		return nil, err
	}
	kw, err := env.knowledgeWS(true)
	if err != nil {
		return nil, err
	}
	set := kw.load()
	source := func(it *knowledge.Item) string {
		// The source is in the file, not the cached item (a list is no
		// hot path).
		if _, e, err := kw.src.Current(it); err == nil {
			return e.Source
		}
		return ""
	}
	list := lessons.Join(log.Observations(w.now, w.cfg.Config), set.Items, source)
	return &lessonsWS{w: w, list: list}, nil
}

func listLessons(env *Env, status string, asJSON bool) error {
	status = strings.ReplaceAll(status, "-", " ")
	if status != "" && !slices.Contains(lessons.Statuses, status) {
		return exitcode.Usagef("--status %q is not one of draft, in-force, retired", status)
	}
	lw, err := loadLessons(env)
	if err != nil {
		return err
	}
	var out []*lessons.Lesson
	for _, l := range lw.list {
		if status == "" || l.Status == status {
			out = append(out, l)
		}
	}
	if asJSON {
		if out == nil {
			out = []*lessons.Lesson{}
		}
		return printJSON(env.Out, map[string]any{"lessons": out})
	}
	if len(lw.list) == 0 {
		fmt.Fprintln(env.Out, "No lessons yet. They come from your sessions (a correction, \"remember: …\"), 'devlearn ingest' and 'devlearn knowledge add'.")
		return nil
	}
	if len(out) == 0 {
		fmt.Fprintf(env.Out, "No lesson is %s (%d in all); 'devlearn lessons' lists them all.\n", status, len(lw.list))
		return nil
	}
	for _, st := range lessons.Statuses {
		var group []*lessons.Lesson
		for _, l := range out {
			if l.Status == st {
				group = append(group, l)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(env.Out, "%s (%d):\n", strings.ToUpper(st[:1])+st[1:], len(group))
		for _, l := range group {
			fmt.Fprintf(env.Out, "  %s  %s  %s\n", l.ID, l.Kind, ellipsis(l.Text, 70))
			fmt.Fprintf(env.Out, "      why: %s\n", l.Why)
			for _, r := range l.Review {
				fmt.Fprintf(env.Out, "      review: %s\n", r)
			}
		}
	}
	fmt.Fprintln(env.Out, "Decide with 'devlearn lessons accept|retire|restore ID'; 'devlearn lessons show ID' says where one came from.")
	return nil
}

func newLessonsShowCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "One lesson: its status and why, its parts, where to read more",
		Long: `Print one lesson: its status and why, whether the agent is served it,
its parts (the entry's file, the observation and the artifact rendered from
it, each with its own store's status) and the commands that say more: where
it was seen, when it is served, what devlearn changed.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			_, l, err := findLesson(env, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, l)
			}
			fmt.Fprintf(env.Out, "%s: %s\n", l.ID, l.Status)
			fmt.Fprintf(env.Out, "  lesson: %s\n", l.Text)
			fmt.Fprintf(env.Out, "  why: %s\n", l.Why)
			served := "no"
			if l.Served {
				served = "yes"
			}
			fmt.Fprintf(env.Out, "  served: %s\n", served)
			if l.Entry != "" {
				fmt.Fprintf(env.Out, "  entry: %s (%s)\n", l.EntryPath, l.EntryStatus)
			}
			if l.Observation != "" {
				fmt.Fprintf(env.Out, "  observed: %s (%s)\n", l.Observation, l.ObsStatus)
			}
			if l.Artifact != "" {
				fmt.Fprintf(env.Out, "  artifact: %s\n", strings.TrimSpace(l.Artifact+" "+l.Anchor))
			}
			for _, r := range l.Review {
				fmt.Fprintf(env.Out, "  review: %s\n", r)
			}
			var more []string
			if l.Observation != "" {
				more = append(more, fmt.Sprintf("'devlearn learn --show %s' (each sighting, its evidence)", l.Observation))
			}
			if l.Entry != "" {
				more = append(more, fmt.Sprintf("'devlearn knowledge why %s --tool Bash' (when it is served)", l.Entry))
			}
			more = append(more, "'devlearn history' (what devlearn changed, and 'devlearn revert ID')")
			fmt.Fprintf(env.Out, "More: %s.\n", strings.Join(more, ", "))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lesson as JSON")
	return cmd
}

// newLessonsDecideCmd is accept, retire or restore: each a decision of
// review (learn --review's) about every part of the lesson that it
// changes.
func newLessonsDecideCmd(env *Env, verb, short, long string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   verb + " ID...",
		Short: short,
		Long:  long,
		Args:  argsRange(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			lw, err := loadLessons(env)
			if err != nil {
				return err
			}
			var picked []*lessons.Lesson
			for _, id := range args {
				l, err := lessons.Find(lw.list, id)
				if err != nil {
					return exitcode.UsageError(err)
				}
				picked = append(picked, l)
			}
			r := lw.w.reviewerAs("lessons " + verb)
			type result struct {
				ID       string            `json:"id"`
				Was      string            `json:"was"`
				Now      string            `json:"now"`
				Why      string            `json:"why"`
				Outcomes []*review.Outcome `json:"decisions"`
			}
			var results []result
			for _, l := range picked {
				steps, err := decisionsFor(verb, l)
				if err != nil {
					return err
				}
				res := result{ID: l.ID, Was: l.Status, Outcomes: []*review.Outcome{}}
				for _, s := range steps {
					o, err := r.Decide(env.Context(), s.action, s.id)
					if err != nil {
						if errors.Is(err, review.ErrUnknown) {
							return exitcode.UsageError(err)
						}
						return err
					}
					res.Outcomes = append(res.Outcomes, o)
				}
				results = append(results, res)
			}
			after, err := loadLessons(env)
			if err != nil {
				return err
			}
			for i := range results {
				if l, err := lessons.Find(after.list, results[i].ID); err == nil {
					results[i].Now, results[i].Why = l.Status, l.Why
				}
			}
			if asJSON {
				return printJSON(env.Out, map[string]any{"lessons": results})
			}
			for _, res := range results {
				if res.Was == res.Now && len(res.Outcomes) == 0 {
					fmt.Fprintf(env.Out, "%s: already %s (%s)\n", res.ID, res.Now, res.Why)
					continue
				}
				fmt.Fprintf(env.Out, "%s: %s → %s (%s)\n", res.ID, res.Was, res.Now, res.Why)
				for _, o := range res.Outcomes {
					fmt.Fprint(env.Out, "  ")
					printOutcome(env, o)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was decided as JSON")
	return cmd
}

type lessonStep struct{ action, id string }

// decisionsFor is what review decides about each part of a lesson for a
// verb: only the parts it changes, so that a second accept or retire is a
// no-op.
func decisionsFor(verb string, l *lessons.Lesson) ([]lessonStep, error) {
	entry, obs := l.Subjects()
	if l.Entry != "" && entry == "" {
		return nil, exitcode.WithHint(fmt.Errorf("%s is a global lesson, kept for every project", l.ID),
			"change it in the global store: 'devlearn knowledge promote|archive --global "+l.Entry+"'")
	}
	if entry == "" && obs == "" {
		return nil, exitcode.WithHint(fmt.Errorf("%s was written by hand in %s", l.ID, l.Artifact), "change its Status field there")
	}
	held := l.Held != ""
	var out []lessonStep
	switch verb {
	case "accept":
		if l.Status == lessons.Retired {
			return nil, exitcode.Usagef("%s is retired (%s): 'devlearn lessons restore %s' brings it back", l.ID, l.Why, l.ID)
		}
		switch {
		case entry != "" && (l.EntryStatus != knowledge.StatusActive || held):
			out = append(out, lessonStep{"accept", entry})
		case entry == "" && obs != "" && l.Status != lessons.InForce:
			out = append(out, lessonStep{"accept", obs})
		case obs != "" && held:
			out = append(out, lessonStep{"keep", obs})
		}
	case "retire":
		if entry != "" && l.EntryStatus != knowledge.StatusArchived {
			out = append(out, lessonStep{"deprecate", entry})
		}
		if obs != "" && l.ObsStatus != "deprecated" {
			out = append(out, lessonStep{"deprecate", obs})
		}
	case "restore":
		if entry != "" && l.EntryStatus == knowledge.StatusArchived {
			out = append(out, lessonStep{"restore", entry})
		}
		// With an entry, the entry is the lesson: its observation, made
		// ready again, would be rendered as a second copy of it.
		if obs != "" && entry == "" && l.ObsStatus == "deprecated" {
			out = append(out, lessonStep{"restore", obs})
		}
	}
	return out, nil
}

func newLessonsEditCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "edit ID",
		Short: "Change a lesson: open its file in $VISUAL or $EDITOR",
		Long: `Open the file that states a lesson (its entry, or the artifact rendered
from it) in $VISUAL or $EDITOR. What you write is yours: devlearn serves
your version and never writes over it. Off a terminal it names the file,
and 'devlearn knowledge update KEY --summary TEXT' changes an entry in one
command.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			lw, l, err := findLesson(env, args[0])
			if err != nil {
				return err
			}
			path := l.EntryPath
			if path == "" {
				path = l.Artifact
			}
			if path == "" {
				return exitcode.WithHint(fmt.Errorf("%s has no file yet: it is only observed", l.ID), "accept it ('devlearn lessons accept "+l.ID+"') and render it ('devlearn render-ready'), or retire it")
			}
			if asJSON {
				return printJSON(env.Out, map[string]string{"id": l.ID, "path": path})
			}
			if !env.interactive() {
				fmt.Fprintf(env.Out, "%s is stated in %s: edit it there (your version is kept)", l.ID, path)
				if l.Entry != "" {
					fmt.Fprintf(env.Out, ", or run 'devlearn knowledge update %s --summary TEXT'", l.Entry)
				}
				fmt.Fprintln(env.Out, ".")
				return nil
			}
			if l.Scope == knowledge.ScopeProject {
				path = lw.w.proj.Path(path)
			}
			return env.editFile(path)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the lesson's file as JSON instead of opening it")
	return cmd
}
