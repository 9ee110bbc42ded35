package cli

import (
	"errors"
	"fmt"
	"strings"

	huh "charm.land/huh/v2"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/review"
)

func (w *workspace) reviewer() *review.Reviewer { return w.reviewerAs("learn --review") }

// reviewerAs is the reviewer of a command: its changes are in history
// under that command.
func (w *workspace) reviewerAs(command string) *review.Reviewer {
	return &review.Reviewer{
		Proj: w.proj,
		Log:  w.log,
		//devlearn:triggers "learn --review" "lessons accept" "lessons retire" "lessons restore"
		Writer: evolve.New(w.proj, w.now, evolve.Trigger{Command: command}),
		Now:    w.now,
		Config: w.cfg.Config,
		Home:   w.home,
	}
}

// runLearnReview applies --keep/--deprecate/--restore decisions, asks on a
// terminal when none is given, and otherwise lists what needs attention.
func runLearnReview(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	r := w.reviewer()
	type decision struct{ action, id string }
	var decisions []decision
	for _, id := range opts.keep {
		decisions = append(decisions, decision{"keep", id})
	}
	for _, id := range opts.deprecate {
		decisions = append(decisions, decision{"deprecate", id})
	}
	for _, id := range opts.restore {
		decisions = append(decisions, decision{"restore", id})
	}
	for _, id := range opts.promoteGlobal {
		decisions = append(decisions, decision{"global", id})
	}
	if len(opts.acceptGate)+len(opts.declineGate) > 0 {
		return decideGates(env, w, opts.acceptGate, opts.declineGate, opts.json)
	}
	if len(opts.edit) > 0 {
		if !env.interactive() {
			return exitcode.Usagef("--edit opens an editor: run it on a terminal (or edit the file yourself; reconcile records your version)")
		}
		for _, id := range opts.edit {
			if err := editItem(env, w, id); err != nil {
				return err
			}
		}
	}
	if len(decisions) > 0 {
		var outcomes []*review.Outcome
		for _, d := range decisions {
			o, err := r.Decide(env.Context(), d.action, d.id)
			if err != nil {
				if errors.Is(err, review.ErrUnknown) {
					return exitcode.UsageError(err)
				}
				return err
			}
			outcomes = append(outcomes, o)
		}
		if opts.json {
			return printJSON(env.Out, map[string]any{"decisions": outcomes})
		}
		for _, o := range outcomes {
			printOutcome(env, o)
		}
		return nil
	}
	if len(opts.edit) > 0 {
		return nil
	}
	items, _, err := r.Items()
	if err != nil {
		return err
	}
	if env.interactive() && !opts.json {
		return reviewInteractively(env, w, items)
	}
	props, err := proposedGates(w)
	if err != nil {
		return err
	}
	if opts.json {
		if items == nil {
			items = []review.Item{}
		}
		return printJSON(env.Out, map[string]any{"items": items, "proposed_gates": props})
	}
	if len(items) == 0 && len(props) == 0 {
		fmt.Fprintln(env.Out, "Nothing needs review.")
		return nil
	}
	if len(items) > 0 {
		fmt.Fprintf(env.Out, "%s:\n", plural(len(items), "item needs review", "items need review"))
		for _, it := range items {
			printItem(env, it)
		}
		fmt.Fprintln(env.Out, "Decide with --keep ID, --deprecate ID or --restore ID (repeatable; an entry's ID is its key, and keep makes a candidate active, deprecate archives it, --promote-global KEY makes it active here and copies it to every project), or run 'devlearn learn --review' on a terminal.")
	}
	printProposedGates(env, props)
	return nil
}

func printItem(env *Env, it review.Item) {
	where := it.Artifact
	if it.Anchor != "" {
		where += " " + it.Anchor
	}
	fmt.Fprintf(env.Out, "  %s  %s  %s  %s\n", it.ID, it.Type, it.Status, ellipsis(it.Text, 60))
	for _, r := range it.Reasons {
		fmt.Fprintf(env.Out, "      %s\n", r)
	}
	if where != "" {
		fmt.Fprintf(env.Out, "      artifact: %s\n", where)
	}
}

