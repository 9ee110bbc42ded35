// Package batch is what the worker does with one batch of ended sessions:
// it finds each session's files, runs the capture pipeline in the working
// tree the session ran in, then renders what became ready there.
//
// It is not part of internal/worker because the hook binary links that
// package (session end spools and starts the worker) and must stay light;
// this one links the pipeline and the renderer, and only the worker
// command imports it.
package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/observed"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/render"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
)

// Deps are what a batch needs from its caller. The pieces that depend on
// the machine (the user's config, whether the LLM extractor may run, the
// global entries) or that other commands share are passed in, so that the
// batch itself reads no environment and prints nothing: what happens goes
// to Logf, and what became of each session into the worker.Result.
type Deps struct {
	Now  time.Time
	Logf func(format string, args ...any)
	// ClaudeDir is Claude Code's config folder, where a session whose
	// transcript path is gone is looked for by its id.
	ClaudeDir string
	// ReaderFor is the reader of another agent's session log (a Codex
	// rollout, a Gemini chat, a Cursor transcript), nil for a Claude Code
	// transcript: agent/sessions' in the worker. Passed in, the batch
	// does not sit above every agent's reader in the import graph.
	ReaderFor func(path string) Reader
	// Config reads a working tree's config.
	Config func(p *project.Project) (*config.Config, error)
	// Capture is the capture pipeline for a working tree, its extractors
	// chosen.
	Capture func(ctx context.Context, p *project.Project, cfg *config.Config) Capture
	// Age archives a working tree's candidates and drafts past their
	// review windows.
	Age func(ctx context.Context, p *project.Project, cfg *config.Config) error
	// AfterPass curates and prunes once a working tree has rendered; it
	// returns the number of instruction files curated. What goes wrong in
	// it is its own to log: it fails nothing.
	AfterPass func(ctx context.Context, p *project.Project, cfg *config.Config) int
}

// Reader reads one session of another agent's log into the channels the
// extractors read (ingest.Source's Read).
type Reader = func(path string, opt transcript.Options) (*transcript.Channels, error)

// Capture is one working tree's pipeline and what follows its run.
type Capture struct {
	Pipeline *ingest.Pipeline
	// After keeps what the run tells besides its observations (the
	// sessions' classes, the helpfulness counters); it returns the
	// counter events recorded. Nil: nothing follows.
	After func(ctx context.Context, res *ingest.Result) (int, error)
}

// Ingest ingests a batch into the working trees its sessions ran in, then
// renders what became ready in each. It tells begin which session it is
// on (-1: the batch as a whole), so that a worker killed mid-batch blames
// that one session only.
func Ingest(ctx context.Context, d Deps, batch []worker.Entry, begin func(int)) worker.Result {
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
		if err != nil {
			for _, i := range idx {
				res.Errs[i] = fmt.Errorf("working tree %s is gone: %w", root, worker.ErrGone)
			}
			continue
		}
		if !p.HasMemory() {
			// There, but on a branch without .memory/ (an old one checked
			// out for a moment): tried again on later runs, and listed as
			// dropped only if it stays so.
			for _, i := range idx {
				res.Errs[i] = fmt.Errorf("working tree %s has no .memory/ on its current branch", root)
			}
			continue
		}
		cfg, err := d.Config(p)
		if err != nil {
			fail(err) // retried: the config may be fixed by then
			continue
		}
		var sources []ingest.Source
		var at []int
		for _, i := range idx {
			begin(i) // finding its transcripts can hang too (a network folder)
			src, err := d.source(batch[i])
			if err != nil {
				res.Errs[i] = err
				continue
			}
			sources = append(sources, src)
			at = append(at, i)
		}
		if len(sources) == 0 {
			continue
		}
		c := d.Capture(ctx, p, cfg)
		pl := c.Pipeline
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
		out, err := pl.Run(ctx, sources)
		if err != nil {
			fail(err)
			continue
		}
		counted := 0
		if c.After != nil {
			if counted, err = c.After(ctx, out); err != nil {
				d.Logf("counters and classes in %s: %v", root, err)
			}
		}
		for j, s := range out.Sessions {
			if s.Err != nil {
				res.Errs[at[j]] = goneIfMissing(s.Err)
			}
		}
		res.Observations += out.NewCount()
		if out.Log != nil {
			res.Known = max(res.Known, len(out.Log.Observations(d.Now, cfg)))
		}
		rendered, err := renderReady(ctx, p, cfg, d.Now)
		if err != nil {
			errs = append(errs, fmt.Sprintf("render-ready in %s: %v", root, err))
		}
		if aerr := d.Age(ctx, p, cfg); aerr != nil {
			errs = append(errs, fmt.Sprintf("ageing candidates and drafts in %s: %v", root, aerr))
		}
		curated := d.AfterPass(ctx, p, cfg)
		if err == nil && out.Appended == 0 && counted == 0 && !savedNew(out.Candidates) && !keptNew(out.Kept) && len(rendered.Rendered) == 0 && curated == 0 {
			d.Logf("no changes: %s in %s gave nothing new", knowledge.Plural(len(sources), "session", "sessions"), root)
		}
	}
	if len(errs) > 0 {
		res.Err = errors.New(strings.Join(errs, "; "))
	}
	return res
}

