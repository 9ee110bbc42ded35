package llm

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/trust"
)

// Permit decides whether the extractor may run for a project (contract 4).
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

// setsExtractor reports whether the config file at path needs trust.
func setsExtractor(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return ConfigNeedsTrust(data), nil
}

// ConfigNeedsTrust reports whether a project config's content sets any
// extractor key, and so is honoured by Permit only once trusted. It is
// the one answer: doctor, trust and configure ask it too, so that none of
// them tells a person a file needs no trust that Permit then refuses.
func ConfigNeedsTrust(data []byte) bool {
	var raw struct {
		Extractor map[string]json.RawMessage `json:"extractor"`
	}
	if json.Unmarshal(data, &raw) != nil {
		// Unreadable: config.Load has refused it already; count it as
		// setting everything, so only trust lets it run anything.
		return true
	}
	return len(raw.Extractor) > 0
}

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
