package cli

import (
	"context"
	"path/filepath"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/hook"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/render"
)

// claudeDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude.
func (env *Env) claudeDir() string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Getenv("HOME"), ".claude")
}

// workerLog is the worker's log in the per-clone state.
func workerLog(p *project.Project, now func() time.Time) *hook.Log {
	return &hook.Log{Path: p.StatePath("logs", "worker.log"), Event: "worker", Now: now}
}

// pipeline is the capture pipeline for one project, as the worker and
// `devlearn ingest` run it.
func (env *Env) pipeline(p *project.Project, cfg *config.Config, now time.Time, trigger string, dryRun bool, logf func(string, ...any)) *ingest.Pipeline {
	pl := &ingest.Pipeline{
		Proj:        p,
		Config:      cfg,
		Log:         observe.Store{Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Now:         now,
		Redact:      redact.Text,
		HistoryPath: ingest.HistoryPath(p),
		Writer:      evolve.New(p, now, evolve.Trigger{Command: trigger}),
		DryRun:      dryRun,
		Logf:        logf,
	}
	// The LLM extractor (internal/llm, another branch) is appended to
	// pl.Extractors here once it is on main, behind llm.Permit.
	return pl
}

// renderReady renders what ingestion made ready, as `render-ready` does.
func renderReady(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time, trigger string) (*render.Result, error) {
	r := &render.Renderer{
		Proj:   p,
		Log:    observe.Store{Path: p.Path(project.LogFile), LockPath: p.LockPath(project.LogFile)},
		Writer: evolve.New(p, now, evolve.Trigger{Command: trigger}),
		Opts:   render.Options{Now: now, Config: cfg},
	}
	return r.Run(ctx)
}
