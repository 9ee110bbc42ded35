package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	huh "charm.land/huh/v2"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/curator"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

type curateOptions struct {
	json   bool
	dryRun bool
}

func newCurateCmd(env *Env) *cobra.Command {
	opts := &curateOptions{}
	cmd := &cobra.Command{
		Use:   "curate",
		Short: "Keep the curated section of lessons in the instruction files (curator.files)",
		Long: `Keep one marked section of lessons in each file of curator.files (for
example AGENTS.md, read by Codex, Cursor, Gemini CLI and others, and
CLAUDE.md), in the knowledge-base format docs/evolution.md describes:

  - **[P001]** (applied: 3, helpful: 2, stale: 0) Keep configuration in plain JSON files.
    _Evidence: obs_dcf334774def (2 sessions)_

Prompt insights come from decisions, workflow insights from commands and
skills, failure patterns from pitfalls: every lesson devlearn promoted.
A lesson that refines a bullet (curator.similarity) updates it in place; at
most curator.max_prompt_bullets bullets, the least useful giving way. A
bullet you edit is yours from then on; one you delete is a "no" to its
lessons. Nothing outside the two marker lines is ever changed. The worker
curates after each run; this curates now.`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			cu := &curator.Curator{
				Proj: w.proj, Log: w.log, Now: w.now, Config: w.cfg.Config, DryRun: opts.dryRun,
				Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: "curate"}),
			}
			res, err := cu.Run(env.Context())
			if err != nil {
				return err
			}
			for _, p := range res.Problems {
				fmt.Fprintf(env.Err, "devlearn: %s\n", p)
			}
			if opts.json {
				return printJSON(env.Out, res)
			}
			printCurated(env.Out, res, len(w.cfg.Config.Curator.Files))
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the decisions as JSON")
	cmd.Flags().BoolVar(&opts.dryRun, "dry-run", false, "write nothing; say what would change")
	return cmd
}

func printCurated(out io.Writer, res *curator.Result, files int) {
	if files == 0 {
		fmt.Fprintln(out, "No file to curate: set curator.files (devlearn learn --configure --set curator.files=AGENTS.md,CLAUDE.md).")
		return
	}
	for _, d := range res.Decisions {
		fmt.Fprintf(out, "  %s\n", d)
	}
	verb := "Updated"
	if res.DryRun {
		verb = "Would update"
	}
	switch {
	case len(res.Files) == 0:
		fmt.Fprintln(out, "The curated sections are up to date.")
	default:
		fmt.Fprintf(out, "%s %s", verb, plural(len(res.Files), "file", "files"))
		for i, f := range res.Files {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			fmt.Fprint(out, sep+f)
		}
		fmt.Fprintln(out, ".")
	}
}

// curateProject curates p's instruction files, as the worker does after
// rendering and revert after taking artifacts away.
func curateProject(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time, trigger string) (*curator.Result, error) {
	cu := &curator.Curator{
		Proj: p, Now: now, Config: cfg,
		Log:    observe.ProjectStore(p),
		Writer: evolve.New(p, now, evolve.Trigger{Command: trigger}), //devlearn:triggers "worker" "revert"
	}
	return cu.Run(ctx)
}

// afterPass is what the worker does once a pass has rendered: the curated
// sections follow the lessons, and the kept copies are pruned within
// history.*. Neither stops the worker: what goes wrong is logged.
// It returns the number of instruction files curated.
func afterPass(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time, logf func(string, ...any)) int {
	curated := 0
	res, err := curateProject(ctx, p, cfg, now, "worker")
	switch {
	case err != nil:
		logf("curate in %s: %v", p.Root, err)
	default:
		for _, pr := range res.Problems {
			logf("curate: %s", pr)
		}
		curated = len(res.Files)
	}
	if _, err := evolve.Prune(ctx, p, pruneOptions(cfg, now, false)); err != nil {
		logf("pruning the kept copies in %s: %v", p.Root, err)
	}
	return curated
}

// curatorChoices are the instruction files init offers to curate: the
// ones every agent reads.
var curatorChoices = []string{"AGENTS.md", "CLAUDE.md"}

// offerCurator asks, on a terminal, which instruction files should get a
// curated section, when init is about to create the config: the answer
// goes into it as curator.files. An existing config is the person's and
// is not asked about ('devlearn learn --configure' sets it).
func offerCurator(env *Env, plan *install.Init) error {
	var files []string
	var opts []huh.Option[string]
	for _, f := range curatorChoices {
		opts = append(opts, huh.NewOption(f, f))
	}
	// The explanation is a note of its own: a multi-select sizes its
	// list to its options minus its title and description, so with
	// them in it the options were not shown at all, and a key typed
	// blind chose one unseen. Its height is set for the same reason.
	err := env.form(huh.NewGroup(
		huh.NewNote().
			Title("Keep a curated section of what devlearn learns in these instruction files?").
			Description("Agents without devlearn's hooks (Codex, Cursor, Gemini CLI) read AGENTS.md; Claude Code reads CLAUDE.md.\n"+
				"devlearn writes only between two marker lines.\n"+
				"x or space selects or clears the file under the cursor (↑ ↓ move); enter confirms; none selected is fine."),
		huh.NewMultiSelect[string]().Title("Curate in:").Options(opts...).Height(len(opts)+1).Value(&files)))
	if err != nil {
		return err
	}
	return plan.ChooseCurator(files)
}
