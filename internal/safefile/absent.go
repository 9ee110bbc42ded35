package safefile

import (
	"path/filepath"
	"strings"
)

// Absent holds folders found missing, so that nothing below one is looked
// for again: a first render plans and writes hundreds of files in folders
// that do not exist yet, and each look was a failed system call. It is a
// snapshot: whoever creates a folder in it forgets it.
type Absent []string

// Below reports whether path lies strictly below a folder of a.
func (a Absent) Below(path string) bool {
	for _, dir := range a {
		if len(path) > len(dir) && path[len(dir)] == filepath.Separator && strings.HasPrefix(path, dir) {
			return true
		}
	}
	return false
}
