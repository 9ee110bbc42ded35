//go:build unix && !linux

package safefile

import (
	"io/fs"
	"os"
)

// WriteFileStat is WriteFile that also returns the file's stat as written.
func (t *Tree) WriteFileStat(path string, data []byte, perm os.FileMode) (fs.FileInfo, error) {
	f, err := t.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	return writeStatClose(f, data)
}
