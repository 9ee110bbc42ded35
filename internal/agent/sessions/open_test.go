package sessions

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every session file is opened through safefile.OpenRegular or
// ReadRegular: a FIFO among a tool's session files (or named to ingest)
// would block ingest, or the worker while it holds its lock, for ever.
func TestSessionFilesOpenOnlyRegularFiles(t *testing.T) {
	direct := regexp.MustCompile(`\bos\.(Open|ReadFile|OpenFile)\(`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if direct.MatchString(line) {
				t.Errorf("%s:%d: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
