package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/classify"
	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/install"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/review"
	"github.com/devlearn/devlearn/internal/settings"
	"github.com/devlearn/devlearn/internal/worker"
)

type hookState struct {
	Path       string   `json:"path"`
	Registered bool     `json:"registered"`
	Problems   []string `json:"problems"`
	Error      string   `json:"error,omitempty"`
}

type learnStatusResult struct {
	Enabled      bool                      `json:"enabled"`
	Why          []string                  `json:"why"`
	Hooks        []hookState               `json:"hooks"`
	Observations map[string]map[string]int `json:"observations"` // type -> status -> n
	Total        int                       `json:"total"`
	Artifacts    map[string]int            `json:"artifacts"` // type -> artifacts in force
	NeedsReview  int                       `json:"needs_review"`
	Review       []review.Item             `json:"review"`
	CorruptLines int                       `json:"corrupt_lines"`
	Worker       *worker.Run               `json:"worker"`
	// Waiting is the ended sessions in the spool; Batch says when the
	// worker takes them.
	Waiting int    `json:"waiting"`
	Batch   string `json:"batch"`
	// Dropped are the sessions the worker gave up on.
	Dropped  []worker.Dropped `json:"dropped"`
	Sessions map[string]int   `json:"sessions"` // class -> sessions ingested on this clone
}

func runLearnStatus(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	res := learnStatusResult{Why: []string{}, Hooks: []hookState{}, Observations: map[string]map[string]int{}, Artifacts: map[string]int{}, Review: []review.Item{}}

	res.Hooks = append(res.Hooks, hookStateOf(w.proj.Path(project.SettingsFile), project.SettingsFile))
	if path, err := env.userSettingsPath(); err == nil {
		res.Hooks = append(res.Hooks, hookStateOf(path, path))
	}
	registered := false
	for _, h := range res.Hooks {
		registered = registered || h.Registered
	}
	res.Enabled = registered && w.cfg.Enabled && !hookcmd.Switch(env.Getenv, "DEVLEARN_DISABLE")
	if !registered {
		res.Why = append(res.Why, "devlearn's hooks are not registered: run 'devlearn learn --enable'")
	}
	if !w.cfg.Enabled {
		res.Why = append(res.Why, `"enabled": false in the config silences every hook`)
	}
	if hookcmd.Switch(env.Getenv, "DEVLEARN_DISABLE") {
		res.Why = append(res.Why, "DEVLEARN_DISABLE=1 silences every hook in this environment")
	}
	if res.Enabled && !w.cfg.Serve.Enabled {
		res.Why = append(res.Why, `"serve": {"enabled": false}: learning goes on, nothing is injected`)
	}
	if res.Enabled && hookcmd.Switch(env.Getenv, "DISABLE_EXPERIENCE_INJECTION") {
		res.Why = append(res.Why, "DISABLE_EXPERIENCE_INJECTION=1 in this environment: learning goes on, nothing is injected")
	}

	log, err := w.log.Load()
	if err != nil {
		return err
	}
	obs := log.Observations(w.now, w.cfg.Config)
	r := &review.Reviewer{Proj: w.proj, Log: w.log, Now: w.now, Config: w.cfg.Config}
	items, err := r.ItemsOf(log, obs)
	if err != nil {
		return err
	}
	res.CorruptLines = len(log.Problems)
	for _, o := range obs {
		if res.Observations[o.Type] == nil {
			res.Observations[o.Type] = map[string]int{}
		}
		res.Observations[o.Type][o.Status]++
		res.Total++
		if o.Status == observe.Created {
			res.Artifacts[o.Type]++
		}
	}
	if items != nil {
		res.Review = items
	}
	res.NeedsReview = len(items)
	// A last.json that does not decode reads as no run, as a missing one
	// does: the status is still worth printing.
	res.Worker, err = worker.For(w.proj).Last()
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &syntax) && !errors.As(err, &typ) {
		return err
	}
	ws := worker.For(w.proj)
	if dead, err := ws.Dead(); err == nil && dead != nil {
		// It says "running", but no worker holds the lock: killed.
		res.Worker.Outcome = worker.OutcomeInterrupted
	}
	d, err := ws.Due(w.now, w.cfg.Worker)
	if err != nil {
		return err
	}
	res.Waiting, res.Batch = d.Waiting, batchWhen(d, w.cfg.Worker.BatchSize)
	if res.Dropped, err = ws.Dropped(); err != nil {
		return err
	}
	if res.Dropped == nil {
		res.Dropped = []worker.Dropped{}
	}

	classes, err := classify.StoreOf(w.proj).Load()
	if err != nil {
		return err
	}
	res.Sessions = classify.Counts(classes, time.Time{})

	if opts.json {
		return printJSON(env.Out, res)
	}
	printLearnStatus(env, &res)
	return nil
}

// batchWhen says when the worker takes the sessions waiting.
func batchWhen(d worker.Decision, batchSize int) string {
	switch {
	case d.Waiting == 0:
		return "nothing waits"
	case d.Start:
		return "a batch is due: the worker starts when the next session ends"
	case d.Capped:
		return d.Why
	case d.Waiting < batchSize:
		return fmt.Sprintf("the worker starts when %s (worker.batch_size is %d)", plural(batchSize-d.Waiting, "more session ends", "more sessions end"), batchSize)
	}
	return d.Why
}

