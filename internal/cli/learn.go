package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/observe"
)

// statusAction is what --status holds when given without a value: the
// --status action. With a value (--status=ready, or --list --status
// ready) it filters --list, as it always has. It is a word, because the
// help prints it (--status string[="summary"]).
const statusAction = "summary"

type learnOptions struct {
	list   bool
	json   bool
	typ    string
	status string
	show   string

	enable, disable, global bool
	configure               bool
	set                     []string
	review                  bool
	keep, deprecate         []string
	restore, edit           []string
	promoteGlobal           []string
	acceptGate, declineGate []string
	clear, purge, reset     bool
	yes                     bool
}

func newLearnCmd(env *Env) *cobra.Command {
	opts := &learnOptions{}
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Inspect and manage what devlearn has learned",
		Long: `Inspect and manage what devlearn has learned in this project. One action:

  --status              enabled or not (and where), counts, artifacts, what
                        needs review, the last worker run
  --list                every observation by confidence, with what keeps each
                        from being ready (filter with --type, --status=STATUS)
  --show ID|PATH        where an observation or artifact came from: its events,
                        sources, evidence, confidence history, audit entries
  --review              what needs attention (stale, held back by the soft cap,
                        artifacts deleted, candidate entries); decide with
                        --keep/--deprecate/--restore ID, --promote-global KEY
                        (a candidate entry confirmed for every project), or
                        interactively on a terminal
  --configure           set config keys: --set key=value (repeatable), or
                        interactively on a terminal
  --enable, --disable   add or remove devlearn's hooks in .claude/settings.json
                        (--global: ~/.claude/settings.json)
  --clear               empty the observation log (asks first; --yes in scripts)
  --purge               drop the logs' corrupt lines (observations, audit), listing each
  --reset               remove what devlearn made in this project (never your
                        own files) and its per-clone state (asks; --yes)

'devlearn lessons' lists the observations and the knowledge entries
together, one lesson each, in force, draft or retired, and decides about
them with accept, retire and restore.`,
		Example: `  devlearn learn --status
  devlearn learn --list --status=ready
  devlearn learn --show obs_f8d7e6856637
  devlearn learn --review --deprecate obs_f8d7e6856637
  devlearn learn --configure --set extractor.model=haiku
  devlearn learn --enable --global`,
		GroupID: "learn",
		Args: func(c *cobra.Command, args []string) error {
			// "--list --status ready": the value of --status arrives as an
			// argument, because --status alone is an action.
			if len(args) == 1 && opts.list && opts.status == statusAction {
				opts.status = args[0]
				return nil
			}
			return noArgs(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runLearn(env, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.list, "list", false, "list observations by confidence")
	f.StringVar(&opts.status, "status", "", "alone: a summary of learning here; with --list: only this status (observing, ready, created, deprecated)")
	f.Lookup("status").NoOptDefVal = statusAction
	f.StringVar(&opts.show, "show", "", "show the provenance of an observation (obs_…) or an artifact (path)")
	f.BoolVar(&opts.review, "review", false, "review what needs attention")
	f.StringArrayVar(&opts.keep, "keep", nil, "with --review: keep ID as it is (repeatable)")
	f.StringArrayVar(&opts.deprecate, "deprecate", nil, "with --review: deprecate ID, marking its markdown (repeatable)")
	f.StringArrayVar(&opts.restore, "restore", nil, "with --review: restore deprecated ID (repeatable)")
	f.StringArrayVar(&opts.edit, "edit", nil, "with --review: open ID's artifact in $VISUAL/$EDITOR (a terminal)")
	f.StringArrayVar(&opts.promoteGlobal, "promote-global", nil, "with --review: confirm entry KEY and copy it to the global store, for every project (repeatable)")
	f.StringArrayVar(&opts.acceptGate, "accept-gate", nil, "with --review: add proposed gate ID to the project config (it runs once you trust the file; repeatable)")
	f.StringArrayVar(&opts.declineGate, "decline-gate", nil, "with --review: decline proposed gate ID: it is not proposed again (repeatable)")
	f.BoolVar(&opts.configure, "configure", false, "set configuration keys")
	f.StringArrayVar(&opts.set, "set", nil, "with --configure: KEY=VALUE, e.g. extractor.model=haiku (repeatable)")
	f.BoolVar(&opts.enable, "enable", false, "register devlearn's hooks")
	f.BoolVar(&opts.disable, "disable", false, "remove devlearn's hooks")
	f.BoolVar(&opts.global, "global", false, "with --enable/--disable: in ~/.claude/settings.json instead of the project's")
	f.BoolVar(&opts.clear, "clear", false, "empty the observation log")
	f.BoolVar(&opts.purge, "purge", false, "drop corrupt lines from the observation log and the audit log")
	f.BoolVar(&opts.reset, "reset", false, "remove devlearn's artifacts and per-clone state in this project")
	f.BoolVar(&opts.yes, "yes", false, "with --clear/--reset: do it without asking")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.StringVar(&opts.typ, "type", "", "with --list: only this type (workflow, procedural, decision, pitfall)")
	completeWith(cmd, "type", func() []string { return lesson.Names() })
	completeWith(cmd, "status", func() []string {
		return []string{observe.Observing, observe.Ready, observe.Created, observe.Deprecated}
	})
	for _, name := range []string{"show", "keep", "deprecate", "restore", "edit"} {
		completeWith(cmd, name, func() []string { return observationIDs(env) })
	}
	completeWith(cmd, "set", func() []string {
		var keys []string
		for _, k := range config.Keys() {
			keys = append(keys, k.Path+"=")
		}
		return keys
	})
	return cmd
}

// completeWith registers shell completion values for a flag.
func completeWith(cmd *cobra.Command, flag string, values func() []string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		directive := cobra.ShellCompDirectiveNoFileComp
		if flag == "set" {
			directive |= cobra.ShellCompDirectiveNoSpace
		}
		return values(), directive
	})
}

