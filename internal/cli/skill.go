package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/skills"
)

func newSkillCmd(env *Env) *cobra.Command {
	cmd := asParent(&cobra.Command{
		Use:   "skill",
		Short: "Tiered skills: a core always given at a stage, an extended part read on demand",
		Long: `Skills (docs/directives.md) live in $DEVLEARN_HOME/skills/<name>/: core.md, what
an agent at a stage is always given (with a description of when to use the
skill), and extended.md, the detail it reads on demand (fetch_skill_detail,
or 'devlearn skill show NAME --extended'). The seven defaults (brainstorming,
design-review, writing-plans, test-driven-development, code-review,
verification, completion) are seeded there on first use and never overwrite
your edits. Which skill a stage gets is skills.stages in the config.

For Claude Code, 'devlearn skill render' writes them as .claude/skills/
<name>/SKILL.md (the core) with extended.md beside it.`,
		GroupID: "learn",
	})
	cmd.AddCommand(newSkillListCmd(env), newSkillShowCmd(env), newSkillEditCmd(env), newSkillRenderCmd(env))
	return cmd
}

// seededSkills seeds the defaults and says so when it wrote anything.
func (env *Env) seededSkills() (string, error) {
	home := env.Home()
	res, err := skills.Seed(env.Context(), home)
	if err != nil {
		return "", err
	}
	if n := len(res.Created) + len(res.Updated); n > 0 {
		fmt.Fprintf(env.Err, "devlearn: %s of the default skills written to %s (your edits are never overwritten).\n", plural(n, "file", "files"), skills.Dir(home))
	}
	return home, nil
}

// stagesOf maps each skill to the stages that use it, in stage order.
func stagesOf(cfg *config.Config) map[string][]string {
	out := map[string][]string{}
	for _, s := range config.Stages {
		if name, ok := cfg.Skills.Stages.For(s); ok {
			out[name] = append(out[name], s)
		}
	}
	return out
}

func newSkillListCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Every skill, the stages that use it, and the size of each tier",
		Long: `List the skills of $DEVLEARN_HOME/skills (the defaults are seeded first):
the stages whose prompt gets each one (skills.stages), the size of its core
and extended tiers in tokens, whether you edited it, and the filtered
directive types it loads in full (its core.md's 'directives:', such as
'directives: [TESTING.md, CHECKLIST.md]'; a name that is not one is named
on stderr with its line). A stage pointing at a skill that does not exist
is named.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			home, err := env.seededSkills()
			if err != nil {
				return err
			}
			p, _ := env.Project()
			l, err := env.Config(p)
			if err != nil {
				return err
			}
			list, probs, err := skills.List(home)
			if err != nil {
				return err
			}
			for _, p := range probs {
				fmt.Fprintf(env.Err, "devlearn: %v (skipped)\n", p)
			}
			stages := stagesOf(l.Config)
			type row struct {
				*skills.Skill
				Stages []string `json:"stages"`
			}
			var rows []row
			for _, s := range list {
				st := stages[s.Name]
				if st == nil {
					st = []string{}
				}
				rows = append(rows, row{s, st})
			}
			if asJSON {
				if rows == nil {
					rows = []row{}
				}
				return printJSON(env.Out, rows)
			}
			for _, r := range rows {
				mark := ""
				if r.Edited {
					mark = ", edited"
				} else if !r.Default {
					mark = ", yours"
				}
				st := "-"
				if len(r.Stages) > 0 {
					st = strings.Join(r.Stages, ",")
				}
				if len(r.Directives) > 0 {
					mark += "; loads " + strings.Join(r.Directives, ", ")
				}
				fmt.Fprintf(env.Out, "%-24s %-14s core ~%d tok, extended ~%d tok%s\n", r.Name, st, r.CoreTokens, r.ExtendedTokens, mark)
			}
			for _, r := range rows {
				for _, p := range r.Problems {
					fmt.Fprintf(env.Err, "devlearn: %s\n", p)
				}
			}
			var missing []string
			for name, st := range stages {
				if !has(list, name) {
					missing = append(missing, fmt.Sprintf("%s (for %s)", name, strings.Join(st, ",")))
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				fmt.Fprintf(env.Out, "Missing: %s: write them with 'devlearn skill edit NAME --tier core', or change skills.stages.\n", strings.Join(missing, ", "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the skills as JSON")
	return cmd
}

func has(list []*skills.Skill, name string) bool {
	for _, s := range list {
		if s.Name == name {
			return true
		}
	}
	return false
}

func newSkillShowCmd(env *Env) *cobra.Command {
	var extended, asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a skill's core (what its stage is given), or with --extended its detail",
		Long: `Print a skill's core (its description and the body a stage's prompt
