// Command replay prints the replay report: for each scripted session in
// which a corrected mistake is about to recur, whether devlearn served the
// lesson before the repeat, where, at which rank and for how many tokens,
// and how often it served something unrelated. `make eval` runs it.
//
//	go run ./internal/eval/replay/cmd/replay [-dir testdata/replay] [-v] [-json]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/devlearn/devlearn/internal/eval/figures"
	"github.com/devlearn/devlearn/internal/eval/replay"
)

func main() {
	dir := flag.String("dir", "testdata/replay", "the replay folder: kb/ and <set>/<name>/")
	verbose := flag.Bool("v", false, "list every event that served something")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	flag.Parse()
	replays, err := replay.Load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
	// ^C stops the hooks it started, not only this process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	results, err := replay.RunAll(ctx, replays, replay.Options{KB: filepath.Join(*dir, "kb")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
	if *asJSON {
		var sums []replay.Summary
		for _, s := range append(replay.Sets, "") {
			sums = append(sums, replay.Summarise(results, s))
		}
		if err := figures.Print(map[string]any{"results": results, "summaries": sums}); err != nil {
			fmt.Fprintln(os.Stderr, "replay:", err)
			os.Exit(1)
		}
		return
	}
	replay.Report(os.Stdout, results, *verbose)
}
