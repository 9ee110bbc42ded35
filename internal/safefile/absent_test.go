package safefile

import (
	"path/filepath"
	"testing"
)

// Below is strictly below a folder: not the folder itself, not a folder
// whose name only starts the same.
func TestAbsentBelow(t *testing.T) {
	dir := filepath.Join("r", ".claude", "skills")
	a := Absent{dir}
	for path, want := range map[string]bool{
		filepath.Join(dir, "a", "SKILL.md"): true,
		filepath.Join(dir, "x.md"):          true,
		dir:                                 false,
		dir + "-other":                      false,
		filepath.Join(dir+"-other", "x.md"): false,
		filepath.Join("r", ".claude"):       false,
	} {
		if got := a.Below(path); got != want {
			t.Errorf("Below(%q) = %v, want %v", path, got, want)
		}
	}
	if (Absent{}).Below(dir) {
		t.Error("an empty Absent holds something")
	}
}
