package debugdump

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestKeepRedactsEveryStringAndPrunes(t *testing.T) {
	dir := t.TempDir()
	red := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED]") }
	in := map[string]any{"prompt": "the key is s3cret", "nested": []any{map[string]string{"k": "s3cret"}}}
	if err := Keep(dir, dir, "../escape", "prompt/x", time.Unix(0, 0), in, []string{"s3cret"}, red); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, safe("../escape"), "prompt_x.json"))
	if safe("../escape") != "x.._escape" {
		t.Fatalf("a session id names a folder of its own: %q", safe("../escape"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "s3cret") || strings.Count(string(data), "[REDACTED]") != 3 {
		t.Fatalf("%s", data)
	}
	for i := 0; i < MaxSessions+5; i++ {
		if err := Keep(dir, dir, fmt.Sprintf("s%03d", i), "rules", time.Unix(0, 0), "in", "out", red); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(dir, fmt.Sprintf("s%03d", i)), time.Unix(int64(1000+i), 0), time.Unix(int64(1000+i), 0))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != MaxSessions {
		t.Fatalf("%d session folders kept, want %d", len(ents), MaxSessions)
	}
}
