package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/redact"
)

type observeOptions struct {
	session string
	at      string
	json    bool
}

func newObserveCmd(env *Env) *cobra.Command {
	opts := &observeOptions{}
	cmd := &cobra.Command{
		Use:   "observe",
		Short: "Record observations read as JSON on stdin",
		Long: `Record observations read on stdin in the extractor's output shape:

  {"observations": [{"type": "pitfall", "pattern": "...", "details": "...",
                     "evidence": ["..."], "quality_ok": true}]}

type is workflow, procedural, decision or pitfall; "id" is optional (it is
computed from the type and the pattern). Each invalid item is rejected with
its reason while the valid ones are recorded. The sightings of one --session
count once per observation; without --session the call is its own source.`,
		Example: `  echo '{"observations":[{"type":"pitfall","pattern":"Hook scripts grow into god scripts","quality_ok":true}]}' | devlearn observe --session s1`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runObserve(env, opts)
		},
	}
	cmd.Flags().StringVar(&opts.session, "session", "", "the session these sightings come from (their source)")
	cmd.Flags().StringVar(&opts.at, "at", "", "stamp the events with this RFC 3339 time instead of now")
	cmd.Flags().BoolVar(&opts.json, "json", false, "print what was recorded as JSON")
	return cmd
}

type observeResult struct {
	Recorded []recordedItem     `json:"recorded"`
	Rejected []observe.Rejected `json:"rejected"`
}

type recordedItem struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	Pattern    string  `json:"pattern"`
	EID        string  `json:"eid"`
	Count      int     `json:"count"`
	Confidence float64 `json:"confidence"`
	Status     string  `json:"status"`
}

func runObserve(env *Env, opts *observeOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	at := w.now
	if opts.at != "" {
		t, err := time.Parse(time.RFC3339, opts.at)
		if err != nil {
			return exitcode.Usagef("--at %q is not an RFC 3339 time (example: 2026-04-19T09:00:00Z)", opts.at)
		}
		at = t.UTC()
	}
	sightings, rejected, err := observe.DecodeSightings(env.In)
	if err != nil {
		return exitcode.WithHint(err, "see 'devlearn observe --help' for the input shape")
	}
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	src := opts.session
	if src == "" {
		src = observe.ManualSource()
	}
	var events []*observe.Event
	for i := range sightings {
		s := sightings[i]
		if err := s.Clean(log, redact.For(w.cfg.Redact.PersonalData)); err != nil {
			rejected = append(rejected, observe.Rejected{Index: i + 1, Reason: err.Error()})
			continue
		}
		events = append(events, observe.ObserveEvent(s, src, at))
	}
	if err := w.log.Append(env.Context(), events...); err != nil {
		return err
	}
	if err := log.Apply(events...); err != nil {
		return err
	}
	res := observeResult{Recorded: []recordedItem{}, Rejected: rejected}
	if res.Rejected == nil {
		res.Rejected = []observe.Rejected{}
	}
	for _, e := range events {
		o, _ := log.Observation(e.ID, w.now, w.cfg.Config)
		res.Recorded = append(res.Recorded, recordedItem{ID: e.ID, Type: e.Type, Pattern: e.Pattern, EID: e.EID, Count: o.Count, Confidence: o.Confidence, Status: o.Status})
	}
	if opts.json {
		if err := printJSON(env.Out, res); err != nil {
			return err
		}
	} else {
		printObserved(env.Out, res)
	}
	if len(rejected) > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return fmt.Errorf("%s rejected; the others were recorded", plural(len(rejected), "item", "items"))
	}
	return nil
}

func printObserved(out io.Writer, res observeResult) {
	fmt.Fprintf(out, "Recorded %s.\n", plural(len(res.Recorded), "observation", "observations"))
	t := newTable(out)
	for _, r := range res.Recorded {
		t.row("  "+r.ID, r.Type, fmt.Sprintf("count %d", r.Count), fmt.Sprintf("%.2f", r.Confidence), r.Status, ellipsis(r.Pattern, 60))
	}
	t.flush()
	for _, r := range res.Rejected {
		fmt.Fprintf(out, "Rejected item %d: %s\n", r.Index, r.Reason)
	}
}
