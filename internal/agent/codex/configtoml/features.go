// Features reads the [features] table of a Codex config.toml for the
// switch that runs hooks: "hooks", and "codex_hooks", its name before
// Codex 0.129 and a deprecated alias since. Before Codex 0.124 hooks are
// off unless codex_hooks = true; from 0.124 they are on unless switched
// off.

package configtoml

import (
	"errors"
	"io/fs"
	"os"

	"github.com/pelletier/go-toml/v2"
)

// HooksFeatures are the names of the switch, the canonical one first.
var HooksFeatures = []string{"hooks", "codex_hooks"}

// readFeatures gives the hooks switches a config.toml's text sets to a boolean,
// by key.
func readFeatures(data []byte) (map[string]bool, error) {
	var c struct {
		Features map[string]any `toml:"features"`
	}
	if err := toml.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, k := range HooksFeatures {
		if v, ok := c.Features[k].(bool); ok {
			out[k] = v
		}
	}
	return out, nil
}

// Features is readFeatures of the file at path; a missing file sets nothing.
func Features(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return readFeatures(data)
}

// OptedIn reports whether a Codex before 0.124 runs hooks with these
// files (the project's, then the user's: the first that sets codex_hooks
// decides), and the file that said so. Only codex_hooks counts: "hooks"
// is the later name, unknown to those versions. A file that cannot be
// read or parsed sets nothing.
func OptedIn(paths ...string) (bool, string) {
	for _, p := range paths {
		if s, err := Features(p); err == nil {
			if v, ok := s["codex_hooks"]; ok {
				return v, p
			}
		}
	}
	return false, ""
}
