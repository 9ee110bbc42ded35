package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptParams is the environment every script starts from: a private home,
// a fixed clock unless the script sets its own, and git that never reads the
// machine's config.
func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"crash":    cmdCrash,
			"exits":    cmdExits,
			"expand":   cmdExpand,
			"lock":     cmdLock,
			"unlock":   cmdUnlock,
			"waitfile": cmdWaitFile,
			"schema":   cmdSchema,
			"zstd":     cmdZstd,
		},
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, ".home")
			e.Setenv("HOME", home)
			e.Setenv("DEVLEARN_HOME", filepath.Join(home, ".devlearn"))
			e.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, ".claude"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
			e.Setenv("GIT_AUTHOR_NAME", "Test")
			e.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			e.Setenv("GIT_COMMITTER_NAME", "Test")
			e.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			e.Setenv("NO_COLOR", "1")
			// A hook call over 100 ms warns on stderr; on a loaded machine
			// that would break every `! stderr .` after a hook. The warning
			// has its own script (hook_serve_switches), which sets 0.
			e.Setenv("DEVLEARN_SLOW_HOOK_MS", "600000")
			// The real transcripts of testdata/transcripts, read in place.
			transcripts, err := filepath.Abs("../../testdata/transcripts")
			if err != nil {
				return err
			}
			e.Setenv("TRANSCRIPTS", transcripts)
			// Codex's published hook schemas (vendored test data).
			schemas, err := filepath.Abs("../../internal/agent/codex/testdata/schema")
			if err != nil {
				return err
			}
			e.Setenv("CODEX_SCHEMAS", schemas)
			// Agents' session files in upstream's shapes
			// (testdata/agents/README.md names each one's source).
			fixtures, err := filepath.Abs("../../testdata/agents")
			if err != nil {
				return err
			}
			e.Setenv("AGENT_FIXTURES", fixtures)
			// init and doctor run each agent's --version: never the
			// machine's own agents. Every agent is a stub that is not
			// installed; a script that wants one writes its own in
			// $AGENTS_BIN.
			bin := filepath.Join(e.WorkDir, ".agents-bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				return err
			}
			for _, name := range []string{"claude", "codex", "gemini", "cursor", "copilot"} {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 127\n"), 0o755); err != nil {
					return err
				}
			}
			e.Setenv("AGENTS_BIN", bin)
			e.Setenv("PATH", bin+string(filepath.ListSeparator)+e.Getenv("PATH"))
			return nil
		},
	}
}

// cmdExits runs a command and checks its exact exit code, which plain
// `! exec` cannot: `exits 2 devlearn bad-args`. Its stdout and stderr are
// then checked as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdCrash runs devlearn built with the devlearn_crash tag and stops it
// dead at a write point, as kill -9 would: `crash 'merge:file-written#3'
// task done cart`. A run that is not stopped (no such point) fails.
func cmdCrash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: crash POINT#N devlearn-args...")
	}
	if runtime.GOOS == "windows" {
		ts.Fatalf("crash uses POSIX process exits: skip this script on windows ([!windows] crash ...)")
	}
	bin, err := buildCrashBinary()
	if err != nil {
		ts.Fatalf("%v", err)
	}
	ts.Setenv("DEVLEARN_CRASH_AT", args[0])
	err = ts.Exec(bin, args[1:]...)
	ts.Setenv("DEVLEARN_CRASH_AT", "")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 137 {
		ts.Fatalf("devlearn %v was not stopped at %s (%v)", args[1:], args[0], err)
	}
}

// cmdExpand replaces $VAR and ${VAR} in files with the script's
// environment, so that hook input and transcripts can name $WORK paths
// the way Claude Code writes absolute ones: `expand in.json s1.jsonl`.
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, a := range args {
		p := ts.MkAbs(a)
		data, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, []byte(os.Expand(string(data), ts.Getenv)), 0o644))
	}
}

// cmdWaitFile waits (up to 60 s) until a file exists: a background
// command's progress, such as a fake model that is now hanging.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH")
	}
	p := ts.MkAbs(args[0])
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(p); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s never appeared", p)
		}
	}
}

// Locks the script holds, as another process would: `lock PATH` takes
// the flock at PATH (a worker running, say) and `unlock PATH` releases it;
// the script's end releases whatever is still held.
var (
	locksMu sync.Mutex
	locks   = map[string]*flock.Flock{}
)

func cmdLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lock PATH")
	}
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	fl := flock.New(p)
	ok, err := fl.TryLock()
	ts.Check(err)
	if !ok {
		ts.Fatalf("lock %s: held by another process", p)
	}
	locksMu.Lock()
	locks[p] = fl
	locksMu.Unlock()
	ts.Defer(func() { fl.Unlock() })
}

func cmdUnlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unlock PATH")
	}
	p := ts.MkAbs(args[0])
	locksMu.Lock()
	fl := locks[p]
	delete(locks, p)
	locksMu.Unlock()
	if fl == nil {
		ts.Fatalf("unlock %s: not locked by this script", p)
	}
	ts.Check(fl.Unlock())
}

// isolateHome points $HOME and $DEVLEARN_HOME at a folder of the test
// run's own, so that a test that forgets to set them (a binary started
// with os.Environ(), say) never reaches the real ~/.devlearn or ~/.claude.
func isolateHome() {
	// The go command a test starts (buildBinary) keeps this machine's
	// build and module caches: under the fresh home it would build every
	// package from nothing and fetch every module again, minutes on a
	// small machine and a failure on one without a network.
	if os.Getenv("GOCACHE") == "" {
		if d, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(d, "go-build"))
		}
	}
	if os.Getenv("GOPATH") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			os.Setenv("GOPATH", filepath.Join(h, "go"))
		}
	}
	dir, err := os.MkdirTemp("", "devlearn-test-home-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"HOME": dir, "DEVLEARN_HOME": filepath.Join(dir, ".devlearn"), "CLAUDE_CONFIG_DIR": filepath.Join(dir, ".claude"),
		"GIT_CONFIG_GLOBAL": filepath.Join(dir, ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
	} {
		os.Setenv(k, v)
	}
}
