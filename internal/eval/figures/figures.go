// Package figures keeps a measurement's figures in a JSON file, for the
// eval commands: saved by one run (-save), read by a later one (-before)
// to print each figure beside the one it replaces.
package figures

import (
	"encoding/json"
	"fmt"
	"os"
)

// Save writes v to path as indented JSON.
func Save(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Load reads what Save wrote; an error names the file.
func Load[T any](path string) (*T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &v, nil
}

// Print writes v to standard output as indented JSON (-json).
func Print(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
