package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/devlearn/devlearn/internal/hookcmd"
	"github.com/devlearn/devlearn/internal/project"
)

func testEnv(dir string, out *bytes.Buffer) *Env {
	vars := map[string]string{"HOME": dir, "DEVLEARN_HOME": dir + "/.devlearn", "NO_COLOR": "1"}
	return &Env{hookcmd.Env{
		In: strings.NewReader(""), Out: out, Err: out,
		Getenv: func(k string) string { return vars[k] },
		Dir:    dir,
		Clock:  func() time.Time { return time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC) },
	}}
}

func run(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := NewRoot(testEnv(t.TempDir(), &out))
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("devlearn %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// Every command has a one-line summary, a long help, a group, and help
// that prints without error; every command that prints data has --json.
func TestEveryCommandHasHelp(t *testing.T) {
	var out bytes.Buffer
	root := NewRoot(testEnv(t.TempDir(), &out))
	// hook prints JSON already: the shape Claude Code reads, or nothing;
	// mcp speaks JSON-RPC.
	noData := map[string]bool{"demo": true, "merge-driver": true, "completion": true, "help": true, "hook": true, "mcp": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || strings.HasPrefix(sub.Name(), "__") {
				continue
			}
			path := strings.TrimPrefix(sub.CommandPath(), "devlearn ")
			if sub.Short == "" || strings.HasSuffix(sub.Short, ".") {
				t.Errorf("%s: short help %q (want a phrase without a final dot)", path, sub.Short)
			}
			if c == root && sub.GroupID == "" {
				t.Errorf("%s: no help group", path)
			}
			if sub.Long == "" && sub.Runnable() && !strings.HasPrefix(path, "completion") {
				t.Errorf("%s: no long help", path)
			}
			// A parent of subcommands only prints its help.
			if sub.Runnable() && !sub.HasSubCommands() && !noData[sub.Name()] && c.Name() != "completion" && sub.Flags().Lookup("json") == nil {
				t.Errorf("%s prints data but has no --json", path)
			}
			help := run(t, append(strings.Fields(path), "--help")...)
			if !strings.Contains(help, "Usage:") || !strings.Contains(help, "devlearn "+path) {
				t.Errorf("%s --help:\n%s", path, help)
			}
			walk(sub)
		}
	}
	walk(root)
}

func TestRootHelpListsTheSurface(t *testing.T) {
	help := run(t, "--help")
	for _, want := range []string{"\nLearning:\n", "\nSetup and other:\n", "\n  init ", "\n  uninstall ", "\n  learn ", "\n  trust ", "\n  doctor ", "\n  migrate ", "\n  hud ", "\n  completion "} {
		if !strings.Contains(help, want) {
			t.Errorf("root help lacks %q:\n%s", want, help)
		}
	}
}

func TestShellCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_devlearn", "zsh": "#compdef devlearn", "fish": "complete -c devlearn", "powershell": "Register-ArgumentCompleter"} {
		if out := run(t, "completion", shell); !strings.Contains(out, want) {
			t.Errorf("completion %s lacks %q", shell, want)
		}
	}
	flags := run(t, "__complete", "learn", "--")
	for _, want := range []string{"--status", "--show", "--review", "--configure", "--enable", "--disable", "--clear", "--purge", "--reset", "--json"} {
		if !strings.Contains(flags, want) {
			t.Errorf("learn flags lack %s:\n%s", want, flags)
		}
	}
	if out := run(t, "__complete", "learn", "--list", "--type", ""); !strings.Contains(out, "procedural") || !strings.Contains(out, ":4") {
		t.Errorf("--type values:\n%s", out)
	}
	if out := run(t, "__complete", "learn", "--configure", "--set", "extractor.mo"); !strings.Contains(out, "extractor.model=") {
		t.Errorf("--set keys:\n%s", out)
	}
	if out := run(t, "__complete", "tr"); !strings.Contains(out, "trust") {
		t.Errorf("commands:\n%s", out)
	}
}

// The worker's log is per-clone state: what its errors quote of a
// transcript or a model's answer is redacted there as in the hooks' log.
func TestWorkerLogIsRedacted(t *testing.T) {
	dir := t.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		t.Skip("git:", err)
	}
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	workerLog(p, time.Now).Printf("bad line: export GITHUB_TOKEN=%s", "ghp_Zq8Lm3Vt7Xb1Nc5Rk9Pw2Hd6Jf4Gs0Ty3UaQ")
	data, err := os.ReadFile(workerLogPath(p))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "ghp_Zq8Lm3") || !strings.Contains(string(data), "[REDACTED:github-pat]") {
		t.Fatalf("worker log: %q", data)
	}
}
