package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/observe"
)

func newCompactCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Fold the observation log into one snapshot line per observation",
		Long: `Rewrite .memory/learning-log.jsonl as one "snapshot" line per observation,
atomically and under the log's lock. The folded state is exactly the state
of the events it replaces. Lines of unknown ops (from a newer devlearn) and
corrupt lines are kept as they are; observations still observing beyond
log.max_observing are forgotten, weakest first (never ready, created or
deprecated ones).`,
		GroupID: "learn",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			w, err := env.workspace()
			if err != nil {
				return err
			}
			stats, err := w.log.Compact(env.Context(), w.now, w.cfg.Config)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(env.Out, stats)
			}
			printCompacted(env, stats)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return cmd
}

func printCompacted(env *Env, s *observe.CompactStats) {
	fmt.Fprintf(env.Out, "Compacted %s into %s.\n", plural(s.LinesBefore, "line", "lines"), plural(s.Observations, "observation", "observations"))
	if n := len(s.Forgotten); n > 0 {
		fmt.Fprintf(env.Out, "Forgot %s still observing beyond log.max_observing.\n", plural(n, "weak observation", "weak observations"))
	}
	if s.Unknown > 0 {
		fmt.Fprintf(env.Out, "Kept %s of a newer devlearn as they are.\n", plural(s.Unknown, "line", "lines"))
	}
	if s.Corrupt > 0 {
		fmt.Fprintf(env.Out, "Kept %s as they are; run 'devlearn learn --purge' to drop them.\n", plural(s.Corrupt, "corrupt line", "corrupt lines"))
	}
}