func hookStateOf(path, display string) hookState {
	h := hookState{Path: display, Problems: []string{}}
	d, err := install.ReadHookFile(path, display, settings.Claude)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	if !d.Exists || !d.File.Any() {
		return h
	}
	h.Problems = d.File.Problems()
	h.Registered = len(h.Problems) == 0
	if h.Problems == nil {
		h.Problems = []string{}
	}
	return h
}

func artifactSummary(counts map[string]int) string {
	var parts []string
	for _, t := range lesson.All() {
		if n := counts[t.Name]; n > 0 {
			parts = append(parts, plural(n, t.Noun, t.Nouns))
		}
	}
	return strings.Join(parts, ", ")
}

func printLearnStatus(env *Env, s *learnStatusResult) {
	out := env.Out
	state := "enabled"
	if !s.Enabled {
		state = "disabled"
	}
	fmt.Fprintf(out, "Learning is %s here.\n", state)
	for _, why := range s.Why {
		fmt.Fprintf(out, "  %s\n", why)
	}
	t := newTable(out)
	for _, h := range s.Hooks {
		switch {
		case h.Error != "":
			t.row("  hooks", h.Path, "unreadable: "+h.Error)
		case h.Registered:
			t.row("  hooks", h.Path, "registered")
		case len(h.Problems) > 0:
			t.row("  hooks", h.Path, "registered, but: "+strings.Join(h.Problems, "; ")+" (run 'devlearn learn --enable')")
		default:
			t.row("  hooks", h.Path, "not registered")
		}
	}
	t.flush()

	fmt.Fprintf(out, "Observations: %d\n", s.Total)
	if s.Total > 0 {
		t := newTable(out)
		t.row("  TYPE", observe.Observing, observe.Ready, observe.Created, observe.Deprecated)
		for _, typ := range lesson.Names() {
			c := s.Observations[typ]
			t.row("  "+typ, fmt.Sprint(c[observe.Observing]), fmt.Sprint(c[observe.Ready]), fmt.Sprint(c[observe.Created]), fmt.Sprint(c[observe.Deprecated]))
		}
		t.flush()
	}
	if a := artifactSummary(s.Artifacts); a != "" {
		fmt.Fprintf(out, "Artifacts: %s.\n", a)
	} else {
		fmt.Fprintln(out, "Artifacts: none yet.")
	}
	if s.NeedsReview > 0 {
		fmt.Fprintf(out, "Needs review: %s; run 'devlearn learn --review'.\n", plural(s.NeedsReview, "item", "items"))
	} else {
		fmt.Fprintln(out, "Needs review: nothing.")
	}
	if s.CorruptLines > 0 {
		fmt.Fprintf(out, "Log: %s skipped; run 'devlearn learn --purge' to drop them.\n", plural(s.CorruptLines, "corrupt line", "corrupt lines"))
	}
	if s.Waiting > 0 {
		fmt.Fprintf(out, "Waiting: %s ended and %s for the worker; %s.\n", plural(s.Waiting, "session", "sessions"), map[bool]string{true: "waits", false: "wait"}[s.Waiting == 1], s.Batch)
	}
	if n := sum(s.Sessions); n > 0 {
		fmt.Fprintf(out, "Sessions: %s ingested on this clone, by their first request: %s.\n", plural(n, "session", "sessions"), classify.Summary(s.Sessions))
	}
	switch w := s.Worker; {
	case w == nil:
		fmt.Fprintln(out, "Worker: never run.")
	case w.Outcome == worker.OutcomeInterrupted && w.Current != "":
		fmt.Fprintf(out, "Worker: the run started %s was interrupted on session %s (no worker is running): that session alone counts a failed attempt; the rest are retried by the next run.\n", w.Started, w.Current)
	case w.Outcome == worker.OutcomeInterrupted:
		fmt.Fprintf(out, "Worker: the run started %s was interrupted (no worker is running): the next run retries its %s.\n", w.Started, plural(w.Sessions, "session", "sessions"))
	case w.Outcome == worker.OutcomeRunning && w.Current != "":
		fmt.Fprintf(out, "Worker: the run started %s has not finished: it is on session %s, or stopped there (that session alone counts a failed attempt; the rest are retried).\n", w.Started, w.Current)
	case w.Outcome == worker.OutcomeRunning:
		fmt.Fprintf(out, "Worker: the run started %s has not finished: running now, or stopped before the end (the next run retries its %s).\n", w.Started, plural(w.Sessions, "session", "sessions"))
	case w.Error != "" || (w.Outcome != "" && w.Outcome != "ok"):
		fmt.Fprintf(out, "Worker: last run %s, %s: %s\n", w.Started, w.Outcome, w.Error)
	default:
		fmt.Fprintf(out, "Worker: last run %s, %s (%s, %s).\n", w.Started, w.Outcome, plural(w.Sessions, "session", "sessions"), plural(w.Observations, "observation", "observations"))
	}
	printDropped(out, s.Dropped)
}

// printDropped lists the sessions the worker gave up on, each with the
// command that retries it.
func printDropped(out io.Writer, dropped []worker.Dropped) {
	if len(dropped) == 0 {
		return
	}
	fmt.Fprintf(out, "Dropped: the worker gave up on %s; retry one with the command shown:\n", plural(len(dropped), "session", "sessions"))
	for _, d := range dropped {
		fmt.Fprintf(out, "  %s  %s: %s\n    devlearn ingest --session %s\n", d.At, d.SessionID, d.Why, d.SessionID)
	}
}
