//go:build !linux

package evolve

import (
	"os"
	"path/filepath"
)

// syncBatch fsyncs each file of the batch and its folder where the system
// has no syncfs.
func syncBatch(_ string, paths func() []string) error {
	dirs := map[string]bool{}
	for _, p := range paths() {
		if f, err := os.Open(p); err == nil {
			f.Sync()
			f.Close()
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if f, err := os.Open(d); err == nil {
			f.Sync()
			f.Close()
		}
	}
	return nil
}
