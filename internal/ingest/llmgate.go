package ingest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/trust"
)

// LLMGate decides whether the LLM extractor may run (contract 4): only when
// extractor.llm is on, and either the project's config file sets neither
// extractor.llm nor extractor.command (the command then comes from the
// global config, or devlearn's default) or the person has trusted that
// file as it is now. A cloned repository that turns the extractor on, or
// names its own command, runs nothing until `devlearn trust`. why says
// which, in words the worker log can show.
func LLMGate(cfg *config.Config, home, projectConfigPath string) (ok bool, why string, err error) {
	if !cfg.Extractor.LLM {
		return false, "extractor.llm is off", nil
	}
	sets, err := setsExtractor(projectConfigPath)
	if err != nil {
		return false, "", err
	}
	if !sets {
		return true, "extractor.llm is on in the global config", nil
	}
	trusted, why, err := trust.Check(home, projectConfigPath)
	if err != nil {
		return false, "", err
	}
	if !trusted {
		return false, "the LLM extractor is set in the project config, which is not trusted: " + why, nil
	}
	return true, "the project config is " + why, nil
}

// setsExtractor reports whether a project config file sets
// extractor.llm or extractor.command.
func setsExtractor(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var c struct {
		Extractor map[string]json.RawMessage `json:"extractor"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return false, err // config.Load has refused the file already
	}
	_, llm := c.Extractor["llm"]
	_, cmd := c.Extractor["command"]
	return llm || cmd, nil
}
