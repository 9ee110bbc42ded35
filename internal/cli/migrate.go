package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/migrate"
	"github.com/devlearn/devlearn/internal/project"
)

type migrateOptions struct {
	list, dryRun, json bool
}

func newMigrateCmd(env *Env) *cobra.Command {
	opts := &migrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Run pending migrations, or list them",
		Long: `Run the pending migrations of this project and of this machine, in order,
each reported ('devlearn init' runs them too). Project migrations are
recorded in .memory/migrations.json (commit it), machine ones in
$DEVLEARN_HOME/migrations.json. A migration is recorded only when it
succeeded; a failed one is tried again next time.`,
		Example: `  devlearn migrate --list
  devlearn migrate --dry-run
  devlearn migrate`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runMigrate(env, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.list, "list", false, "list applied and pending migrations; run nothing")
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what the pending migrations would do; change nothing")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runMigrate(env *Env, opts *migrateOptions) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	ctx := migrate.Context{Home: env.Home(), Now: now}
	var w *evolve.Writer
	if p, err := project.Find(env.Dir); err == nil {
		ctx.Proj = p
		w = evolve.New(p, now, evolve.Trigger{Command: "migrate"})
	}
	r := &migrate.Runner{Ctx: ctx, Migrations: migrate.All(), Writer: w, DryRun: opts.dryRun}
	if opts.list {
		res, err := r.List()
		if err != nil {
			return err
		}
		if opts.json {
			return printJSON(env.Out, map[string]any{"migrations": res})
		}
		t := newTable(env.Out)
		t.row("STATUS", "SCOPE", "ID", "WHAT")
		for _, m := range res {
			status := "applied"
			if m.Status == migrate.Pending {
				status = "pending"
			}
			t.row(status, string(m.Scope), m.ID, m.Description)
		}
		return t.flush()
	}
	res, err := r.Run(env.Context())
	if err != nil {
		return err
	}
	failed := 0
	for _, m := range res {
		if m.Status == migrate.Failed {
			failed++
		}
	}
	if opts.json {
		if err := printJSON(env.Out, map[string]any{"migrations": res}); err != nil {
			return err
		}
	} else {
		printMigrations(env.Out, res, opts.dryRun)
		if failed == 0 && !opts.dryRun {
			fmt.Fprintln(env.Out, "Migrations are up to date.")
		}
	}
	if failed > 0 {
		if opts.json {
			return exitcode.Silent{Code: exitcode.Error}
		}
		return exitcode.WithHint(fmt.Errorf("%s failed", plural(failed, "migration", "migrations")), "fix what is named above, then run 'devlearn migrate' again")
	}
	return nil
}
