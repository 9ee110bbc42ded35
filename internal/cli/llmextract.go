package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/transcript"
)

// llm-extract is hidden: it is how the extractor's trust gate, its command
// and what it accepts are tried on one transcript, by a person setting the
// extractor up and by the test scripts. It stores nothing; the capture
// pipeline is what records the observations.
func newLLMExtractCmd(env *Env) *cobra.Command {
	var session string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "llm-extract TRANSCRIPT",
		Short: "Run the LLM extractor on one transcript and print what it accepted",
		Long: `Run the configured LLM extractor (extractor.command) on one transcript and
print the observations it returned that validated; what was dropped, and why,
goes to stderr. Nothing is stored. It runs only when extractor.llm is on and,
if the project's config sets the extractor, that file is trusted.`,
		Hidden: true,
		Args:   argsRange(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			return runLLMExtract(c.Context(), env, args[0], session, asJSON)
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the session id to record (default: the transcript's)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the observations as JSON")
	return cmd
}

func runLLMExtract(ctx context.Context, env *Env, path, session string, asJSON bool) error {
	if env.Getenv(llm.GuardEnv) == "1" {
		return exitcode.RefusedError(errors.New("devlearn is running inside a session it started (DEVLEARN_INTERNAL=1): it does not learn from itself"), "")
	}
	w, err := env.workspace()
	if err != nil {
		return err
	}
	runner, why, err := env.llmRunner(w.proj, w.cfg.Config, env.Err)
	if err != nil {
		return err
	}
	if runner == nil {
		hint := "read " + project.ConfigFile + ", then run 'devlearn trust'"
		if !w.cfg.Extractor.LLM || len(w.cfg.Extractor.Command) == 0 {
			hint = "devlearn learn --configure --set extractor.llm=true"
		}
		return exitcode.RefusedError(fmt.Errorf("the LLM extractor may not run: %s", why), hint)
	}
	ch, err := transcript.ReadFiles([]string{path}, transcript.Options{})
	if err != nil {
		return err
	}
	for _, p := range ch.Problems {
		fmt.Fprintf(env.Err, "devlearn: %v (skipped)\n", p)
	}
	if session == "" {
		session = ch.SessionID
	}
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	obs, err := runner.Extract(ctx, llmRequest(session, ch, log.Observations(w.now, w.cfg.Config)))
	if err != nil {
		return err
	}
	if obs == nil {
		obs = []extract.Observation{}
	}
	if asJSON {
		return printJSON(env.Out, map[string]any{"session": session, "observations": obs})
	}
	fmt.Fprintf(env.Out, "The LLM extractor returned %s.\n", plural(len(obs), "observation", "observations"))
	for _, o := range obs {
		fmt.Fprintf(env.Out, "  %s  %-10s  %s\n", o.ID, o.Type, ellipsis(strings.TrimSpace(o.Pattern), 70))
	}
	return nil
}
