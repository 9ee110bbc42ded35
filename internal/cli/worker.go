package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/agent/sessions"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
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

// ingestBatch ingests a batch into the working trees its sessions ran in,
// then renders what became ready in each. It tells begin which session it
// is on (-1: the batch as a whole), so that a worker killed mid-batch
// blames that one session only.
func (env *Env) ingestBatch(ctx context.Context, batch []worker.Entry, begin func(int), now time.Time, logf func(string, ...any)) worker.Result {
	res := worker.Result{Errs: make([]error, len(batch))}
	var roots []string
	byRoot := map[string][]int{}
	for i, e := range batch {
		if _, ok := byRoot[e.Root]; !ok {
			roots = append(roots, e.Root)
		}
		byRoot[e.Root] = append(byRoot[e.Root], i)
	}
	var errs []string
	for _, root := range roots {
		idx := byRoot[root]
		// A failure of the working tree as a whole (its config, its log)
		// is no session's own: they are retried without a count.
		fail := func(err error) {
			for _, i := range idx {
				if res.Errs[i] == nil {
					res.Errs[i] = fmt.Errorf("%w (%w)", err, worker.ErrBatch)
				}
			}
		}
		p, err := project.Find(root)
		if err != nil || !p.HasMemory() {
			for _, i := range idx {
				res.Errs[i] = fmt.Errorf("working tree %s is gone or no longer set up for devlearn: %w", root, worker.ErrGone)
			}
			continue
		}
		cfg, err := env.Config(p)
		if err != nil {
			fail(err) // retried: the config may be fixed by then
			continue
		}
		var sources []ingest.Source
		var at []int
		for _, i := range idx {
			begin(i) // finding its transcripts can hang too (a network folder)
			// Another agent's session log (a Codex rollout, a Gemini chat,
			// a Cursor transcript), spooled by that agent's session-end hook.
			if tp := batch[i].TranscriptPath; tp != "" {
				if read := sessions.ReaderFor(tp); read != nil {
					sources = append(sources, ingest.Source{SessionID: batch[i].SessionID, Files: []string{tp}, Read: read})
					at = append(at, i)
					continue
				}
			}
			files, err := env.sessionFiles(batch[i])
			if err != nil {
				res.Errs[i] = err
				continue
			}
			sources = append(sources, ingest.Source{SessionID: batch[i].SessionID, Files: files.All()})
			at = append(at, i)
		}
		if len(sources) == 0 {
			continue
		}
		pl := env.pipeline(p, cfg.Config, now, "worker", false, logf, logf)
		// The pipeline reads the sessions in order and says after each:
		// the next one is then in progress, and after the last, the
		// batch's own work (storing, rendering).
		begin(at[0])
		pl.Progress = func(done, total int) {
			if done < total {
				begin(at[done])
			} else {
				begin(-1)
			}
		}
		classes := &sessionClasses{ask: env.askModel(ctx, p, cfg.Config)}
		classes.watch(pl)
		out, err := pl.Run(ctx, sources)
		if err != nil {
			fail(err)
			continue
		}
		counted, err := env.afterIngest(ctx, p, cfg.Config, now, out, classes)
		if err != nil {
			logf("counters and classes in %s: %v", root, err)
		}
		for j, s := range out.Sessions {
			if s.Err != nil {
				res.Errs[at[j]] = goneIfMissing(s.Err)
			}
		}
		res.Observations += out.NewCount()
		if out.Log != nil {
			res.Known = max(res.Known, len(out.Log.Observations(now, cfg.Config)))
		}
		rendered, err := renderReady(ctx, p, cfg.Config, now, "worker")
		if err != nil {
			errs = append(errs, fmt.Sprintf("render-ready in %s: %v", root, err))
		}
		if aerr := ageEntries(ctx, p, cfg.Config, now, "worker", logf); aerr != nil {
			errs = append(errs, fmt.Sprintf("ageing candidates and drafts in %s: %v", root, aerr))
		}
		curated := afterPass(ctx, p, cfg.Config, now, logf)
		if err == nil && out.Appended == 0 && counted == 0 && !savedNew(out.Candidates) && !keptNew(out.Kept) && len(rendered.Rendered) == 0 && curated == 0 {
			logf("no changes: %s in %s gave nothing new", plural(len(sources), "session", "sessions"), root)
		}
	}
	if len(errs) > 0 {
		res.Err = errors.New(strings.Join(errs, "; "))
	}
	return res
}

// sessionFiles finds a spooled session's transcripts: at the path the hook
// was given, else by its id under the Claude config folder.
func (env *Env) sessionFiles(e worker.Entry) (transcript.Files, error) {
	if e.TranscriptPath != "" {
		f, err := transcript.FromPath(e.TranscriptPath)
		if err == nil {
			return f, nil
		}
	}
	f, err := transcript.FindSession(env.claudeDir(), e.SessionID)
	return f, goneIfMissing(err)
}

// goneIfMissing marks a missing transcript as never to be retried.
func goneIfMissing(err error) error {
	if err != nil && (errors.Is(err, transcript.ErrNoTranscript) || errors.Is(err, fs.ErrNotExist)) {
		return fmt.Errorf("%w (%w)", err, worker.ErrGone)
	}
	return err
}