func printOutcome(env *Env, o *review.Outcome) {
	fmt.Fprintf(env.Out, "%s %s: %s", pastTense(o.Action), o.ID, o.Note)
	if len(o.Files) > 0 {
		fmt.Fprintf(env.Out, " [%s]", strings.Join(o.Files, ", "))
	}
	fmt.Fprintln(env.Out)
}

func pastTense(action string) string {
	switch action {
	case "keep":
		return "Kept"
	case "accept":
		return "Accepted"
	case "deprecate":
		return "Deprecated"
	case "restore":
		return "Restored"
	case "global":
		return "Promoted to global"
	}
	return action
}

// editItem opens the artifact of an observation or entry in the editor.
func editItem(env *Env, w *workspace, id string) error {
	path := ""
	if key, ok := review.EntryKey(id); ok {
		cands, err := review.Candidates(w.proj)
		if err != nil {
			return err
		}
		for _, c := range cands {
			if c.Key == key {
				path = c.Path
			}
		}
	} else {
		log, err := w.log.Load()
		if err != nil {
			return err
		}
		if o, ok := log.Observation(id, w.now, w.cfg.Config); ok {
			path = o.Artifact
			if path == "" && o.Intent != nil {
				path = o.Intent.Path
			}
		}
	}
	if path == "" {
		return exitcode.Usagef("%s has no artifact to edit", id)
	}
	return env.editFile(w.proj.Path(path))
}

// reviewInteractively walks the items one by one: keep, deprecate,
// restore, edit or skip each; every decision is saved as it is made.
func reviewInteractively(env *Env, w *workspace, items []review.Item) error {
	if len(items) == 0 {
		fmt.Fprintln(env.Out, "Nothing needs review.")
		return nil
	}
	r := w.reviewer()
	done := 0
	for i, it := range items {
		for {
			var action string
			opts := []huh.Option[string]{huh.NewOption("keep", "keep")}
			if it.Status == observe.Deprecated || it.Status == "archived" {
				opts = append(opts, huh.NewOption("restore", "restore"))
			} else {
				opts = append(opts, huh.NewOption("deprecate", "deprecate"))
			}
			if it.Artifact != "" {
				opts = append(opts, huh.NewOption("edit", "edit"))
			}
			opts = append(opts, huh.NewOption("skip", "skip"), huh.NewOption("quit", "quit"))
			desc := fmt.Sprintf("%s · %s · %s\n%s", it.ID, it.Type, it.Status, strings.Join(it.Reasons, "\n"))
			if it.Artifact != "" {
				desc += "\nartifact: " + strings.TrimSpace(it.Artifact+" "+it.Anchor)
			}
			err := env.form(huh.NewGroup(
				huh.NewSelect[string]().
					Title(fmt.Sprintf("[%d/%d] %s", i+1, len(items), ellipsis(it.Text, 70))).
					Description(desc).
					Options(opts...).
					Value(&action)))
			if err != nil {
				return err
			}
			switch action {
			case "quit":
				fmt.Fprintf(env.Out, "Stopped: %s decided, %d left.\n", plural(done, "item", "items"), len(items)-i)
				return nil
			case "skip":
				fmt.Fprintf(env.Out, "Skipped %s.\n", it.ID)
			case "edit":
				if err := editItem(env, w, it.ID); err != nil {
					fmt.Fprintf(env.Out, "Could not edit: %v\n", err)
				}
				continue // ask again about the same item
			default:
				o, err := r.Decide(env.Context(), action, it.ID)
				if err != nil {
					fmt.Fprintf(env.Out, "Could not %s %s: %v\n", action, it.ID, err)
					continue
				}
				printOutcome(env, o)
				done++
			}
			break
		}
	}
	fmt.Fprintf(env.Out, "Review done: %s decided.\n", plural(done, "item", "items"))
	return nil
}
