package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A real terminal for the interactive prompts: tmux runs devlearn in a
// pseudo-terminal, send-keys types, capture-pane reads the screen.
type term struct {
	t      *testing.T
	socket string
	name   string
}

func newTerm(t *testing.T, dir string, env []string, command string) *term {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("tmux is POSIX only")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the interactive prompts are not tested here")
	}
	tm := &term{t: t, socket: fmt.Sprintf("devlearn-test-%d-%d", os.Getpid(), time.Now().UnixNano()), name: "t"}
	// The shell prints the exit code and stays, so the screen can be read
	// after devlearn ends.
	script := fmt.Sprintf("cd %q && env %s %s; echo EXIT=$?; sleep 60", dir, strings.Join(env, " "), command)
	tm.tmux("new-session", "-d", "-s", tm.name, "-x", "140", "-y", "45", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tm *term) screen() string { return tm.tmux("capture-pane", "-p", "-t", tm.name) }

// waitFor waits until the screen shows want, and returns the screen. It
// then gives the program a moment to be reading its input: keys typed
// before a prompt reads them would be lost, as they would for a person.
func (tm *term) waitFor(want string) string {
	tm.t.Helper()
	s := tm.waitForOnly(want)
	time.Sleep(300 * time.Millisecond)
	return s
}

func (tm *term) waitForOnly(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *term) keys(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", tm.name}, keys...)...)
}

func buildBinary(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	bin := filepath.Join(t.TempDir(), "devlearn")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// interactiveRepo is a repository with two items to review: a workflow
// whose command a person deleted, and a candidate knowledge entry.
func interactiveRepo(t *testing.T, bin string) (dir string, env []string) {
	t.Helper()
	dir = t.TempDir()
	home := filepath.Join(dir, ".home")
	env = []string{
		"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"DEVLEARN_NOW=2026-05-10T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"PATH=" + os.Getenv("PATH"),
	}
	run := func(stdin string, args ...string) {
		cmd := exec.Command(bin, args...)
		if args[0] == "git" {
			cmd = exec.Command("git", args[1:]...)
		}
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	wf := `{"observations":[{"type":"workflow","pattern":"Cut a release: bump, changelog, tag","details":"bump, tag","quality_ok":true}]}`
	run("", "git", "init", "-q")
	run("", "init")
	for _, d := range []string{"01", "04", "08"} {
		run(wf, "observe", "--session", "s"+d, "--at", "2026-05-"+d+"T09:00:00Z")
	}
	run("", "render-ready")
	os.Remove(filepath.Join(dir, ".claude/commands/self-learning/cut-a-release-bump-changelog-tag.md"))
	run("", "reconcile")
	os.MkdirAll(filepath.Join(dir, ".memory/knowledge/entries"), 0o755)
	os.WriteFile(filepath.Join(dir, ".memory/knowledge/entries/version-bump.md"), []byte("---\nkey: version-bump\nsummary: Bumping a version means four files\nkind: checklist\nstatus: candidate\nsource: stop-hook\n---\n- [ ] a\n"), 0o644)
	return dir, env
}

func TestInteractiveReviewInARealTerminal(t *testing.T) {
	bin := buildBinary(t)
	dir, env := interactiveRepo(t, bin)
	tm := newTerm(t, dir, append(env, "NO_COLOR=1", "TERM=xterm-256color"), bin+" learn --review")

	s := tm.waitFor("[1/2] Cut a release: bump, changelog, tag")
	for _, want := range []string{"obs_ace98e8a2a3c · workflow · deprecated", "deprecated because its artifact was deleted", "keep", "restore", "skip", "quit"} {
		if !strings.Contains(s, want) {
			t.Fatalf("first item lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "deprecate\n") {
		t.Fatalf("a deprecated item offers deprecate:\n%s", s)
	}
	tm.keys("Down")  // keep → restore
	tm.keys("Enter") // choose it
	s = tm.waitFor("[2/2] Bumping a version means four files")
	if !strings.Contains(s, "Restored obs_ace98e8a2a3c") || !strings.Contains(s, "entry:version-bump · checklist · candidate") {
		t.Fatalf("after the first decision:\n%s", s)
	}
	tm.keys("Enter") // keep: make the candidate active
	s = tm.waitFor("EXIT=")
	for _, want := range []string{"Kept entry:version-bump: candidate → active", "Review done: 2 items decided.", "EXIT=0"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the end lacks %q:\n%s", want, s)
		}
	}
	entry, _ := os.ReadFile(filepath.Join(dir, ".memory/knowledge/entries/version-bump.md"))
	if !strings.Contains(string(entry), "status: active") {
		t.Fatalf("entry:\n%s", entry)
	}
	cmd := exec.Command(bin, "learn", "--list", "--status=ready")
	cmd.Dir, cmd.Env = dir, env
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), "obs_ace98e8a2a3c") {
		t.Fatalf("the restored observation is not ready:\n%s", out)
	}
}

func TestInteractiveConfirmAndConfigure(t *testing.T) {
	bin := buildBinary(t)
	dir, env := interactiveRepo(t, bin)

	// --clear asks, with "No" chosen until the person moves to "Yes".
	tm := newTerm(t, dir, append(env, "NO_COLOR=1", "TERM=xterm-256color"), bin+" learn --clear")
	tm.waitFor("Empty .memory/learning-log.jsonl")
	tm.keys("Enter")
	if s := tm.waitFor("EXIT="); !strings.Contains(s, "Nothing was changed.") || !strings.Contains(s, "EXIT=0") {
		t.Fatalf("declining:\n%s", s)
	}
	tm = newTerm(t, dir, append(env, "NO_COLOR=1", "TERM=xterm-256color"), bin+" learn --clear")
	tm.waitFor("Empty .memory/learning-log.jsonl")
	tm.keys("Left", "Enter")
	if s := tm.waitFor("EXIT="); !strings.Contains(s, "Cleared .memory/learning-log.jsonl") {
		t.Fatalf("accepting:\n%s", s)
	}

	// --configure: pick a key by filtering, type a bad value (refused on
	// the spot), then a good one, then done.
	tm = newTerm(t, dir, append(env, "NO_COLOR=1", "TERM=xterm-256color"), bin+" learn --configure")
	tm.waitFor("Which setting?")
	tm.keys("/")
	tm.keys("-l", "worker.batch")
	tm.waitFor("worker.batch_size")
	tm.keys("Enter")
	tm.waitFor("Ended sessions that make a batch")
	tm.keys("BSpace")
	tm.keys("-l", "0")
	tm.keys("Enter")
	tm.waitFor("0 is out of range (allowed: 1 to 1000)")
	tm.keys("BSpace")
	tm.keys("-l", "7")
	tm.keys("Enter")
	tm.waitFor("worker.batch_size: 3 → 7 (saved)")
	tm.waitFor("Which setting?")
	tm.keys("Enter") // (done) is first
	if s := tm.waitFor("EXIT="); !strings.Contains(s, "EXIT=0") {
		t.Fatalf("configure:\n%s", s)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".memory/learning.json"))
	if !strings.Contains(string(cfg), `"batch_size": 7`) {
		t.Fatalf("config:\n%s", cfg)
	}
}

