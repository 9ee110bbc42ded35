package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/gate"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/trust"
)

type trustOptions struct {
	show, revoke, json, yes bool
}

func newTrustCmd(env *Env) *cobra.Command {
	opts := &trustOptions{}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Let the commands in this project's config run on this machine",
		Long: `Record .memory/learning.json, by its folder and its content (sha256), so
that the commands it names (the LLM extractor, gates) may run on this
machine in this folder. Like direnv: cloning a repository, or pulling a
change to its config, never makes devlearn run a command you have not
read. Any change to the file makes it untrusted again until you run
'devlearn trust' once more. A copy of the project in another folder is
not trusted even with the same file: its commands would run that
folder's own code, which you have not looked at.

It shows what the file would allow first, then asks on a terminal; with no
terminal (a script) it trusts only with --yes.

Gates run the folder's own code (its tests, its scripts), so no gate runs
in a folder not trusted here, the global config's ($DEVLEARN_HOME/config.json)
included: a fresh clone runs none until you trust it.

Trust is kept in $DEVLEARN_HOME/trust.json, per machine, never committed.`,
		Example: `  devlearn trust           # shows what it allows, then asks
  devlearn trust --yes     # in a script, after reading .memory/learning.json
  devlearn trust --show    # what is trusted, and whether this project still is
  devlearn trust --revoke`,
		GroupID: "setup",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.show && opts.revoke {
				return exitcode.Usagef("--show and --revoke cannot be combined")
			}
			switch {
			case opts.show:
				return runTrustShow(env, opts)
			case opts.revoke:
				return runTrustRevoke(env, opts)
			}
			return runTrust(env, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.show, "show", false, "list what is trusted on this machine")
	f.BoolVar(&opts.revoke, "revoke", false, "stop trusting this project's config")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	f.BoolVar(&opts.yes, "yes", false, "trust without asking (needed when there is no terminal to ask on)")
	return cmd
}

func runTrust(env *Env, opts *trustOptions) error {
	now, err := env.Now()
	if err != nil {
		return err
	}
	p, err := env.Project()
	if err != nil {
		return err
	}
	path := p.Path(project.ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return exitcode.WithHint(fmt.Errorf("%s does not exist: there is nothing to trust", project.ConfigFile), "run 'devlearn init' to create it")
	}
	if err != nil {
		return err
	}
	// An invalid file is not trusted: nothing would read it anyway.
	if _, err := config.Parse(project.ConfigFile, data); err != nil {
		return exitcode.WithHint(err, "fix the file first, then run 'devlearn trust'")
	}
	// What is trusted is shown before it is trusted, and a person agrees
	// to it: on a terminal by answering, elsewhere by --yes.
	cmds := trust.Commands(data)
	files, err := gateFiles(env, p)
	if err != nil {
		return err
	}
	if !opts.json {
		sum := sha256.Sum256(data)
		fmt.Fprintf(env.Out, "%s (sha256 %s):\n", project.ConfigFile, hex.EncodeToString(sum[:])[:12])
		if len(cmds) == 0 {
			fmt.Fprintln(env.Out, "  it names no commands; the defaults and your global config apply (its gates run here once trusted).")
		} else {
			fmt.Fprintln(env.Out, "  trusting it lets these extractor settings and gate commands take effect on this machine:")
			for _, c := range cmds {
				fmt.Fprintf(env.Out, "    %s\n", c)
			}
		}
		if len(files) > 0 {
			fmt.Fprintln(env.Out, "  its gates (with your global config's) run these files, kept by hash: a change to one needs trust again:")
			for _, f := range files {
				sum, err := os.ReadFile(f)
				if err != nil {
					return err
				}
				h := sha256.Sum256(sum)
				fmt.Fprintf(env.Out, "    runs %s (sha256 %s)\n", relTo(p.Root, f), hex.EncodeToString(h[:])[:12])
			}
		}
	}
	if !opts.yes {
		if !env.interactive() {
			return exitcode.Usagef("not trusted: read %s (what it allows is above), then run 'devlearn trust --yes'; there is no terminal to ask on", project.ConfigFile)
		}
		ok, err := env.confirm("Trust "+project.ConfigFile+" on this machine?", "--yes")
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(env.Out, "Not trusted; nothing was changed.")
			return nil
		}
	}
	e, err := trust.Trust(env.Context(), env.Home(), path, files, now)
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"trusted": e, "commands": nonNil(cmds)})
	}
	fmt.Fprintf(env.Out, "Trusted %s (sha256 %s) in this folder.\n", project.ConfigFile, e.SHA256[:12])
	return nil
}

func runTrustRevoke(env *Env, opts *trustOptions) error {
	p, err := env.Project()
	if err != nil {
		return err
	}
	found, err := trust.Revoke(env.Context(), env.Home(), p.Path(project.ConfigFile))
	if err != nil {
		return err
	}
	if opts.json {
		return printJSON(env.Out, map[string]any{"revoked": found})
	}
	if found {
		fmt.Fprintf(env.Out, "No longer trusted: %s. Its commands will not run.\n", project.ConfigFile)
	} else {
		fmt.Fprintf(env.Out, "%s was not trusted; nothing to do.\n", project.ConfigFile)
	}
	return nil
}

type trustShow struct {
	Trusted []trust.Entry `json:"trusted"`
	Project *trustState   `json:"project,omitempty"`
}

type trustState struct {
	Path     string   `json:"path"`
	Trusted  bool     `json:"trusted"`
	Why      string   `json:"why"`
	Commands []string `json:"commands"`
}

func runTrustShow(env *Env, opts *trustOptions) error {
	s, err := trust.Load(env.Home())
	if err != nil {
		return err
	}
	res := trustShow{Trusted: nonNilEntries(s.Trusted)}
	if p, err := project.Find(env.Dir); err == nil {
		path := p.Path(project.ConfigFile)
		files, err := gateFiles(env, p)
		if err != nil {
			return err
		}
		ok, why, err := trust.CheckFiles(env.Home(), path, files)
		if err != nil {
			return err
		}
		data, _ := os.ReadFile(path)
		res.Project = &trustState{Path: path, Trusted: ok, Why: why, Commands: nonNil(trust.Commands(data))}
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	if len(res.Trusted) == 0 {
		fmt.Fprintln(env.Out, "Nothing is trusted on this machine.")
	} else {
		fmt.Fprintf(env.Out, "Trusted on this machine (%s):\n", plural(len(res.Trusted), "file", "files"))
		for _, e := range res.Trusted {
			fmt.Fprintf(env.Out, "  %s  %s  %s\n", day10(e.TrustedAt), e.SHA256[:12], e.Path)
		}
	}
	if pr := res.Project; pr != nil {
		state := "trusted"
		if !pr.Trusted {
			state = "NOT trusted"
		}
		fmt.Fprintf(env.Out, "This project: %s (%s).\n", state, pr.Why)
	}
	return nil
}

// gateFiles are the files the gates in force for p would run (its config's
// and the global config's), which trust keeps by hash.
func gateFiles(env *Env, p *project.Project) ([]string, error) {
	l, err := env.Config(p)
	if err != nil {
		return nil, err
	}
	return gate.Files(p.Root, l.Gates), nil
}

// relTo is path as a person reads it from root, when it is inside.
func relTo(root, path string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func day10(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilEntries(s []trust.Entry) []trust.Entry {
	if s == nil {
		return []trust.Entry{}
	}
	return s
}
