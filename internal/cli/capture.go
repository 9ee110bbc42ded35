package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/debugdump"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/transcript"
)

// claudeDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude.
func (env *Env) claudeDir() string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Getenv("HOME"), ".claude")
}

// workerLogPath is the worker's log in the per-clone state.
func workerLogPath(p *project.Project) string { return hookcmd.WorkerLogPath(p) }

// workerLog writes the worker's log lines, redacted as the hooks' are:
// its errors quote what it read (a transcript's line, a model's answer).
func workerLog(p *project.Project, now func() time.Time) *hook.Log {
	return &hook.Log{Root: p.CommonDir, Path: workerLogPath(p), Event: "worker", Now: now, Redact: redact.Text}
}

// pipeline is the capture pipeline for one project, as the worker and
// `devlearn ingest` run it. logf gets the problems of the run; note what
// the LLM extractor has to say (why it does not run, what it dropped).
func (env *Env) pipeline(p *project.Project, cfg *config.Config, now time.Time, trigger string, dryRun bool, logf, note func(string, ...any)) *ingest.Pipeline {
	pl := &ingest.Pipeline{
		Proj:        p,
		Config:      cfg,
		Log:         observe.ProjectStore(p),
		Now:         now,
		Redact:      redact.For(cfg.Redact.PersonalData),
		HistoryPath: ingest.HistoryPath(p),
		Writer:      evolve.New(p, now, evolve.Trigger{Command: trigger}), //devlearn:triggers "ingest" "worker"
		DryRun:      dryRun,
		Logf:        logf,
	}
	if cfg.Extractor.Debug && !dryRun {
		pl.Extractors = append(pl.Extractors, rulesDebug(p, now, logf))
	}
	switch {
	case dryRun && cfg.Extractor.LLM:
		// A dry run spends nothing and writes nothing: a model call is
		// both (its tokens, and whatever its command leaves behind).
		note("LLM extractor not run: a dry run spends nothing (run without --dry-run to ask the model)")
	case !dryRun:
		if x := env.llmExtractor(p, cfg, now, note); x != nil {
			pl.Extractors = append(pl.Extractors, *x)
		}
	}
	return pl
}

// llmExtractor is the LLM extractor, when it may run: extractor.llm on,
// and its command from the global config or a trusted project config
// (llm.Permit, the trust rule of docs/architecture.md). Otherwise note says why, and the rules run
// alone.
func (env *Env) llmExtractor(p *project.Project, cfg *config.Config, now time.Time, note func(string, ...any)) *ingest.Extractor {
	if !cfg.Extractor.LLM {
		return nil
	}
	runner, why, err := env.llmRunner(p, cfg, lineWriter(note))
	if err != nil {
		note("LLM extractor not run: %v", err)
		return nil
	}
	if runner == nil {
		note("LLM extractor not run: %s", why)
		return nil
	}
	return &ingest.Extractor{
		Name: llm.Name,
		Extract: func(ctx context.Context, s *ingest.Session) (ingest.Found, error) {
			if cfg.Extractor.Debug {
				runner.Keep = func(prompt, answer []byte) {
					err := debugdump.Keep(p.CommonDir, debugdump.Dir(p), s.ID, llm.Name, now, string(prompt), string(answer), redact.Text)
					if err != nil {
						note("debug: %v", err)
					}
				}
			}
			obs, passed, err := runner.Read(ctx, llmRequest(s.ID, s.Channels, s.Existing))
			return ingest.Found{Observations: obs, Passed: passed}, err
		},
	}
}

// rulesDebug is a stand-in extractor that finds nothing: with
// extractor.debug on, it keeps what the rule-based extractors read (the
// session's channels) and what they found, redacted.
func rulesDebug(p *project.Project, now time.Time, logf func(string, ...any)) ingest.Extractor {
	return ingest.Extractor{
		Name: "rules-debug",
		Extract: func(_ context.Context, s *ingest.Session) (ingest.Found, error) {
			if err := debugdump.Keep(p.CommonDir, debugdump.Dir(p), s.ID, "rules", now, s.Channels, s.Rules, redact.Text); err != nil {
				logf("debug: %v", err)
			}
			return ingest.Found{}, nil
		},
	}
}

// llmRunner is the LLM extractor's runner, or nil and why it may not run
// (llm.Permit, the trust rule of docs/architecture.md). The pipeline and 'devlearn llm-extract' both
// take it from here, so what one tries is what the other runs.
func (env *Env) llmRunner(p *project.Project, cfg *config.Config, log io.Writer) (*llm.Runner, string, error) {
	ok, why, err := llm.Permit(cfg, env.Home(), p.Path(project.ConfigFile))
	if err != nil || !ok {
		return nil, why, err
	}
	// A folder of its own, so the model is not pointed at the project;
	// private like the rest of the per-clone state, since the model's
	// command may leave what it was shown there.
	dir := p.StatePath("llm")
	if err := safefile.MkdirAll(p.CommonDir, dir, 0o700); err != nil {
		return nil, "", err
	}
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	return llm.FromConfig(cfg.Extractor, environ, dir, log), "", nil
}

// llmRequest asks the LLM extractor about the turns of one session the
// offline stage nominates, showing it the observations already known that
// those turns speak of, then the strongest, so it re-sights them rather
// than proposing them again. A session with no candidate
// costs no call.
func llmRequest(session string, ch *transcript.Channels, existing []observe.Observation) llm.Request {
	cands := llm.Nominate(ch)
	return llm.Request{
		Session:    session,
		Candidates: cands,
		Existing:   llm.Shown(existing, cands, llm.MaxExisting),
	}
}

// lineWriter passes what is written to it, line by line, to a log
// function.
type lineWriter func(string, ...any)

func (w lineWriter) Write(b []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			w("%s", l)
		}
	}
	return len(b), nil
}