// init on a terminal offers the curated section; the choice lands in the
// config it creates as curator.files.
func TestInteractiveInitOffersTheCurator(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	home := filepath.Join(dir, ".home")
	env := []string{
		"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"DEVLEARN_NOW=2026-05-10T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
		"PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "TERM=xterm-256color",
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	tm := newTerm(t, dir, env, bin+" init")
	tm.waitFor("Keep a curated section")
	tm.keys("Space") // AGENTS.md, the first
	tm.keys("Enter")
	if s := tm.waitFor("EXIT="); !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "curator.files: AGENTS.md") {
		t.Fatalf("init:\n%s", s)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".memory/learning.json"))
	if !strings.Contains(string(cfg), `"files": [`) || !strings.Contains(string(cfg), `"AGENTS.md"`) || strings.Contains(string(cfg), "CLAUDE.md") {
		t.Fatalf("config:\n%s", cfg)
	}
}

// init's question shows its options and the keys that answer it: a key
// typed blind (x) is seen selecting the option under the cursor, and
// enter with nothing selected says so rather than choosing anything.
func TestInteractiveInitShowsItsOptions(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		keys []string
		want string
		cfg  string
	}{
		{[]string{"x"}, "✓ AGENTS.md", `"AGENTS.md"`},
		{nil, "", ""},
	} {
		dir := t.TempDir()
		home := filepath.Join(dir, ".home")
		env := []string{
			"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
			"DEVLEARN_NOW=2026-05-10T09:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"),
			"PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "TERM=xterm-256color",
		}
		if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		tm := newTerm(t, dir, env, bin+" init")
		s := tm.waitFor("Keep a curated section")
		for _, want := range []string{"• AGENTS.md", "• CLAUDE.md", "x or space selects"} {
			if !strings.Contains(s, want) {
				t.Fatalf("the question lacks %q:\n%s", want, s)
			}
		}
		if len(tc.keys) > 0 {
			tm.keys(tc.keys...)
			if s := tm.waitFor(tc.want); !strings.Contains(s, "• CLAUDE.md") {
				t.Fatalf("after %v:\n%s", tc.keys, s)
			}
		}
		tm.keys("Enter")
		s = tm.waitFor("EXIT=")
		if !strings.Contains(s, "EXIT=0") {
			t.Fatalf("init:\n%s", s)
		}
		cfg, _ := os.ReadFile(filepath.Join(dir, ".memory/learning.json"))
		if tc.cfg == "" {
			if !strings.Contains(s, "curator.files: none chosen") || strings.Contains(string(cfg), "curator") {
				t.Fatalf("nothing chosen:\n%s\nconfig:\n%s", s, cfg)
			}
			continue
		}
		if !strings.Contains(string(cfg), tc.cfg) || !strings.Contains(s, "curator.files: AGENTS.md") {
			t.Fatalf("config:\n%s\nscreen:\n%s", cfg, s)
		}
	}
}
