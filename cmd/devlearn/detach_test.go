package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/worker"
)

// The SessionEnd hook returns, and its output closes, while the worker it
// started is still running: Claude Code waits for the hook's stdout to
// close, so a worker that kept it open would hold the session's exit for
// the whole batch. The test keeps the worker busy by holding the
// observation log's lock, checks the hook is long gone, then lets the
// worker finish and waits for it, so that nothing outlives the test.
func TestSessionEndReturnsBeforeTheWorker(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the worker detaches with setsid")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	home, env := isolatedEnv(dir)
	claude := filepath.Join(home, ".claude")
	run := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("", "git", "init", "-q")
	run("", bin, "init")
	os.WriteFile(filepath.Join(dir, ".memory/learning.json"), []byte(`{"worker": {"batch_size": 1, "debounce_seconds": 0}}`), 0o644)
	id := "0d7e3f1a-2b4c-4d6e-8f01-23456789abcd"
	tr := filepath.Join(claude, "projects", "p", id+".jsonl")
	os.MkdirAll(filepath.Dir(tr), 0o755)
	rec := func(n int, typ, content string) string {
		return fmt.Sprintf(`{"type":%q,"uuid":"u%d","sessionId":%q,"cwd":%q,"timestamp":"2026-05-10T09:00:0%dZ","message":{"role":%q,"content":%q}}`, typ, n, id, dir, n, typ, content)
	}
	os.WriteFile(tr, []byte(rec(1, "user", "Add the flag")+"\n"+rec(2, "assistant", "Added.")+"\n"+rec(3, "user", "You forgot to update CHANGELOG.md.")+"\n"), 0o644)

	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	unlockLog, ok, err := jsonl.TryLock(p.LockPath(project.LogFile))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			unlockLog()
		}
	}
	defer release()
	st := worker.For(p)

	hook := exec.Command(bin, "hook", "session-end")
	hook.Dir, hook.Env = dir, env
	hook.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"SessionEnd","reason":"other"}`, id, tr, dir))
	stdout, err := hook.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	hook.Stderr = &stderr
	start := time.Now()
	if err := hook.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(stdout); read <- b }() // EOF only once every holder of the pipe is gone
	var out []byte
	select {
	case out = <-read:
	case <-time.After(10 * time.Second):
		release() // let the worker finish, so that nothing outlives the test
		<-read
		t.Fatal("the hook's stdout stayed open: the worker holds it")
	}
	if err := hook.Wait(); err != nil {
		t.Fatalf("hook: %v: %s", err, stderr.String())
	}
	took := time.Since(start)
	if len(out) != 0 || stderr.Len() != 0 {
		t.Fatalf("the hook printed %q / %q", out, stderr.String())
	}
	// The worker is running, waiting for the log's lock: its last.json
	// says so. It is watched without taking its lock: a probe holding the
	// lock at the moment the worker starts made that worker exit ("another
	// worker is running") under load.
	busy := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if last, err := st.Last(); err == nil && last != nil && last.Outcome == worker.OutcomeRunning {
			busy = true
			break
		}
	}
	if !busy {
		log, _ := os.ReadFile(p.StatePath("logs", "worker.log"))
		t.Fatalf("no worker started (took %v); worker log: %s", took, log)
	}
	if took > 2*time.Second {
		t.Fatalf("the hook took %v", took)
	}
	// last.json is written before the worker asks for the log, so it must
	// appear while the log is locked, and say running: a missing file
	// passing here would hide a worker that never records its run.
	var last *worker.Run
	for deadline := time.Now().Add(10 * time.Second); last == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		last, _ = st.Last()
	}
	if last == nil || last.Outcome != worker.OutcomeRunning {
		t.Fatalf("while the log was locked, last.json said %+v", last)
	}

	release()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not finish")
		}
		if l, err := st.Last(); err == nil && l != nil && l.Outcome != worker.OutcomeRunning {
			break
		}
	}
	last, err = st.Last()
	if err != nil || last.Outcome != "ok" || last.Sessions != 1 || last.Observations == 0 {
		t.Fatalf("last run: %+v %v", last, err)
	}
}

// A script that silences devlearn gives it /dev/null, a character device
// but no terminal: init must not take it for a person and wait for an
// answer.
func TestInitWithDevNullReturns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	_, env := isolatedEnv(dir)
	gitInit(t, dir, env)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	out, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for _, args := range [][]string{{"init"}, {"trust"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout = dir, env, null, out
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if args[0] == "init" && err != nil {
				t.Fatalf("devlearn init </dev/null >/dev/null: %v\n%s", err, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("devlearn %s </dev/null >/dev/null is still running after 30 s: it takes /dev/null for a terminal and waits for an answer", args[0])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".memory", "learning.json")); err != nil {
		t.Fatalf("init wrote no config: %v", err)
	}
}

// isolatedEnv is the environment of a devlearn run in the working tree
// dir that reads and writes nothing of the person's: its home (returned),
// devlearn's and Claude Code's folders and git's configuration are under
// dir.
func isolatedEnv(dir string) (home string, env []string) {
	home = filepath.Join(dir, ".home")
	return home, []string{
		"HOME=" + home, "DEVLEARN_HOME=" + filepath.Join(home, ".devlearn"), "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + filepath.Join(home, ".gitconfig"), "PATH=" + os.Getenv("PATH"),
	}
}

// A pty with no window, whose writer has nothing to send (`script` run by
// a CI job with its input redirected), is a terminal no one looks at:
// init must not draw its question there and wait for ever.
func TestInitOnAWindowlessTerminalReturns(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil || runtime.GOOS != "linux" {
		t.Skip("needs util-linux script")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	_, env := isolatedEnv(dir)
	gitInit(t, dir, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", bin+" init", os.DevNull)
	// script is killed at the deadline, not devlearn under it, which
	// holds the output open: stop waiting for it.
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 5*time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("devlearn init on a windowless pty is still running after 30 s:\n%.600q", out)
	}
	if err != nil {
		t.Fatalf("devlearn init on a windowless pty: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".memory", "learning.json")); err != nil {
		t.Fatalf("init wrote no config: %v\n%s", err, out)
	}
}

// gitInit makes dir a git repository, in the test's own environment.
func gitInit(t *testing.T, dir string, env []string) {
	t.Helper()
	git := exec.Command("git", "init", "-q")
	git.Dir, git.Env = dir, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}
