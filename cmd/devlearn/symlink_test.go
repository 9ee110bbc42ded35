package main

import (
	"os"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/project"
)

// symlink_write.txtar commits a link at every file and folder devlearn
// writes in a project; the list is internal/project's Written (itself
// checked against every file name that package gives), so a file added
// there and not here fails this test.
func TestSymlinkScriptCoversEveryWrittenFile(t *testing.T) {
	data, err := os.ReadFile("../../testdata/script/symlink_write.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range project.Written {
		if !strings.Contains(string(data), "\nsymlink "+rel+" -> ") || !strings.Contains(string(data), "'^  "+rel+" -> ") {
			t.Errorf("symlink_write.txtar does not commit a link at %s and check that init names it", rel)
		}
	}
}
