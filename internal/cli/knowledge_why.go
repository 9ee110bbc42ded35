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
		tool, file, input, session, request string
		prompts                             []string
		verbose, asJSON, all                bool
	)
	cmd := &cobra.Command{
		Use:   "why [ID...] (--tool TOOL [--file PATH] [--input CMD] [--prompt TEXT]... | --request TEXT)",
		Short: "Explain the relevance scores of a tool call or a request, item by item",
		Long: `Score every item with triggers against a tool call (--tool), exactly as the
pre-tool-use hook does, or against a person's request (--request), as
user-prompt-submit does, and print each component: tool, file, command,
action and context (each its weight when it matches, nothing when it
misses, half when the item does not set it; command only when it matches),
what a missed file takes off, their sum, the priority multiplier and the
score, and whether the item would be served. Triggers include those the
lesson's own text names ("when changing plugin.json", "never run npm").
Keywords are matched against --prompt texts (or, with --session, the
prompts that session recorded) and --input (a Bash command, say). -v
spells out what matched; naming items (IDs) shows only those, with the
reasons.

  devlearn knowledge why --tool Write --file .claude-plugin/plugin.json \
      --prompt "do the version bump to 0.8.0 and release it"
  devlearn knowledge why ADR-001 PF-003 --tool Bash --input "npm install date-fns"
  devlearn knowledge why --request "add the refunds call to web/src/api/client.ts"`,
		RunE: func(c *cobra.Command, ids []string) error {
			if (tool == "") == (request == "") {
				return exitcode.Usagef("why needs --tool (the tool name, such as Write or Bash) or --request (a person's request), not both")
			}
			w, err := env.knowledgeWS(true)
			if err != nil {
				return err
			}
			cwd, _ := filepath.Abs(env.Dir)
			opts := hook.ServeOptionsFor(w.proj, w.cfg)
			var call *knowledge.Call
			what := tool
			if request != "" {
				call = hook.RequestCall(w.proj.Root, cwd, request)
				opts.MaxItems = w.cfg.Serve.PromptMaxItems
				what = "the request"
			} else {
				ti := map[string]string{}
				if file != "" {
					ti["file_path"] = file
				}
				if input != "" {
					ti["command"] = input
				}
				in := hook.Input{ToolName: tool, Tool: hook.ToolArgsOf(ti), Cwd: cwd}
				if session != "" {
					prompts = append(hook.SessionOf(w.proj, session).Prompts(hook.RecentPrompts), prompts...)
				}
				call = hook.ToolCall(w.proj.Root, env.Getenv("HOME"), in, prompts)
			}
			set := w.load()
			for _, id := range ids {
				if set.Find(id, "") == nil {
					return exitcode.Usagef("no item %q (see `devlearn knowledge index --all`)", id)
				}
			}
			var scored []knowledge.Scored
			for _, it := range set.Items {
				if (!it.Active || it.Match.Empty()) && !all && !named(ids, it) {
					continue
				}
				b := knowledge.Explain(it, call, opts.Weights)
				opts.Demote(it, &b)
				scored = append(scored, knowledge.Scored{Item: it, Breakdown: b})
			}
			knowledge.SortScored(scored)
			served := 0
			var rows []explained
			for _, s := range scored {
				v := verdict(s, call, opts, &served)
				if len(ids) > 0 && !named(ids, s.Item) {
					continue
				}
				rows = append(rows, explained{ID: s.Item.ID, Label: s.Item.Label(), Verdict: v, Breakdown: s.Breakdown})
			}
			if asJSON {
				if rows == nil {
					rows = []explained{}
				}
				out := map[string]any{"paths": call.Paths, "threshold": opts.Threshold, "max_items": opts.MaxItems, "items": rows}
				if tool != "" {
					out["tool"] = tool
				} else {
					out["request"] = request
				}
				if len(call.Commands) > 0 {
					var cmds []string
					for _, sg := range call.Commands {
						cmds = append(cmds, strings.TrimSpace(sg.Verb+" "+strings.Join(sg.Words, " ")))
					}
					out["commands"] = cmds
				}
				return printJSON(env.Out, out)
			}
			where := ""
			if len(call.Paths) > 0 {
				where = " of " + strings.Join(call.Paths, ", ")
			}
			fmt.Fprintf(env.Out, "%s%s: threshold %.2f, at most %d served (weights tool %.2f, file %.2f, command %.2f, action %.2f, context %.2f, file miss -%.2f)\n",
				what, where, opts.Threshold, opts.MaxItems, opts.Weights.Tool, opts.Weights.File, opts.Weights.Command, opts.Weights.Action, opts.Weights.Context, opts.Weights.FileMiss)
			if len(rows) == 0 {
				fmt.Fprintln(env.Out, "No item has triggers: entries without triggers, and decisions that name no file or command, only appear in the index.")
				return nil
			}
			width := len("ID")
			for _, r := range rows {
				width = max(width, len(r.ID))
			}
			fmt.Fprintf(env.Out, "%-*s  %5s  %5s  %5s  %6s  %7s  %5s  %5s  %4s  %5s  %s\n", width, "ID", "tool", "file", "cmd", "action", "context", "miss", "base", "x", "score", "verdict")
			for _, r := range rows {
				miss := "0.00"
				if r.Miss != 0 {
					miss = fmt.Sprintf("-%.2f", r.Miss)
				}
				fmt.Fprintf(env.Out, "%-*s  %5.2f  %5.2f  %5.2f  %6.2f  %7.2f  %5s  %5.2f  %4.1f  %5.2f  %s\n", width, r.ID, r.Tool, r.File, r.Command, r.Action, r.Context, miss, r.Base, r.Multiplier, r.Score, r.Verdict)
				if verbose || len(ids) > 0 {
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
	f.StringVar(&request, "request", "", "a person's request, scored as user-prompt-submit scores it")
	f.StringVar(&session, "session", "", "use the prompts recorded for this session id")
	f.BoolVar(&all, "all", false, "also score items without triggers and items not in force")
	f.BoolVarP(&verbose, "verbose", "v", false, "say what matched and what did not")
	f.BoolVar(&asJSON, "json", false, "print the scores as JSON")
	return cmd
}

func named(ids []string, it *knowledge.Item) bool {
	for _, id := range ids {
		if it.ID == id || it.Observation != "" && it.Observation == id {
			return true
		}
	}
	return false
}

// verdict says what the hook would do with a scored item, given how many
// were served before it.
func verdict(s knowledge.Scored, c *knowledge.Call, o knowledge.Options, served *int) string {
	switch {
	case !s.Item.Active:
		return "not in force (" + s.Item.Status + ")"
	case s.Item.Held != "":
		return "held for a person's review: it " + s.Item.Held + " (" + knowledge.HeldNext(s.Item) + ")"
	case s.Item.Match.Empty():
		return "no triggers: index only"
	case c.Prompt && !s.Named:
		return "withheld: the request names none of its files, commands, keywords or topics"
	case s.Always:
		*served++
		return "served (CRITICAL, its file or command matches: always)"
	case !s.Evidence:
		return "withheld: nothing beyond the tool matches"
	case !s.Serve(c, o.Threshold):
		return fmt.Sprintf("withheld: below the threshold %.2f", o.Threshold)
	case *served >= o.MaxItems:
		return fmt.Sprintf("withheld: above the threshold, over max_items (%d)", o.MaxItems)
	}
	*served++
	return "served"
}
