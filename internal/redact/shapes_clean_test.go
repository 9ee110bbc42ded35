package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestShapesClean runs the shape rules (card numbers, IBANs, bare AWS
// secret keys) over every real session the repository holds, as the
// transcript reader hands their strings to Text: none of them holds a
// card number, an IBAN or an AWS key, so every finding is a false
// positive. DEVLEARN_SHAPES_CLEAN adds folders (a path list) to scan.
func TestShapesClean(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("reads megabytes of sessions")
	}
	dirs := []string{"../../testdata/redact", "../../testdata/genuine", "../../testdata/transcripts"}
	if more := os.Getenv("DEVLEARN_SHAPES_CLEAN"); more != "" {
		dirs = append(dirs, filepath.SplitList(more)...)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var files, texts, size, hits int
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			name := strings.TrimSuffix(d.Name(), ".zst")
			if path == corpusPath || !strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".zst") {
				if data, err = dec.DecodeAll(data, nil); err != nil {
					return err
				}
			}
			files++
			size += len(data)
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for n := 1; sc.Scan(); n++ {
				var v any
				line := sc.Text()
				var strs []string
				if json.Unmarshal(sc.Bytes(), &v) == nil {
					strs = jsonStrings(v, nil)
				} else {
					strs = []string{line}
				}
				for _, s := range strs {
					texts++
					for _, c := range findShapes(s, nil) {
						hits++
						t.Errorf("%s:%d: %s %q", path, n, c.Rule, s[max(0, c.Start-30):min(len(s), c.End+30)])
					}
				}
			}
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d MB, %d strings: %d findings", files, size>>20, texts, hits)
}

// jsonStrings appends every string in a decoded JSON value, keys too.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, x := range v {
			out = jsonStrings(x, out)
		}
	case map[string]any:
		for k, x := range v {
			out = append(out, k)
			out = jsonStrings(x, out)
		}
	}
	return out
}