includes), or with --extended its extended.md, what fetch_skill_detail gives
an agent.`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := skills.ValidName(args[0]); err != nil {
				return exitcode.UsageError(err)
			}
			home, err := env.seededSkills()
			if err != nil {
				return err
			}
			s, err := skills.Load(home, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, s)
			}
			if extended {
				if s.Extended == "" {
					return fmt.Errorf("skill %s has no extended.md", s.Name)
				}
				_, err = fmt.Fprint(env.Out, s.Extended)
				return err
			}
			fmt.Fprintf(env.Out, "# %s: %s\n\n%s", s.Name, s.Description, s.Core)
			return nil
		},
	}
	cmd.Flags().BoolVar(&extended, "extended", false, "print extended.md, the detail read on demand")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the skill as JSON")
	return cmd
}

func newSkillEditCmd(env *Env) *cobra.Command {
	var tier, from string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "edit NAME --tier core|extended [--from FILE|-]",
		Short: "Change a skill's core or extended part, in your editor or from a file, checked first",
		Long: `Change one tier of a skill in $DEVLEARN_HOME/skills/NAME/: in $VISUAL or
$EDITOR on a terminal, or from --from FILE (- for stdin). A new NAME makes a
new skill (core first). The text is checked before it is saved: a core.md
starts with front matter holding one line, description (when to use the
skill), then its body; neither tier may be empty; a core holds at most 16
KiB, an extended part 64 KiB. Nothing is saved when the check fails; an
editor's text is kept in a file named in the error.`,
		Example: `  devlearn skill edit code-review --tier core
  devlearn skill edit code-review --tier extended --from review-checklist.md`,
		Args: argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			if err := skills.ValidName(name); err != nil {
				return exitcode.UsageError(err)
			}
			if err := skills.ValidTier(tier); err != nil {
				return exitcode.Usagef("--tier is needed: core or extended")
			}
			home, err := env.seededSkills()
			if err != nil {
				return err
			}
			var data []byte
			if from != "" {
				if data, _, err = readInput(env, from); err != nil {
					return err
				}
			} else {
				if !env.interactive() {
					return exitcode.Usagef("edit opens an editor: run it on a terminal, or give the text with --from FILE (- for stdin)")
				}
				if data, err = editInTemp(env, home, name, tier); err != nil {
					return err
				}
			}
			path, err := skills.Save(env.Context(), home, name, tier, data)
			if err != nil {
				return exitcode.WithHint(err, "nothing was saved; fix the text and run it again")
			}
			if asJSON {
				return printJSON(env.Out, map[string]string{"skill": name, "tier": tier, "path": path})
			}
			fmt.Fprintf(env.Out, "Saved %s.\n", path)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was saved as JSON")
	cmd.Flags().StringVar(&tier, "tier", "", "core or extended")
	cmd.Flags().StringVar(&from, "from", "", "take the text from FILE (- for stdin) instead of an editor")
	return cmd
}

// editInTemp opens a copy of a skill's tier in the editor and returns the
// edited text; a copy is kept when the text will not be saved, so nothing
// typed is lost.
func editInTemp(env *Env, home, name, tier string) ([]byte, error) {
	cur, err := skills.Read(home, name, tier)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if cur == "" && tier == skills.Core {
		cur = "---\ndescription: Use when ...\n---\n# " + name + "\n\n"
	}
	dir, err := safefile.MkdirTemp("devlearn-skill-")
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, name+"-"+tier+".md")
	if err := safefile.WriteFile(dir, tmp, []byte(cur), 0o600); err != nil {
		return nil, err
	}
	if err := env.editFile(tmp); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(data, []byte(cur)) {
		safefile.RemoveAll(filepath.Dir(dir), dir)
		return nil, exitcode.Usagef("nothing changed in %s/%s.md", name, tier)
	}
	if verr := skills.Validate(name, tier, data); verr != nil {
		return nil, exitcode.WithHint(verr, "your text is kept in "+tmp+"; fix it and run 'devlearn skill edit "+name+" --tier "+tier+" --from "+tmp+"'")
	}
	safefile.RemoveAll(filepath.Dir(dir), dir)
	return data, nil
}

