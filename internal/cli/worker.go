package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent/sessions"
	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/worker"
	"github.com/devlearn/devlearn/internal/worker/batch"
)

func newWorkerCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Ingest the sessions waiting in the spool (the SessionEnd hook starts it)",
		Long: `Ingest the ended sessions waiting in this clone's spool, then render what
became ready, one run per batch while the daily cap allows. The SessionEnd
hook starts it, detached, when a batch is due; one worker runs per clone at
a time (a second one exits at once). It logs to
<git-common-dir>/devlearn/logs/worker.log and records its last run in
<git-common-dir>/devlearn/worker/last.json ('devlearn learn --status').`,
		Hidden: true,
		Args:   noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runWorker(c.Context(), env)
		},
	}
}

func runWorker(ctx context.Context, env *Env) error {
	p, err := env.Project()
	if err != nil {
		return err
	}
	cfg, err := env.Config(p)
	if err != nil {
		return err
	}
	now := func() time.Time {
		if t, err := env.Now(); err == nil {
			return t
		}
		return env.Clock().UTC()
	}
	log := workerLog(p, now)
	r := &worker.Runner{
		State:  worker.For(p),
		Config: cfg.Worker,
		Now:    now,
		Logf:   log.Printf,
		Ingest: func(ctx context.Context, batch []worker.Entry, begin func(int)) worker.Result {
			return env.ingestBatch(ctx, batch, begin, now(), log.Printf)
		},
		Wall: env.Clock,
	}
	// A worker the hook waits for (tests, debugging) runs at once: there
	// is nobody else for it to wait for.
	if env.Getenv("DEVLEARN_WORKER") != "wait" {
		r.Debounce = time.Duration(cfg.Worker.DebounceSeconds) * time.Second
	}
	runs, err := r.Run(ctx)
	if err != nil {
		log.Printf("%v", err)
		return err
	}
	if env.OutTTY {
		fmt.Fprintf(env.Out, "%s.\n", plural(runs, "worker run", "worker runs"))
	}
	return nil
}

// ingestBatch is the worker's batch with this environment's pieces: the
// config as the commands read it, the pipeline with the extractors this
// machine may run, and the steps other commands share.
func (env *Env) ingestBatch(ctx context.Context, entries []worker.Entry, begin func(int), now time.Time, logf func(string, ...any)) worker.Result {
	return batch.Ingest(ctx, batch.Deps{
		Now:       now,
		Logf:      logf,
		ClaudeDir: env.claudeDir(),
		ReaderFor: func(path string) batch.Reader { return sessions.ReaderFor(path) },
		Config: func(p *project.Project) (*config.Config, error) {
			cfg, err := env.Config(p)
			if err != nil {
				return nil, err
			}
			return cfg.Config, nil
		},
		Capture: func(ctx context.Context, p *project.Project, cfg *config.Config) batch.Capture {
			pl := env.pipeline(p, cfg, now, "worker", false, logf, logf)
			classes := classify.Watch(pl, env.askModel(ctx, p, cfg))
			return batch.Capture{Pipeline: pl, After: func(ctx context.Context, res *ingest.Result) (int, error) {
				return env.afterIngest(ctx, p, cfg, now, res, classes)
			}}
		},
		Age: func(ctx context.Context, p *project.Project, cfg *config.Config) error {
			return ageEntries(ctx, p, cfg, now, "worker", logf)
		},
		AfterPass: func(ctx context.Context, p *project.Project, cfg *config.Config) int {
			return afterPass(ctx, p, cfg, now, logf)
		},
	}, entries, begin)
}
