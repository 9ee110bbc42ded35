// Command evalgenuine measures capture on the genuine labelled sessions
// of testdata/genuine with the built binary, as a user runs it: recall by
// kind and by language, noise and precision, lessons seen in two sessions
// that reach ready, and false and missed merges; dev and holdout apart.
// `make eval` runs it first.
//
//	go run ./internal/eval/genuine/cmd/evalgenuine -devlearn bin/devlearn [-fetched DIR] [-before FILE] [-save FILE] [-v] [-json]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/eval/figures"
	"github.com/devlearn/devlearn/internal/eval/genuine"
	"github.com/devlearn/devlearn/internal/interrupt"
)

func main() {
	dir := flag.String("dir", "testdata/genuine", "the labelled set: corpus.tsv, labels.json, sessions/")
	bin := flag.String("devlearn", "bin/devlearn", "the devlearn binary to measure")
	fetched := flag.String("fetched", os.Getenv("DEVLEARN_GENUINE_DIR"), "the folder holding the pointer-only sessions (scripts/genuine-fetch.sh writes it)")
	before := flag.String("before", "", "a report saved with -save, to print beside each figure")
	save := flag.String("save", "", "write the figures as JSON to this file")
	only := flag.String("only", "", "measure only these splits (dev, holdout; comma-separated)")
	projects := flag.String("project", "", "measure only these projects (as corpus.tsv's repository:folder names them; comma-separated)")
	keep := flag.String("work", "", "make the repositories here and keep them (default: a temporary folder, removed)")
	details := flag.Bool("v", false, "list, session by session, the lessons missed and what was kept that nothing accounts for")
	loop := flag.Bool("loop", true, "replay each project's later sessions through the hooks after learning from the earlier ones (the closed loop)")
	loopOnly := flag.Bool("loop-only", false, "run the closed loop alone, not the capture measurement (quicker, when serving is what changed)")
	asJSON := flag.Bool("json", false, "print every observation and pair as JSON")
	jobs := flag.Int("j", 0, "repositories worked on at once (default: twice the processors)")
	config := flag.String("config", "", "a global config.json every repository starts with (to measure devlearn so configured, the LLM route say)")
	flag.Parse()
	if err := run(*dir, *bin, *fetched, *before, *save, *only, *projects, *keep, *config, *jobs, *details, *asJSON, *loop, *loopOnly); err != nil {
		fmt.Fprintln(os.Stderr, "evalgenuine:", err)
		os.Exit(1)
	}
}

