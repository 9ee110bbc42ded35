package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/devlearn/devlearn/internal/automemory"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/transcript"
	"github.com/devlearn/devlearn/internal/worker"
)

type memoryResult struct {
	Dirs    []string       `json:"dirs"`
	Read    int            `json:"read"`
	Skipped []memorySkip   `json:"skipped"`
	Result  *ingest.Result `json:"result"`
}

type memorySkip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// runAutoMemory records Claude Code's auto memory of this working tree as
// observations: read only, redacted, once per file and version.
func runAutoMemory(ctx context.Context, env *Env, opts *ingestOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	roots := []string{w.proj.Root}
	if filepath.Base(w.proj.CommonDir) == ".git" {
		// Auto memory is keyed on the repository's main working tree,
		// shared by its other worktrees.
		roots = append(roots, filepath.Dir(w.proj.CommonDir))
	}
	dirs, err := automemory.Dirs(env.claudeDir(), roots...)
	if err != nil && !errors.Is(err, transcript.ErrNoTranscript) {
		return err
	}
	res := &memoryResult{Dirs: dirs, Skipped: []memorySkip{}}
	if len(dirs) == 0 {
		if opts.json {
			return printJSON(env.Out, res)
		}
		fmt.Fprintf(env.Out, "No Claude Code auto memory for this working tree under %s.\n", filepath.Join(env.claudeDir(), "projects"))
		return nil
	}
	var found []extract.Observation
	for _, d := range dirs {
		mems, problems := automemory.Read(d)
		for _, p := range problems {
			res.Skipped = append(res.Skipped, memorySkip{Reason: p.Error()})
		}
		for _, m := range mems {
			res.Read++
			o, err := automemory.Observation(m)
			if err != nil {
				res.Skipped = append(res.Skipped, memorySkip{File: m.File, Reason: err.Error()})
				continue
			}
			found = append(found, o)
		}
	}
	if !opts.dryRun {
		unlock, err := env.workerLock(ctx, worker.For(w.proj).LockPath())
		if err != nil {
			return err
		}
		defer unlock()
	}
	pl := env.pipeline(w.proj, w.cfg.Config, w.now, "ingest --auto-memory", opts.dryRun, func(string, ...any) {}, func(string, ...any) {})
	if res.Result, err = pl.Record(ctx, found); err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	printMemory(env.Out, res, w)
	if len(res.Result.Problems) > 0 {
		return exitcode.Silent{Code: exitcode.Error}
	}
	return nil
}

func printMemory(out io.Writer, res *memoryResult, w *workspace) {
	verb := "recorded"
	if res.Result.DryRun {
		verb = "would record"
	}
	fmt.Fprintf(out, "Read %s of Claude Code's auto memory; %s %s.\n", plural(res.Read, "memory file", "memory files"), verb,
		plural(res.Result.NewCount(), "new observation", "new observations"))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, o := range res.Result.Observations {
		state := "already recorded"
		if o.New {
			state = "new"
			if v, ok := res.Result.Log.Observation(o.ID, w.now, w.cfg.Config); ok && !res.Result.DryRun {
				state = fmt.Sprintf("count %d, %s", v.Count, v.Status)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.ID, o.Type, o.RecordUUID, ellipsis(o.Pattern, 60), state)
	}
	tw.Flush()
	for _, s := range res.Skipped {
		if s.File != "" {
			fmt.Fprintf(out, "  not recorded  %s: %s\n", filepath.Base(s.File), s.Reason)
		} else {
			fmt.Fprintf(out, "  not read      %s\n", s.Reason)
		}
	}
	for _, p := range res.Result.Problems {
		fmt.Fprintf(out, "Problem: %s\n", p)
	}
	fmt.Fprintln(out, "Claude Code's memory files were only read. 'devlearn learn --list' shows the observations.")
}
