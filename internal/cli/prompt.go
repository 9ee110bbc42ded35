package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/prompt"
	"github.com/devlearn/devlearn/internal/skills"
)

func newPromptCmd(env *Env) *cobra.Command {
	var stage, name string
	var budget int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "prompt --stage STAGE [--task TASK]",
		Short: "What an agent at a stage is given: the knowledge index, the skill's core, the two-strike addendum",
		Long: `Print what an agent at a stage is given (docs/directives.md): the knowledge
index (project and global entries, one "[key] summary" line each), the
core of the stage's skill (skills.stages), and, when the task's last two
rejections at the stage were similar, the Two-Strike Protocol. The whole is
kept within prompt.budget_tokens (--budget): the index gives way first,
then the core; the addendum is never cut.

The prompt goes to stdout, for a pipeline to hand to its agent; the token
estimate of each part goes to stderr (all of it with --json).`,
		Example: `  devlearn prompt --stage implement --task auth-fix > prompt.md`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkStage(stage, false); err != nil {
				return err
			}
			n, err := env.taskName(name)
			if err != nil {
				return err
			}
			w, err := env.taskWS("prompt")
			if err != nil {
				return err
			}
			if !c.Flags().Changed("budget") {
				budget = w.cfg.Prompt.BudgetTokens
			}
			if budget < 300 {
				return exitcode.Usagef("--budget %d: want at least 300 tokens (the index's own lines and the skill's heading need that)", budget)
			}
			in := prompt.Input{Stage: stage, IndexBudget: w.cfg.Knowledge.IndexBudgetTokens, Budget: budget}
			in.SkillName, _ = w.cfg.Skills.Stages.For(stage)
			if home, err := env.seededSkills(); err != nil {
				in.SkillProblem = err.Error()
			} else if in.Skill, err = skills.Load(home, in.SkillName); err != nil {
				in.SkillProblem = err.Error()
			}
			src := knowledge.Sources{Root: w.proj.Root, GlobalDir: knowledge.GlobalEntriesDir(env.Home())}
			set, _ := knowledge.Load(src, knowledge.CachePath(w.proj), knowledge.Full)
			for _, p := range set.Problems {
				fmt.Fprintf(env.Err, "devlearn: %v (skipped; fix the file, the other entries are served)\n", p)
			}
			in.Set = set
			if n != "" {
				st, _, err := w.store.Load(n)
				if err != nil {
					return err
				}
				in.TwoStrike = st.TwoStrikeAt(stage)
			}
			p := prompt.Assemble(in)
			if asJSON {
				return printJSON(env.Out, p)
			}
			fmt.Fprint(env.Out, p.Text)
			var parts []string
			for _, part := range p.Parts {
				cut := ""
				if part.Cut {
					cut = ", cut"
				}
				parts = append(parts, fmt.Sprintf("%s ~%d%s", part.Name, part.Tokens, cut))
			}
			fmt.Fprintf(env.Err, "devlearn prompt: %s; total ~%d of %d tokens.\n", strings.Join(parts, ", "), p.Tokens, p.Budget)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&stage, "stage", "", "the stage")
	f.StringVar(&name, "task", "", "the task (default $DEVLEARN_TASK): its two-strike addendum, if any")
	f.IntVar(&budget, "budget", 0, "token budget of the whole prompt (default prompt.budget_tokens)")
	f.BoolVar(&asJSON, "json", false, "print the parts, their token estimates and the prompt as JSON")
	return cmd
}