// source is what the pipeline reads of a spooled session.
func (d Deps) source(e worker.Entry) (ingest.Source, error) {
	// Another agent's session log, spooled by that agent's session-end
	// hook.
	if e.TranscriptPath != "" && d.ReaderFor != nil {
		if read := d.ReaderFor(e.TranscriptPath); read != nil {
			return ingest.Source{SessionID: e.SessionID, Files: []string{e.TranscriptPath}, Read: read}, nil
		}
	}
	files, err := sessionFiles(e, d.ClaudeDir)
	if err != nil {
		return ingest.Source{}, err
	}
	return ingest.Source{SessionID: e.SessionID, Files: files.All()}, nil
}

// sessionFiles finds a spooled session's transcripts: at the path the hook
// was given, else by its id under the Claude config folder.
func sessionFiles(e worker.Entry, claudeDir string) (transcript.Files, error) {
	if e.TranscriptPath != "" {
		f, err := transcript.FromPath(e.TranscriptPath)
		if err == nil {
			return f, nil
		}
	}
	f, err := transcript.FindSession(claudeDir, e.SessionID)
	return f, goneIfMissing(err)
}

// goneIfMissing marks a missing transcript as never to be retried.
func goneIfMissing(err error) error {
	if err != nil && (errors.Is(err, transcript.ErrNoTranscript) || errors.Is(err, fs.ErrNotExist)) {
		return fmt.Errorf("%w (%w)", err, worker.ErrGone)
	}
	return err
}

// renderReady renders what ingestion made ready, as `render-ready` does.
func renderReady(ctx context.Context, p *project.Project, cfg *config.Config, now time.Time) (*render.Result, error) {
	r := &render.Renderer{
		Proj:   p,
		Log:    observe.ProjectStore(p),
		Writer: evolve.New(p, now, evolve.Trigger{Command: "worker"}),
		Opts:   render.Options{Now: now, Config: cfg},
	}
	res, err := r.Run(ctx)
	if err != nil {
		return res, err
	}
	// What is rendered as a section is served as itself now, not as a
	// draft; a command's or a skill's lesson stays served for the agents
	// that do not load them.
	return res, observed.Drop(p.Root, res.SectionIDs()...)
}

// savedNew reports whether a run saved a new candidate entry.
func savedNew(cands []ingest.SavedCandidate) bool {
	return slices.ContainsFunc(cands, func(c ingest.SavedCandidate) bool { return c.Created })
}

// keptNew reports whether a run kept a new entry the person asked for.
func keptNew(kept []keep.Kept) bool {
	return slices.ContainsFunc(kept, func(k keep.Kept) bool { return k.Created })
}
