package llm

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/trust"
)

// Permit decides whether the extractor may run for a project (the trust rule, docs/architecture.md).
// It runs only when extractor.llm is on and names a command, and, when the
// project's own config file sets any extractor key, only if that file is
// trusted on this machine: a cloned repository must not be able to start a
// command, nor turn on one that sends its sessions to a model, by itself.
// Settings from the global config need no trust. why says what to do when
// it may not run.
func Permit(cfg *config.Config, home, projectConfigPath string) (ok bool, why string, err error) {
	if !cfg.Extractor.LLM {
		return false, "extractor.llm is off", nil
	}
	if len(cfg.Extractor.Command) == 0 || cfg.Extractor.Command[0] == "" {
		return false, "extractor.command is empty", nil
	}
	sets, err := setsExtractor(projectConfigPath)
	if err != nil {
		return false, "", err
	}
	if !sets {
		return true, "the extractor is set by the global config", nil
	}
	trusted, why, err := trust.Check(home, projectConfigPath)
	if err != nil || !trusted {
		return false, why, err
	}
	return true, "the project config is " + why, nil
}

// setsExtractor reports whether the config file at path sets extractor
// keys, which Permit honours only once the file is trusted.
func setsExtractor(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return trust.ConfigSets(data).Extractor, nil
}

// ConfigNeedsTrust is trust.ConfigNeedsTrust, the one rule, under the name
// its first callers know.
func ConfigNeedsTrust(data []byte) bool { return trust.ConfigNeedsTrust(data) }

// FromConfig returns the runner the config describes. env is the
// environment the command starts from (the guard is added), log receives
// what was dropped, dir is its working folder.
func FromConfig(c config.Extractor, env []string, dir string, log io.Writer) *Runner {
	return &Runner{
		Command: c.Command,
		Model:   c.Model,
		Timeout: time.Duration(c.TimeoutSeconds) * time.Second,
		Env:     env,
		Log:     log,
		Dir:     dir,
	}
}
