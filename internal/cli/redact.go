package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/scrub"
)

type redactOptions struct {
	patterns []string
	dryRun   bool
	json     bool
}

func newRedactCmd(env *Env) *cobra.Command {
	opts := &redactOptions{}
	cmd := &cobra.Command{
		Use:   "redact STRING | --pattern RE",
		Short: "Scrub a secret that slipped through from everything devlearn keeps",
		Long: `Find STRING (exactly, case-sensitively), or what each --pattern matches (Go
regular expressions; the first capture group when there is one), in every
file devlearn keeps, and replace it with [REDACTED:literal] or
[REDACTED:pattern]:

  the observation log, the task logs and the audit log (their decoded
  strings: an escaped quote does not hide a name), the commands, skills,
  ADR and pitfall files and knowledge entries (through the one writer,
  recorded in the audit log, the manifest kept in step), and devlearn's
  per-clone state (its logs are scrubbed; kept copies of replaced files
  and caches holding it are deleted).

It prints where it was found: file, lines, how many. The project config and
file names are reported, not changed: edit or rename them yourself. Give
STRING as "-" to read it from stdin, out of your shell history. Nothing
found is not an error.

A secret that was committed is still in git history, and anything that has
seen it may keep it: rotate the secret whatever this command finds.`,
		Example: `  devlearn redact --dry-run ghp_5aB9cD3eF7gH1iJ5kL9mN3oP7qR1sT5uV9wX
  pbpaste | devlearn redact -
  devlearn redact --pattern 'corp-token-[0-9a-f]{32}'`,
		GroupID: "learn",
		Args:    argsRange(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			return runRedact(env, opts, args)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.patterns, "pattern", nil, "a regular expression to scrub (repeatable)")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say where it is found; change nothing")
	f.BoolVar(&opts.json, "json", false, "print what was found and done as JSON")
	return cmd
}

func runRedact(env *Env, opts *redactOptions, args []string) error {
	var extra redact.Extra
	if len(args) == 1 {
		s := args[0]
		if s == "-" {
			line, err := bufio.NewReader(env.In).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			s = strings.TrimRight(line, "\r\n")
		}
		if strings.ContainsAny(s, "\r\n") {
			return exitcode.Usagef("the string to scrub holds a line break; scrub each line on its own")
		}
		extra.Literals = []string{s}
	}
	extra.Patterns = opts.patterns
	if len(extra.Literals) == 0 && len(extra.Patterns) == 0 {
		return exitcode.Usagef("say what to scrub: devlearn redact STRING, or --pattern RE")
	}
	m, err := scrub.NewMatcher(extra)
	if err != nil {
		return exitcode.UsageError(errors.New(strings.TrimPrefix(err.Error(), "redact: ")))
	}
	if w := m.Structural(); w != "" {
		return exitcode.Usagef("what you asked to scrub also matches %q, a word devlearn's own files are made of: scrubbing it would break them, and nothing it replaces is kept; give the whole secret, or a narrower --pattern", w)
	}
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	res, err := scrub.Run(env.Context(), scrub.Options{
		Proj:   p,
		Match:  m,
		Writer: evolve.New(p, now, evolve.Trigger{Command: "redact"}),
		DryRun: opts.dryRun,
	})
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	printRedacted(env.Out, res)
	return nil
}

func printRedacted(out io.Writer, res *scrub.Result) {
	if res.DryRun {
		fmt.Fprintln(out, "Dry run: nothing was changed.")
	}
	if len(res.Found) == 0 {
		fmt.Fprintln(out, "Nothing found: it is in none of the logs, artifacts, knowledge files or devlearn's state of this clone.")
		return
	}
	fmt.Fprintf(out, "Found %s in %s:\n", plural(res.Total, "match", "matches"), plural(len(res.Found), "file", "files"))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	reported := false
	for _, f := range res.Found {
		what := f.Action
		if f.Note != "" {
			what += ": " + f.Note
		}
		reported = reported || f.Action == scrub.Reported
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\n", f.Path, lineList(f.Lines), f.Count, what)
	}
	tw.Flush()
	if len(res.Entries) > 0 {
		fmt.Fprintf(out, "Recorded in the audit log: %s.\n", strings.Join(res.Entries, ", "))
	}
	if reported {
		fmt.Fprintln(out, "What is reported was left as it is: do what its line says.")
	}
	fmt.Fprintln(out, "A committed secret stays in git history, and whatever saw it may keep it: rotate it. Not searched: other worktrees of this clone (run it in each), $DEVLEARN_HOME, Claude Code's transcripts.")
}

// lineList shows the first few line numbers.
func lineList(lines []int) string {
	switch len(lines) {
	case 0:
		return "-"
	case 1:
		return "line " + strconv.Itoa(lines[0])
	}
	var parts []string
	for i, n := range lines {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	return "lines " + strings.Join(parts, ", ")
}
