package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/observe"
)

type learnOptions struct {
	list   bool
	json   bool
	typ    string
	status string
}

func newLearnCmd(env *Env) *cobra.Command {
	opts := &learnOptions{}
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Inspect and manage what devlearn has learned",
		Long: `Inspect and manage what devlearn has learned in this project.

--list shows every observation, highest confidence first, with its type,
count (distinct sessions), status and, for those not yet ready, what is
missing: sightings, spread over days, or a confirmed quality.`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case opts.list:
				return runLearnList(env, opts)
			}
			return exitcode.Usagef("learn needs an action, such as --list\nRun 'devlearn learn --help' for usage.")
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.list, "list", false, "list observations by confidence")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.StringVar(&opts.typ, "type", "", "only this type (workflow, procedural, decision, pitfall)")
	f.StringVar(&opts.status, "status", "", "only this status (observing, ready, created, deprecated)")
	return cmd
}

func runLearnList(env *Env, opts *learnOptions) error {
	if opts.typ != "" && !observe.ValidType(opts.typ) {
		return exitcode.Usagef("--type %q is not one of %s", opts.typ, strings.Join(observe.Types, ", "))
	}
	switch opts.status {
	case "", observe.Observing, observe.Ready, observe.Created, observe.Deprecated:
	default:
		return exitcode.Usagef("--status %q is not one of observing, ready, created, deprecated", opts.status)
	}
	w, err := env.workspace()
	if err != nil {
		return err
	}
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	obs := []observe.Observation{}
	for _, o := range log.Observations(w.now, w.cfg.Config) {
		if (opts.typ == "" || o.Type == opts.typ) && (opts.status == "" || o.Status == opts.status) {
			obs = append(obs, o)
		}
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"observations": obs})
	}
	if len(obs) == 0 {
		fmt.Fprintln(env.Out, "No observations yet. They come from 'devlearn observe' and, once set up, from your sessions.")
		return nil
	}
	printObservationTable(env.Out, obs)
	return nil
}

func printObservationTable(out io.Writer, obs []observe.Observation) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tCONF\tCOUNT\tSTATUS\tNOT READY BECAUSE\tPATTERN")
	for _, o := range obs {
		why := strings.Join(o.Why, "; ")
		if why == "" {
			why = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%d\t%s\t%s\t%s\n", o.ID, o.Type, o.Confidence, o.Count, statusLabel(o), why, ellipsis(o.Pattern, 50))
	}
	tw.Flush()
}

// statusLabel adds to the status what a person should know at a glance.
func statusLabel(o observe.Observation) string {
	s := o.Status
	if o.Status == observe.Deprecated && o.DeprecatedReason != "" {
		s += " (" + o.DeprecatedReason + ")"
	}
	if o.NeedsReview {
		s += " !"
	}
	return s
}