func run(dir, bin, fetched, beforePath, save, only, projects, work, config string, jobs int, details, asJSON, loop, loopOnly bool) error {
	set, err := genuine.Load(dir)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("%v: build it first (make build)", err)
	}
	if work == "" {
		tmp, err := os.MkdirTemp("", "devlearn-genuine-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	var splits []string
	if only != "" {
		splits = strings.Split(only, ",")
	}
	opts := genuine.Options{Fetched: fetched, Only: splits, Jobs: jobs, Files: filepath.Join(work, "files")}
	if projects != "" {
		opts.Projects = strings.Split(projects, ",")
	}
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		opts.Progress = func(done, total int, name string) {
			fmt.Fprintf(os.Stderr, "\r\033[K%d/%d %s", done, total, name)
			if done == total {
				fmt.Fprint(os.Stderr, "\r\033[K")
			}
		}
	}
	// ^C or SIGTERM stops the runs it started, not only this process; what
	// was measured by then is printed, said to be cut short.
	c := interrupt.Catch(context.Background(), time.Hour, nil)
	defer c.Stop()
	ctx := c.Context()
	clock := phases{start: time.Now()}
	loopRunner := &genuine.Runner{Bin: abs, Work: filepath.Join(work, "loop"), Config: config}
	if loopOnly {
		loops, err := genuine.Loop(ctx, set, loopRunner, opts)
		if err != nil {
			return err
		}
		rep := &genuine.Report{Loop: loopFigures(loops)}
		clock.done("the closed loop", ctx)
		if asJSON {
			return figures.Print(map[string]any{"report": rep, "loops": loops})
		}
		if details {
			genuine.WriteLoopDetails(os.Stdout, loops)
			fmt.Println()
		}
		genuine.WriteLoop(os.Stdout, rep, nil)
		return clock.report(os.Stdout, c.Signal())
	}
	// The loop runs first: it learns from its projects' sessions in the
	// order the capture pass would, and hands it those repositories.
	var loops []*genuine.LoopResult
	if loop {
		opts.Whole = true
		if loops, err = genuine.Loop(ctx, set, loopRunner, opts); err != nil {
			return err
		}
		clock.done("the closed loop", ctx)
		opts.Learned = map[string]*genuine.Repo{}
		for _, l := range loops {
			if l.Learned != nil {
				opts.Learned[l.Project] = l.Learned
			}
		}
	}
	runner := &genuine.Runner{Bin: abs, Work: work, Config: config}
	res, err := genuine.Measure(ctx, set, runner, opts)
	if err != nil {
		return err
	}
	clock.done("capture", ctx)
	rep := genuine.Summarize(set, res)
	if loop {
		res.Loops, rep.Loop = loops, loopFigures(loops)
	}
	if save != "" {
		if err := figures.Save(save, rep); err != nil {
			return err
		}
	}
	if asJSON {
		return figures.Print(map[string]any{"report": rep, "result": res})
	}
	var before *genuine.Report
	if beforePath != "" {
		all, err := figures.Load[genuine.Report](beforePath)
		if err != nil {
			return err
		}
		if before = all.Beside(rep); before == nil {
			fmt.Printf("%s holds no figures on these %d sessions: no before column\n", beforePath, rep.Sessions)
		}
	}
	if details {
		genuine.WriteDetails(os.Stdout, set, res)
		genuine.WriteLoopDetails(os.Stdout, res.Loops)
		fmt.Println()
	}
	fmt.Printf("Capture on genuine sessions (%s), through %s\n", filepath.ToSlash(dir), res.Version)
	if config != "" {
		// Figures of devlearn configured otherwise than installed must
		// say so where they are read.
		b, _ := os.ReadFile(config)
		fmt.Printf("configured as %s: %s\n", config, strings.Join(strings.Fields(string(b)), " "))
	}
	genuine.WriteText(os.Stdout, rep, before)
	genuine.WriteNudge(os.Stdout, rep, before)
	genuine.WriteLoop(os.Stdout, rep, before)
	return clock.report(os.Stdout, c.Signal())
}

// phases times the run's parts, and notes the one a signal cut short: a
// run stopped by a time limit prints figures that are not measurements,
// and must say so where they are read.
type phases struct {
	start, last time.Time
	parts       []string
	cut         string // the part running when the signal came
}

func (p *phases) done(name string, ctx context.Context) {
	from := p.last
	if from.IsZero() {
		from = p.start
	}
	p.last = time.Now()
	p.parts = append(p.parts, fmt.Sprintf("%s %.1f s", name, p.last.Sub(from).Seconds()))
	if ctx.Err() != nil && p.cut == "" {
		p.cut = name
	}
}

// report prints where the time went, and fails the run a signal stopped.
func (p *phases) report(w *os.File, sig os.Signal) error {
	fmt.Fprintf(w, "Run time: %s.\n", strings.Join(p.parts, ", "))
	if sig == nil {
		return nil
	}
	fmt.Fprintf(w, "STOPPED: %v came %.1f s into the run, during %s: its figures and those after it are cut short, not measured.\n",
		sig, time.Since(p.start).Seconds(), p.cut)
	return fmt.Errorf("stopped by %v during %s", sig, p.cut)
}

// loopFigures are the closed loop's figures by split.
func loopFigures(loops []*genuine.LoopResult) map[string]genuine.LoopSummary {
	out := map[string]genuine.LoopSummary{}
	for _, split := range []string{genuine.Dev, genuine.Holdout, ""} {
		out[cmpOr(split, "all")] = genuine.SummarizeLoop(loops, split)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