func newSkillRenderCmd(env *Env) *cobra.Command {
	var global, remove, dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Write the skills for Claude Code: .claude/skills/<name>/SKILL.md and extended.md",
		Long: `Write every skill of $DEVLEARN_HOME/skills as a Claude Code skill: SKILL.md
holds the core (and the description Claude chooses skills by) with a link
to extended.md beside it, which Claude reads only when it needs the detail.
Into the project's .claude/skills/ (through the audited writer), or with
--global into your own (~/.claude/skills, or $CLAUDE_CONFIG_DIR/skills).

A skill folder that is not devlearn's, or a rendered file you edited, is
kept as it is. Run it again after 'devlearn skill edit'. --remove takes
devlearn's unedited rendered files away again.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			home, err := env.seededSkills()
			if err != nil {
				return err
			}
			list, probs, err := skills.List(home)
			if err != nil {
				return err
			}
			for _, p := range probs {
				fmt.Fprintf(env.Err, "devlearn: %v (skipped)\n", p)
			}
			var dir, shown string
			var proj *project.Project
			if global {
				dir = filepath.Join(env.claudeDir(), "skills")
				shown = dir
			} else {
				if proj, err = env.Project(); err != nil {
					return err
				}
				dir, shown = proj.Path(project.SkillsDir), project.SkillsDir
			}
			plan, err := skills.PlanRender(dir, list, remove)
			if err != nil {
				return err
			}
			if !dryRun {
				if err := applyRender(env, proj, dir, plan); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(env.Out, map[string]any{"dir": shown, "dry_run": dryRun, "plan": plan})
			}
			verb := map[bool]string{true: "would be ", false: ""}[dryRun]
			for _, p := range plan.Written {
				fmt.Fprintf(env.Out, "%swritten  %s/%s\n", verb, shown, p)
			}
			for _, p := range plan.Removed {
				fmt.Fprintf(env.Out, "%sremoved  %s/%s\n", verb, shown, p)
			}
			keys := make([]string, 0, len(plan.Kept))
			for k := range plan.Kept {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(env.Out, "kept     %s/%s: %s\n", shown, k, plan.Kept[k])
			}
			fmt.Fprintf(env.Out, "%s %s, %d unchanged.\n", plural(len(plan.Written)+len(plan.Removed), "file", "files"), strings.TrimSpace(verb+map[bool]string{true: "removed", false: "written"}[remove]), len(plan.Unchanged))
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&global, "global", false, "render into your own Claude Code skills (~/.claude/skills)")
	f.BoolVar(&remove, "remove", false, "remove devlearn's unedited rendered skills instead")
	f.BoolVar(&dryRun, "dry-run", false, "say what would be written, write nothing")
	f.BoolVar(&asJSON, "json", false, "print the plan as JSON")
	return cmd
}

// applyRender writes a render plan: a project's files through the one
// writer (one audited batch), a person's own folder atomically.
func applyRender(env *Env, proj *project.Project, dir string, plan *skills.RenderPlan) error {
	if len(plan.Write)+len(plan.Removed) == 0 {
		return nil
	}
	if proj != nil {
		now, err := env.Now()
		if err != nil {
			return err
		}
		var changes []evolve.Change
		for _, r := range plan.Write {
			changes = append(changes, evolve.Change{Path: skills.Join(project.SkillsDir, r.Path), Data: r.Data})
		}
		for _, r := range plan.Removed {
			changes = append(changes, evolve.Change{Path: skills.Join(project.SkillsDir, r), Remove: true})
		}
		_, err = evolve.New(proj, now, evolve.Trigger{Command: "skill render"}).Apply(env.Context(), evolve.Reason{Text: "skill render: the tiered skills for Claude Code"}, changes...)
		return err
	}
	if err := safefile.MkdirRoot(dir, 0o755); err != nil {
		return err
	}
	for _, r := range plan.Write {
		p := filepath.Join(dir, filepath.FromSlash(r.Path))
		if err := safefile.MkdirAll(dir, filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := jsonl.WriteFileAtomic(dir, p, r.Data, 0o644); err != nil {
			return err
		}
	}
	for _, r := range plan.Removed {
		if err := safefile.Remove(dir, filepath.Join(dir, filepath.FromSlash(r))); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
