package hookcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// WorkerLogPath is the worker's log in the per-clone state.
func WorkerLogPath(p *project.Project) string { return p.StatePath("logs", "worker.log") }

// StartWorker starts `devlearn worker` in the project's root, detached
// (its own session, stdin from /dev/null, output to the worker log, the
// environment passed through), and returns without waiting. With
// DEVLEARN_WORKER=wait it waits for the worker to end (tests, debugging);
// with DEVLEARN_WORKER=off it starts none and the spool waits.
func StartWorker(env *Env, p *project.Project) error {
	mode := env.Getenv("DEVLEARN_WORKER")
	if mode == "off" {
		return nil
	}
	exe, err := env.Devlearn()
	if err != nil {
		return err
	}
	logPath := WorkerLogPath(p)
	if err := safefile.MkdirAll(p.CommonDir, filepath.Dir(logPath), 0o700); err != nil {
		return err
	}
	out, err := safefile.OpenFile(p.CommonDir, logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer out.Close() // the worker has its own copy
	cmd := &exec.Cmd{
		Path:        exe,
		Args:        []string{"devlearn", "worker"},
		Dir:         p.Root,
		Stdout:      out,
		Stderr:      out,
		SysProcAttr: detached(),
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if mode == "wait" {
		return cmd.Wait()
	}
	return cmd.Process.Release()
}

// SiblingDevlearn finds the devlearn binary for a devlearn-hook process:
// the one installed beside it (`make build` and `go install ./cmd/...`
// put both in one folder, of the same version), else the first on PATH.
func SiblingDevlearn() (string, error) {
	name := "devlearn" + exeSuffix()
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("devlearn")
	if err != nil {
		return "", fmt.Errorf("no devlearn binary beside devlearn-hook or on PATH to run the worker (the sessions stay spooled): %w", err)
	}
	return p, nil
}
