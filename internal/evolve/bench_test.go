package evolve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

// BenchmarkApply is the one writer's cost for a batch that replaces n
// small files (a render's artifacts, the Stop hook's candidate entries):
// the lock, the copies kept of what is replaced and written, the
// temporary files, two syncs, the audit entry.
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := b.TempDir()
			os.MkdirAll(filepath.Join(root, ".git"), 0o755)
			p, err := project.Find(root)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			at := time.Date(2026, 5, 9, 9, 0, 0, 0, time.UTC)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				changes := make([]Change, n)
				for j := range changes {
					changes[j] = Change{Path: fmt.Sprintf("dir/f%d.md", j), Data: []byte(fmt.Sprintf("---\nkey: f%d\n---\nversion %d of a small artifact\n", j, i))}
				}
				if _, err := New(p, at, Trigger{Command: "bench"}).Apply(ctx, Reason{Text: "bench"}, changes...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
