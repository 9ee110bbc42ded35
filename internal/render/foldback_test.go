package render

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/devlearn/devlearn/internal/binfield"
	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
)

// cachedThrough is how many bytes of the log the fold cache at path says
// it folded (docs/caches.md: the magic, the program, then the prefix's
// size), -1 when there is no cache.
func cachedThrough(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return -1
	}
	const magic = "devlearn fold cache\x00"
	if err != nil || !strings.HasPrefix(string(data), magic) {
		t.Fatalf("fold cache %s: %v", path, err)
	}
	d := binfield.Decoder{S: string(data[len(magic):])}
	d.Str()
	n := d.Uint()
	if d.Err != nil {
		t.Fatalf("fold cache %s: %v", path, d.Err)
	}
	return int64(n)
}

// A bulk render writes the fold cache back covering the lines it appended
// itself, so that the reconcile after it (and every run until the next
// append) folds nothing new; and the cache it wrote is the log's fold.
func TestRenderWritesTheFoldCacheThroughItsOwnLines(t *testing.T) {
	cfg := config.Default()
	cfg.Knowledge.SoftCap = 1 << 30
	dir := t.TempDir()
	r := newRenderer(t, dir, devflowLog(2_000, 10), goldenNow, cfg)
	r.Log = observe.ProjectStore(r.Proj)
	res, err := r.Run(context.Background())
	if err != nil || len(res.Rendered) != 200 {
		t.Fatalf("rendered %d: %v", len(res.Rendered), err)
	}
	fi, err := os.Stat(r.Proj.Path(project.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := cachedThrough(t, r.Log.Cache.Path); got != fi.Size() {
		t.Fatalf("the fold cache covers %d bytes of the %d-byte log after the render", got, fi.Size())
	}
	cached, err := r.Log.Load()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := observe.LoadFile(r.Log.Path)
	if err != nil {
		t.Fatal(err)
	}
	all := func(l *observe.Log) string {
		b, _ := json.Marshal(l.Observations(goldenNow, cfg))
		return string(b)
	}
	if all(cached) != all(fresh) || cached.Lines != fresh.Lines {
		t.Fatal("the log read through the cache the render wrote differs from a fresh fold")
	}
}
