// Package cli holds devlearn's commands, one file per command. A command
// parses its flags, calls the domain packages and prints; nothing else
// happens here.
package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/hookcmd"
)

// Version reports the version of this binary (set by the Makefile in
// internal/hookcmd, which devlearn-hook shares).
func Version() string { return hookcmd.Version() }

// NewRoot builds the whole command tree around env.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "devlearn",
		Short: "Make AI coding agents learn from their own sessions",
		Long: `devlearn captures the lessons of AI coding sessions, accumulates them as
observation events in the repository, promotes the ones that recur into
slash commands, skills, decisions and pitfalls, and serves them back to
the agent through Claude Code hooks.`,
		Version:       Version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Every command's context is the root's, cancelled at SIGINT or
	// SIGTERM: what a command starts or waits for ends with it.
	root.PersistentPreRun = func(c *cobra.Command, _ []string) { env.Ctx = c.Context() }
	asParent(root)
	root.SetIn(env.In)
	root.SetOut(env.Out)
	root.SetErr(env.Err)
	root.SetVersionTemplate("devlearn {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "devlearn lern --status": the flags are parsed before the
		// command is looked for, so the mistyped command would be
		// reported as a flag the root does not have. Name the command.
		if c.HasSubCommands() && len(c.Flags().Args()) > 0 {
			if cmdErr := noArgs(c, c.Flags().Args()); cmdErr != nil {
				return cmdErr
			}
		}
		return exitcode.UsageError(fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath()))
	})
	root.AddGroup(
		&cobra.Group{ID: "learn", Title: "Learning:"},
		&cobra.Group{ID: "setup", Title: "Setup and other:"},
	)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")

	root.AddCommand(commands(env)...)
	return root
}

// asParent makes a command that only groups subcommands print its help when
// run alone and reject an unknown subcommand as a usage error (exit 2);
// cobra, left to itself, would print help and exit 0.
func asParent(c *cobra.Command) *cobra.Command {
	c.Args = noArgs
	c.SuggestionsMinimumDistance = 2 // a typo of a subcommand's name gets "Did you mean"
	c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	return c
}

// noArgs rejects stray arguments, and unknown subcommands on a parent, as
// usage errors (cobra's own are plain errors, which would exit 1).
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if c.HasSubCommands() {
		hint := ""
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "\nDid you mean " + strings.Join(s, " or ") + "?"
		}
		return exitcode.Usagef("unknown command %q for %q%s\nRun '%s --help' for usage.", args[0], c.CommandPath(), hint, c.CommandPath())
	}
	return exitcode.Usagef("%s takes no arguments (got %q)", c.CommandPath(), strings.Join(args, " "))
}

// argsRange is cobra.RangeArgs with a usage error.
func argsRange(min, max int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			want := fmt.Sprintf("%d to %d arguments", min, max)
			switch {
			case min == max:
				want = plural(min, "argument", "arguments")
			case max < 0:
				want = fmt.Sprintf("at least %s", plural(min, "argument", "arguments"))
			}
			return exitcode.Usagef("%s takes %s, got %d\nRun '%s --help' for usage.", c.CommandPath(), want, len(args), c.CommandPath())
		}
		return nil
	}
}
