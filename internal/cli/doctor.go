package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/doctor"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/register"
	"github.com/devlearn/devlearn/templates"
)

func newDoctorCmd(env *Env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the whole installation, with a fix for each failure",
		Long: `Check, one line each: devlearn on the PATH the hooks see, the hooks
registered and well-formed, the merge driver and its .gitattributes routes,
the config valid and trusted, the observation log readable, the schema and
migrations current, the per-clone state writable, Claude Code
transcripts found for this repository, and what each agent's installed
version receives (its --version, else its session files; recorded in
.git/devlearn/agent-versions.json for the hooks). Each failure names its
fix.

Exits 0 only when every check passes.`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDoctor(env, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as JSON")
	return cmd
}

func runDoctor(env *Env, asJSON bool) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	versions := newAgentVersions(env, p)
	checks := doctor.Run(doctor.Inputs{
		Proj:      p,
		Home:      env.Home(),
		ClaudeDir: claudeConfigDir(env),
		LookPath:  func(name string) (string, error) { return lookPath(env.Getenv("PATH"), name) },
		Now:       now,
		Schema:    templates.ConfigSchema,
		Git:       register.ExecGit,
		Version:   versions.read,
		CodexHome: codexHome(env),
	})
	// The versions read are what the hooks go by from now on.
	if err := versions.record(p, now); err != nil {
		fmt.Fprintf(env.Err, "devlearn: recording the agents' versions for the hooks: %v\n", err)
	}
	failed, notes := 0, 0
	for _, c := range checks {
		switch {
		case !c.OK:
			failed++
		case c.Note:
			notes++
		}
	}
	if asJSON {
		if err := printJSON(env.Out, map[string]any{"ok": failed == 0, "checks": checks}); err != nil {
			return err
		}
	} else {
		t := newTable(env.Out)
		for _, c := range checks {
			mark, fix := env.colour(green, "ok"), "fix: "
			switch {
			case !c.OK:
				mark = env.colour(red, "FAIL")
			case c.Note:
				mark, fix = env.colour(yellow, "note"), "next: "
			}
			t.row("  "+mark, c.Name, c.Detail)
			if c.Fix != "" {
				t.row("", "", fix+c.Fix)
			}
		}
		t.flush()
		switch {
		case failed == 0 && notes > 0:
			fmt.Fprintf(env.Out, "All %d checks passed (%s).\n", len(checks), plural(notes, "note", "notes"))
		case failed == 0:
			fmt.Fprintf(env.Out, "All %d checks passed.\n", len(checks))
		default:
			fmt.Fprintf(env.Out, "%s of %d failed.\n", plural(failed, "check", "checks"), len(checks))
		}
	}
	if failed > 0 {
		return exitcode.Silent{Code: exitcode.Error}
	}
	return nil
}

// lookPath finds an executable on a PATH given as a string, the way the
// shell that runs a hook would.
func lookPath(pathEnv, name string) (string, error) {
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("not found")
}
