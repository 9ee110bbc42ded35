// Command evalcapture prints how well the offline extractors capture the
// lessons of the labelled set in testdata/eval: recall and noise rate,
// overall, by class and by language, for the dev and the holdout sets
// apart. `make eval` runs it from the repository's root.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/eval/capture"
	"github.com/devlearn/devlearn/internal/eval/figures"
	"github.com/devlearn/devlearn/internal/transcript"
)

func main() {
	dir := flag.String("dir", "testdata/eval", "the labelled set")
	root := flag.String("root", ".", "the repository's root, against which real transcripts are named")
	before := flag.String("before", "", "a report saved with -save, to print beside each figure")
	save := flag.String("save", "", "write the figures as JSON to this file")
	details := flag.Bool("v", false, "list, case by case, the lessons missed and the noise kept")
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	write := flag.String("write", "", "write each hand-written session as a Claude Code transcript under this folder (SET/CASE/SESSION.jsonl), and stop")
	flag.Parse()
	if *write != "" {
		if err := writeTranscripts(*dir, *write); err != nil {
			fmt.Fprintln(os.Stderr, "evalcapture:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *root, *before, *save, *details, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "evalcapture:", err)
		os.Exit(1)
	}
}

func run(dir, root, beforePath, save string, details, asJSON bool) error {
	cases, err := capture.Load(dir)
	if err != nil {
		return err
	}
	results := capture.Score(cases, root, transcript.Options{}, capture.Offline)
	for _, r := range results {
		if r.Err != nil {
			return r.Err
		}
	}
	rep := capture.Summarize(results)
	if save != "" {
		if err := figures.Save(save, rep); err != nil {
			return err
		}
	}
	if asJSON {
		return figures.Print(rep)
	}
	var before *capture.Report
	if beforePath != "" {
		if before, err = figures.Load[capture.Report](beforePath); err != nil {
			return err
		}
	}
	if details {
		capture.WriteDetails(os.Stdout, results)
		fmt.Println()
	}
	fmt.Printf("Capture on the labelled set (%s): the offline extractors alone\n\n", filepath.ToSlash(dir))
	if err := capture.WriteText(os.Stdout, rep, before); err != nil {
		return err
	}
	return routes(cases, dir, root)
}

// writeTranscripts renders every hand-written session, for a person to
// read or to ingest (devlearn ingest DIR).
func writeTranscripts(dir, out string) error {
	cases, err := capture.Load(dir)
	if err != nil {
		return err
	}
	for _, c := range cases {
		for i, s := range c.Sessions {
			d := filepath.Join(out, c.Set, c.Name)
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(d, capture.SessionID(c, &s)+".jsonl"), capture.Transcript(c, i), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
