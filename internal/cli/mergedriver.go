package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gitx"
)

type mergeDriverOptions struct {
	printConfig     bool
	printAttributes bool
}

func newMergeDriverCmd(env *Env) *cobra.Command {
	o := &mergeDriverOptions{}
	c := &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH [MARKER-SIZE]",
		Short: "The git merge driver for devlearn's files (git runs it)",
		Long: `The git merge driver for devlearn's files, run by git as
merge.devlearn.driver for the paths .gitattributes marks merge=devlearn:

  the event logs (.memory/*.jsonl, tasks/*.jsonl, evolution/log.jsonl)
      a three-way set merge of lines: lines one side removed stay removed,
      lines either side added are kept, each once, in a stable order
  the manifest (.memory/.learning-manifest.json)
      the union of entries, one per observation
  decisions.md and pitfalls.md
      entries either side added are kept; when both sides gave a new entry
      the same number, the later (date, observation id) is renumbered; an
      entry both sides added appears once; the TL;DR line is rebuilt

BASE, OURS and THEIRS are the files git passes as %O %A %B; the result is
written over OURS. A side that is not in devlearn's format (a person
rewrote it) is merged as plain text, and a conflict leaves the file with
conflict markers (diff3 style) and exits with 3, as git expects of a
driver. devlearn merge uses the same merges, so both give the same bytes.

--print-config prints the git config that registers the driver (devlearn
init writes it); --print-attributes prints the .gitattributes lines. A
clone without devlearn installed falls back to git merge-file: a normal
conflict, never a silent one-sided merge. See docs/merging.md.`,
		Example: `  # register by hand in one clone
  devlearn merge-driver --print-config >> .git/config
  devlearn merge-driver --print-attributes >> .gitattributes`,
		GroupID: "setup",
		RunE: func(c *cobra.Command, args []string) error {
			return runMergeDriver(env, o, args)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.printConfig, "print-config", false, "print the git config lines that register the driver")
	f.BoolVar(&o.printAttributes, "print-attributes", false, "print the .gitattributes lines that route devlearn's files to it")
	return c
}

func runMergeDriver(env *Env, o *mergeDriverOptions, args []string) error {
	if o.printConfig || o.printAttributes {
		if len(args) > 0 {
			return exitcode.Usagef("--print-config and --print-attributes take no arguments")
		}
		if o.printConfig {
			fmt.Fprint(env.Out, gitx.DriverGitConfig())
		}
		if o.printAttributes {
			fmt.Fprint(env.Out, gitx.GitAttributes())
		}
		return nil
	}
	if len(args) < 4 || len(args) > 5 {
		return exitcode.Usagef("merge-driver takes BASE OURS THEIRS PATH [MARKER-SIZE] (git's %%O %%A %%B %%P %%L), got %d arguments\nRun 'devlearn merge-driver --help' for usage.", len(args))
	}
	files := gitx.DriverFiles{Base: args[0], Ours: args[1], Theirs: args[2], Path: args[3]}
	if len(args) == 5 {
		n, err := strconv.Atoi(args[4])
		if err != nil || n < 1 {
			return exitcode.Usagef("marker size %q is not a positive number", args[4])
		}
		files.MarkerSize = n
	}
	before, _ := os.ReadFile(files.Ours)
	out, err := gitx.RunDriver(env.Dir, files)
	if err != nil {
		return fmt.Errorf("merge driver for %s: %w", files.Path, err)
	}
	flagIncoming(env, files.Path, before, files.Ours)
	for _, r := range out.Renumbered {
		fmt.Fprintf(env.Err, "devlearn: %s: %s (%s) is now %s: the other side gave %s to another entry\n", out.Path, r.From, r.Source, r.To, r.From)
	}
	switch {
	case !out.Clean:
		hint := "edit the file to resolve the conflict markers, then 'git add' it"
		if out.ByMeaning {
			hint = "resolve it by hand (the markers show both sides), then 'git add' it"
		}
		return exitcode.RefusedError(fmt.Errorf("%s: conflict: %s", out.Path, out.Reason), hint)
	case !out.ByMeaning:
		fmt.Fprintf(env.Err, "devlearn: %s: merged as plain text: %s\n", out.Path, out.Reason)
	}
	return nil
}

// flagIncoming names the lines a merge brought into a knowledge file
// (decisions.md, pitfalls.md) that imitate the harness or order code run
// or instructions ignored: a teammate's lesson is flagged as it arrives.
func flagIncoming(env *Env, path string, before []byte, merged string) {
	if !strings.HasSuffix(path, ".md") {
		return
	}
	after, err := os.ReadFile(merged)
	if err != nil {
		return
	}
	had := map[string]bool{}
	for _, l := range strings.Split(string(before), "\n") {
		had[l] = true
	}
	var incoming strings.Builder
	for _, l := range strings.Split(string(after), "\n") {
		if had[l] {
			l = "" // kept in place, so the line numbers stay the file's
		}
		incoming.WriteString(l + "\n")
	}
	printFlagged(env.Err, "devlearn: ", path, incoming.String())
}