// observationIDs lists the observation ids of the project here, for shell
// completion; nothing on any error.
func observationIDs(env *Env) []string {
	w, err := env.workspace()
	if err != nil {
		return nil
	}
	log, err := w.log.Load()
	if err != nil {
		return nil
	}
	var ids []string
	for _, o := range log.Observations(w.now, w.cfg.Config) {
		ids = append(ids, o.ID+"\t"+ellipsis(o.Pattern, 50))
	}
	return ids
}

func runLearn(env *Env, opts *learnOptions) error {
	actions := map[string]bool{
		"--list": opts.list, "--status": opts.status == statusAction && !opts.list, "--show": opts.show != "",
		"--review": opts.review, "--configure": opts.configure, "--enable": opts.enable, "--disable": opts.disable,
		"--clear": opts.clear, "--purge": opts.purge, "--reset": opts.reset,
	}
	var chosen []string
	for name, on := range actions {
		if on {
			chosen = append(chosen, name)
		}
	}
	if opts.global && !opts.enable && !opts.disable {
		return exitcode.Usagef("--global goes with --enable or --disable")
	}
	if len(opts.set) > 0 && !opts.configure {
		return exitcode.Usagef("--set goes with --configure")
	}
	if n := len(opts.keep) + len(opts.deprecate) + len(opts.restore) + len(opts.edit) + len(opts.promoteGlobal) + len(opts.acceptGate) + len(opts.declineGate); n > 0 && !opts.review {
		return exitcode.Usagef("--keep, --deprecate, --restore, --promote-global, --edit, --accept-gate and --decline-gate go with --review")
	}
	if opts.typ != "" && !opts.list {
		return exitcode.Usagef("--type goes with --list")
	}
	switch {
	case len(chosen) == 0:
		if opts.status != "" {
			return exitcode.Usagef("--status=%s filters --list; add --list, or use --status alone", opts.status)
		}
		return exitcode.Usagef("learn needs an action, such as --status or --list\nRun 'devlearn learn --help' for usage.")
	case len(chosen) > 1:
		return exitcode.Usagef("choose one action; got %s", strings.Join(sortedStrings(chosen), " and "))
	}
	switch chosen[0] {
	case "--list":
		return runLearnList(env, opts)
	case "--status":
		return runLearnStatus(env, opts)
	case "--show":
		return runLearnShow(env, opts)
	case "--review":
		return runLearnReview(env, opts)
	case "--configure":
		return runLearnConfigure(env, opts)
	case "--enable", "--disable":
		return runLearnHooks(env, opts)
	case "--clear":
		return runLearnClear(env, opts)
	case "--purge":
		return runLearnPurge(env, opts)
	}
	return runLearnReset(env, opts)
}

func runLearnList(env *Env, opts *learnOptions) error {
	if opts.status == statusAction {
		opts.status = ""
	}
	if opts.typ != "" && !observe.ValidType(opts.typ) {
		return exitcode.Usagef("--type %q is not one of %s", opts.typ, strings.Join(lesson.Names(), ", "))
	}
	switch opts.status {
	case "", observe.Observing, observe.Ready, observe.Created, observe.Deprecated:
	default:
		return exitcode.Usagef("--status %q is not one of observing, ready, created, deprecated", opts.status)
	}
	w, err := env.workspace()
	if err != nil {
		return err
	}
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	all := log.Observations(w.now, w.cfg.Config)
	obs := []observe.Observation{}
	for _, o := range all {
		if (opts.typ == "" || o.Type == opts.typ) && (opts.status == "" || o.Status == opts.status) {
			obs = append(obs, o)
		}
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"observations": obs})
	}
	switch {
	case len(all) == 0:
		fmt.Fprintln(env.Out, "No observations yet. They come from 'devlearn observe' and, once set up, from your sessions.")
		return nil
	case len(obs) == 0:
		var filter []string
		if opts.typ != "" {
			filter = append(filter, "type "+opts.typ)
		}
		if opts.status != "" {
			filter = append(filter, "status "+opts.status)
		}
		fmt.Fprintf(env.Out, "No observation has %s (%d in all); 'devlearn learn --list' shows them all.\n", strings.Join(filter, " and "), len(all))
		return nil
	}
	printObservationTable(env.Out, obs)
	return nil
}

func printObservationTable(out io.Writer, obs []observe.Observation) {
	t := newTable(out)
	t.row("ID", "TYPE", "CONF", "COUNT", "STATUS", "NOT READY BECAUSE", "PATTERN")
	for _, o := range obs {
		why := strings.Join(o.Why, "; ")
		if why == "" {
			why = "-"
		}
		t.row(o.ID, o.Type, fmt.Sprintf("%.2f", o.Confidence), fmt.Sprint(o.Count), statusLabel(o), why, ellipsis(o.Pattern, 50))
	}
	t.flush()
}

// statusLabel adds to the status what a person should know at a glance.
func statusLabel(o observe.Observation) string {
	s := o.Status
	if o.Status == observe.Deprecated && o.DeprecatedReason != "" {
		s += " (" + o.DeprecatedReason + ")"
	}
	if o.NeedsReview {
		s += " !"
	}
	return s
}
