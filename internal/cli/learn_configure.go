package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	huh "charm.land/huh/v2"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/llm"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/trust"
)

type configChange struct {
	Key    string `json:"key"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// runLearnConfigure sets keys of .memory/learning.json: from --set flags,
// or by asking on a terminal. Without either it lists every key with its
// value in force.
func runLearnConfigure(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	path := w.proj.Path(project.ConfigFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(opts.set) == 0 {
		if env.interactive() && !opts.json {
			return configureInteractively(env, w, data)
		}
		return listConfig(env, w.cfg, opts.json)
	}
	before := data
	var changes []configChange
	for _, kv := range opts.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return exitcode.Usagef("--set %q: want KEY=VALUE, e.g. --set extractor.model=haiku", kv)
		}
		next, ch, err := setKey(data, w.cfg.Config, strings.TrimSpace(k), v)
		if err != nil {
			return err
		}
		data = next
		changes = append(changes, ch)
	}
	if err := writeConfig(w, before, data, changes); err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"changed": changes, "file": project.ConfigFile})
	}
	for _, c := range changes {
		fmt.Fprintf(env.Out, "%s: %s → %s\n", c.Key, c.Before, c.After)
	}
	fmt.Fprintf(env.Out, "Saved %s.\n", project.ConfigFile)
	// Said only when the change touched what needs trust: any other key
	// leaves a trusted file trusted (writeConfig carries it), and an
	// untrusted one is doctor's to report, not this command's.
	if !trust.SameCommands(before, data) && llm.ConfigNeedsTrust(data) {
		if setsCommand(changes) {
			fmt.Fprintln(env.Out, "It names a command now: run 'devlearn trust' once you have read it, or it will not run.")
		} else {
			fmt.Fprintln(env.Out, "It sets the LLM extractor: run 'devlearn trust' once you have read it, or the extractor will not run.")
		}
	}
	return nil
}

// setKey sets one key in the config file's bytes and checks the whole file
// as devlearn will read it: an invalid value is an error naming the key and
// what is allowed, and nothing is written.
func setKey(data []byte, current *config.Config, key, value string) ([]byte, configChange, error) {
	k, ok := config.LookupKey(key)
	if !ok {
		return nil, configChange{}, exitcode.WithHint(exitcode.Usagef("%q is not a config key", key), "run 'devlearn learn --configure' without --set to list them")
	}
	v, err := k.ParseValue(value)
	if err != nil {
		return nil, configChange{}, exitcode.UsageError(err)
	}
	next, err := config.SetIn(data, key, v)
	if err != nil {
		return nil, configChange{}, fmt.Errorf("%s: %w; fix the file first", project.ConfigFile, err)
	}
	parsed, err := config.Parse(project.ConfigFile, next)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) && ce.Key == key {
			return nil, configChange{}, exitcode.UsageError(fmt.Errorf("key %q: %s", key, ce.Msg))
		}
		return nil, configChange{}, err
	}
	return next, configChange{Key: key, Before: current.Get(key), After: parsed.Get(key)}, nil
}

// writeConfig saves the config, before → data. A file trusted before
// stays trusted when the change left what needs trust as it was.
func writeConfig(w *workspace, before, data []byte, changes []configChange) error {
	var keys []string
	for _, c := range changes {
		keys = append(keys, c.Key)
	}
	wr := evolve.New(w.proj, w.now, evolve.Trigger{Command: "learn --configure"})
	if _, err := wr.Apply(w.ctx, evolve.Reason{Text: "configure: " + strings.Join(keys, ", ")}, evolve.Change{Path: project.ConfigFile, Data: data}); err != nil {
		return err
	}
	_, err := trust.Carry(w.ctx, w.home, w.proj.Path(project.ConfigFile), before, data)
	return err
}

// setsCommand reports whether extractor.command is among the changes, to
// word the hint: the file's whole content decides whether trust is needed.
func setsCommand(changes []configChange) bool {
	for _, c := range changes {
		if c.Key == "extractor.command" {
			return true
		}
	}
	return false
}

type configRow struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Kind  string `json:"kind"`
	Doc   string `json:"doc"`
}

func listConfig(env *Env, cfg *config.Loaded, asJSON bool) error {
	var rows []configRow
	for _, k := range config.Keys() {
		rows = append(rows, configRow{Key: k.Path, Value: cfg.Get(k.Path), Kind: k.Kind, Doc: k.Doc})
	}
	if asJSON {
		return printJSON(env.Out, map[string]any{"keys": rows})
	}
	t := newTable(env.Out)
	for _, r := range rows {
		t.row(r.Key, r.Value)
	}
	t.flush()
	fmt.Fprintln(env.Out, "Set one with 'devlearn learn --configure --set KEY=VALUE' (or run it on a terminal to be asked).")
	return nil
}

// configureInteractively lets a person pick keys and type values, each
// checked before it is saved, until they choose "done".
func configureInteractively(env *Env, w *workspace, data []byte) error {
	cfg := w.cfg.Config
	for {
		var key string
		opts := []huh.Option[string]{huh.NewOption("(done)", "")}
		for _, k := range config.Keys() {
			opts = append(opts, huh.NewOption(fmt.Sprintf("%-36s %s", k.Path, ellipsis(cfg.Get(k.Path), 40)), k.Path))
		}
		err := env.form(huh.NewGroup(huh.NewSelect[string]().
			Title("Which setting? (type / to filter)").
			Options(opts...).Height(14).Value(&key)))
		if err != nil {
			return err
		}
		if key == "" {
			return nil
		}
		k, _ := config.LookupKey(key)
		value := cfg.Get(key)
		var field huh.Field
		if k.Kind == "bool" {
			field = huh.NewSelect[string]().Title(key).Description(k.Doc).
				Options(huh.NewOption("true", "true"), huh.NewOption("false", "false")).Value(&value)
		} else {
			field = huh.NewInput().Title(key).Description(k.Doc + describeRange(k)).Value(&value).
				Validate(func(s string) error {
					_, _, err := setKey(data, cfg, key, s)
					return err
				})
		}
		if err := env.form(huh.NewGroup(field)); err != nil {
			return err
		}
		next, ch, err := setKey(data, cfg, key, value)
		if err != nil {
			return err
		}
		if ch.Before == ch.After {
			fmt.Fprintf(env.Out, "%s: unchanged (%s)\n", key, ch.After)
			continue
		}
		if err := writeConfig(w, data, next, []configChange{ch}); err != nil {
			return err
		}
		data = next
		if l, err := env.Config(w.proj); err == nil {
			cfg = l.Config
		}
		fmt.Fprintf(env.Out, "%s: %s → %s (saved)\n", key, ch.Before, ch.After)
	}
}

func describeRange(k config.Key) string {
	switch {
	case len(k.Enum) > 0:
		return " One of: " + strings.Join(k.Enum, ", ") + "."
	case k.Min != "" || k.Max != "":
		return fmt.Sprintf(" From %s to %s.", k.Min, k.Max)
	case k.Kind == "list":
		return " Items separated by commas, or a JSON list."
	case k.Kind == "json":
		return " A JSON list of objects."
	}
	return ""
}
