package cli

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/devlearn/devlearn/internal/agent/sessions"
	"github.com/devlearn/devlearn/internal/agentver"
	"github.com/devlearn/devlearn/internal/doctor"
	"github.com/devlearn/devlearn/internal/ingest"
	"github.com/devlearn/devlearn/internal/project"
)

// agentVersions reads the installed agents' versions for init and doctor
// (internal/agentver): each agent's --version on the PATH the hooks run
// with, within a timeout, else the version its newest session file of
// this working tree records. What it finds is recorded in the clone's
// state (.git/devlearn/agent-versions.json), where the hooks read it.
type agentVersions struct {
	ctx    context.Context // the command's: ^C stops a --version that hangs
	reader agentver.Reader
	found  map[string]agentver.Found
}

func newAgentVersions(env *Env, p *project.Project) *agentVersions {
	var others []sessions.Log
	listed := false
	list := func(agent string) []string {
		if agent == agentver.Claude {
			files, _ := ingest.ProjectSessions(claudeConfigDir(env), p.Root)
			var out []string
			for _, f := range files {
				out = append(out, f.Main)
			}
			return out
		}
		if !listed {
			others, _ = sessions.Find(env.Getenv, p.Root)
			listed = true
		}
		var out []string
		for _, l := range others {
			if l.Agent == agent {
				out = append(out, l.Path)
			}
		}
		return out
	}
	return &agentVersions{
		ctx:    env.Context(),
		reader: agentver.Reader{Run: execRunner(env), Sessions: list},
		found:  map[string]agentver.Found{},
	}
}

// read is the agent's version, read once.
func (v *agentVersions) read(agent string) agentver.Found {
	f, ok := v.found[agent]
	if !ok {
		f = v.reader.Read(v.ctx, agent)
		v.found[agent] = f
	}
	return f
}

// record keeps what was read in the clone's state, for the hooks.
func (v *agentVersions) record(p *project.Project, now time.Time) error {
	return agentver.Save(p.CommonDir, p.StateDir(), v.found, now.UTC().Format(time.RFC3339))
}

// execRunner runs a command found on the PATH the hooks run with; a
// command that is not there fails at once.
func execRunner(env *Env) agentver.Runner {
	return func(ctx context.Context, name string, args ...string) (string, error) {
		path, err := lookPath(env.Getenv("PATH"), name)
		if err != nil {
			return "", err
		}
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Dir = env.Dir
		if env.Environ != nil {
			cmd.Env = env.Environ()
		}
		// A child that keeps the pipe open past the timeout is not waited for.
		cmd.WaitDelay = time.Second
		out, err := cmd.Output()
		return string(out), err
	}
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeConfigDir(env *Env) string {
	if d := env.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(env.Getenv("HOME"), ".claude")
}

// codexHome is $CODEX_HOME, else ~/.codex.
func codexHome(env *Env) string {
	if d := env.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(env.Getenv("HOME"), ".codex")
}

// printVersions prints what each agent's version receives, with the fix
// where it loses something.
func printVersions(w io.Writer, checks []doctor.Check) {
	if len(checks) == 0 {
		return
	}
	fmt.Fprintln(w, "What each agent's installed version receives:")
	for _, c := range checks {
		fmt.Fprintf(w, "  %s: %s\n", c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "    fix: %s\n", c.Fix)
		}
	}
}
