package sessions

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
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

// A tool result nested far deeper than a part list is read to a few
// levels: each level read copied everything below it, and a 1 MB result
// nested 4,000 deep took 4 GB.
func TestGeminiTextIsReadToABoundedDepth(t *testing.T) {
	deep := strings.Repeat("[", 4000) + `"` + strings.Repeat("A", 1<<20) + `"` + strings.Repeat("]", 4000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	geminiText(jsontext.Value(deep))
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Fatalf("%d MB allocated for a 1 MB value", n>>20)
	}
	if got := geminiText(jsontext.Value(`[{"text":"a"},["b"],"c"]`)); got != "a\nb\nc" {
		t.Fatalf("a part list: %q", got)
	}
}
