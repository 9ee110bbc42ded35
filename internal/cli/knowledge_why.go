package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/knowledge"
)

// explained is one row of `knowledge why`.
type explained struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Verdict string `json:"verdict"`
	knowledge.Breakdown
}

func newKnowledgeWhyCmd(env *Env) *cobra.Command {
	var (
		tool, file, input, session string
		prompts                    []string
		verbose, asJSON, all       bool
	)
	cmd := &cobra.Command{
		Use:   "why --tool TOOL [--file PATH] [--prompt TEXT]...",
		Short: "Explain the relevance scores of a tool call, item by item",
		Long: `Score every item with triggers against a tool call, exactly as the
pre-tool-use hook does, and print each component: tool, file, action and
context (each its weight when it matches, nothing when it misses, half when
the item does not set it), their sum, the priority multiplier and the
score, and whether the item would be served. Keywords are matched against
--prompt texts (or, with --session, the prompts that session recorded) and
--input (a Bash command, say). -v spells out what matched.

  devlearn knowledge why --tool Write --file .claude-plugin/plugin.json \
      --prompt "do the version bump to 0.8.0 and release it"`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if tool == "" {
				return exitcode.Usagef("why needs --tool (the tool name, such as Write or Bash)")
			}
			w, err := env.knowledgeWS(true)
			if err != nil {
				return err
			}
			ti := map[string]string{}
			if file != "" {
				ti["file_path"] = file
			}
			if input != "" {
				ti["command"] = input
			}
			in := hook.Input{ToolName: tool, Tool: hook.ToolArgsOf(ti)}
			in.Cwd, _ = filepath.Abs(env.Dir)
			if session != "" {
				prompts = append(hook.SessionOf(w.proj, session).Prompts(hook.RecentPrompts), prompts...)
			}
			call := hook.ToolCall(w.proj.Root, in, prompts)
			opts := hook.ServeOptionsFor(w.proj, w.cfg)
			var rows []explained
			var scored []knowledge.Scored
			for _, it := range w.load().Items {
				if (!it.Active || it.Match.Empty()) && !all {
					continue
				}
				b := knowledge.Explain(it, call, opts.Weights)
				opts.Demote(it, &b)
				scored = append(scored, knowledge.Scored{Item: it, Breakdown: b})
			}
			knowledge.SortScored(scored)
			served := 0
			for _, s := range scored {
				v := verdict(s, call, opts, &served)
				rows = append(rows, explained{ID: s.Item.ID, Label: s.Item.Label(), Verdict: v, Breakdown: s.Breakdown})
			}
			if asJSON {
				if rows == nil {
					rows = []explained{}
				}
				return printJSON(env.Out, map[string]any{"tool": tool, "paths": call.Paths, "threshold": opts.Threshold, "max_items": opts.MaxItems, "items": rows})
			}
			where := ""
			if len(call.Paths) > 0 {
				where = " of " + strings.Join(call.Paths, ", ")
			}
			fmt.Fprintf(env.Out, "%s%s: threshold %.2f, at most %d served (weights tool %.2f, file %.2f, action %.2f, context %.2f)\n",
				tool, where, opts.Threshold, opts.MaxItems, opts.Weights.Tool, opts.Weights.File, opts.Weights.Action, opts.Weights.Context)
			if len(rows) == 0 {
				fmt.Fprintln(env.Out, "No item has triggers: entries without triggers, and decisions, only appear in the index.")
				return nil
			}
			width := len("ID")
			for _, r := range rows {
				width = max(width, len(r.ID))
			}
			fmt.Fprintf(env.Out, "%-*s  %5s  %5s  %6s  %7s  %5s  %4s  %5s  %s\n", width, "ID", "tool", "file", "action", "context", "base", "x", "score", "verdict")
			for _, r := range rows {
				fmt.Fprintf(env.Out, "%-*s  %5.2f  %5.2f  %6.2f  %7.2f  %5.2f  %4.1f  %5.2f  %s\n", width, r.ID, r.Tool, r.File, r.Action, r.Context, r.Base, r.Multiplier, r.Score, r.Verdict)
				if verbose {
					for _, why := range r.Why {
						fmt.Fprintf(env.Out, "%-*s    %s\n", width, "", why)
					}
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&tool, "tool", "", "the tool about to run (Write, Edit, Bash, ...)")
	f.StringVar(&file, "file", "", "the file it acts on (relative to the current folder, or absolute)")
	f.StringArrayVar(&prompts, "prompt", nil, "a recent prompt of the session (repeat)")
	f.StringVar(&input, "input", "", "the tool's input text (a Bash command, say)")
	f.StringVar(&session, "session", "", "use the prompts recorded for this session id")
	f.BoolVar(&all, "all", false, "also score items without triggers and items not in force")
	f.BoolVarP(&verbose, "verbose", "v", false, "say what matched and what did not")
	f.BoolVar(&asJSON, "json", false, "print the scores as JSON")
	return cmd
}

// verdict says what the hook would do with a scored item, given how many
// were served before it.
func verdict(s knowledge.Scored, c *knowledge.Call, o knowledge.Options, served *int) string {
	switch {
	case !s.Item.Active:
		return "not in force (" + s.Item.Status + ")"
	case s.Item.Match.Empty():
		return "no triggers: index only"
	case s.Veto != "":
		return "vetoed: " + s.Veto
	case s.Always:
		*served++
		return "served (CRITICAL, tool and file match: always)"
	case !s.Serve(c, o.Threshold):
		return fmt.Sprintf("below the threshold %.2f", o.Threshold)
	case *served >= o.MaxItems:
		return fmt.Sprintf("above the threshold, over max_items (%d)", o.MaxItems)
	}
	*served++
	return "served"
}
